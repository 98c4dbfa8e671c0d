"""The typer app: global options and the explicit list of commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from rag import __version__
from rag.cli import (
    check_command,
    commands,
    config_command,
    help_format,
    log_command,
    lsp_command,
    map_command,
    mcp_command,
    table_command,
    writing,
)
from rag.cli.argv import hoist_global_options
from rag.cli.runtime import STATE, leave_at_once, silence_stdout

help_format.use_conventional_argument_names()
app = typer.Typer(
    name="rag",
    help="Search, question and cite a library of research-paper abstracts. Works offline.",
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"rag {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_options(
    context: typer.Context,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir", metavar="DIR", help="Where the index lives [env: RAG_DATA_DIR].", show_default=False
        ),
    ] = None,
    collection: Annotated[
        str | None,
        typer.Option("--collection", metavar="NAME", help="Library (collection) name [env: RAG_COLLECTION]."),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for unexpected errors.")] = False,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="Show rag's version and exit.", callback=_show_version, is_eager=True),
    ] = False,
) -> None:
    """Search, question and cite a library of research-paper abstracts. Works offline.

    The first command indexes the bundled corpus (two lists of related papers on
    distributed training). Add your own with `rag ingest`.
    """
    STATE.data_dir, STATE.collection, STATE.debug, STATE.top_k = data_dir, collection, debug, None
    if context.invoked_subcommand is None:  # bare `rag`: the help, as a successful answer to "what is this?"
        typer.echo(context.get_help())


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
app.command("check")(check_command.check)
app.command("table")(table_command.table)
app.command("map")(map_command.map_command)
app.command("mcp")(mcp_command.mcp)
app.command("lsp")(lsp_command.lsp)
app.add_typer(config_command.config_app)
app.add_typer(log_command.log_app)


def _command_names() -> list[str]:
    commands = [info.name or (info.callback.__name__ if info.callback else "") for info in app.registered_commands]
    return commands + [group.name for group in app.registered_groups if group.name]


def main(args: list[str] | None = None) -> None:
    """`rag ...`: global options are taken on either side of the command."""
    given = sys.argv[1:] if args is None else args
    try:
        app(args=hoist_global_options(given, _command_names()), prog_name="rag")
    except SystemExit as done:  # typer ends every command this way, with its exit status
        _deliver_stdout()
        leave_at_once(done.code)
        raise


def _deliver_stdout() -> None:
    """Flush what the command printed while a closed pipe can still be caught: the reader has what it wanted
    (`rag papers | head`). Left to Python's exit, a stdout that is not unbuffered fails there, status 120."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def ask_main() -> None:
    """The `ask` console script: `ask Q` is `rag ask Q`, options and all."""
    main(["ask", *sys.argv[1:]])
