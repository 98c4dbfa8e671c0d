"""The commands that write a library: ingest files, rebuild the index from the saved papers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.corpus.exports.tabular import parse_mapping
from rag.corpus.loader import load_paths
from rag.corpus.merging import merged_line
from rag.corpus.readers import ReadOptions
from rag.errors import Interrupted, StoreBusyError, StoreError
from rag.index.session import LibrarySession
from rag.index.units import all_units
from rag.services.context import Context
from rag.services.results import IngestResult, ReindexResult
from rag.text import plural

# Merged duplicates named in the one-line report; the rest are counted (all are in --json).
SHOWN_MERGES = 5


def ingest(
    ctx: Context,
    paths: Sequence[Path],
    fields: Sequence[str] = (),
    full_text: bool = True,
    zotero_collections: Sequence[str] = (),
) -> IngestResult:
    """Add files and folders to the library; re-ingesting unchanged files changes nothing (and parses
    no unchanged PDF again: the data dir keeps what each was parsed into)."""
    options = ReadOptions(
        parse_mapping(list(fields)),
        full_text,
        zotero_collections=tuple(zotero_collections),
        pdf_cache=ctx.storage().layout.pdf_cache,
        progress=ctx.progress,
    )
    try:
        loaded = load_paths(paths, options=options)  # all parsed before any write
    except KeyboardInterrupt:
        raise Interrupted("interrupted while reading the files: nothing was changed") from None
    for warning in loaded.warnings:
        ctx.notify(warning)
    with ctx.writer(create=True) as library:
        try:
            replaced = [s.file for s in loaded.lists]
            report = library.add(list(loaded.papers.values()), loaded.lists, replaced, loaded.copies)
        except KeyboardInterrupt:
            raise _interrupted_while_indexing(library, len(loaded.papers)) from None
        for warning in report.warnings:
            ctx.notify(warning)
        merges = [*loaded.merges, *report.merges]
        if (line := merged_line(merges, SHOWN_MERGES)) is not None:
            ctx.notify(line)
        return IngestResult(
            files_read=loaded.files_read,
            papers_found=len(loaded.papers) - len(report.folded),
            added=len(report.added),
            updated=len(report.updated),
            unchanged=len(report.unchanged),
            removed=len(report.removed),
            warnings=loaded.warnings,
            total_papers=len(library.catalog.papers),
            passages_found=sum(len(p.passages) for p in loaded.papers.values()),
            entries_read=loaded.entries_read,
            merged={key: m.kept.citekey for m in merges for key in m.new_keys if key != m.kept.citekey},
            pdfs_parsed=loaded.pdfs_parsed,
            pdfs_reused=loaded.pdfs_reused,
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
    try:
        return ReindexResult(_rebuild(ctx))
    except StoreBusyError:
        raise
    except StoreError as exc:
        backend = ctx.storage()
        with backend.write_guard(ctx.settings.lock_timeout):
            if not backend.wipe_damaged_index(ctx.settings.collection):
                raise
        ctx.notify(f"the vector index could not be opened ({exc}); removed it, building it again")
        return ReindexResult(_rebuild(ctx))


def _rebuild(ctx: Context) -> int:
    with ctx.rebuilder() as library:
        catalog = library.catalog
        if not catalog.papers:
            raise StoreError("the library is empty: nothing to rebuild; add papers with `rag ingest`")
        if notice := library.backend.keep_copy(library.name, catalog):  # a copy before the vectors are dropped
            ctx.notify(notice)
        old_cleaner = catalog.cleaner
        if cleaned := catalog.clean_again():
            library.backend.save_catalog(library.name, catalog)  # the uncleaned papers stay as its backup
        if old_cleaner < catalog.cleaner:
            ctx.notify(
                f"cleaned the text of {plural(cleaned, 'paper')} with today's cleaner (was made by an older rag)"
            )
        if library.embedder is None or library.store is None:
            ctx.notify("no embedding model: the lexical index is rebuilt on every command; nothing else to do")
            return len(catalog.papers)
        units = all_units(catalog.ordered())
        vectors = library.embedder.embed([u.text for u in units], ctx.progress)
        library.store.drop()
        library.store.upsert(units, vectors, ctx.progress)
        library.store.save_lists(list(catalog.lists.values()), library.marks())
        return len(catalog.papers)
