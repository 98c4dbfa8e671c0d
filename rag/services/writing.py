"""The writing commands: ask, summarize, draft.

Retrieval happens while the library is open; the model is called after it is
closed, so a slow model never holds the library's store open.
"""

from __future__ import annotations

from pathlib import Path

from rag.errors import InputError
from rag.formats.registry import BibliographyFormat, bibliography_for, document_format
from rag.llm.types import OnToken
from rag.records import Paper
from rag.services.context import Context
from rag.services.requests import DEFAULT_WRITING, DraftRequest, SearchRequest, SummaryRequest, WritingOptions
from rag.services.results import Draft
from rag.text import plural
from rag.writing.answer import Answer
from rag.writing.extractive import extractive_answer, is_evidence, refusal
from rag.writing.generation import GenerationOptions, llm_answer, llm_draft, llm_summary
from rag.writing.outline import outline


def _generation(options: WritingOptions) -> GenerationOptions:
    return GenerationOptions(verify_with_llm=options.verify_llm, long=options.long)


def ask(
    ctx: Context, request: SearchRequest, options: WritingOptions = DEFAULT_WRITING, on_token: OnToken | None = None
) -> Answer:
    """A cited answer: from the model when one is configured, else extractive."""
    request.validate()
    model = ctx.chat_model(options)
    settings = ctx.settings
    question = request.query.strip()
    with ctx.reader() as library:
        hits = library.search(request)
        embedder = library.embedder
    if model is None:
        return extractive_answer(question, hits, embedder, settings.min_relevance)
    return llm_answer(question, hits, model, embedder, settings.min_relevance, _generation(options), on_token)


def summarize(
    ctx: Context, request: SummaryRequest, options: WritingOptions = DEFAULT_WRITING, on_token: OnToken | None = None
) -> Answer:
    """A themed, cited summary of the papers on a topic, of seed lists, or of a small library."""
    if request.max_papers < 1:
        raise InputError(f"-k must be at least 1 (got {request.max_papers})")
    model = ctx.chat_model(options)
    settings = ctx.settings
    with ctx.reader() as library:
        query = (request.query or "").strip()
        if query:
            hits = library.search(SearchRequest(query, request.max_papers, lists=request.lists))
            papers = [h.evidence() for h in hits if is_evidence(h, query, settings.min_relevance)]
            if not papers:
                return refusal(query, hits)
            topic = query
        else:
            chosen = library.resolve_lists(request.lists)
            papers = [p for p in library.catalog.ordered() if not chosen or set(p.lists) & chosen]
            if len(papers) > request.max_papers:
                raise InputError(
                    f"{len(papers)} papers match; give a QUERY, a --list, or a larger --max to summarize them"
                )
            subjects = [library.catalog.lists[name].subject for name in sorted(chosen) if name in library.catalog.lists]
            topic = "papers related to " + "; ".join(subjects) if subjects else "the papers in the library"
        embedder = library.embedder
    if not papers:
        raise InputError("the library is empty; add papers with `rag ingest`")
    if model is None:
        return outline(topic, papers, embedder)
    return llm_summary(topic, papers, model, embedder, settings.llm_context_tokens, _generation(options), on_token)


def draft(
    ctx: Context, request: DraftRequest, options: WritingOptions = DEFAULT_WRITING, on_token: OnToken | None = None
) -> Draft:
    """Related-work paragraphs on TOPIC in the format asked for (an outline without a model), --cite papers
    always included; with ``request.bib``, the cited papers are written there as a bibliography."""
    chosen = document_format(request.format)  # both checked before any model call: a typo costs nothing
    bibliography = bibliography_for(request.bib) if request.bib is not None else None
    answer = _draft_answer(ctx, request, options, on_token)
    written = None
    if request.bib is not None and bibliography is not None:
        written = _write_bibliography(ctx, request.bib, bibliography, answer)
    return Draft(answer, chosen.name, chosen.render(answer), chosen.shown_as_answer, written)


def _write_bibliography(ctx: Context, path: Path, chosen: BibliographyFormat, answer: Answer) -> Path | None:
    papers = [c.paper for c in answer.citations]
    if not papers:
        ctx.notify(f"nothing cited, so {path} was not written")
        return None
    try:
        path.write_text(chosen.write(papers), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    ctx.notify(f"wrote {plural(len(papers), 'entry', 'entries')} ({chosen.label}) to {path}")
    return path


def _draft_answer(ctx: Context, request: DraftRequest, options: WritingOptions, on_token: OnToken | None) -> Answer:
    topic = request.topic.strip()
    if not topic:
        raise InputError('the topic is empty; try e.g. rag draft "decentralized training on heterogeneous GPUs"')
    if request.max_papers < 1:
        raise InputError(f"-k must be at least 1 (got {request.max_papers})")
    model = ctx.chat_model(options)
    with ctx.reader() as library:
        required = list({p.id: p for p in (library.paper(key) for key in request.cite)}.values())
        hits = library.search(SearchRequest(topic, request.max_papers))
        relevant = [h.evidence() for h in hits if is_evidence(h, topic, ctx.settings.min_relevance)]
        embedder = library.embedder
    required_ids = {p.id for p in required}
    papers: list[Paper] = required + [p for p in relevant if p.id not in required_ids]
    papers = papers[: max(request.max_papers, len(required))]
    if not papers:
        return refusal(topic, hits)
    if model is None:
        return outline(topic, papers, embedder)
    return llm_draft(topic, papers, required, model, embedder, _generation(options), on_token)
