"""What long work shows on stderr: a bar for counted work, a line for what the model is doing.

On a terminal one rich display draws them both, and the sentences an answer shows as it streams (rag.cli.writing)
when stdout is that terminal too: two live displays on one terminal would overwrite each other's lines. Off a
terminal, counted work prints a line every few seconds and the model's work prints nothing (a log or a pipe gains
nothing from a line redrawn several times a second).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import typer

from rag.llm.types import Doing

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

# Indexing fewer items than this finishes before a bar would be readable.
PROGRESS_MIN_ITEMS = 64
# Without a terminal, long work prints a progress line this often instead of a bar.
PROGRESS_LINE_SECONDS = 5.0
# Redraws of the display per second: often enough for the seconds and the token count to move smoothly.
REFRESHES_PER_SECOND = 4


class ProgressBar:
    """A rich progress bar on stderr, started only when there is enough work to watch: ``min_items`` items,
    and work that has already run ``after_seconds`` (so a quick run never flashes a bar). With ``model_line``,
    also the model's line (``model``, an ``Activity``) while it works on a request."""

    def __init__(
        self,
        console: Callable[[], Console],
        min_items: int = PROGRESS_MIN_ITEMS,
        after_seconds: float = 0.0,
        model_line: bool = False,
    ) -> None:
        self.console, self.min_items, self.after_seconds = console, min_items, after_seconds
        self.terminal = sys.stderr.isatty()
        self.model_line = model_line and self.terminal
        # The answer's sentences so far (rag.cli.writing.LiveText), drawn above the rest when stdout is this terminal.
        self.preview: RenderableType | None = None
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._last_line: dict[str, float] = {}
        self._first_seen: dict[str, float] = {}
        self._doing: Doing | None = None
        self._last: Doing | None = None  # what the last request did, over when _doing is None
        self._tokens = 0
        self._since = 0.0
        self._checks = 0

    def __call__(self, what: str, done: int, total: int) -> None:
        if total < self.min_items:
            return
        if time.monotonic() - self._first_seen.setdefault(what, time.monotonic()) < self.after_seconds:
            return
        if not self.terminal:
            self._line(what, done, total)  # a log or CI: a bar would draw nothing, a line every few seconds does
            return
        progress = self._display()
        if what not in self._tasks:
            self._tasks[what] = progress.add_task(what, total=total, rate="")
        task_id = self._tasks[what]
        progress.update(task_id, completed=done)
        speed = progress.tasks[task_id].speed
        if speed:
            progress.update(task_id, rate=f"{speed:.1f} docs/s")

    def model(self, doing: Doing | None, tokens: int) -> None:
        """An ``Activity``: what the model is doing, shown with how long it has been at it."""
        if not self.model_line:
            return
        if doing is not None and self._doing is None:  # a request starts
            if not (doing is Doing.CHECKING and self._last is Doing.CHECKING):
                self._since, self._checks = time.monotonic(), 0
            # A verdict after a verdict goes on with one stretch of checking, a claim more.
            self._checks += doing is Doing.CHECKING
        elif doing is not None and doing is not self._doing:  # its first token: reading is over
            self._since = time.monotonic()
        self._last = doing or self._last
        self._doing, self._tokens = doing, tokens
        if doing is not None:
            self._display()
        else:
            self._stop_when_idle()

    def show(self, preview: RenderableType) -> None:
        """Draw ``preview`` above the bar and the model's line."""
        self.preview = preview
        self._display().refresh()

    def status(self) -> str | None:
        """The model's line as it reads now, or None while the model is not busy."""
        if self._doing is None:
            return None
        seconds = time.monotonic() - self._since
        if self._doing is Doing.WRITING:
            return f"model: writing ({self._tokens} tokens) · {seconds:.0f} s"
        if self._doing is Doing.CHECKING:
            return f"model: checking (claim {self._checks}) · {seconds:.0f} s"
        return f"model: {self._doing} · {seconds:.0f} s"

    def _renderables(self) -> Iterator[RenderableType]:
        from rich.text import Text

        if self.preview is not None:
            yield self.preview
        if self._progress is not None and self._progress.tasks:
            yield self._progress.make_tasks_table(self._progress.tasks)
        if (status := self.status()) is not None:
            yield Text(status, style="dim")

    def _display(self) -> Any:
        """The rich display, started on first use (importing rich only then keeps quick commands quick)."""
        if self._progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            owner = self

            class Display(Progress):
                def get_renderables(self) -> Iterator[RenderableType]:
                    return owner._renderables()  # redrawn by rich's own thread: the seconds keep counting

            self._progress = Display(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=self.console(),
                transient=True,
                refresh_per_second=REFRESHES_PER_SECOND,
            )
            self._progress.start()
        return self._progress

    def _stop_when_idle(self) -> None:
        """Between requests the line goes (other work runs; a notice may print); a bar or a preview stays."""
        if self._progress is not None and not self._progress.tasks and self.preview is None:
            self._progress.stop()
            self._progress = None

    def _line(self, what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last_line.get(what, 0.0) < PROGRESS_LINE_SECONDS:
            return
        self._last_line[what] = now
        typer.echo(f"{what}: {done}/{total} ({100 * done // max(total, 1)}%)", err=True)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
