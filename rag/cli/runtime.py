"""What every command shares at run time: global state, consoles, notices, error handling,
progress bars, and the Context each command hands to its service.

Imports of the core are deferred into each command so ``rag --help`` stays fast
(the vector store's client alone takes seconds to import).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from rag.cli.progress import ProgressBar

if TYPE_CHECKING:
    from rich.console import Console

    from rag.config import Settings
    from rag.services.context import Context

F = TypeVar("F", bound=Callable[..., Any])
# Width rich lays tables out in when stdout is not a terminal: wide enough never to fold a line.
PIPE_WIDTH = 100_000
# The shell's exit status for a command stopped by Ctrl-C (128 + SIGINT).
INTERRUPTED_EXIT = 130
ERROR_EXIT = 1
# Usage errors and bugs; also every error of a command whose exit 1 means "found problems" (rag check).
USAGE_EXIT = 2


class State:
    data_dir: Path | None = None
    collection: str | None = None
    debug: bool = False
    # -k N of the command: a flag, so it wins over RAG_TOP_K and the config file (a bad value there included).
    top_k: int | None = None


STATE = State()


def _console(stderr: bool) -> Console:
    """On a terminal, text fits its width; in a pipe or file, lines are never hard-wrapped (no padding
    spaces either), and a reader that closes the pipe ends the command quietly (see handle_errors)."""
    from rich.console import Console

    class PipeAwareConsole(Console):
        def on_broken_pipe(self) -> None:
            # rich's own handling exits with status 1 and says nothing; the reader has what it wanted.
            raise BrokenPipeError

    console = PipeAwareConsole(stderr=stderr, highlight=False, soft_wrap=False)
    if console.is_terminal:
        return console
    return PipeAwareConsole(stderr=stderr, highlight=False, soft_wrap=True, width=PIPE_WIDTH)


def stderr_console() -> Console:
    return _console(stderr=True)


def stdout_console() -> Console:
    return _console(stderr=False)


def notify(message: str) -> None:
    from rich.text import Text

    from rag.text import printable

    stderr_console().print(Text(printable(safe(message)), style="dim"), soft_wrap=True)


def safe(message: str) -> str:
    """The message with every configured key masked (errors must never print a key)."""
    from rag.redaction import configured_secrets, redact

    try:
        secrets = configured_secrets(settings())
    except Exception:  # settings themselves may be what is broken
        secrets = []
    return redact(message, secrets)


def handle_errors(command: F) -> F:
    """Turn a ``RagError`` into one line and exit 1; other errors are bugs (traceback with --debug)."""
    return _guarded(command, ERROR_EXIT)


def handle_errors_as_usage(command: F) -> F:
    """``handle_errors`` for a linter-like command, whose exit 1 means it found problems: errors exit 2."""
    return _guarded(command, USAGE_EXIT)


def _guarded(command: F, error_exit: int) -> F:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rag.errors import Interrupted, RagError

        try:
            return command(*args, **kwargs)
        except Interrupted as exc:
            typer.echo(safe(str(exc)), err=True)
            raise typer.Exit(INTERRUPTED_EXIT) from None
        except RagError as exc:
            typer.echo(f"error: {safe(str(exc))}", err=True)
            raise typer.Exit(error_exit) from None
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:
            typer.echo("interrupted: nothing half-written is kept; what was saved before is intact", err=True)
            raise typer.Exit(INTERRUPTED_EXIT) from None
        except BrokenPipeError:  # `rag papers | head`: the reader has what it wanted
            silence_stdout()
            raise typer.Exit(0) from None
        except OSError as exc:  # a folder or file the user pointed at that cannot be used: theirs to fix
            where = f"{exc.filename}: " if exc.filename else ""
            typer.echo(
                f"error: {safe(where + (exc.strerror or str(exc)))}; check the path and its permissions", err=True
            )
            raise typer.Exit(error_exit) from None
        except Exception as exc:
            if STATE.debug:
                raise
            typer.echo(
                f"internal error: {type(exc).__name__}: {safe(str(exc))} (rerun with --debug for the traceback)",
                err=True,
            )
            raise typer.Exit(USAGE_EXIT) from None

    return wrapper  # type: ignore[return-value]


def leave_at_once(code: object) -> None:
    """End a process that runs a GGUF model in-process now that its output is written: flush stdout and stderr
    and exit with ``code`` without stopping llama.cpp's server, which only waits (on the slot and the server's
    threads: 0.9-3.6 s after an answer was measured, 30 s with a generation under way). Nothing is lost: every
    file rag writes is complete when the command returns (the log and the disk caches are committed SQLite, the
    response cache and papers files are renamed into place, Chroma commits each write). Any other process exits
    as Python does."""
    module = sys.modules.get("rag.llm.gguf")  # never imported: no model was run
    if module is None or not module.running():
        return
    if code is not None and not isinstance(code, int):  # what Python does with sys.exit("message")
        print(code, file=sys.stderr)
        code = ERROR_EXIT
    for stream in (sys.stdout, sys.stderr):
        # A reader that left (a broken pipe is an OSError), or a stream already closed: nothing more to deliver.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)


def silence_stdout() -> None:
    """Point stdout at /dev/null: nothing more is flushed into the closed pipe when Python exits."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def settings(**overrides: Any) -> Settings:
    from rag.config import load_settings

    flags: dict[str, Any] = {"data_dir": STATE.data_dir, "collection": STATE.collection, "top_k": STATE.top_k}
    return load_settings(**{**flags, **overrides})


def progress_bar(*, progress_after: float | None = None, model_line: bool = False) -> ProgressBar:
    """Progress on stderr (``progress_after``: shown for any amount of work once it has run that many seconds;
    ``model_line``: what the model is doing, on a terminal)."""
    if progress_after is None:
        return ProgressBar(stderr_console, model_line=model_line)
    return ProgressBar(stderr_console, min_items=1, after_seconds=progress_after, model_line=model_line)


@contextmanager
def context(*, bar: ProgressBar | None = None, **overrides: Any) -> Iterator[Context]:
    """The Context a command passes to its service: settings (flags win), notices and progress (``bar``, by
    default a bar for long counted work)."""
    from rag.config import unknown_setting_warnings
    from rag.services.context import Context

    resolved = settings(**overrides)
    for warning in unknown_setting_warnings():  # a misspelt RAG_* name would otherwise be ignored silently
        notify(warning)
    bar = bar or progress_bar()
    activity = bar.model if bar.model_line else None
    try:
        yield Context(resolved, notify=notify, progress=bar, activity=activity)
    finally:
        bar.close()


def print_json(payload: Any) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))


T = TypeVar("T")


def emit(
    as_json: bool, result: T, to_json: Callable[[T], dict[str, Any]], render: Callable[[Console, T], None]
) -> None:
    """Print ``result`` as one JSON object (rag.services.contracts) or for people (rag.cli.render)."""
    if as_json:
        print_json(to_json(result))
    else:
        render(stdout_console(), result)
