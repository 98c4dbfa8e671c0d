"""The typer app: parse options, call one core function, render. No logic here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from rag.cli_common import (
    AsJson,
    Lists,
    Since,
    TopK,
    Until,
    app,
    emit,
    handle_errors,
    run,
    search_request,
    settings,
    stdout_console,
)
from rag.cli_write import ask, draft, summarize

__all__ = ["app", "ask", "ask_main", "draft", "main", "summarize"]


@app.command()
@handle_errors
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders: seed lists (.txt, with papers.tsv beside them), BibTeX (.bib), "
            "JSONL/JSON/CSV/TSV exports (arXiv, OpenAlex, Semantic Scholar), PDF, Markdown or plain text."
        ),
    ],
    fields: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            help="For JSONL/CSV: read a field from another column, e.g. --field abstract=summary "
            "(fields: title, abstract, authors, year, arxiv, doi, key). Repeatable.",
        ),
    ] = None,
    full_text: Annotated[
        bool,
        typer.Option(
            "--full-text/--abstract-only",
            help="PDFs: also index the body, cut into passages that answers quote with their page "
            "(slower: every passage is embedded), or only title and abstract.",
        ),
    ] = True,
) -> None:
    """Add files or folders to the library. Unchanged entries are skipped without re-embedding;
    a changed file replaces what it said before. Unusable files are reported and skipped."""
    from rag.api import ingest as core_ingest
    from rag.render import render_ingest

    render_ingest(stdout_console(), run(core_ingest, settings(), paths, fields=fields or [], full_text=full_text))


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

    result = run(core_search, settings(), search_request(query, top_k, since, until, lists))
    emit(as_json, "search_json", "render_search", result)


@app.command()
@handle_errors
def papers(as_json: AsJson = False) -> None:
    """List the papers in the library."""
    from rag.api import papers as core_papers

    listing = run(core_papers, settings())
    emit(as_json, "listing_json", "render_papers", listing)


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
    emit(as_json, "show_json", "render_paper", paper, lists)


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
    emit(as_json, "eval_json", "render_eval", run_result)


@app.command()
@handle_errors
def collections(as_json: AsJson = False) -> None:
    """List the libraries (collections): papers, vectors and embedding model of each."""
    from rag.manage import collections as core_collections

    emit(as_json, "collections_json", "render_collections", run(core_collections, settings()))


@app.command()
@handle_errors
def remove(
    refs: Annotated[list[str], typer.Argument(help="Paper ids, citekeys or file#n sources.")],
) -> None:
    """Remove papers from the library (nothing is removed if any of them is unknown)."""
    from rag.manage import remove as core_remove

    removed = run(core_remove, settings(), refs)
    typer.echo(f"removed {len(removed)} papers: {', '.join(p.citekey for p in removed)}")


@app.command()
@handle_errors
def export(
    export_format: Annotated[str, typer.Option("--format", help="bibtex or jsonl.")] = "bibtex",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
) -> None:
    """Export the library: BibTeX (your own entries where papers came from a .bib) or JSONL."""
    from rag.errors import InputError
    from rag.manage import export as core_export

    text = run(core_export, settings(), export_format)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {output}", err=True)


@app.command()
@handle_errors
def doctor(as_json: AsJson = False) -> None:
    """What is configured, what is reachable, what is missing, with the fix on each line."""
    from rag.doctor import diagnose

    report = diagnose(settings())
    emit(as_json, "doctor_json", "render_doctor", report)
    if not report.healthy:
        raise typer.Exit(1)


def main(args: list[str] | None = None) -> None:
    app(args=args, prog_name="rag")


def ask_main() -> None:
    """The `ask` console script: `ask Q` is `rag ask Q`."""
    app(args=["ask", *sys.argv[1:]], prog_name="rag")
