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
from rag.writing.answer import Answer, AnswerMode
from rag.writing.extractive import extractive_answer, is_evidence, refusal, related_without_abstract
from rag.writing.generation import GenerationOptions, llm_answer, llm_draft, llm_summary
from rag.writing.live import OnSentence
from rag.writing.outline import outline


def _generation(options: WritingOptions, source_tokens: int) -> GenerationOptions:
    return GenerationOptions(verify_with_llm=options.verify_llm, long=options.long, source_tokens=source_tokens)


def ask(
    ctx: Context,
    request: SearchRequest,
    options: WritingOptions = DEFAULT_WRITING,
    on_token: OnToken | None = None,
    on_sentence: OnSentence | None = None,
) -> Answer:
    """A cited answer: from the model when one is configured, else extractive. ``on_token`` hears the model's
    text as it streams, ``on_sentence`` each checked sentence as it completes (rag.writing.live)."""
    request.validate()
    model = ctx.chat_model(options)
    settings = ctx.settings
    question = request.query.strip()
    with ctx.reader() as library:
        hits = library.search(request)
        embedder = library.embedder
    if model is None:
        return extractive_answer(question, hits, embedder, settings.min_relevance)
    return llm_answer(
        question,
        hits,
        model,
        embedder,
        settings.min_relevance,
        _generation(options, settings.llm_context_tokens),
        on_token,
        on_sentence,
    )


def summarize(
    ctx: Context,
    request: SummaryRequest,
    options: WritingOptions = DEFAULT_WRITING,
    on_token: OnToken | None = None,
    on_sentence: OnSentence | None = None,
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
    papers, related = _with_abstract(papers)
    if not papers:
        return _title_only(topic, related)
    if model is None:
        answer = outline(topic, papers, embedder)
    else:
        generation = _generation(options, settings.llm_context_tokens)
        budget = settings.llm_context_tokens
        answer = llm_summary(topic, papers, model, embedder, budget, generation, on_token, on_sentence)
    answer.related = related
    return answer


def _with_abstract(papers: list[Paper]) -> tuple[list[Paper], list[Paper]]:
    """(papers with an abstract, papers known by their title alone: listed as related, never summarized)."""
    return [p for p in papers if not p.no_abstract], [p for p in papers if p.no_abstract]


def _title_only(topic: str, related: list[Paper]) -> Answer:
    text = "No paper here has an abstract to summarize; the related papers below are known by their titles alone."
    return Answer(topic, text, AnswerMode.INSUFFICIENT, related=related)


def draft(
    ctx: Context,
    request: DraftRequest,
    options: WritingOptions = DEFAULT_WRITING,
    on_token: OnToken | None = None,
    on_sentence: OnSentence | None = None,
) -> Draft:
    """Related-work paragraphs on TOPIC in the format asked for (an outline without a model), --cite papers
    always included; with ``request.bib``, the cited papers are written there as a bibliography."""
    chosen = document_format(request.format)  # both checked before any model call: a typo costs nothing
    bibliography = bibliography_for(request.bib) if request.bib is not None else None
    answer = _draft_answer(ctx, request, options, on_token, on_sentence)
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


def _draft_answer(
    ctx: Context,
    request: DraftRequest,
    options: WritingOptions,
    on_token: OnToken | None,
    on_sentence: OnSentence | None,
) -> Answer:
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
        related = related_without_abstract(hits, topic, ctx.settings.min_relevance)
        embedder = library.embedder
    required_ids = {p.id for p in required}
    papers: list[Paper] = required + [p for p in relevant if p.id not in required_ids]
    papers = papers[: max(request.max_papers, len(required))]
    if not papers:
        answer = refusal(topic, hits)
    elif model is None:
        answer = outline(topic, papers, embedder)
    else:
        answer = llm_draft(
            topic,
            papers,
            required,
            model,
            embedder,
            _generation(options, ctx.settings.llm_context_tokens),
            on_token,
            on_sentence,
        )
    answer.related = [p for p in related if p.id not in {c.paper.id for c in answer.citations}]
    return answer
