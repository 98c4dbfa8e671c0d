"""Library management: list libraries, remove papers, export what is indexed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import nullcontext

from rag.errors import InputError
from rag.index.libraries import list_libraries
from rag.index.lock import data_dir_lock
from rag.services.context import Context
from rag.services.requests import ExportFormat
from rag.services.results import Collections, RemoveResult
from rag.writing.bibliography import bibtex


def collections(ctx: Context) -> Collections:
    """Every library: our papers files (embedded mode) and Chroma's collections, by name."""
    settings = ctx.settings
    guard = nullcontext() if settings.chroma_url else data_dir_lock(settings.data_dir, settings.lock_timeout)
    with guard:
        return Collections(list_libraries(settings, ctx.chroma))


def remove(ctx: Context, refs: Sequence[str]) -> RemoveResult:
    """Remove papers (ids, citekeys or file#n sources); nothing is removed if any is unknown."""
    if not refs:
        raise InputError("name the papers to remove (ids, citekeys or file#n sources)")
    with ctx.open(bootstrap=False, remote=True) as library:
        papers = list({p.id: p for p in (library.paper(ref) for ref in refs)}.values())
        library.remove([p.id for p in papers])
        return RemoveResult(papers)


def export(ctx: Context, export_format: str) -> str:
    """The library as BibTeX (the user's own entries where they came from a .bib) or JSONL."""
    try:
        chosen = ExportFormat(export_format.strip().lower())
    except ValueError:
        raise InputError(f"unknown export format '{export_format}'; use bibtex or jsonl") from None
    with ctx.open() as library:
        papers = library.catalog.ordered()
    if chosen is ExportFormat.BIBTEX:
        return bibtex(papers)
    # One record per paper, as `rag ingest` reads it back; full-text passages stay with the PDFs.
    records = ({k: v for k, v in p.to_dict().items() if k != "passages"} for p in papers)
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
