"""Answers, summaries and related-work drafts written by a model, every sentence checked.

The model sees numbered sources inside <source> tags (marked as data). Where the
endpoint takes a JSON schema it answers in sentences with source numbers
(rag.writing.structured), else with [n] in its text; a stream that loops is cut.
Either way the reply goes through rag.writing.checking before anyone sees it,
and an answer with no supported sentence falls back to quotes or an outline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.embed.types import Embedder
from rag.errors import SchemaRefusedError
from rag.llm.prompts import load_prompt
from rag.llm.types import CHARS_PER_TOKEN, ChatModel, Completion, OnToken, Usage
from rag.records import Hit, Paper
from rag.writing.answer import Answer, AnswerMode, DroppedSentence
from rag.writing.checking import check_reply, has_supported_sentence, read_claims
from rag.writing.citations import with_citations
from rag.writing.degenerate import repetition_watch
from rag.writing.extractive import extractive_answer, is_evidence, refusal
from rag.writing.outline import outline
from rag.writing.sources import source_block, sources_text
from rag.writing.structured import citation_schema, readable_stream

SHORT_ANSWER = "Answer in two to four sentences."
LONG_ANSWER = "Answer in one well-organized paragraph of six to ten sentences."
SHORT_ANSWER_SENTENCES = 4
LONG_ANSWER_SENTENCES = 10
# Summaries and drafts: about two sentences a paper, within bounds a prompt can hold.
SENTENCES_PER_PAPER = 2
MIN_LONG_SENTENCES = 6
MAX_LONG_SENTENCES = 16
FALLBACK_NOTE = "the model's answer had no sentence its sources support"
WEAK_ONLY = "weakly supported, and the answer had no supported sentence"
FALLBACK_OUTLINE = "Outline (the model's text had no sentence its sources support; see the notes)"
FALLBACK_NAMES = {AnswerMode.EXTRACTIVE: "quotes from the papers", AnswerMode.OUTLINE: "an outline of the papers"}


@dataclass
class GenerationOptions:
    verify_with_llm: bool = False
    long: bool = False


def _cited_reply(
    model: ChatModel,
    prompt: Callable[[str], str],
    source_count: int,
    max_sentences: int,
    on_token: OnToken | None,
    notes: list[str],
) -> Completion:
    """The model's reply in JSON sentences where the endpoint takes a schema, else in [n] text."""
    system = load_prompt("system").template
    if model.accepts_schema:
        try:
            return model.complete(
                system,
                prompt(load_prompt("format_json").render()),
                readable_stream(on_token) if on_token else None,
                schema=citation_schema(source_count, max_sentences),
                watch=repetition_watch(),
            )
        except SchemaRefusedError as refused:
            notes.append(str(refused))
    return model.complete(system, prompt(load_prompt("format_text").render()), on_token, watch=repetition_watch())


def _checked(
    topic: str,
    reply: Completion,
    given: Sequence[Paper],
    model: ChatModel,
    usage: Usage,
    options: GenerationOptions,
    notes: list[str],
) -> Answer:
    usage.add(reply.usage)
    answer = check_reply(topic, reply, given, usage, model if options.verify_with_llm else None)
    answer.model = model.name
    answer.notes = notes + answer.notes
    return answer


def _fall_back(answer: Answer, fallback: Answer) -> Answer:
    """No shown sentence is supported: show ``fallback`` (quotes or an outline), keep the model's text for --json."""
    unshown = answer.dropped + [DroppedSentence(s.text, WEAK_ONLY) for s in answer.sentences]
    written = len(unshown)
    why = f"{FALLBACK_NOTE} (of {written} sentence{'s' if written != 1 else ''}; --json has them)"
    fallback.notes = [*answer.notes, f"{why}; showing {FALLBACK_NAMES[fallback.mode]} instead", *fallback.notes]
    fallback.model_text, fallback.dropped = answer.model_text, unshown
    fallback.usage, fallback.model = answer.usage, answer.model
    fallback.removed_citations = answer.removed_citations
    return fallback


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
    length = LONG_ANSWER if options.long else SHORT_ANSWER
    notes: list[str] = []

    def prompt(citation_format: str) -> str:
        return load_prompt("ask").render(
            question=question, sources=sources_text(evidence), length=length, citation_format=citation_format
        )

    limit = LONG_ANSWER_SENTENCES if options.long else SHORT_ANSWER_SENTENCES
    reply = _cited_reply(model, prompt, len(evidence), limit, on_token, notes)
    answer = _checked(question, reply, evidence, model, Usage(), options, notes)
    answer.hits = list(hits)
    if not has_supported_sentence(answer):
        return _fall_back(answer, extractive_answer(question, hits, embedder, min_relevance))
    return answer


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


def _long_limit(paper_count: int) -> int:
    return max(MIN_LONG_SENTENCES, min(MAX_LONG_SENTENCES, SENTENCES_PER_PAPER * paper_count))


def _as_text(reply: Completion) -> str:
    """A reply written back as [n] text (a partial summary fed to the merge)."""
    return " ".join(with_citations(claim.text, claim.numbers) for claim in read_claims(reply))


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
    usage = Usage()
    notes: list[str] = []
    parts = _parts(papers, budget_tokens)

    def part_prompt(part: list[int]) -> Callable[[str], str]:
        block = "\n\n".join(source_block(i + 1, papers[i]) for i in part)
        return lambda citation_format: load_prompt("summarize").render(
            topic=topic, sources=block, citation_format=citation_format
        )

    if len(parts) == 1:
        reply = _cited_reply(model, part_prompt(parts[0]), len(papers), _long_limit(len(papers)), on_token, notes)
    else:
        partials = []
        for part in parts:
            partial = _cited_reply(model, part_prompt(part), len(papers), _long_limit(len(part)), None, notes)
            usage.add(partial.usage)
            partials.append(_as_text(partial))

        def merge_prompt(citation_format: str) -> str:
            summaries = "\n\n".join(partials)
            return load_prompt("summarize_merge").render(
                topic=topic, summaries=summaries, citation_format=citation_format
            )

        reply = _cited_reply(model, merge_prompt, len(papers), _long_limit(len(papers)), on_token, notes)
    answer = _checked(topic, reply, papers, model, usage, options, notes)
    if not has_supported_sentence(answer):
        return _fall_back(answer, outline(topic, papers, embedder, FALLBACK_OUTLINE))
    return answer


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
    notes: list[str] = []

    def prompt(citation_format: str) -> str:
        return load_prompt("draft").render(
            topic=topic, sources=sources_text(papers), must_cite=requirement, citation_format=citation_format
        )

    reply = _cited_reply(model, prompt, len(papers), _long_limit(len(papers)), on_token, notes)
    draft = _checked(topic, reply, papers, model, Usage(), options, notes)
    if not has_supported_sentence(draft):
        draft = _fall_back(draft, outline(topic, papers, embedder, FALLBACK_OUTLINE))
    cited = {c.paper.id for c in draft.citations}
    draft.uncited = [p for p in papers if p.id not in cited]
    return draft
