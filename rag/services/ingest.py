"""The commands that write a library: ingest files, rebuild the index from the saved papers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.corpus.exports import parse_mapping
from rag.corpus.loader import load_paths
from rag.errors import Interrupted, StoreBusyError, StoreError
from rag.index.catalog import CATALOG_FILE, CatalogFile
from rag.index.chroma import wipe_embedded_index
from rag.index.lock import data_dir_lock
from rag.index.session import LibrarySession
from rag.index.units import all_units
from rag.services.context import Context
from rag.services.results import IngestResult, ReindexResult

SERVER_SNAPSHOTS = "server-snapshots"


def ingest(ctx: Context, paths: Sequence[Path], fields: Sequence[str] = (), full_text: bool = True) -> IngestResult:
    """Add files and folders to the library; re-ingesting unchanged files changes nothing."""
    try:
        loaded = load_paths(paths, parse_mapping(list(fields)), full_text, ctx.progress)  # all parsed before any write
    except KeyboardInterrupt:
        raise Interrupted("interrupted while reading the files: nothing was changed") from None
    for warning in loaded.warnings:
        ctx.notify(warning)
    with ctx.open(bootstrap=False, write=True, create=True) as library:
        try:
            report = library.add(list(loaded.papers.values()), loaded.lists, [s.file for s in loaded.lists])
        except KeyboardInterrupt:
            raise _interrupted_while_indexing(library, len(loaded.papers)) from None
        for warning in report.warnings:
            ctx.notify(warning)
        return IngestResult(
            files_read=loaded.files_read,
            papers_found=len(loaded.papers),
            added=len(report.added),
            updated=len(report.updated),
            unchanged=len(report.unchanged),
            removed=len(report.removed),
            warnings=loaded.warnings,
            total_papers=len(library.catalog.papers),
            passages_found=sum(len(p.passages) for p in loaded.papers.values()),
        )


def _interrupted_while_indexing(library: LibrarySession, read: int) -> Interrupted:
    """What Ctrl-C left: the papers file is written first, so every paper read is saved; some lack vectors."""
    missing = library.missing_units()
    if missing:
        return Interrupted(
            f"interrupted: the {read} papers read are saved, {missing} papers and passages still without a vector "
            "(searched by their words meanwhile); run the same `rag ingest` again to finish them"
        )
    return Interrupted(f"interrupted: the {read} papers read are saved with their vectors")


def reindex(ctx: Context) -> ReindexResult:
    """Rebuild the vector index from the saved papers.

    An embedded index too damaged to open is removed and built again: the papers
    file, not Chroma, is the source of truth.
    """
    settings = ctx.settings
    try:
        return ReindexResult(_rebuild(ctx))
    except StoreBusyError:
        raise
    except StoreError as exc:
        if settings.chroma_url or not (settings.data_dir / settings.collection / CATALOG_FILE).exists():
            raise
        ctx.notify(f"the vector index cannot be opened ({exc}); removing it and building it again")
        with data_dir_lock(settings.data_dir, settings.lock_timeout):
            wipe_embedded_index(settings.data_dir)
        return ReindexResult(_rebuild(ctx))


def _rebuild(ctx: Context) -> int:
    settings = ctx.settings
    with ctx.open(rebuild=True, write=True) as library:
        if not library.catalog.papers:
            raise StoreError("the library is empty: nothing to rebuild; add papers with `rag ingest`")
        if library.catalog_file is not None:
            library.catalog_file.save(library.catalog)  # also a safety copy before dropping
        else:  # a server's collection is the only copy: keep one locally before dropping it
            snapshot = CatalogFile(settings.data_dir / SERVER_SNAPSHOTS / f"{settings.collection}.json")
            snapshot.save(library.catalog)
            ctx.notify(f"saved a copy of the {len(library.catalog.papers)} papers to {snapshot.path} before rebuilding")
        if library.embedder is None or library.store is None:
            ctx.notify("no embedding model: the lexical index is rebuilt on every command; nothing else to do")
            return len(library.catalog.papers)
        units = all_units(library.catalog.ordered())
        vectors = library.embedder.embed([u.text for u in units], ctx.progress)
        library.store.drop()
        library.store.upsert(units, vectors, ctx.progress)
        library.store.save_lists(list(library.catalog.lists.values()))
        return len(library.catalog.papers)
