"""Core functions for the writing commands: ask, summarize, draft.

Retrieval happens while the library is open (and locked); the model is called
after it is released, so a slow model never blocks other rag commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.answer import Answer, extractive_answer, is_evidence, refusal
from rag.api import SearchRequest
from rag.config import Settings
from rag.errors import InputError
from rag.generate import GenerationOptions, llm_answer, llm_draft, llm_summary
from rag.library import Notify, open_library, silent
from rag.llm import ChatModel, OnToken
from rag.models import Paper, ProgressFn
from rag.outline import outline
from rag.retrieve import Filters

DEFAULT_SUMMARY_PAPERS = 40
DEFAULT_DRAFT_PAPERS = 8


@dataclass(frozen=True)
class WritingOptions:
    use_llm: bool = True
    long: bool = False
    verify_llm: bool = False
    cache: bool = True

    def generation(self) -> GenerationOptions:
        return GenerationOptions(verify_with_llm=self.verify_llm, long=self.long)


def make_model(settings: Settings, options: WritingOptions) -> ChatModel | None:
    """The configured model, or None (extractive / outline mode). Config errors surface here, first."""
    if options.use_llm and settings.llm_base_url and not settings.llm_enabled:
        raise InputError(f"a base URL ({settings.llm_base_url}) but no model: set RAG_LLM_MODEL or pass --model")
    if not options.use_llm or not settings.llm_enabled:
        if options.verify_llm:
            raise InputError("--verify llm needs a model; set RAG_LLM_MODEL or pass --model")
        return None
    from rag.llm import OpenAICompatibleChat
    from rag.llm_cache import CACHE_DIR, ResponseCache

    cache = ResponseCache(settings.data_dir / CACHE_DIR) if options.cache and settings.llm_cache else None
    return OpenAICompatibleChat(settings, cache)


def ask(
    settings: Settings,
    request: SearchRequest,
    options: WritingOptions = WritingOptions(),
    notify: Notify = silent,
    progress: ProgressFn | None = None,
    on_token: OnToken | None = None,
) -> Answer:
    """A cited answer: from the model when one is configured, else extractive."""
    request.validate()
    model = make_model(settings, options)
    question = request.query.strip()
    with open_library(settings, notify, progress, remote=True) as library:
        filters = Filters(request.year_min, request.year_max, library.resolve_lists(request.lists))
        hits = library.retriever().search(question, request.k, filters)
        embedder = library.embedder
    if model is None:
        return extractive_answer(question, hits, embedder, settings.min_relevance)
    return llm_answer(question, hits, model, embedder, settings.min_relevance, options.generation(), on_token)


@dataclass
class SummaryRequest:
    query: str | None = None
    lists: Sequence[str] = ()
    max_papers: int = DEFAULT_SUMMARY_PAPERS


def summarize(
    settings: Settings,
    request: SummaryRequest,
    options: WritingOptions = WritingOptions(),
    notify: Notify = silent,
    progress: ProgressFn | None = None,
    on_token: OnToken | None = None,
) -> Answer:
    """A themed, cited summary of the papers on a topic, of seed lists, or of a small library."""
    if request.max_papers < 1:
        raise InputError(f"--max must be at least 1 (got {request.max_papers})")
    model = make_model(settings, options)
    with open_library(settings, notify, progress) as library:
        chosen = library.resolve_lists(request.lists)
        query = (request.query or "").strip()
        if query:
            hits = library.retriever().search(query, request.max_papers, Filters(lists=chosen))
            papers = [h.evidence() for h in hits if is_evidence(h, query, settings.min_relevance)]
            if not papers:
                return refusal(query, hits)
            topic = query
        else:
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
    return llm_summary(topic, papers, model, embedder, settings.llm_context_tokens, options.generation(), on_token)


@dataclass
class DraftRequest:
    topic: str
    cite: Sequence[str] = field(default_factory=list)
    max_papers: int = DEFAULT_DRAFT_PAPERS


def draft(
    settings: Settings,
    request: DraftRequest,
    options: WritingOptions = WritingOptions(),
    notify: Notify = silent,
    progress: ProgressFn | None = None,
    on_token: OnToken | None = None,
) -> Answer:
    """Related-work paragraphs on TOPIC (an outline without a model); --cite papers are always included."""
    topic = request.topic.strip()
    if not topic:
        raise InputError('the topic is empty; try e.g. rag draft "decentralized training on heterogeneous GPUs"')
    if request.max_papers < 1:
        raise InputError(f"--max must be at least 1 (got {request.max_papers})")
    model = make_model(settings, options)
    with open_library(settings, notify, progress) as library:
        required = list({p.id: p for p in (library.paper(key) for key in request.cite)}.values())
        hits = library.retriever().search(topic, request.max_papers)
        relevant = [h.evidence() for h in hits if is_evidence(h, topic, settings.min_relevance)]
        embedder = library.embedder
    required_ids = {p.id for p in required}
    papers: list[Paper] = required + [p for p in relevant if p.id not in required_ids]
    papers = papers[: max(request.max_papers, len(required))]
    if not papers:
        return refusal(topic, hits)
    if model is None:
        return outline(topic, papers, embedder)
    return llm_draft(topic, papers, required, model, embedder, options.generation(), on_token)
