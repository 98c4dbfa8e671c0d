"""Options shared by several commands, declared once (typer needs each in every signature)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rag.formats.registry import BIBLIOGRAPHIES, DOCUMENTS

if TYPE_CHECKING:
    from rag.services.requests import SearchRequest


class Verify(StrEnum):
    OFFLINE = "offline"
    LLM = "llm"


def _one_of(names: Sequence[str]) -> Callable[[str], str]:
    """A parser that takes one of ``names`` (any case), or is a usage error naming them."""

    def parse(value: str) -> str:
        chosen = value.strip().lower()
        if chosen not in names:
            raise typer.BadParameter(f"'{value}' is not one of {', '.join(names)}")
        return chosen

    return parse


DocumentFormat = Annotated[
    str,
    typer.Option(
        "--format",
        parser=_one_of(list(DOCUMENTS)),
        metavar="|".join(DOCUMENTS),
        help="; ".join(f"{f.name}: {f.description}" for f in DOCUMENTS.values()) + ".",
    ),
]
ExportFormat = Annotated[  # checked by the service (rag.formats.registry): an unknown name is one error line
    str,
    typer.Option(
        "--format",
        metavar="|".join(BIBLIOGRAPHIES),
        help="; ".join(f"{f.name}: {f.label}, {f.description}" for f in BIBLIOGRAPHIES.values()) + ".",
    ),
]
Bibliography = Annotated[
    Path | None,
    typer.Option(
        "--bib",
        metavar="FILE",
        help="Also write the cited papers here: "
        + " or ".join(f"{f.label} (FILE{f.suffix})" for f in BIBLIOGRAPHIES.values() if f.suffix)
        + ".",
    ),
]


def _top_k_flag(value: int | None) -> int | None:
    """-k N is a flag: it wins over RAG_TOP_K and the config file (a bad value there too). A bad -k itself is
    the request's to refuse, with its own message."""
    from rag.cli.runtime import STATE

    STATE.top_k = value if value is not None and value >= 1 else None
    return value


TopK = Annotated[
    int | None,
    typer.Option(
        "-k",
        "--top-k",
        metavar="N",
        help="Number of papers to retrieve (ask, table, summarize, draft: papers with an abstract) [default: 5].",
        callback=_top_k_flag,
    ),
]
# `rag map -k`: retrieves nothing itself, it says how many search hits --query marks.
HighlightedHits = Annotated[
    int | None,
    typer.Option(
        "-k",
        "--top-k",
        metavar="N",
        help="How many hits of --query to highlight (as `rag search -k N`) [default: 5].",
        callback=_top_k_flag,
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]
Since = Annotated[int | None, typer.Option("--since", metavar="YEAR", help="Only papers from this year on.")]
Until = Annotated[int | None, typer.Option("--until", metavar="YEAR", help="Only papers up to this year.")]
Lists = Annotated[
    list[str] | None,
    typer.Option(
        "--list",
        metavar="NAME",
        help="Only papers from this seed list (file name, its prefix, or words of its subject). Repeatable.",
    ),
]
Model = Annotated[
    str | None,
    typer.Option("--model", metavar="MODEL", help="Model name, e.g. gpt-4o-mini or llama3.1 [env: RAG_LLM_MODEL]."),
]
BaseUrl = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible server, e.g. http://localhost:11434/v1 [env: RAG_LLM_BASE_URL].",
    ),
]
Gguf = Annotated[
    Path | None,
    typer.Option(
        "--gguf",
        metavar="FILE",
        help="Run this GGUF model in-process with llama.cpp (the `local` extra: pip install xllamacpp), on the "
        "cores this process may use (RAG_LLM_THREADS=auto; a number to pin it); on a terminal a line on stderr "
        "says what the model is doing [env: RAG_LLM_GGUF].",
    ),
]


def model_overrides(model: str | None, base_url: str | None, gguf: Path | None) -> dict[str, object]:
    """--model, --base-url and --gguf as the settings they override (None: not given, the setting stands)."""
    return {"llm_model": model, "llm_base_url": base_url, "llm_gguf": gguf}


NoLlm = Annotated[bool, typer.Option("--no-llm", help="Do not call a model: quotes, or the papers' own sentences.")]
NoLog = Annotated[bool, typer.Option("--no-log", help="Do not keep this in `rag log` (RAG_LOG=false: never).")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Ask the model again instead of reusing a cached answer.")]
StreamJson = Annotated[
    bool,
    typer.Option(
        "--stream",
        help="With --json: each checked sentence, as the model completes it, as one JSON line on stderr "
        '({"event": "sentence", "text", "citekeys", "support", "seconds"}); stdout stays one object.',
    ),
]
ShowEvidence = Annotated[
    bool,
    typer.Option("--evidence", help="Under the answer, the source sentence that backs each cited sentence best."),
]
VerifyOption = Annotated[
    Verify,
    typer.Option(
        "--verify",
        metavar="offline|llm",
        help="How cited sentences are checked: offline (a classifier trained on labelled claims) or llm (model judge).",
    ),
]


# The argument that means "read it from standard input", as cat, git and llm take it.
STDIN = "-"


def from_stdin(value: str, what: str) -> str:
    """``value``, or the text piped in when it is ``-`` (`echo "which works ..." | rag ask -`)."""
    from rag.errors import InputError

    if value != STDIN:
        return value
    if sys.stdin.isatty():
        raise InputError(f"'-' reads the {what} from standard input, but nothing is piped in (echo TEXT | rag ... -)")
    text = sys.stdin.read().strip()
    if not text:
        raise InputError(f"standard input is empty: pipe the {what} in, e.g. echo TEXT | rag ... -")
    return text


def search_request(
    query: str, top_k: int | None, since: int | None, until: int | None, lists: list[str] | None, what: str
) -> SearchRequest:
    from rag.services.requests import SearchRequest

    return SearchRequest(from_stdin(query, what), top_k, since, until, lists or [])
