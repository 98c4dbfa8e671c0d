"""The library commands: parse options, call one service, render its typed result. No logic here."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from rag.cli.options import (
    AsJson,
    BaseUrl,
    ExportFormat,
    Gguf,
    Lists,
    Model,
    NoCache,
    Since,
    TopK,
    Until,
    Verify,
    VerifyOption,
    search_request,
)
from rag.cli.runtime import context, emit, handle_errors
from rag.services.requests import DEFAULT_EXPORT, INGEST_FORMATS


@handle_errors
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help=f"Files or folders (read recursively) of these formats: {INGEST_FORMATS}. "
            "A Zotero library is read without changing it.",
            metavar="PATH...",
        ),
    ],
    fields: Annotated[
        list[str] | None,
        typer.Option(
            "--field",
            metavar="NAME=COLUMN",
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
    zotero_collections: Annotated[
        list[str] | None,
        typer.Option(
            "--zotero-collection",
            metavar="NAME",
            help="Zotero: only the items in this collection and its sub-collections (name or Parent/Child path, "
            "any case); the library then holds just these of the Zotero library's items. Repeatable.",
        ),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Add files or folders to the library.

    Unchanged entries are skipped without re-embedding; a changed file replaces
    what it said before. Unusable files are reported and skipped.
    """
    from rag.cli.render import render_ingest
    from rag.services.contracts import ingest_json
    from rag.services.ingest import ingest as core_ingest

    with context() as ctx:
        result = core_ingest(
            ctx, paths, fields=fields or [], full_text=full_text, zotero_collections=zotero_collections or []
        )
    emit(as_json, result, ingest_json, render_ingest)


@handle_errors
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for (- reads it from stdin).")],
    top_k: TopK = None,
    as_json: AsJson = False,
    since: Since = None,
    until: Until = None,
    lists: Lists = None,
) -> None:
    """Find the papers most relevant to QUERY.

    Hybrid retrieval (embeddings + BM25); relevance is the cosine similarity of
    query and paper, comparable across queries.
    """
    from rag.cli.render import render_search
    from rag.services.contracts import search_json
    from rag.services.read import search as core_search

    with context() as ctx:
        result = core_search(ctx, search_request(query, top_k, since, until, lists, "query"))
    emit(as_json, result, search_json, render_search)


@handle_errors
def papers(
    as_json: AsJson = False,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", metavar="N", help="Show at most this many papers.")
    ] = None,
) -> None:
    """List the papers in the library.

    A table on a terminal (paged when long), tab-separated lines in a pipe.
    """
    from rag.cli.render import render_papers
    from rag.services.contracts import listing_json
    from rag.services.read import papers as core_papers

    with context() as ctx:
        listing = core_papers(ctx)
    emit(as_json, listing, listing_json, lambda console, shown: render_papers(console, shown, limit))


@handle_errors
def show(
    ref: Annotated[
        str,
        typer.Argument(
            metavar="REF", help="Paper id, citekey, or source reference such as 000_e22c73655386b99b.txt#7."
        ),
    ],
    as_json: AsJson = False,
) -> None:
    """Show one paper in full."""
    from rag.cli.render import render_paper
    from rag.services.contracts import show_json
    from rag.services.read import show as core_show

    with context() as ctx:
        view = core_show(ctx, ref)
    emit(as_json, view, show_json, render_paper)


@handle_errors
def reindex(as_json: AsJson = False) -> None:
    """Rebuild the vector index from the saved papers, their text cleaned again.

    After a crash, to finish an interrupted ingest, to change the embedding model, or to clean a library
    an older rag saved (ligatures, line numbers, copyright notices, glued headings).
    """
    from rag.services.ingest import reindex as core_reindex

    with context() as ctx:
        result = core_reindex(ctx)
    emit(
        as_json,
        result,
        lambda r: {"papers": r.papers},
        lambda console, r: console.print(f"reindexed {r.papers} papers"),
    )


@handle_errors
def eval_command(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="FILE_OR_BEIR_DIR",
            help="A labelled question file (JSONL: {question, relevant: {id|citekey|file#n: grade}}) "
            "or a BEIR folder (corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv).",
        ),
    ],
    methods: Annotated[
        list[str] | None,
        typer.Option(
            "--method", "-m", metavar="METHOD", help="hybrid, dense or lexical; repeat to compare [default: hybrid]."
        ),
    ] = None,
    split: Annotated[str, typer.Option("--split", metavar="SPLIT", help="BEIR qrels split.")] = "test",
    as_json: AsJson = False,
) -> None:
    """Retrieval quality on labelled questions.

    nDCG@10, recall@10, recall@100 and MRR@10.
    A BEIR folder is ingested into its own collection (eval-NAME), reused by later runs.
    """
    from rag.cli.render import render_eval
    from rag.errors import InputError
    from rag.records import Method
    from rag.services.contracts import eval_json
    from rag.services.evaluation import evaluate_retrieval
    from rag.services.requests import EvalRequest

    try:
        chosen = [Method(m.strip().lower()) for m in methods or ["hybrid"]]
    except ValueError:
        raise InputError(f"unknown --method in {methods}; choose from {', '.join(m.value for m in Method)}") from None
    with context() as ctx:
        run = evaluate_retrieval(ctx, EvalRequest(path, list(dict.fromkeys(chosen)), split))
    emit(as_json, run, eval_json, render_eval)


@handle_errors
def collections(
    as_json: AsJson = False,
    delete: Annotated[
        str | None,
        typer.Option("--delete", metavar="NAME", help="Delete this library: its papers, caches and vectors."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="With --delete: do not ask for confirmation.")] = False,
) -> None:
    """List the libraries, or delete one.

    Papers, vectors and embedding model of each library (Chroma collection).
    """
    from rag.cli.render import render_collections
    from rag.errors import InputError
    from rag.services.contracts import collections_json
    from rag.services.manage import collections as core_collections
    from rag.services.manage import delete_library

    with context() as ctx:
        if delete is None:
            emit(as_json, core_collections(ctx), collections_json, render_collections)
            return
        if not yes:
            if not sys.stdin.isatty():
                raise InputError(f"deleting library '{delete}' needs confirmation: pass --yes")
            typer.confirm(f"Delete library '{delete}' with all its papers and vectors?", abort=True)
        deleted = delete_library(ctx, delete)
    if as_json:
        emit(as_json, deleted, collections_json, render_collections)
    else:
        typer.echo(f"deleted library '{delete}' ({', '.join(i.name for i in deleted.collections)})", err=True)


@handle_errors
def remove(
    refs: Annotated[list[str], typer.Argument(help="Paper ids, citekeys or file#n sources.", metavar="REF...")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be removed; change nothing.")] = False,
    as_json: AsJson = False,
) -> None:
    """Remove papers from the library.

    Nothing is removed if any of them is unknown; --dry-run shows what would go.
    """
    from rag.cli.render import render_remove
    from rag.services.contracts import remove_json
    from rag.services.manage import remove as core_remove

    with context() as ctx:
        result = core_remove(ctx, refs, dry_run=dry_run)
    emit(as_json, result, remove_json, render_remove)


@handle_errors
def export(
    export_format: ExportFormat = DEFAULT_EXPORT,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Export the library as BibTeX, JSONL or CSL JSON.

    BibTeX keeps your own entries where papers came from a .bib file.
    """
    from rag.errors import InputError
    from rag.services.manage import export as core_export

    with context() as ctx:
        text = core_export(ctx, export_format)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {output}", err=True)


@handle_errors
def doctor(as_json: AsJson = False) -> None:
    """Check the setup: what works, what is missing.

    What is configured, what is reachable, what is missing, with the fix on each line.
    """
    from rag.cli.render import render_doctor
    from rag.services.contracts import doctor_json
    from rag.services.doctor import diagnose

    with context() as ctx:
        report = diagnose(ctx)
    emit(as_json, report, doctor_json, render_doctor)
    if not report.healthy:
        raise typer.Exit(1)


@handle_errors
def eval_support(
    path: Annotated[
        Path,
        typer.Argument(
            metavar="PAIRS.jsonl",
            help="Labelled claim/paper pairs, JSONL: {claim, title, abstract, label: SUPPORT|CONTRADICT|NEI, "
            "kind: hard_negative (optional)}.",
        ),
    ],
    verify: VerifyOption = Verify.OFFLINE,
    limit: Annotated[int | None, typer.Option("--limit", metavar="N", help="Check only the first N pairs.")] = None,
    as_json: AsJson = False,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_cache: NoCache = False,
) -> None:
    """Measure the citation check on labelled pairs.

    How well it tells a paper that backs a claim from one that does not: confusion
    matrix, precision/recall/F1 of its top label, and the share of contradicting,
    unrelated and similar-but-wrong papers it would still show as backed (95% intervals).
    """
    from rag.cli.render import render_support_eval
    from rag.services.contracts import support_eval_json
    from rag.services.evaluation import evaluate_support
    from rag.services.requests import SupportEvalRequest

    request = SupportEvalRequest(path, verify is Verify.LLM, limit, cache=not no_cache)
    with context(llm_model=model, llm_base_url=base_url, llm_gguf=gguf) as ctx:
        run = evaluate_support(ctx, request)
    emit(as_json, run, support_eval_json, render_support_eval)
