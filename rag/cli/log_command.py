"""`rag log`: past questions, drafts and checks; `rag log show ID` prints one again."""

from __future__ import annotations

from typing import Annotated

import typer

from rag.cli.options import AsJson
from rag.cli.runtime import context, emit, handle_errors, print_json

log_app = typer.Typer(name="log", help="Past questions, drafts and checks, newest first.", invoke_without_command=True)


@log_app.callback()
@handle_errors
def listing(
    context_: typer.Context,
    limit: Annotated[int, typer.Option("-n", "--limit", metavar="N", help="Show this many, newest first.")] = 20,
    as_json: AsJson = False,
) -> None:
    """Past questions, drafts and checks: number, date, library, model and mode, newest first.

    Logged in the data dir (the newest 2,000 kept); --no-log on a command, or RAG_LOG=false, skips logging.
    """
    if context_.invoked_subcommand is not None:
        return
    from rag.cli.render import render_log
    from rag.services.contracts import log_json
    from rag.services.history import recent

    with context() as ctx:
        entries = recent(ctx, limit)
    emit(as_json, entries, log_json, render_log)


@log_app.command("show")
@handle_errors
def show(
    entry_id: Annotated[int, typer.Argument(metavar="ID", help="The entry's number, as `rag log` lists it.")],
    as_json: AsJson = False,
) -> None:
    """Print a logged answer, draft or check again, as it was shown (--json: the command's --json then)."""
    import json

    from rag.services.history import entry

    with context() as ctx:
        found = entry(ctx, entry_id)
    if as_json:
        print_json(json.loads(found.payload))
    else:
        typer.echo(found.answer)
