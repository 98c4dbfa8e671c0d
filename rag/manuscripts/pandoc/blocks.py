"""The blocks of a Pandoc/Quarto/R Markdown text: where code is (fenced, indented or not: R and Python
chunks, raw LaTeX), where each block starts and what it is (heading, list item, table row, a figure's or
table's caption inside a Quarto ``::: {#fig-...}`` div), and Pandoc's grid tables, whose cells span lines.

markdown-it-py (CommonMark and pipe tables) finds the blocks; fenced divs and grid tables, which it does
not know, are found here line by line. A code fence or a div never closed is a warning: it would
otherwise hide the rest of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

from rag.manuscripts.citing import Context

_DIV_FENCE = re.compile(r"^[ \t]*(:{3,})[ \t]*(?P<attributes>\S.*?)?[ \t]*:*[ \t]*$")
_DIV_ID = re.compile(r"#(fig|tbl)-")
_GRID_RULE = re.compile(r"^[ \t]*\+(?:[-=:]+\+)+[ \t]*$")
_GRID_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_BLOCKS = {"heading_open": Context.HEADING, "tr_open": Context.TABLE, "paragraph_open": Context.PROSE}


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


@dataclass
class GridTable:
    start: int  # offsets of the whole table in the text
    end: int
    rows: list[list[list[tuple[int, int]]]]  # row -> cell -> the (start, end) of the cell's piece on each line


@dataclass
class Blocks:
    code: list[tuple[int, int]] = field(default_factory=list)  # line spans, end excluded
    starts: dict[int, Context] = field(default_factory=dict)  # the line each block starts on, what it is
    markup: set[int] = field(default_factory=set)  # lines of markup only (a setext underline, a rule)
    grid_tables: list[GridTable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _captions(lines: list[str], file: str, warnings: list[str]) -> set[int]:
    """The lines inside a Quarto figure or table div (its text is the caption); a div never closed is a
    warning naming the line that opened it."""
    inside: set[int] = set()
    open_divs: list[tuple[int, bool]] = []
    for number, line in enumerate(lines):
        fence = _DIV_FENCE.match(line)
        if fence is None:
            if any(is_float for _, is_float in open_divs):
                inside.add(number)
            continue
        if fence.group("attributes"):
            open_divs.append((number, bool(_DIV_ID.search(fence.group("attributes")))))
        elif open_divs:
            open_divs.pop()
    for number, _ in open_divs:
        warnings.append(f"{file}:{number + 1}: a ::: div is never closed; read to the end of the file")
    return inside


def _grid_tables(lines: list[str], starts: list[int]) -> list[GridTable]:
    """Pandoc grid tables: rows between ``+---+`` rules, each cell the column's slice of every row line."""
    tables, number = [], 0
    while number < len(lines):
        if not _GRID_RULE.match(lines[number]):
            number += 1
            continue
        rule = lines[number]
        bounds = [i for i, char in enumerate(rule) if char == "+"]
        rows: list[list[list[tuple[int, int]]]] = []
        row_lines: list[int] = []
        end = number + 1
        while end < len(lines) and (_GRID_ROW.match(lines[end]) or _GRID_RULE.match(lines[end])):
            if _GRID_RULE.match(lines[end]):
                if row_lines:
                    rows.append(_cells(lines, starts, row_lines, bounds))
                row_lines = []
            else:
                row_lines.append(end)
            end += 1
        if rows:
            tables.append(GridTable(starts[number], starts[end - 1] + len(lines[end - 1]), rows))
        number = end
    return tables


def _cells(lines: list[str], starts: list[int], row_lines: list[int], bounds: list[int]) -> list[list[tuple[int, int]]]:
    cells = []
    for left, right in pairwise(bounds):
        pieces = []
        for number in row_lines:
            line = lines[number]
            low, high = min(left + 1, len(line)), min(right, len(line))
            pieces.append((starts[number] + low, starts[number] + high))
        cells.append(pieces)
    return cells


def blocks(text: str, file: str) -> Blocks:
    """The blocks of a text whose front matter is already blanked out."""
    found = Blocks()
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    captions = _captions(lines, file, found.warnings)
    in_list = 0
    for token in _markdown().parse(text):
        if token.type == "list_item_open":
            in_list += 1
        elif token.type == "list_item_close":
            in_list -= 1
        if token.map is None:
            continue
        first, end = token.map
        if token.type in ("fence", "code_block", "html_block"):
            found.code.append((first, end))
            closing = lines[end - 1].strip() if end - 1 < len(lines) else ""
            if token.type == "fence" and (end - first < 2 or not closing.startswith(token.markup)):
                found.warnings.append(f"{file}:{first + 1}: a code block is never closed; the rest is read as code")
        elif token.type == "list_item_open":
            found.starts.setdefault(first, Context.LIST)
        elif token.type in _BLOCKS:
            context = _BLOCKS[token.type]
            if context is Context.PROSE and first in captions:
                context = Context.CAPTION
            elif context is Context.PROSE and in_list:
                context = Context.LIST
            found.starts.setdefault(first, context)
            if token.type == "heading_open" and token.markup in ("=", "-"):
                found.markup.add(end - 1)  # a setext heading's underline
        elif token.type == "hr":
            found.markup.add(first)
        elif token.type == "blockquote_open":
            found.starts.setdefault(first, Context.PROSE)
    found.grid_tables = _grid_tables(lines, starts)
    return found
