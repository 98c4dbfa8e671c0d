"""`rag map`: the library as a 2D picture, papers coloured by theme, for planning a related-work section.

Orchestration only: the papers and their stored vectors come from the library, the layout
from rag.mapping.layout, the file from rag.mapping.output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.errors import InputError
from rag.index.session import LibrarySession
from rag.mapping.layout import Matrix, layout, lexical_vectors, unit_rows
from rag.mapping.output import write_map
from rag.mapping.picture import LibraryMap
from rag.records import Paper
from rag.services.context import Context
from rag.services.requests import MapRequest, SearchRequest

NO_MODEL_NOTE = "no embedding model: papers placed by their words (TF-IDF)"


@dataclass(frozen=True)
class MapResult:
    map: LibraryMap
    output: Path
    size: int  # bytes written


def draw_map(ctx: Context, request: MapRequest) -> MapResult:
    """Build the map of the library and write it where ``request.output`` says, as PNG or HTML."""
    request.validate()
    library_map = build_map(ctx, request)
    return MapResult(library_map, request.output, write_map(library_map, request.output))


def build_map(ctx: Context, request: MapRequest) -> LibraryMap:
    with ctx.reader() as library:
        papers = library.catalog.ordered()
        if not papers:
            raise InputError(
                f"library '{ctx.settings.collection}' has no papers to map; add some with `rag ingest PATH`"
            )
        vectors, source = _vectors(library, papers)
        hits = _query_hits(library, request)
        must_cite = {library.paper(ref).id for ref in request.cite}
    notes = [] if library.embedder is not None else [NO_MODEL_NOTE]
    for note in notes:
        ctx.notify(note)
    return layout(papers, vectors, source, request.seed, hits, must_cite, request.query, notes)


def _vectors(library: LibrarySession, papers: Sequence[Paper]) -> tuple[Matrix, str]:
    """One unit vector per paper, and what they are, for the legend."""
    if library.store is None or library.embedder is None:
        return lexical_vectors(papers), "TF-IDF word vectors (no embedding model)"
    found = library.store.paper_vectors()
    missing = [p for p in papers if p.id not in found]
    if missing:  # opening the library completes vectors, so only a racing writer leaves some out
        for paper, vector in zip(missing, library.embedder.embed([p.searchable_text() for p in missing]), strict=True):
            found[paper.id] = vector
    matrix = np.asarray([found[p.id] for p in papers], dtype=np.float32)
    return unit_rows(matrix), f"{library.embedder.name} vectors"


def _query_hits(library: LibrarySession, request: MapRequest) -> set[str]:
    """The papers `rag search QUERY` would list (same retriever, same k)."""
    if request.query is None:
        return set()
    return {hit.paper.id for hit in library.search(SearchRequest(request.query, request.k))}
