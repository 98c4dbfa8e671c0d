"""Where things are, in the protocol's terms: a citation's range (LSP counts 0-based lines and characters in
the client's code units, UTF-16 by default; rag.manuscripts counts 1-based lines and columns in code points,
lines split at "\\n" only), and where a key is being written (inside ``\\cite{``, after ``[@``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace import PositionCodec

from rag.manuscripts.citing import Cite

# Inside any natbib/biblatex citation command's braces: \cite, \citep, \citet*, \parencite, \textcite,
# \autocite[see][12]{a,b, \cites{a}{b ... ; group 1 is what the braces hold so far.
_LATEX_OPEN = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?(?:\s*\[[^\]\n]*\]){0,2}(?:\s*\{[^{}\n]*\})*\s*\{([^{}\n]*)$")
# A Pandoc key being written: [@, [-@, ; @ or a bare @ after a space; group 1 is the key so far.
_PANDOC_OPEN = re.compile(r"(?:^|[\s\[;(])-?@\{?([\w:.#$%&+?<>~/-]*)$")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?(?:\s*\[[^\]]*\])*(?:\s*\{[^{}]*\})?")
_PANDOC_CITE = re.compile(r"\[[^\]]*@[^\]]*\]?|-?@[\w{][^\s\];,]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\])")
# At most this many characters stand between a citation's column and its key ("-@{").
KEY_LEAD = 3
# How much of the paragraph before the cursor is read for the sentence being written.
MAX_CONTEXT_CHARS = 2_000


def lines_of(text: str) -> list[str]:
    """The text's lines as rag.manuscripts counts them (split at "\\n" only; a "\\r" stays at a line's end)."""
    return text.split("\n")


def key_span(lines: list[str], cite: Cite) -> tuple[int, int, int]:
    """(0-based line, first and past-last code point) of the key in ``lines``; where a macro wrote the
    citation (the key is not written there), the one character where the macro stands."""
    line = min(max(cite.line - 1, 0), max(len(lines) - 1, 0))
    text = lines[line] if lines else ""
    start = min(max(cite.column - 1, 0), len(text))
    # LaTeX's column is the key's own; Pandoc's the "@" (or "-@", "@{") just before it.
    found = text.find(cite.key, start, start + len(cite.key) + KEY_LEAD)
    if found >= 0:
        return line, found, found + len(cite.key)
    return line, start, min(start + 1, len(text))


def to_range(lines: list[str], span: tuple[int, int, int], codec: PositionCodec) -> types.Range:
    line, start, end = span
    text = lines[line] if line < len(lines) else ""
    return types.Range(
        start=types.Position(line=line, character=codec.client_num_units(text[:start])),
        end=types.Position(line=line, character=codec.client_num_units(text[:end])),
    )


def cite_range(lines: list[str], cite: Cite, codec: PositionCodec) -> types.Range:
    return to_range(lines, key_span(lines, cite), codec)


def server_column(lines: list[str], position: types.Position, codec: PositionCodec) -> int:
    """The client's character offset on its line as a code point index."""
    text = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(text):
        if units >= position.character:
            return index
        units += codec.client_num_units(char)
    return len(text)


@dataclass(frozen=True)
class KeyInProgress:
    """A key being written at the cursor: what is typed of it so far, and the sentence it is for."""

    prefix: str
    sentence: str


def key_in_progress(lines: list[str], line: int, column: int, latex: bool) -> KeyInProgress | None:
    """The key the cursor is writing (after ``\\cite{`` or a comma inside one; after ``@`` in Markdown)."""
    before = lines[line][:column] if line < len(lines) else ""
    if latex:
        found = _LATEX_OPEN.search(before)
        if found is None:
            return None
        prefix = found.group(1).rsplit(",", 1)[-1].strip()
    else:
        found = _PANDOC_OPEN.search(before)
        if found is None:
            return None
        prefix = found.group(1)
    return KeyInProgress(prefix, sentence_at(lines, line, found.start(), latex))


def sentence_at(lines: list[str], line: int, column: int, latex: bool) -> str:
    """The sentence a citation written at (line, column) is for: the paragraph's text around that point,
    markup and other citations removed, cut at the sentence ends on either side."""
    first = line
    while first > 0 and lines[first - 1].strip():
        first -= 1
    last = line
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    before = " ".join([*lines[first:line], lines[line][:column]])[-MAX_CONTEXT_CHARS:]
    after = " ".join([lines[line][column:], *lines[line + 1 : last + 1]])[:MAX_CONTEXT_CHARS]
    strip = _LATEX_COMMAND if latex else _PANDOC_CITE
    before, after = (" ".join(strip.sub(" ", part).split()) for part in (before, after))
    head = _SENTENCE_END.split(before)[-1] if before else ""
    # The citation closes the sentence before it ("... as shown.\cite{") when nothing follows on its side.
    if not head.strip(" .") and before:
        pieces = _SENTENCE_END.split(before)
        head = pieces[-2] if len(pieces) > 1 else before
    tail = _SENTENCE_END.split(after)[0] if after else ""
    return " ".join(f"{head} {tail}".split())
