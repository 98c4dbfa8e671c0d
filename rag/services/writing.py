"""The writing commands ask and summarize (draft: rag.services.drafting).

Retrieval happens while the library is open; the model is called after it is
closed, so a slow model never holds the library's store open.
"""

from __future__ import annotations

from dataclasses import replace

from rag.check.live import OnSentence
from rag.check.sentences import Answer, AnswerMode
from rag.embed.types import Embedder
from rag.errors import InputError
from rag.llm.types import ChatModel, OnToken
from rag.records import Paper
from rag.services.context import Context
from rag.services.history import record_answer
from rag.services.requests import DEFAULT_WRITING, SearchRequest, SummaryRequest, WritingOptions
from rag.writing.extractive import extractive_answer, refusal, topic_evidence
from rag.writing.extractive_draft import prose_or_outline
from rag.writing.focus import ENDPOINT_SHORT_SOURCE_TOKENS, SHORT_SOURCE_TOKENS
from rag.writing.generation import Composer, GenerationOptions

NO_MODEL_FOR_LONG = "--long needs a language model (RAG_LLM_MODEL or --model): without one the answer is quoted"


def composer(
    ctx: Context,
    model: ChatModel,
    embedder: Embedder | None,
    options: WritingOptions,
    on_token: OnToken | None,
    on_sentence: OnSentence | None,
) -> Composer:
    """The model's writer for one command, with its options (RAG_LLM_CONTEXT_TOKENS bounds the sources; a GGUF
    model in-process is shown shorter sources for a short answer than a model behind an endpoint)."""
    settings = ctx.settings
    generation = GenerationOptions(
        verify_with_llm=options.verify_llm,
        long=options.long,
        source_tokens=settings.llm_context_tokens,
        short_source_tokens=SHORT_SOURCE_TOKENS if settings.llm_gguf else ENDPOINT_SHORT_SOURCE_TOKENS,
    )
    return Composer(model, embedder, generation, on_token, on_sentence)


def ask(
    ctx: Context,
    request: SearchRequest,
    options: WritingOptions = DEFAULT_WRITING,
    on_token: OnToken | None = None,
    on_sentence: OnSentence | None = None,
) -> Answer:
    """A cited answer: from the model when one is configured, else extractive. ``on_token`` hears the model's
    text as it streams, ``on_sentence`` each checked sentence as it completes (rag.check.live)."""
    request.validate()
    model = ctx.chat_model(options)
    settings = ctx.settings
    question = request.query.strip()
    with ctx.reader() as library:
        hits = library.search_readable(request)
        embedder = library.embedder
        field = library.field_words(question)
    if model is None:
        if options.long:
            ctx.notify(NO_MODEL_FOR_LONG)
        answer = extractive_answer(question, hits, embedder, settings.min_relevance, field)
    else:
        writer = composer(ctx, model, embedder, options, on_token, on_sentence)
        answer = writer.answer(question, hits, settings.min_relevance, field)
    record_answer(ctx, "ask", question, answer, options)
    return answer


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
    # The abstracts' sentences a summary embeds are kept on disk: the next one on the library embeds only new ones.
    ctx = replace(ctx, keep_embeddings=True) if ctx.embedder is None else ctx
    model = ctx.chat_model(options)
    settings = ctx.settings
    with ctx.reader() as library:
        query = (request.query or "").strip()
        if query:
            hits = library.search_readable(SearchRequest(query, request.max_papers, lists=request.lists))
            field = library.field_words(query)
            papers, off_topic = topic_evidence(query, hits, library.embedder, settings.min_relevance, field)
            if not papers:
                answer = refusal(query, hits)
                record_answer(ctx, "summarize", query, answer, options)
                return answer
            topic = query
        else:
            off_topic = []
            chosen = library.resolve_lists(request.lists)
            papers = [p for p in library.catalog.ordered() if not chosen or set(p.lists) & chosen]
            if len(papers) > request.max_papers:
                raise InputError(
                    f"{len(papers)} papers match but --max is {request.max_papers}: give a QUERY to summarize the "
                    f"papers closest to it, a --list, or --max {len(papers)} to summarize them all"
                )
            subjects = [library.catalog.lists[name].subject for name in sorted(chosen) if name in library.catalog.lists]
            topic = "papers related to " + "; ".join(subjects) if subjects else "the papers in the library"
        embedder = library.embedder
    if not papers:
        raise InputError("the library is empty; add papers with `rag ingest`")
    papers, related = _with_abstract(papers)
    if not papers:
        answer = _title_only(topic, related)
    elif model is None:
        answer = prose_or_outline(topic, papers, embedder, brief=True)
    else:
        answer = composer(ctx, model, embedder, options, on_token, on_sentence).summary(topic, papers)
    answer.related = related
    answer.uncited += off_topic
    record_answer(ctx, "summarize", topic, answer, options)
    return answer


def _with_abstract(papers: list[Paper]) -> tuple[list[Paper], list[Paper]]:
    """(papers with an abstract, papers known by their title alone: listed as related, never summarized)."""
    return [p for p in papers if not p.no_abstract], [p for p in papers if p.no_abstract]


def _title_only(topic: str, related: list[Paper]) -> Answer:
    text = "No paper here has an abstract to summarize; the related papers below are known by their titles alone."
    return Answer(topic, text, AnswerMode.INSUFFICIENT, related=related)
