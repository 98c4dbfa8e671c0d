"""Text assembled from pieces of several files (a LaTeX main file with the files it inputs, the macros it
expands), each character traceable to the file and offset where it was written.

A piece copied from a file keeps its offsets; a piece a macro wrote (its definition's text) stands, all of
it, where the macro was used: a citation a macro writes is reported where the macro is called.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    file: str
    offset: int  # in that file's text
    fixed: bool = False  # the whole piece stands at ``offset`` (text a macro expansion wrote)

    def at(self, delta: int) -> Origin:
        return self if self.fixed else Origin(self.file, self.offset + delta)


class Located:
    """A text and, for each of its pieces, where the piece was written."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._starts: list[int] = []
        self._origins: list[Origin] = []
        self.length = 0
        self._text: str | None = None

    @classmethod
    def of(cls, text: str, origin: Origin) -> Located:
        located = cls()
        located.add(text, origin)
        return located

    def add(self, text: str, origin: Origin) -> None:
        if not text:
            return
        self._parts.append(text)
        self._starts.append(self.length)
        self._origins.append(origin)
        self.length += len(text)
        self._text = None

    def extend(self, other: Located) -> None:
        for part, origin in zip(other._parts, other._origins, strict=True):
            self.add(part, origin)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._parts)
        return self._text

    def origin(self, offset: int) -> Origin:
        """Where the character at ``offset`` was written (the last one's place for an offset past the end)."""
        if not self._origins:
            return Origin("", 0, fixed=True)
        index = max(0, bisect.bisect_right(self._starts, offset) - 1)
        return self._origins[index].at(offset - self._starts[index])

    def slice(self, start: int, end: int | None = None) -> Located:
        end = self.length if end is None else min(end, self.length)
        out = Located()
        if start >= end:
            return out
        index = max(0, bisect.bisect_right(self._starts, start) - 1)
        while index < len(self._parts) and self._starts[index] < end:
            part_start = self._starts[index]
            low, high = max(start, part_start) - part_start, min(end, part_start + len(self._parts[index])) - part_start
            out.add(self._parts[index][low:high], self._origins[index].at(low))
            index += 1
        return out

    def replaced(self, edits: list[tuple[int, int, str]]) -> Located:
        """Each (start, end, text) put in place of that span; the new text stands where the span began."""
        out, last = Located(), 0
        for start, end, text in sorted(edits):
            if start < last:
                continue
            out.extend(self.slice(last, start))
            origin = self.origin(start)
            out.add(text, Origin(origin.file, origin.offset, fixed=True))
            last = end
        out.extend(self.slice(last))
        return out
