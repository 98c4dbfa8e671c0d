"""`rag draft`: related-work paragraphs in the format asked for, and the cited papers as a bibliography."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rag.check.live import OnSentence
from rag.check.sentences import Answer
from rag.errors import InputError
from rag.formats.registry import BibliographyFormat, bibliography_for, document_format
from rag.llm.types import OnToken
from rag.records import Paper
from rag.services.context import Context
from rag.services.history import record_answer
from rag.services.requests import DEFAULT_WRITING, DraftRequest, SearchRequest, WritingOptions
from rag.services.results import Draft
from rag.services.writing import composer
from rag.text import plural
from rag.writing.evidence_sentences import related_without_abstract
from rag.writing.extractive import refusal, topic_evidence
from rag.writing.extractive_draft import prose_or_outline


def draft(
    ctx: Context,
    request: DraftRequest,
    options: WritingOptions = DEFAULT_WRITING,
    on_token: OnToken | None = None,
    on_sentence: OnSentence | None = None,
) -> Draft:
    """Related-work paragraphs on TOPIC in the format asked for (from the papers' own sentences without a model),
    --cite papers always included; with ``request.bib``, the cited papers are written there as a bibliography."""
    # The abstracts' sentences a draft embeds are kept on disk: the next draft on the library embeds only new ones.
    ctx = replace(ctx, keep_embeddings=True) if ctx.embedder is None else ctx
    chosen = document_format(request.format)  # both checked before any model call: a typo costs nothing
    bibliography = bibliography_for(request.bib) if request.bib is not None else None
    answer = _draft_answer(ctx, request, options, on_token, on_sentence)
    written = None
    if request.bib is not None and bibliography is not None:
        written = _write_bibliography(ctx, request.bib, bibliography, answer)
    document = chosen.render(answer, ctx.settings.latex_citations)
    record_answer(ctx, "draft", request.topic.strip(), answer, options, document=document)
    return Draft(answer, chosen.name, document, chosen.shown_as_answer, written)


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
        hits = library.search_readable(SearchRequest(topic, request.max_papers))
        embedder = library.embedder
        field = library.field_words(topic)
        relevant, off_topic = topic_evidence(topic, hits, embedder, ctx.settings.min_relevance, field)
        related = related_without_abstract(hits, topic, ctx.settings.min_relevance)
    required_ids = {p.id for p in required}
    papers: list[Paper] = required + [p for p in relevant if p.id not in required_ids]
    papers = papers[: max(request.max_papers, len(required))]
    if not papers:
        answer = refusal(topic, hits)
    elif model is None:
        answer = prose_or_outline(topic, papers, embedder, keep=frozenset(required_ids))
    else:
        answer = composer(ctx, model, embedder, options, on_token, on_sentence).draft(topic, papers, required)
    cited = {c.paper.id for c in answer.citations}
    answer.related = [p for p in related if p.id not in cited]
    if papers:  # a refusal names the closest papers already
        answer.uncited += [p for p in off_topic if p.id not in required_ids]  # --cite ones are drafted all the same
    _tell_uncited_must_cite(answer, [p for p in required if p.id not in cited])
    return answer


def _tell_uncited_must_cite(answer: Answer, missing: list[Paper]) -> None:
    """A --cite paper no sentence could cite says why: one known by its title alone backs nothing (it is listed
    as related); one whose sentences did not pass the check is listed as not cited."""
    for paper in missing:
        if paper.no_abstract:
            if paper.id not in {p.id for p in answer.related}:
                answer.related.append(paper)
            answer.notes.append(f"--cite {paper.citekey}: known by its title alone, no sentence can cite it")
        else:
            answer.notes.append(f"--cite {paper.citekey}: no sentence of it passed the citation check")
