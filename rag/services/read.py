"""The read commands: search, papers, show. Each takes a Context and a request, returns a result record."""

from __future__ import annotations

from rag.index.hybrid import Filters
from rag.services.context import Context
from rag.services.requests import SearchRequest
from rag.services.results import Listing, PaperView, SearchResult


def search(ctx: Context, request: SearchRequest) -> SearchResult:
    request.validate()
    with ctx.open(remote=True) as library:
        filters = Filters(request.year_min, request.year_max, library.resolve_lists(request.lists))
        hits = library.retriever().search(request.query.strip(), request.k, filters)
        return SearchResult(request.query.strip(), hits, library.mode)


def papers(ctx: Context) -> Listing:
    with ctx.open() as library:
        return Listing(library.catalog.ordered(), list(library.catalog.lists.values()))


def show(ctx: Context, ref: str) -> PaperView:
    with ctx.open(remote=True) as library:
        paper = library.paper(ref)
        return PaperView(paper, [library.catalog.lists[name] for name in paper.lists if name in library.catalog.lists])
