"""`rag table`: parse options, call rag.services.table, print the table in the format asked for. No logic here."""

from __future__ import annotations

from typing import Annotated

import typer

from rag.cli.options import AsJson, Lists, Since, Until, search_request
from rag.cli.runtime import context, handle_errors

FORMATS = "markdown|csv|latex|json"
# rag.writing.table.DEFAULT_ROWS, written here so that `rag table --help` loads no model code (a test keeps them equal).
DEFAULT_ROWS = 4


@handle_errors
def table(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="What the rows answer (- reads it from stdin).")],
    top_k: Annotated[
        int | None,
        typer.Option("-k", "--top-k", metavar="N", help=f"At most this many rows [default: {DEFAULT_ROWS}]."),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", metavar=FORMATS, help="markdown (a terminal's), csv, latex or json.")
    ] = "markdown",
    as_json: AsJson = False,
    since: Since = None,
    until: Until = None,
    lists: Lists = None,
) -> None:
    """An evidence table: a row per paper that answers QUESTION.

    Citekey, first author and year, what was studied, the finding (the paper's
    own sentence, results before aims) and the numbers in it. A question the
    library cannot answer gets no rows, and says so.
    """
    from rag.services.table import TableFormat, render_table, table_format
    from rag.services.table import table as core_table

    form = TableFormat.JSON if as_json else table_format(output_format)
    request = search_request(question, top_k, since, until, lists, "question")
    with context() as ctx:
        result = core_table(ctx, request)
        citations = ctx.settings.latex_citations
    typer.echo(render_table(result, form, citations), nl=False)
    if not result.rows and form in (TableFormat.CSV, TableFormat.LATEX):
        typer.echo(result.message, err=True)  # CSV and LaTeX have no room for it: a reader still learns why
