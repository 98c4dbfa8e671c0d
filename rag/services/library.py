"""One library as a Python object: the services behind every command, with plain arguments.

This is what ``rag.open()`` returns; scripts and the MCP server use it the way the
CLI uses the service functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.check.live import OnSentence
from rag.check.sentences import Answer
from rag.llm.types import OnToken
from rag.services import check as check_service
from rag.services import drafting, manage, read
from rag.services import ingest as ingest_service
from rag.services import writing as writing_service
from rag.services.context import Context
from rag.services.requests import (
    DEFAULT_DOCUMENT,
    DEFAULT_WRITING,
    CheckRequest,
    DraftRequest,
    SearchRequest,
    SummaryRequest,
    WritingOptions,
)
from rag.services.results import CheckReport, Draft, IngestResult, Listing, PaperView, RemoveResult, SearchResult


class Library:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def _request(
        self, query: str, k: int | None, since: int | None, until: int | None, lists: Sequence[str]
    ) -> SearchRequest:
        return SearchRequest(query, k, since, until, list(lists))

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        since: int | None = None,
        until: int | None = None,
        lists: Sequence[str] = (),
    ) -> SearchResult:
        """The ``k`` papers most relevant to ``query`` (hybrid retrieval), best first."""
        return read.search(self.ctx, self._request(query, k, since, until, lists))

    def ask(
        self,
        question: str,
        k: int | None = None,
        *,
        since: int | None = None,
        until: int | None = None,
        lists: Sequence[str] = (),
        options: WritingOptions = DEFAULT_WRITING,
        on_token: OnToken | None = None,
        on_sentence: OnSentence | None = None,
    ) -> Answer:
        """A cited answer: written by the configured model, else quoted from the abstracts. ``on_sentence`` hears
        each checked sentence as the model completes it (the answer returned is checked whole again)."""
        request = self._request(question, k, since, until, lists)
        return writing_service.ask(self.ctx, request, options, on_token, on_sentence)

    def summarize(
        self, query: str | None = None, *, lists: Sequence[str] = (), options: WritingOptions = DEFAULT_WRITING
    ) -> Answer:
        return writing_service.summarize(self.ctx, SummaryRequest(query, list(lists)), options)

    def draft(
        self,
        topic: str,
        *,
        cite: Sequence[str] = (),
        output_format: str = DEFAULT_DOCUMENT,
        bib: str | Path | None = None,
        options: WritingOptions = DEFAULT_WRITING,
    ) -> Draft:
        """Related-work paragraphs on ``topic``: ``.answer`` checked and cited, ``.document`` in ``output_format``
        (markdown, latex, pandoc); ``bib`` also writes the cited papers (FILE.bib or FILE.json)."""
        request = DraftRequest(topic, list(cite), format=output_format, bib=Path(bib) if bib is not None else None)
        return drafting.draft(self.ctx, request, options)

    def ingest(
        self, paths: Sequence[str | Path], *, full_text: bool = True, zotero_collections: Sequence[str] = ()
    ) -> IngestResult:
        """Add files and folders (a Zotero data directory too: ``zotero_collections`` limits it to those)."""
        files = [Path(p) for p in paths]
        return ingest_service.ingest(self.ctx, files, full_text=full_text, zotero_collections=zotero_collections)

    def papers(self) -> Listing:
        return read.papers(self.ctx)

    def show(self, ref: str) -> PaperView:
        return read.show(self.ctx, ref)

    def remove(self, refs: Sequence[str]) -> RemoveResult:
        return manage.remove(self.ctx, refs)

    def check(
        self,
        paths: Sequence[str | Path] = (),
        *,
        text: str | None = None,
        text_format: str | None = "latex",
        bibs: Sequence[str | Path] = (),
    ) -> CheckReport:
        """The citations of manuscript files (or of ``text``, in ``text_format`` latex or markdown, None to guess)
        checked against the library; ``bibs`` are added to it first, with those the files name."""
        request = CheckRequest([Path(p) for p in paths], text, text_format, bibs=[Path(b) for b in bibs])
        return check_service.check(self.ctx, request)
