"""`rag check`: a manuscript's citations checked against the library (rag.writing.manuscript_check).

Orchestration only: read the manuscripts, ingest their bibliography (--bib), resolve the keys and
retrieve candidate papers while the library is open; with --verify llm the model judges after it is
closed, so a slow model never holds the store open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rag.errors import InputError, NotFoundError
from rag.index.session import LibrarySession
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.reading import ManuscriptFormat, read_path, read_text
from rag.records import Paper
from rag.services.context import Context
from rag.services.history import record_check
from rag.services.ingest import ingest
from rag.services.requests import CheckRequest, SearchRequest, WritingOptions
from rag.services.results import CheckReport
from rag.text import plural
from rag.writing.manuscript_check import SUGGESTION_POOL, ManuscriptChecker

TEXT_NAME = "<text>"


def _manuscript(request: CheckRequest) -> Manuscript:
    if request.text is not None:
        try:
            chosen = ManuscriptFormat(request.text_format.strip().lower())
        except ValueError:
            known = ", ".join(f.value for f in ManuscriptFormat)
            raise InputError(f"unknown manuscript format '{request.text_format}' (known: {known})") from None
        return read_text(request.text, chosen, TEXT_NAME)
    if not request.paths:
        raise InputError("give the manuscript files to check, e.g. rag check paper.tex --bib refs.bib")
    manuscript, unread = Manuscript(), []
    for path in request.paths:
        try:
            manuscript.extend(read_path(path))
        except InputError as exc:  # one unreadable file of several: the others are still checked
            unread.append(str(exc))
    if len(unread) == len(request.paths):
        raise InputError("; ".join(unread))
    manuscript.warnings[:0] = [f"{why}; not checked" for why in unread]
    return manuscript


def _ingest_bibliography(ctx: Context, bib: Path) -> list[str]:
    result = ingest(ctx, [bib])  # its bad entries are reported as file:line by the loader, the rest kept
    ctx.notify(f"{bib}: {plural(result.papers_found, 'entry', 'entries')} read, {result.added} new in the library")
    return result.warnings


def _paper(library: LibrarySession, key: str) -> Paper | None:
    try:
        return library.paper(key)
    except (NotFoundError, InputError):
        return None


def _retrieve(library: LibrarySession, sentences: Sequence[str]) -> dict[str, Sequence[Paper]]:
    """Candidate papers for each sentence; the sentences embedded in one batch (the context keeps vectors)."""
    if library.embedder is not None and sentences:
        library.embedder.embed(list(sentences))
    return {s: [h.evidence() for h in library.search(SearchRequest(s, SUGGESTION_POOL))] for s in sentences}


def check(ctx: Context, request: CheckRequest) -> CheckReport:
    """Every citation of the manuscript(s) checked against the paper it cites, in document order."""
    ctx = replace(ctx, remember_embeddings=True) if ctx.embedder is None else ctx  # for _retrieve's batch
    manuscript = _manuscript(request)
    warnings = list(manuscript.warnings)
    for warning in warnings:
        ctx.notify(warning)
    if request.bib is not None:
        warnings += _ingest_bibliography(ctx, request.bib)
    judge = ctx.chat_model(WritingOptions(verify_llm=True, cache=request.cache)) if request.verify_llm else None
    sentences = manuscript.sentences
    with ctx.reader() as library:
        papers = {cite.key: _paper(library, cite.key) for cite in manuscript.cites}
        if judge is None:
            checker = ManuscriptChecker(papers.__getitem__, lambda s: _retrieve(library, s), progress=ctx.progress)
            report = CheckReport(checker.check(sentences), warnings, "offline", manuscript.files)
    if judge is not None:
        # The judge may flag any sentence: candidates for all of them now, while the library is open.
        with ctx.reader() as library:
            pool = _retrieve(library, list(dict.fromkeys(s.text for s in sentences if s.text)))
        checker = ManuscriptChecker(papers.__getitem__, lambda _: pool, judge, progress=ctx.progress)
        checks = checker.check(sentences)
        report = CheckReport(checks, warnings, f"llm judge ({judge.name})", manuscript.files, checker.usage)
    if request.log:
        record_check(ctx, report)
    return report
