"""The typer app: global options and the explicit list of commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from rag.cli import commands, writing
from rag.cli.runtime import STATE

app = typer.Typer(
    name="rag",
    help="Search, question and cite a library of research-paper abstracts. Works offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def main_options(
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Where the index lives [env: RAG_DATA_DIR].", show_default=False)
    ] = None,
    collection: Annotated[
        str | None, typer.Option("--collection", help="Library (collection) name [env: RAG_COLLECTION].")
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for unexpected errors.")] = False,
) -> None:
    """Search, question and cite a library of research-paper abstracts. Works offline.

    The first command indexes the bundled corpus (two lists of related papers on
    distributed training). Add your own with `rag ingest`.
    """
    STATE.data_dir, STATE.collection, STATE.debug = data_dir, collection, debug


# In the order `rag --help` lists them.
for command in (
    writing.ask,
    commands.search,
    writing.summarize,
    writing.draft,
    commands.papers,
    commands.show,
    commands.ingest,
    commands.remove,
    commands.export,
    commands.collections,
    commands.reindex,
    commands.doctor,
):
    app.command()(command)
app.command("eval")(commands.eval_command)
app.command("eval-support")(commands.eval_support)


def main(args: list[str] | None = None) -> None:
    app(args=args, prog_name="rag")


def ask_main() -> None:
    """The `ask` console script: `ask Q` is `rag ask Q`."""
    app(args=["ask", *sys.argv[1:]], prog_name="rag")
