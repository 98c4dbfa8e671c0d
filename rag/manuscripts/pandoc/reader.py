"""Pandoc, Quarto and R Markdown manuscripts: ``[@a; @b, p. 3]``, ``[-@key]``, ``@key`` in the text, ``@{key}``.

The text is first blanked where it is not prose, without moving a character (so each citation keeps its
line and column): YAML front matter, code (fenced or indented: R and Python chunks, raw LaTeX blocks) and
inline code (`` `r x` ``), HTML comments, display math, Quarto shortcodes and attributes, fenced div
lines, link targets. rag.manuscripts.pandoc.blocks finds the blocks; each starts a paragraph of its own,
marked with what it is (heading, list item, table row, a figure's caption). A grid table's cells are read
whole, a citation in a cell that spans lines included. Quarto cross-references (``@fig-x``, ``@tbl-x``,
``@sec-x``, pandoc-crossref's ``@fig:x`` ...) are not citations. Footnotes (``^[...]``) are read after
the paragraph they interrupt. A key's position is that of its ``@``. The bibliography the front matter
names (``bibliography:``, a name or a list) is found like LaTeX's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.abbreviations import definitions
from rag.manuscripts.citing import Cite, Context, Manuscript, Syntax
from rag.manuscripts.metadata import FRONT_MATTER, front_matter, names
from rag.manuscripts.pandoc.blocks import Blocks, GridTable, blocks
from rag.manuscripts.pandoc.includes import with_includes
from rag.manuscripts.prose import (
    FOOTNOTE_CLOSE,
    FOOTNOTE_OPEN,
    PARAGRAPH,
    Lines,
    Marks,
    apply_edits,
    blank,
    paragraph,
    without_marks,
)
from rag.manuscripts.sentences import citing_sentences
from rag.manuscripts.sources import Finder, find_bibliographies

# Pandoc's key: a letter, digit or _, then alphanumerics and internal punctuation; anything goes in @{...}.
_KEY = r"(?:\{(?P<braced>[^{}]*)\}|(?P<bare>\w(?:\w|[:.#$%&+?<>~/-](?=\w))*))"
_IN_BRACKETS = re.compile(rf"(?:(?<=[\s;\[])|^)(?P<dash>-?)@{_KEY}")
_IN_TEXT = re.compile(rf"(?<![\w@\\\]\[-])@{_KEY}(?P<locator>[ \t]?\[[^\[\]@\n]*\](?![(\[{{:]))?")
_BRACKETED = re.compile(r"(?<![\\!^\]])\[(?P<body>[^\[\]]*@[^\[\]]*)\](?![(\[{])")
_CROSS_REFERENCE = re.compile(
    r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|tip|nte|wrn|imp|cau|apx)[-:]", re.IGNORECASE
)
# Within one paragraph: a stray backtick or "$$" must not blank the rest of the file.
_NO_BLANK_LINE = r"(?:[^\n]|\n(?![ \t]*\n))"
_NOT_PROSE = re.compile(
    r"<!--.*?-->"  # HTML comments
    rf"|\$\${_NO_BLANK_LINE}*?\$\$"  # display math
    rf"|(?P<ticks>`+)(?!`){_NO_BLANK_LINE}*?(?<!`)(?P=ticks)(?!`)"  # inline code, `r ...` included
    r"|\{\{<.*?>\}\}"  # Quarto shortcodes
    r"|\{[#.:=][^{}\n]*\}"  # attributes: {#sec-intro}, {.unnumbered}, {=latex}
    r"|!\[[^\[\]\n]*\]\([^()\n]*\)"  # images
    r"|^[ \t]*:{3,}[^\n]*$",  # fenced div lines (indented or not)
    re.DOTALL | re.MULTILINE,
)
# Inline code that names something (a task, a package, a function): one word of at most this many characters.
_CODE_NAME = re.compile(r"[A-Za-z][\w.:+-]{0,39}(?:\(\))?")
_LINK = re.compile(r"\[(?=[^\[\]\n]*\]\([^()\n]*\))|\]\([^()\n]*\)")
_INLINE_MATH_DELIMITERS = re.compile(r"\$(?=\S)(?:[^$\\\n]|\\.)*?(?<=\S)\$(?!\d)")
_QUOTE_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
_BLOCK_MARKER = re.compile(r"[ \t]*(?:#{1,6}(?=\s|$)|[-*+](?=\s)|\(?\d{1,9}[.)](?=\s)|\[[ xX]\](?=\s))")
_EMPHASIS = re.compile(r"(?<![\\\w])[*_]{1,3}(?=\S)|(?<=\S)(?<!\\)[*_]{1,3}(?!\w)")
# Pandoc takes any ASCII punctuation after a backslash literally ("Nos 5\'UTR" as R Markdown writes it).
_ESCAPE = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
_TABLE_RULE = re.compile(r"^[ \t|:+-]*-{3,}[ \t|:+-]*$")

Position = Callable[[int], tuple[int, int]]


def _prose_only(text: str, file: str) -> tuple[str, Blocks]:
    """``text`` with what is not prose blanked out (same length), and its blocks."""
    text = blank(text, [m.span() for m in FRONT_MATTER.finditer(text)])
    lines = Lines(text)
    structure = blocks(text, file)
    spans = [(lines.start(first), lines.start(end) if end > first else len(text)) for first, end in structure.code]
    spans += [(lines.start(n), lines.start(n + 1) - 1 if n + 1 < len(text) else len(text)) for n in structure.markup]
    text = blank(text, spans)
    text = blank(text, [span for m in _NOT_PROSE.finditer(text) for span in _not_prose(m)])
    spans = [m.span() for m in _LINK.finditer(text)]
    for math in _INLINE_MATH_DELIMITERS.finditer(text):
        spans += [(math.start(), math.start() + 1), (math.end() - 1, math.end())]
    return blank(text, spans), structure


def _not_prose(match: re.Match[str]) -> list[tuple[int, int]]:
    """What of a _NOT_PROSE match is blanked: all of it, but of inline code naming something (`` `BART` ``,
    `` `numpy` ``: one word, no code around it) only the backticks, the name being a word of the sentence ("use
    the `BART` and `StimSSS` [@enkavi2019] tasks" read "use the,,, and tasks")."""
    ticks = match.group("ticks")
    if ticks is None or not _CODE_NAME.fullmatch(match.group()[len(ticks) : -len(ticks)]):
        return [match.span()]
    return [(match.start(), match.start() + len(ticks)), (match.end() - len(ticks), match.end())]


def _key(match: re.Match[str]) -> str:
    return (match.group("braced") if match.group("braced") is not None else match.group("bare")).strip()


class _Citations:
    """Finds the citations of a text and puts a mark in place of each (one Marks for the whole file)."""

    def __init__(self, file: str, marks: Marks, warnings: list[str]) -> None:
        self.file, self.marks, self.warnings = file, marks, warnings

    def _cite(self, key: str, offset: int, syntax: Syntax, position: Position) -> Cite | None:
        line, column = position(offset)
        if not key:
            self.warnings.append(f"{self.file}:{line}:{column}: a citation with an empty key")
            return None
        if _CROSS_REFERENCE.match(key):
            return None
        return Cite(key, self.file, line, column, syntax)

    def edits(self, text: str, position: Position) -> list[tuple[int, int, str]]:
        """Edits that put a mark in place of each citation of ``text``."""
        edits: list[tuple[int, int, str]] = []
        taken: list[tuple[int, int]] = []
        for bracket in _BRACKETED.finditer(text):
            line_start = text.rfind("\n", 0, bracket.start()) + 1
            if text.startswith(":", bracket.end()) and len(text[line_start : bracket.start()].lstrip(" ")) == 0:
                continue  # "[id]: url" at a line's start defines a link
            body_start = bracket.start("body")
            cites = []
            for found in _IN_BRACKETS.finditer(bracket.group("body")):
                syntax = Syntax.PANDOC_SUPPRESSED if found.group("dash") else Syntax.PANDOC_BRACKETED
                at = body_start + found.start() + len(found.group("dash"))
                cite = self._cite(_key(found), at, syntax, position)
                cites += [cite] if cite is not None else []
            for empty in re.finditer(r"(?:(?<=[\s;\[])|^)-?@(?=[\s;,]|$)", bracket.group("body")):
                line, column = position(body_start + empty.start())
                self.warnings.append(f"{self.file}:{line}:{column}: a citation with an empty key")
            if cites:
                edits.append((bracket.start(), bracket.end(), self.marks.place(cites)))
                taken.append(bracket.span())
        for found in _IN_TEXT.finditer(text):
            if any(start <= found.start() < end for start, end in taken):
                continue
            cite = self._cite(_key(found), found.start(), Syntax.PANDOC_IN_TEXT, position)
            if cite is not None:
                edits.append((found.start(), found.end(), self.marks.place([cite])))
        return edits


def _footnotes(text: str) -> list[tuple[int, int, str]]:
    """``^[...]`` inline notes: their brackets become the footnote markers the sentence splitter moves."""
    edits = []
    for opening in re.finditer(r"\^\[", text):
        depth = 0
        for index in range(opening.end() - 1, len(text)):
            depth += {"[": 1, "]": -1}.get(text[index], 0)
            if depth == 0:
                edits += [(opening.start(), opening.end(), FOOTNOTE_OPEN), (index, index + 1, FOOTNOTE_CLOSE)]
                break
            if text.startswith("\n\n", index):
                break
    return edits


def _inline_markers(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _EMPHASIS.finditer(text)] + [m.span() for m in _ESCAPE.finditer(text)]


def _markers(text: str, lines: Lines, starts: dict[int, Context]) -> list[tuple[int, int]]:
    """Block quote, heading and list markers, pipe table pipes and rules, emphasis and escapes."""
    spans = [m.span() for m in _QUOTE_MARKERS.finditer(text)]
    for line in starts:
        offset = lines.start(line)
        while offset < len(text) and text[offset] in " \t>":
            offset += 1
        if marker := _BLOCK_MARKER.match(text, offset):
            spans.append(marker.span())
    spans += _inline_markers(text)
    for row in re.finditer(r"^[ \t]*\|.*$", text, re.MULTILINE):
        if _TABLE_RULE.match(row.group(0)):
            spans.append(row.span())
        else:
            spans += [(row.start() + i, row.start() + i + 1) for i, c in enumerate(row.group(0)) if c == "|"]
    return spans


def _grid_rows(table: GridTable, prose: str, lines: Lines, citations: _Citations) -> str:
    """A grid table's rows, each a table paragraph, its cells' text side by side with their citations."""
    rows = []
    for row in table.rows:
        cells = []
        for pieces in row:
            text = " ".join(prose[start:end] for start, end in pieces)  # one line: a cell has no paragraphs
            starts = [start for start, _ in pieces]
            cell_starts = [0]
            for start, end in pieces[:-1]:
                cell_starts.append(cell_starts[-1] + end - start + 1)

            def position(
                offset: int, starts: list[int] = starts, cell_starts: list[int] = cell_starts
            ) -> tuple[int, int]:
                index = max(i for i, begin in enumerate(cell_starts) if begin <= offset)
                return lines.at(starts[index] + offset - cell_starts[index])

            text = apply_edits(text, citations.edits(text, position))
            cells.append(blank(text, _inline_markers(text)))
        rows.append(paragraph(Context.TABLE) + " ".join(cells))
    return "".join(rows) + PARAGRAPH


def read_pandoc(text: str, file: str, finder: Finder | None = None, reading: tuple[str, ...] = ()) -> Manuscript:
    """The citing sentences of a Pandoc, Quarto or R Markdown text and of the files it includes; ``finder``
    finds them and the bibliography its front matter names (None: a text, no file is read). ``reading``: the
    files whose includes are being read (a cycle is a warning)."""
    settings, warnings = front_matter(text, file)
    prose, structure = _prose_only(text, file)
    warnings += structure.warnings
    lines, marks = Lines(prose), Marks()
    citations = _Citations(file, marks, warnings)
    tables = structure.grid_tables
    outside = blank(prose, [(table.start, table.end) for table in tables])
    edits = citations.edits(outside, lines.at)
    edits += [(table.start, table.end, _grid_rows(table, prose, lines, citations)) for table in tables]
    edits += _footnotes(outside)
    prose = blank(outside, _markers(outside, lines, structure.starts))
    edits += [(lines.start(line), lines.start(line), paragraph(context)) for line, context in structure.starts.items()]
    bibliographies, missing = find_bibliographies(names(settings.get("bibliography")), f"{file}:1", file, finder)
    written = apply_edits(prose, edits)
    sentences = citing_sentences(written, marks)
    defined = dict(definitions(without_marks(written)))
    manuscript = Manuscript(sentences, warnings + missing, [file], bibliographies, defined)
    return with_includes(manuscript, text, file, finder, reading or (file,), read_pandoc)
