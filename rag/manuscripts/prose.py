"""The text a reader reads, with each citation held in place by one mark character.

A reader turns markup into prose and records each citation command as it meets it; in the prose the
command becomes one character of Unicode's private use planes that encodes its number, so the sentence
splitter knows which sentence holds it and footnotes can be moved without losing track of it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rag.manuscripts.citing import Cite, Context

# Planes 15 and 16 are private use: no real text contains them (and no abbreviation rule matches them).
MARK_BASE = 0xF0000
MAX_MARKS = 0x10FFFD - MARK_BASE
# A footnote is read as its own sentences after the paragraph it interrupts.
FOOTNOTE_OPEN = "\ue001"
FOOTNOTE_CLOSE = "\ue002"
PARAGRAPH = "\n\n"
# A paragraph that is not prose (a table row, a caption, a heading ...) holds the mark of its context.
_CONTEXT_BASE = 0xE010
CONTEXT_MARKS = {context: chr(_CONTEXT_BASE + n) for n, context in enumerate(Context)}
_CONTEXTS = {mark: context for context, mark in CONTEXT_MARKS.items()}


# Every mark a reader puts in the prose: citations, footnotes' ends, paragraphs' contexts.
_ANY_MARK = re.compile(
    f"[{chr(MARK_BASE)}-{chr(MARK_BASE + MAX_MARKS)}{FOOTNOTE_OPEN}{FOOTNOTE_CLOSE}{''.join(CONTEXT_MARKS.values())}]"
)


def without_marks(prose: str) -> str:
    """The prose with each mark a space: its words only."""
    return _ANY_MARK.sub(" ", prose)


def paragraph(context: Context) -> str:
    """A paragraph break, then the mark saying what the paragraph that follows is."""
    return PARAGRAPH + CONTEXT_MARKS[context]


def context_of(text: str) -> tuple[Context, str]:
    """The context a paragraph's first mark names (prose when none), and the text without the marks."""
    found = [_CONTEXTS[char] for char in text if char in _CONTEXTS]
    if not found:
        return Context.PROSE, text
    return found[0], "".join(char for char in text if char not in _CONTEXTS)


def is_mark(char: str) -> bool:
    return ord(char) >= MARK_BASE


@dataclass
class Marks:
    """The citation commands met so far, in the order met; ``place`` gives the character standing for one."""

    groups: list[list[Cite]] = field(default_factory=list)
    overflowed: bool = False

    def place(self, cites: Sequence[Cite]) -> str:
        if not cites:
            return ""
        if len(self.groups) >= MAX_MARKS:
            self.overflowed = True
            return ""
        self.groups.append(list(cites))
        return chr(MARK_BASE + len(self.groups) - 1)

    def group(self, mark: str) -> list[Cite]:
        """The citations one mark stands for."""
        return self.groups[ord(mark) - MARK_BASE]

    def cites_in(self, text: str) -> list[Cite]:
        """Every citation the marks in ``text`` stand for, in order: a key cited twice is there twice."""
        return [cite for char in text if is_mark(char) for cite in self.groups[ord(char) - MARK_BASE]]


class Lines:
    """Offsets in a text -> 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def start(self, line: int) -> int:
        """Offset of the first character of 0-based ``line``."""
        return self._starts[min(line, len(self._starts) - 1)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1


def blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with every character of ``spans`` but newlines made a space: offsets, lines and columns stay."""
    out, last = [], 0
    for start, end in sorted(spans):
        start = max(start, last)
        if end <= start:
            continue
        out.append(text[last:start])
        out.append(re.sub(r"[^\n]", " ", text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


def apply_edits(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, replacement) applied; an edit overlapping an earlier one is left out."""
    out, last = [], 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < last:
            continue
        out += [text[last:start], replacement]
        last = end
    out.append(text[last:])
    return "".join(out)
