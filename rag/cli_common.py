"""What every command shares: the app, global options, error handling, progress, settings.

Imports of the core are deferred into each command so ``rag --help`` stays fast
(chromadb alone takes seconds to import).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from rag.api import SearchRequest
    from rag.config import Settings

app = typer.Typer(
    name="rag",
    help="Search, question and cite a library of research-paper abstracts. Works offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

F = TypeVar("F", bound=Callable[..., Any])
# Indexing fewer items than this finishes before a bar would be readable.
PROGRESS_MIN_ITEMS = 64


class State:
    data_dir: Path | None = None
    collection: str | None = None
    debug: bool = False


STATE = State()


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def stdout_console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def notify(message: str) -> None:
    from rich.text import Text

    from rag.render import clean

    stderr_console().print(Text(clean(safe(message)), style="dim"), soft_wrap=True)


def safe(message: str) -> str:
    """The message with every configured key masked (errors must never print a key)."""
    from rag.secrets import configured_secrets, redact

    try:
        secrets = configured_secrets(settings())
    except Exception:  # settings themselves may be what is broken
        secrets = []
    return redact(message, secrets)


def handle_errors(command: F) -> F:
    """Turn a ``RagError`` into one line and exit 1; other errors are bugs (traceback with --debug)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rag.errors import RagError

        try:
            return command(*args, **kwargs)
        except RagError as exc:
            typer.echo(f"error: {safe(str(exc))}", err=True)
            raise typer.Exit(1) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if STATE.debug:
                raise
            typer.echo(
                f"internal error: {type(exc).__name__}: {safe(str(exc))} (rerun with --debug for the traceback)",
                err=True,
            )
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


class ProgressBar:
    """A rich progress bar on stderr, started only when there is enough work to watch."""

    def __init__(self) -> None:
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __call__(self, what: str, done: int, total: int) -> None:
        if total < PROGRESS_MIN_ITEMS:
            return
        if self._progress is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=stderr_console(),
                transient=True,
            )
            self._progress.start()
        if what not in self._tasks:
            self._tasks[what] = self._progress.add_task(what, total=total, rate="")
        task_id = self._tasks[what]
        self._progress.update(task_id, completed=done)
        speed = self._progress.tasks[task_id].speed
        if speed:
            self._progress.update(task_id, rate=f"{speed:.1f} docs/s")

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def settings(**overrides: Any) -> Settings:
    from rag.config import load_settings

    return load_settings(data_dir=STATE.data_dir, collection=STATE.collection, **overrides)


def run(core: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a core function with this CLI's notice and progress callbacks."""
    bar = ProgressBar()
    try:
        return core(*args, notify=notify, progress=bar, **kwargs)
    finally:
        bar.close()


def print_json(payload: Any) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def emit(as_json: bool, json_function: str, render_function: str, *values: Any) -> None:
    """Print ``values`` as JSON (rag.jsonout) or for people (rag.render), imported only when used."""
    if as_json:
        from rag import jsonout

        print_json(getattr(jsonout, json_function)(*values))
    else:
        from rag import render

        getattr(render, render_function)(stdout_console(), *values)


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


TopK = Annotated[int | None, typer.Option("-k", "--top-k", help="Number of papers to retrieve [default: 5].")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]
Since = Annotated[int | None, typer.Option("--since", help="Only papers from this year on.")]
Until = Annotated[int | None, typer.Option("--until", help="Only papers up to this year.")]
Lists = Annotated[
    list[str] | None,
    typer.Option(
        "--list", help="Only papers from this seed list (file name, its prefix, or words of its subject). Repeatable."
    ),
]


def search_request(
    query: str, top_k: int | None, since: int | None, until: int | None, lists: list[str] | None
) -> SearchRequest:
    from rag.api import SearchRequest

    resolved = settings()
    return SearchRequest(query, resolved.top_k if top_k is None else top_k, since, until, lists or [])
