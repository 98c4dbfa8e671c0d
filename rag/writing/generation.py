"""Answers, summaries and related-work drafts written by a model, every citation checked.

The model sees numbered sources inside <source> tags (marked as data); what it
writes goes through the citation protocol (rag.writing.citations) and
verification (rag.writing.verification) before anyone sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.embed.types import Embedder
from rag.llm.prompts import load_prompt
from rag.llm.types import CHARS_PER_TOKEN, ChatModel, OnToken, Usage
from rag.records import Hit, Paper
from rag.writing.answer import Answer, AnswerMode, Citation
from rag.writing.citations import apply_citations
from rag.writing.extractive import is_evidence, refusal
from rag.writing.sources import source_block, sources_text
from rag.writing.verification import verify_offline, verify_with_model

SHORT_ANSWER = "Answer in two to four sentences."
LONG_ANSWER = "Answer in one well-organized paragraph of six to ten sentences."


@dataclass
class GenerationOptions:
    verify_with_llm: bool = False
    long: bool = False


def _finish(
    question: str,
    raw: str,
    given: Sequence[Paper],
    model: ChatModel,
    embedder: Embedder | None,
    usage: Usage,
    options: GenerationOptions,
    hits: Sequence[Hit] = (),
) -> Answer:
    cited = apply_citations(raw, given)
    if options.verify_with_llm:
        verify_with_model(cited, model, usage)
    else:
        verify_offline(cited, embedder)
    return Answer(
        question,
        cited.text,
        AnswerMode.LLM,
        [Citation(n, paper) for n, paper in enumerate(cited.papers, start=1)],
        list(hits),
        cited.sentences,
        cited.removed,
        usage=usage,
        model=model.name,
    )


def llm_answer(
    question: str,
    hits: Sequence[Hit],
    model: ChatModel,
    embedder: Embedder | None,
    min_relevance: float,
    options: GenerationOptions,
    on_token: OnToken | None = None,
) -> Answer:
    """A cited answer from the model, or a refusal (without calling it) when nothing is relevant."""
    evidence = [h.evidence() for h in hits if is_evidence(h, question, min_relevance)]
    if not evidence:
        return refusal(question, hits)
    prompt = load_prompt("ask").render(
        question=question, sources=sources_text(evidence), length=LONG_ANSWER if options.long else SHORT_ANSWER
    )
    reply = model.complete(load_prompt("system").template, prompt, on_token)
    return _finish(question, reply.text, evidence, model, embedder, reply.usage, options, hits)


def _parts(papers: Sequence[Paper], budget_tokens: int) -> list[list[int]]:
    """Indexes of ``papers`` split into groups whose sources fit ``budget_tokens``."""
    parts: list[list[int]] = [[]]
    used = 0
    for i, paper in enumerate(papers):
        size = len(source_block(i + 1, paper)) // CHARS_PER_TOKEN
        if parts[-1] and used + size > budget_tokens:
            parts.append([])
            used = 0
        parts[-1].append(i)
        used += size
    return parts


def llm_summary(
    topic: str,
    papers: Sequence[Paper],
    model: ChatModel,
    embedder: Embedder | None,
    budget_tokens: int,
    options: GenerationOptions,
    on_token: OnToken | None = None,
) -> Answer:
    """Themed, cited summary; papers that do not fit one prompt are summarized in parts, then merged."""
    system = load_prompt("system").template
    usage = Usage()
    parts = _parts(papers, budget_tokens)
    if len(parts) == 1:
        reply = model.complete(
            system, load_prompt("summarize").render(topic=topic, sources=sources_text(papers)), on_token
        )
        usage.add(reply.usage)
        return _finish(topic, reply.text, papers, model, embedder, usage, options)
    partials = []
    for part in parts:
        block = "\n\n".join(source_block(i + 1, papers[i]) for i in part)
        reply = model.complete(system, load_prompt("summarize").render(topic=topic, sources=block))
        usage.add(reply.usage)
        partials.append(reply.text)
    merged = model.complete(
        system, load_prompt("summarize_merge").render(topic=topic, summaries="\n\n".join(partials)), on_token
    )
    usage.add(merged.usage)
    return _finish(topic, merged.text, papers, model, embedder, usage, options)


def llm_draft(
    topic: str,
    papers: Sequence[Paper],
    must_cite: Sequence[Paper],
    model: ChatModel,
    embedder: Embedder | None,
    options: GenerationOptions,
    on_token: OnToken | None = None,
) -> Answer:
    """Related-work paragraphs; lists the given papers the model left uncited."""
    numbers = [papers.index(p) + 1 for p in must_cite]
    requirement = f"You must cite {''.join(f'[{n}]' for n in numbers)}." if numbers else ""
    prompt = load_prompt("draft").render(topic=topic, sources=sources_text(papers), must_cite=requirement)
    reply = model.complete(load_prompt("system").template, prompt, on_token)
    draft = _finish(topic, reply.text, papers, model, embedder, reply.usage, options)
    cited = {c.paper.id for c in draft.citations}
    draft.uncited = [p for p in papers if p.id not in cited]
    return draft
