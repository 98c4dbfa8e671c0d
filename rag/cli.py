"""The typer app: parse options, call one core function, render. No logic here.

Imports of the core are deferred into each command so ``rag --help`` stays fast
(chromadb alone takes seconds to import).
"""

from __future__ import annotations

import functools
import json
import sys
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


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _stdout() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def notify(message: str) -> None:
    from rich.text import Text

    from rag.render import clean

    _stderr().print(Text(clean(message), style="dim"))


def handle_errors(command: F) -> F:
    """Turn a ``RagError`` into one line and exit 1; other errors are bugs (traceback with --debug)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from rag.errors import RagError

        try:
            return command(*args, **kwargs)
        except RagError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if STATE.debug:
                raise
            typer.echo(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)", err=True)
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
                console=_stderr(),
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


def run(core: Callable[..., Any], *args: Any) -> Any:
    """Call a core function with this CLI's notice and progress callbacks."""
    bar = ProgressBar()
    try:
        return core(*args, notify=notify, progress=bar)
    finally:
        bar.close()


def print_json(payload: Any) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))


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


def _request(
    query: str, top_k: int | None, since: int | None, until: int | None, lists: list[str] | None
) -> SearchRequest:
    from rag.api import SearchRequest

    resolved = settings()
    return SearchRequest(query, resolved.top_k if top_k is None else top_k, since, until, lists or [])


@app.command()
@handle_errors
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="Seed-list .txt files or folders (papers.tsv beside them adds titles).")
    ],
) -> None:
    """Add files or folders to the library. Re-ingesting unchanged files adds nothing."""
    from rag.api import ingest as core_ingest
    from rag.render import render_ingest

    render_ingest(_stdout(), run(core_ingest, settings(), paths))


@app.command()
@handle_errors
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    top_k: TopK = None,
    as_json: AsJson = False,
    since: Since = None,
    until: Until = None,
    lists: Lists = None,
) -> None:
    """Find the papers most relevant to QUERY (hybrid dense + BM25 retrieval)."""
    from rag.api import search as core_search

    result = run(core_search, settings(), _request(query, top_k, since, until, lists))
    if as_json:
        from rag.jsonout import search_json

        print_json(search_json(result))
    else:
        from rag.render import render_search

        render_search(_stdout(), result)


@app.command()
@handle_errors
def ask(
    question: Annotated[str, typer.Argument(help='A question, e.g. "which works target heterogeneous GPUs?"')],
    top_k: TopK = None,
    as_json: AsJson = False,
    since: Since = None,
    until: Until = None,
    lists: Lists = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Extractive answer (the only mode so far).")] = False,
) -> None:
    """Answer QUESTION from the library, citing the papers each sentence comes from."""
    from rag.api import ask as core_ask

    answer = run(core_ask, settings(), _request(question, top_k, since, until, lists))
    if as_json:
        from rag.jsonout import answer_json

        print_json(answer_json(answer))
    else:
        from rag.render import render_answer

        render_answer(_stdout(), answer)


@app.command()
@handle_errors
def papers(as_json: AsJson = False) -> None:
    """List the papers in the library."""
    from rag.api import papers as core_papers

    listing = run(core_papers, settings())
    if as_json:
        from rag.jsonout import listing_json

        print_json(listing_json(listing))
    else:
        from rag.render import render_papers

        render_papers(_stdout(), listing)


@app.command()
@handle_errors
def show(
    ref: Annotated[
        str, typer.Argument(help="Paper id, citekey, or source reference such as 000_e22c73655386b99b.txt#7.")
    ],
    as_json: AsJson = False,
) -> None:
    """Show one paper in full."""
    from rag.api import show as core_show

    paper, lists = run(core_show, settings(), ref)
    if as_json:
        from rag.jsonout import show_json

        print_json(show_json(paper, lists))
    else:
        from rag.render import render_paper

        render_paper(_stdout(), paper, lists)


@app.command()
@handle_errors
def reindex() -> None:
    """Rebuild the vector index from the saved papers (after a crash, or to change model)."""
    from rag.api import reindex as core_reindex

    count = run(core_reindex, settings())
    typer.echo(f"reindexed {count} papers")


@app.command("eval")
@handle_errors
def eval_command(
    path: Annotated[
        Path,
        typer.Argument(
            help="A labelled question file (JSONL: {question, relevant: {id|citekey|file#n: grade}}) "
            "or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv)."
        ),
    ],
    methods: Annotated[
        list[str] | None,
        typer.Option("--method", "-m", help="hybrid, dense or lexical; repeat to compare [default: hybrid]."),
    ] = None,
    split: Annotated[str, typer.Option("--split", help="BEIR qrels split.")] = "test",
    as_json: AsJson = False,
) -> None:
    """Retrieval quality (nDCG@10, recall@10, recall@100, MRR@10) on labelled questions.

    A BEIR folder is ingested into its own collection (eval-NAME), reused by later runs.
    """
    from rag.api import EvalRequest, evaluate_retrieval
    from rag.errors import InputError
    from rag.retrieve import Method

    try:
        chosen = [Method(m.strip().lower()) for m in methods or ["hybrid"]]
    except ValueError:
        raise InputError(f"unknown --method in {methods}; choose from {', '.join(m.value for m in Method)}") from None
    run_result = run(evaluate_retrieval, settings(), EvalRequest(path, list(dict.fromkeys(chosen)), split))
    if as_json:
        from rag.jsonout import eval_json

        print_json(eval_json(run_result))
    else:
        from rag.render import render_eval

        render_eval(_stdout(), run_result)


def main(args: list[str] | None = None) -> None:
    app(args=args, prog_name="rag")


def ask_main() -> None:
    """The `ask` console script: `ask Q` is `rag ask Q`."""
    app(args=["ask", *sys.argv[1:]], prog_name="rag")
