"""The read commands: search, papers, show. Each takes a Context and a request, returns a result record."""

from __future__ import annotations

from rag.services.context import Context
from rag.services.requests import SearchRequest
from rag.services.results import Listing, PaperView, SearchResult


def search(ctx: Context, request: SearchRequest) -> SearchResult:
    request.validate()
    with ctx.reader() as library:
        return SearchResult(request.query.strip(), library.search(request), library.mode)


def papers(ctx: Context) -> Listing:
    with ctx.reader() as library:
        return Listing(library.catalog.ordered(), list(library.catalog.lists.values()))


def show(ctx: Context, ref: str) -> PaperView:
    with ctx.reader() as library:
        paper, lists = library.paper(ref), library.lists
        return PaperView(paper, [lists[name] for name in paper.lists if name in lists])
