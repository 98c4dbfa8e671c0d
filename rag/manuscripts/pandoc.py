"""Pandoc and Quarto Markdown manuscripts: ``[@a; @b, p. 3]``, ``[-@key]``, ``@key`` in the text, ``@{key}``.

The text is first blanked where it is not prose, without moving a character (so each citation keeps its
line and column): YAML front matter, code blocks and inline code, HTML comments, display math, Quarto
shortcodes and attributes, link targets. markdown-it-py finds the blocks (code, paragraphs, headings,
list items, table rows); each block starts a paragraph of its own. Quarto cross-references (``@fig-x``,
``@tbl-x``, ``@sec-x``, pandoc-crossref's ``@fig:x`` ...) are not citations. Footnotes (``^[...]``) are
read after the paragraph they interrupt. A key's position is that of its ``@``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rag.manuscripts.citing import Cite, Manuscript, Syntax
from rag.manuscripts.prose import FOOTNOTE_CLOSE, FOOTNOTE_OPEN, PARAGRAPH, Lines, Marks, apply_edits, blank
from rag.manuscripts.sentences import citing_sentences
from rag.manuscripts.sources import Finder

# Pandoc's key: a letter, digit or _, then alphanumerics and internal punctuation; anything goes in @{...}.
_KEY = r"(?:\{(?P<braced>[^{}]*)\}|(?P<bare>\w(?:\w|[:.#$%&+?<>~/-](?=\w))*))"
_IN_BRACKETS = re.compile(rf"(?:(?<=[\s;\[])|^)(?P<dash>-?)@{_KEY}")
_IN_TEXT = re.compile(rf"(?<![\w@\\\]\[-])@{_KEY}(?P<locator>[ \t]?\[[^\[\]@\n]*\](?![(\[{{:]))?")
_BRACKETED = re.compile(r"(?<![\\!^\]])\[(?P<body>[^\[\]]*@[^\[\]]*)\](?![(\[{:])")
_CROSS_REFERENCE = re.compile(
    r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|tip|nte|wrn|imp|cau|apx)[-:]", re.IGNORECASE
)
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_NOT_PROSE = re.compile(
    r"<!--.*?-->"  # HTML comments
    r"|\$\$.*?\$\$"  # display math
    r"|(?P<ticks>`+)(?!`).*?(?<!`)(?P=ticks)(?!`)"  # inline code
    r"|\{\{<.*?>\}\}"  # Quarto shortcodes
    r"|\{[#.:=][^{}\n]*\}"  # attributes: {#sec-intro}, {.unnumbered}, {=latex}
    r"|!\[[^\[\]\n]*\]\([^()\n]*\)"  # images
    r"|^[ \t]*:{3,}.*$",  # fenced divs
    re.DOTALL | re.MULTILINE,
)
_LINK = re.compile(r"\[(?=[^\[\]\n]*\]\([^()\n]*\))|\]\([^()\n]*\)")
_INLINE_MATH_DELIMITERS = re.compile(r"\$(?=\S)(?:[^$\\\n]|\\.)*?(?<=\S)\$(?!\d)")
_QUOTE_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
_BLOCK_MARKER = re.compile(r"[ \t]*(?:#{1,6}(?=\s|$)|[-*+](?=\s)|\(?\d{1,9}[.)](?=\s)|\[[ xX]\](?=\s))")
_EMPHASIS = re.compile(r"(?<![\\\w])[*_]{1,3}(?=\S)|(?<=\S)(?<!\\)[*_]{1,3}(?!\w)")
_ESCAPE = re.compile(r"\\(?=[\\`*_{}\[\]()#+\-.!@$|<>~^])")
_TABLE_RULE = re.compile(r"^[ \t|:+-]*-{3,}[ \t|:+-]*$")
_BLOCK_TOKENS = ("paragraph_open", "heading_open", "list_item_open", "tr_open", "blockquote_open")


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _structure(text: str) -> tuple[list[tuple[int, int]], set[int], set[int]]:
    """Line spans of code and HTML blocks, the lines that start a block, and table and rule lines."""
    code, starts, markup = [], set(), set()
    for token in _markdown().parse(text):
        if token.map is None:
            continue
        first, end = token.map
        if token.type in ("fence", "code_block", "html_block"):
            code.append((first, end))
        elif token.type in _BLOCK_TOKENS:
            starts.add(first)
            if token.type == "heading_open" and token.markup in ("=", "-"):
                markup.add(end - 1)  # a setext heading's underline
        elif token.type == "hr":
            markup.add(first)
    return code, starts, markup


def _prose_only(text: str) -> tuple[str, set[int]]:
    """``text`` with what is not prose blanked out (same length); the lines that start a block."""
    spans = [m.span() for m in _FRONT_MATTER.finditer(text)]
    text = blank(text, spans)
    lines = Lines(text)
    code, starts, markup = _structure(text)
    spans = [(lines.start(first), lines.start(end) if end > first else len(text)) for first, end in code]
    spans += [(lines.start(n), lines.start(n + 1) - 1 if n + 1 < len(text) else len(text)) for n in markup]
    text = blank(text, spans)
    text = blank(text, [m.span() for m in _NOT_PROSE.finditer(text)])
    spans = [m.span() for m in _LINK.finditer(text)]
    for math in _INLINE_MATH_DELIMITERS.finditer(text):
        spans += [(math.start(), math.start() + 1), (math.end() - 1, math.end())]
    return blank(text, spans), starts


def _key(match: re.Match[str]) -> str:
    return (match.group("braced") if match.group("braced") is not None else match.group("bare")).strip()


def _cite(key: str, offset: int, syntax: Syntax, lines: Lines, file: str, warnings: list[str]) -> Cite | None:
    line, column = lines.at(offset)
    if not key:
        warnings.append(f"{file}:{line}:{column}: a citation with an empty key")
        return None
    if _CROSS_REFERENCE.match(key):
        return None
    return Cite(key, file, line, column, syntax)


def _citations(
    text: str, lines: Lines, file: str, marks: Marks, warnings: list[str]
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """Edits that put a mark in place of each citation, and the spans they replace."""
    edits: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for bracket in _BRACKETED.finditer(text):
        body_start = bracket.start("body")
        cites = []
        for found in _IN_BRACKETS.finditer(bracket.group("body")):
            syntax = Syntax.PANDOC_SUPPRESSED if found.group("dash") else Syntax.PANDOC_BRACKETED
            at = body_start + found.start() + len(found.group("dash"))
            cite = _cite(_key(found), at, syntax, lines, file, warnings)
            cites += [cite] if cite is not None else []
        for empty in re.finditer(r"(?:(?<=[\s;\[])|^)-?@(?=[\s;,]|$)", bracket.group("body")):
            line, column = lines.at(body_start + empty.start())
            warnings.append(f"{file}:{line}:{column}: a citation with an empty key")
        if cites:
            edits.append((bracket.start(), bracket.end(), marks.place(cites)))
            taken.append(bracket.span())
    for found in _IN_TEXT.finditer(text):
        if any(start <= found.start() < end for start, end in taken):
            continue
        cite = _cite(_key(found), found.start(), Syntax.PANDOC_IN_TEXT, lines, file, warnings)
        if cite is not None:
            edits.append((found.start(), found.end(), marks.place([cite])))
    return edits, taken


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


def _markers(text: str, lines: Lines, starts: set[int]) -> list[tuple[int, int]]:
    """Block quote, heading and list markers, table pipes and rules, emphasis and escapes."""
    spans = [m.span() for m in _QUOTE_MARKERS.finditer(text)]
    for line in starts:
        offset = lines.start(line)
        while offset < len(text) and text[offset] in " \t>":
            offset += 1
        if marker := _BLOCK_MARKER.match(text, offset):
            spans.append(marker.span())
    spans += [m.span() for m in _EMPHASIS.finditer(text)]
    spans += [m.span() for m in _ESCAPE.finditer(text)]
    for row in re.finditer(r"^[ \t]*\|.*$", text, re.MULTILINE):
        if _TABLE_RULE.match(row.group(0)):
            spans.append(row.span())
        else:
            spans += [(row.start() + i, row.start() + i + 1) for i, c in enumerate(row.group(0)) if c == "|"]
    return spans


def read_pandoc(text: str, file: str, finder: Finder | None = None) -> Manuscript:
    """The citing sentences of a Pandoc or Quarto Markdown text."""
    prose, starts = _prose_only(text)
    lines, marks, warnings = Lines(prose), Marks(), list[str]()
    edits, _ = _citations(prose, lines, file, marks, warnings)
    edits += _footnotes(prose)
    prose = blank(prose, _markers(prose, lines, starts))
    edits += [(lines.start(line), lines.start(line), PARAGRAPH) for line in starts if line > 0]
    return Manuscript(citing_sentences(apply_edits(prose, edits), marks), warnings, [file])
