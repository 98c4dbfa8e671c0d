"""Library management: list libraries, remove papers, export what is indexed."""

from __future__ import annotations

from collections.abc import Sequence

from rag.embed.choice import MODEL_SUFFIX
from rag.errors import InputError, NotFoundError
from rag.formats.registry import bibliography_format
from rag.services.context import Context
from rag.services.results import Collections, RemoveResult


def collections(ctx: Context) -> Collections:
    """Every library: our papers files (embedded mode) and Chroma's collections, by name (no lock: a read)."""
    return Collections(ctx.storage().list_libraries())


def delete_library(ctx: Context, name: str) -> Collections:
    """Delete the library ``name`` whole (its papers file, caches and vectors of every model); the rest remain."""
    backend = ctx.storage()
    with backend.write_guard(ctx.settings.lock_timeout):
        known = backend.list_libraries()
        doomed = [info.name for info in known if info.name == name or info.name.startswith(f"{name}{MODEL_SUFFIX}")]
        if not doomed:
            listed = ", ".join(info.name for info in known) or "none"
            raise NotFoundError(f"there is no library '{name}' (libraries: {listed})")
        backend.delete_libraries(doomed)
    return Collections([info for info in known if info.name in doomed])


def remove(ctx: Context, refs: Sequence[str], dry_run: bool = False) -> RemoveResult:
    """Remove papers (ids, citekeys or file#n sources); nothing is removed if any is unknown."""
    if not refs:
        raise InputError("name the papers to remove (ids, citekeys or file#n sources)")
    with ctx.reader() if dry_run else ctx.writer() as library:
        papers = list({p.id: p for p in (library.paper(ref) for ref in refs)}.values())
        if not dry_run:
            library.remove([p.id for p in papers])
        return RemoveResult(papers, dry_run)


def export(ctx: Context, export_format: str) -> str:
    """The library in one of the bibliography formats (rag.formats.registry)."""
    chosen = bibliography_format(export_format)
    with ctx.reader() as library:
        return chosen.write(library.catalog.ordered())
