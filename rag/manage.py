"""Library management: list libraries, remove papers, export what is indexed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from enum import StrEnum

from rag.catalog import CATALOG_FILE, CatalogFile
from rag.config import Settings
from rag.errors import InputError
from rag.formats import bibtex
from rag.library import Notify, open_library, silent
from rag.lock import data_dir_lock
from rag.models import Paper, ProgressFn


@dataclass
class CollectionInfo:
    name: str
    papers: int | None  # in our papers file (embedded mode); None on a server
    vectors: int | None
    model: str | None


def collections(
    settings: Settings, notify: Notify = silent, progress: ProgressFn | None = None
) -> list[CollectionInfo]:
    """Every library: our papers files (embedded mode) and Chroma's collections, by name."""
    guard = nullcontext() if settings.chroma_url else data_dir_lock(settings.data_dir, settings.lock_timeout)
    with guard:
        return _collections(settings)


def _collections(settings: Settings) -> list[CollectionInfo]:
    from rag.store import CHROMA_SUBDIR, EMBED_MODEL_KEY, chroma_errors, connect

    found: dict[str, CollectionInfo] = {}
    if not settings.chroma_url:
        for path in sorted(settings.data_dir.glob(f"*/{CATALOG_FILE}")):
            count = len(CatalogFile(path).load().papers)
            found[path.parent.name] = CollectionInfo(path.parent.name, count, None, None)
    if settings.chroma_url or (settings.data_dir / CHROMA_SUBDIR).exists():
        with chroma_errors("list collections"):
            client = connect(settings.data_dir, settings.chroma_url)
            for collection in client.list_collections():
                model = (collection.metadata or {}).get(EMBED_MODEL_KEY)
                info = found.setdefault(collection.name, CollectionInfo(collection.name, None, None, None))
                info.vectors, info.model = collection.count(), str(model) if model else None
    return sorted(found.values(), key=lambda c: c.name)


def remove(
    settings: Settings, refs: Sequence[str], notify: Notify = silent, progress: ProgressFn | None = None
) -> list[Paper]:
    """Remove papers (ids, citekeys or file#n sources); nothing is removed if any is unknown."""
    if not refs:
        raise InputError("name the papers to remove (ids, citekeys or file#n sources)")
    with open_library(settings, notify, progress, bootstrap=False, remote=True) as library:
        papers = list({p.id: p for p in (library.paper(ref) for ref in refs)}.values())
        library.remove([p.id for p in papers])
        return papers


class ExportFormat(StrEnum):
    BIBTEX = "bibtex"
    JSONL = "jsonl"


def export(settings: Settings, export_format: str, notify: Notify = silent, progress: ProgressFn | None = None) -> str:
    """The library as BibTeX (the user's own entries where they came from a .bib) or JSONL."""
    try:
        chosen = ExportFormat(export_format.strip().lower())
    except ValueError:
        raise InputError(f"unknown export format '{export_format}'; use bibtex or jsonl") from None
    with open_library(settings, notify, progress) as library:
        papers = library.catalog.ordered()
    if chosen is ExportFormat.BIBTEX:
        return bibtex(papers)
    # One record per paper, as `rag ingest` reads it back; full-text passages stay with the PDFs.
    records = ({k: v for k, v in p.to_dict().items() if k != "passages"} for p in papers)
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
