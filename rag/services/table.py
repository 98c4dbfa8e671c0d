"""`rag table`: an evidence table for a question, and the table written as Markdown, CSV, LaTeX or JSON.

The rows are rag.writing.table's (the extractive answer's choice of papers and quotes, findings first); the
library is open only while retrieving. Formats are text so that every adapter (the CLI, scripts) writes the same
bytes; the JSON object is ``{"question", "mode", "columns", "rows": [{"citekey", "title", "year", "finding",
...}], "message"}``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from enum import StrEnum
from typing import Any

from rag.config import LatexCitations
from rag.errors import InputError
from rag.formats.latex import cite_key, latex_escape, needs_unicode_engine
from rag.services.context import Context
from rag.services.requests import SearchRequest
from rag.writing.table import COLUMNS, DEFAULT_ROWS, HEADINGS, EvidenceTable, evidence_table

# Papers retrieved per row asked for: a paper that does not answer leaves its slot to the next one.
CANDIDATES_PER_ROW = 2
# ...and at least this many, so that a short table still has papers to choose from.
MIN_CANDIDATES = 10
# LaTeX column widths (p{...}), in the order of COLUMNS: the finding gets the room.
_LATEX_WIDTHS = ("0.12", "0.12", "0.18", "0.40", "0.12")


class TableFormat(StrEnum):
    MARKDOWN = "markdown"
    CSV = "csv"
    LATEX = "latex"
    JSON = "json"


def table_format(name: str) -> TableFormat:
    """The format named ``name`` (any case); InputError naming the formats otherwise."""
    try:
        return TableFormat(name.strip().lower())
    except ValueError:
        known = ", ".join(f.value for f in TableFormat)
        raise InputError(f"unknown table format {name!r}: use one of {known}") from None


def table(ctx: Context, request: SearchRequest) -> EvidenceTable:
    """The evidence table for ``request.query``: at most ``request.k`` rows (DEFAULT_ROWS without it)."""
    request.validate()
    rows = request.k or DEFAULT_ROWS
    question = request.query.strip()
    # The sentences a table embeds are kept on disk, as a summary's: the next question on the library is quick.
    ctx = replace(ctx, keep_embeddings=True) if ctx.embedder is None else ctx
    with ctx.reader() as library:
        hits = library.search_readable(replace(request, k=max(rows * CANDIDATES_PER_ROW, MIN_CANDIDATES)))
        embedder = library.embedder
        field = library.field_words(question)
    return evidence_table(question, hits, embedder, ctx.settings.min_relevance, rows, field)


def table_json(result: EvidenceTable) -> dict[str, Any]:
    rows = [
        {
            "citekey": row.paper.citekey,
            "id": row.paper.id,
            "title": row.paper.title,
            "year": row.paper.year,
            "first_author": row.paper.first_author,
            **{column: cell for column, cell in row.cells().items() if column != "numbers"},
            "numbers": row.numbers,
            "where": row.passage.where if row.passage else None,  # a full-text finding's page
        }
        for row in result.rows
    ]
    return {
        "question": result.question,
        "mode": result.mode.value,
        "columns": list(COLUMNS),
        "rows": rows,
        "message": result.message,
    }


def _markdown(result: EvidenceTable) -> str:
    if not result.rows:
        return result.message + "\n"

    def cell(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|")

    lines = ["| " + " | ".join(HEADINGS[c] for c in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(row.cells()[c]) for c in COLUMNS) + " |" for row in result.rows]
    return "\n".join(lines) + "\n"


def _csv(result: EvidenceTable) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([row.cells()[c] for c in COLUMNS] for row in result.rows)
    return out.getvalue()


def _latex(result: EvidenceTable, citations: LatexCitations) -> str:
    if not result.rows:
        return f"% {result.message}\n"
    spec = "".join(f"p{{{width}\\linewidth}}" for width in _LATEX_WIDTHS)
    lines = [f"\\begin{{tabular}}{{{spec}}}", "\\hline"]
    lines.append(" & ".join(f"\\textbf{{{HEADINGS[c]}}}" for c in COLUMNS) + " \\\\")
    lines.append("\\hline")
    # The paper cited, so that the table links to the manuscript's bibliography like the prose around it.
    lines += [
        " & ".join(cite_key(cells[c], citations) if c == "citekey" else latex_escape(cells[c]) for c in COLUMNS)
        + " \\\\"
        for cells in (row.cells() for row in result.rows)
    ]
    lines += ["\\hline", "\\end{tabular}"]
    body = "\n".join(lines) + "\n"
    unusual = needs_unicode_engine(body)
    return f"% needs XeLaTeX or LuaLaTeX for: {' '.join(unusual)}\n{body}" if unusual else body


def render_table(result: EvidenceTable, form: TableFormat, citations: LatexCitations = LatexCitations.CITE) -> str:
    """The table as ``form``'s text (a question with no rows: Markdown says why, CSV is its header alone); in
    LaTeX each paper is cited with ``citations``' command."""
    if form is TableFormat.JSON:
        return json.dumps(table_json(result), ensure_ascii=False, indent=2) + "\n"
    if form is TableFormat.LATEX:
        return _latex(result, citations)
    writers = {TableFormat.MARKDOWN: _markdown, TableFormat.CSV: _csv}
    return writers[form](result)
