"""The writing commands: ask, summarize, draft (with or without a language model)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from rag.cli.options import (
    AsJson,
    BaseUrl,
    Bibliography,
    DocumentFormat,
    Gguf,
    Lists,
    Model,
    NoCache,
    NoLlm,
    NoLog,
    ShowEvidence,
    Since,
    StreamJson,
    TopK,
    Until,
    Verify,
    VerifyOption,
    from_stdin,
    model_overrides,
    search_request,
)
from rag.cli.runtime import context, emit, handle_errors, print_json, progress_bar, stdout_console
from rag.services.requests import DEFAULT_DOCUMENT

if TYPE_CHECKING:
    from rag.check.sentences import Answer, CitedSentence
    from rag.cli.progress import ProgressBar
    from rag.records import Paper
    from rag.services.requests import WritingOptions

R = TypeVar("R")
A = TypeVar("A")


class LiveText:
    """Shows each checked sentence as the model completes it (terminal only), with the author and year of what it
    cites; the checked answer replaces it at the end. With --json --stream: one JSON line per sentence on stderr.
    When stderr is the same terminal, the sentences are drawn by ``bar``'s display, above the model's line."""

    def __init__(self, json_lines: bool = False, bar: ProgressBar | None = None) -> None:
        self.console = stdout_console()
        self.json_lines = json_lines
        self.bar = bar if bar is not None and bar.terminal else None
        self._live: Any = None
        self._shown: list[str] = []
        self._started = time.monotonic()

    def sentence(self, sentence: CitedSentence, papers: list[Paper]) -> None:
        from rag.check.sources import author_year

        if self.json_lines:
            event = {
                "event": "sentence",
                "text": sentence.text,
                "citekeys": [p.citekey for p in papers],
                "support": sentence.support.value if sentence.support else None,
                "seconds": round(time.monotonic() - self._started, 2),
            }
            sys.stderr.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stderr.flush()
            return
        if not self.console.is_terminal:
            return
        from rich.live import Live
        from rich.text import Text

        from rag.cli.render import clean

        cited = "; ".join(author_year(p) or p.citekey for p in papers)
        self._shown.append(f"{sentence.text} ({cited})" if cited else sentence.text)
        if self.bar is not None:
            self.bar.show(Text(clean(" ".join(self._shown)), style="dim"))
            return
        if self._live is None:
            self._live = Live(console=self.console, transient=True, auto_refresh=False)
            self._live.start()
        self._live.update(Text(clean(" ".join(self._shown)), style="dim"), refresh=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def _write(
    core: Callable[..., A],
    request: R,
    options: WritingOptions,
    overrides: dict[str, Any],
    as_json: bool,
    stream: bool = False,
) -> A:
    """Run a writing service with its checked sentences shown as they come (terminal; --json --stream: JSON
    lines on stderr), what the model is doing (a terminal, not --json) and the usual notices."""
    bar = progress_bar(model_line=not as_json)
    live = LiveText(json_lines=as_json and stream, bar=bar)
    try:
        with context(bar=bar, **overrides) as ctx:
            return core(ctx, request, options, on_sentence=live.sentence)
    finally:
        live.close()


def _options(no_llm: bool, no_cache: bool, verify: Verify, no_log: bool, long: bool = False) -> WritingOptions:
    from rag.services.requests import WritingOptions

    verify_llm = verify is Verify.LLM
    return WritingOptions(use_llm=not no_llm, long=long, verify_llm=verify_llm, cache=not no_cache, log=not no_log)


def _show_answer(as_json: bool, answer: Answer, evidence: bool) -> None:
    from rag.cli.render import render_answer
    from rag.services.contracts import answer_json

    emit(as_json, answer, answer_json, lambda console, shown: render_answer(console, shown, evidence))


@handle_errors
def ask(
    question: Annotated[
        str,
        typer.Argument(
            metavar="QUESTION",
            help='A question, e.g. "which works target heterogeneous GPUs?" (- reads it from stdin).',
        ),
    ],
    top_k: TopK = None,
    as_json: AsJson = False,
    since: Since = None,
    until: Until = None,
    lists: Lists = None,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_llm: NoLlm = False,
    long: Annotated[bool, typer.Option("--long", help="A paragraph instead of a short answer.")] = False,
    verify: VerifyOption = Verify.OFFLINE,
    no_cache: NoCache = False,
    no_log: NoLog = False,
    evidence: ShowEvidence = False,
    stream: StreamJson = False,
) -> None:
    """Answer QUESTION, citing the papers.

    Every sentence cites the papers it comes from and is checked against them.
    With a model (RAG_LLM_MODEL or --model) the answer is written by it and every
    citation is checked; without one it is extractive (quoted from the abstracts).
    """
    from rag.services.writing import ask as core_ask

    request = search_request(question, top_k, since, until, lists, "question")
    overrides = model_overrides(model, base_url, gguf)
    answer = _write(core_ask, request, _options(no_llm, no_cache, verify, no_log, long), overrides, as_json, stream)
    _show_answer(as_json, answer, evidence)


@handle_errors
def summarize(
    query: Annotated[
        str | None,
        typer.Argument(
            metavar="[QUERY]", help="Topic; omit it to summarize a --list or the whole library (- reads it from stdin)."
        ),
    ] = None,
    lists: Lists = None,
    max_papers: Annotated[
        int, typer.Option("-k", "--top-k", "--max", metavar="N", help="At most this many papers.")
    ] = 40,
    as_json: AsJson = False,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_llm: NoLlm = False,
    verify: VerifyOption = Verify.OFFLINE,
    no_cache: NoCache = False,
    no_log: NoLog = False,
    evidence: ShowEvidence = False,
    stream: StreamJson = False,
) -> None:
    """Summarize a topic or a seed list, cited.

    Grouped by theme, every sentence cited and checked.
    Without a model: a paragraph per theme, built from the papers' own sentences.
    """
    from rag.services.requests import SummaryRequest
    from rag.services.writing import summarize as core_summarize

    request = SummaryRequest(from_stdin(query, "topic") if query else None, lists or [], max_papers)
    overrides = model_overrides(model, base_url, gguf)
    answer = _write(core_summarize, request, _options(no_llm, no_cache, verify, no_log), overrides, as_json, stream)
    _show_answer(as_json, answer, evidence)


@handle_errors
def draft(
    topic: Annotated[
        str, typer.Argument(metavar="TOPIC", help="What the related-work section is about (- reads it from stdin).")
    ],
    cite: Annotated[
        list[str] | None,
        typer.Option("--cite", metavar="KEY", help="A paper that must be cited (id, citekey or file#n). Repeatable."),
    ] = None,
    max_papers: Annotated[
        int, typer.Option("-k", "--top-k", "--max", metavar="N", help="At most this many papers.")
    ] = 8,
    output_format: DocumentFormat = DEFAULT_DOCUMENT,
    bib: Bibliography = None,
    as_json: AsJson = False,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_llm: NoLlm = False,
    verify: VerifyOption = Verify.OFFLINE,
    no_cache: NoCache = False,
    no_log: NoLog = False,
    evidence: ShowEvidence = False,
    stream: StreamJson = False,
) -> None:
    """Draft related-work paragraphs on TOPIC.

    Every sentence cited and checked; markdown, LaTeX (\\cite, \\citet) or Pandoc ([@key], @key).
    Without a model: a paragraph per theme, built from the papers' own sentences.
    """
    from rag.services.contracts import draft_json
    from rag.services.drafting import draft as core_draft
    from rag.services.requests import DraftRequest

    request = DraftRequest(from_stdin(topic, "topic"), cite or [], max_papers, output_format, bib)
    overrides = model_overrides(model, base_url, gguf)
    result = _write(core_draft, request, _options(no_llm, no_cache, verify, no_log), overrides, as_json, stream)
    if as_json:
        print_json(draft_json(result))
    elif result.shown_as_answer:
        _show_answer(False, result.answer, evidence)
    else:
        from rag.cli.render import render_document

        # Plain text on stdout (pasteable, for LaTeX or Pandoc alike); the notes go to stderr.
        render_document(stdout_console(), result.answer, result.document)
