"""Answers, summaries and related-work drafts written by a model, every sentence checked.

The model sees numbered sources inside <source> tags (marked as data). Where the
endpoint takes a JSON schema it answers in sentences with source numbers
(rag.check.replies), else with [n] in its text; a stream that loops is cut.
Either way the reply goes through rag.check.answers before anyone sees it,
and an answer with no supported sentence falls back to quotes, or to paragraphs of the papers' own
sentences (rag.writing.extractive_draft).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from rag.check.answers import check_reply, has_supported_sentence
from rag.check.claims import with_citations
from rag.check.live import OnSentence, SentenceFeed
from rag.check.replies import citation_schema, read_claims, readable_stream
from rag.check.screen import repetition_watch
from rag.check.sentences import Answer, AnswerMode, Citation, DroppedSentence
from rag.check.sources import source_block, sources_text
from rag.config import DEFAULT_LLM_CONTEXT_TOKENS
from rag.embed.types import Embedder
from rag.errors import SchemaRefusedError
from rag.llm.prompts import load_prompt
from rag.llm.types import CHARS_PER_TOKEN, ChatModel, Completion, OnToken, Usage
from rag.records import Hit, Paper
from rag.writing.evidence_sentences import related_without_abstract, sentence_table
from rag.writing.extractive import (
    Quote,
    answer_evidence,
    choose_quotes,
    drifts_from_quotes,
    misses_key_concepts,
    quoted_answer,
    refusal,
)
from rag.writing.extractive_draft import prose_or_outline
from rag.writing.focus import (
    LONG_SOURCE_SENTENCES,
    PROMPT_AUTHORS,
    SHORT_SOURCE_SENTENCES,
    SHORT_SOURCE_TOKENS,
    addresses_question,
    focused_sources,
)

SHORT_ANSWER = "Answer in two to four sentences."
LONG_ANSWER = "Answer in one well-organized paragraph of six to ten sentences."
SHORT_ANSWER_SENTENCES = 4
LONG_ANSWER_SENTENCES = 10
# Summaries and drafts: about two sentences a paper, within bounds a prompt can hold.
SENTENCES_PER_PAPER = 2
MIN_LONG_SENTENCES = 6
MAX_LONG_SENTENCES = 16
FALLBACK_NOTE = "the model's answer had no sentence its sources support"
OFF_QUESTION_NOTE = "the model's answer did not address the question"
OFF_QUESTION = "not about the question"
# Tokens a short answer (up to 4 sentences in JSON) and a --long one (up to 10) need at most.
SHORT_ANSWER_TOKENS = 256
LONG_ANSWER_TOKENS = 800
WEAK_ONLY = "weakly supported, and the answer had no supported sentence"
FALLBACK_OUTLINE = "Outline (the model's text had no sentence its sources support; see the notes)"
FALLBACK_NAMES = {
    AnswerMode.EXTRACTIVE: "quotes from the papers",
    AnswerMode.OUTLINE: "an outline of the papers",
    AnswerMode.PROSE: "paragraphs built from the papers' own sentences",
}


@dataclass
class GenerationOptions:
    verify_with_llm: bool = False
    long: bool = False
    # Estimated tokens of sources one prompt may hold (RAG_LLM_CONTEXT_TOKENS, or what a GGUF's window leaves).
    source_tokens: int = DEFAULT_LLM_CONTEXT_TOKENS
    # ...and a short answer's (a model in-process reads slowly: rag.writing.focus).
    short_source_tokens: int = SHORT_SOURCE_TOKENS


@dataclass
class Stream:
    """Who watches a reply as it streams: ``on_token`` the raw text (a JSON reply shown as its sentences),
    ``on_sentence`` each sentence the check would show, checked against ``given`` as it completes."""

    on_token: OnToken | None = None
    on_sentence: OnSentence | None = None
    given: Sequence[Paper] = ()
    feed: SentenceFeed | None = field(default=None, init=False)

    def tokens(self, structured: bool) -> OnToken | None:
        shown = readable_stream(self.on_token) if self.on_token and structured else self.on_token
        self.feed = SentenceFeed(self.given, self.on_sentence, structured) if self.on_sentence else None
        feed = self.feed
        if feed is None:
            return shown

        def both(token: str) -> None:
            feed(token)
            if shown is not None:
                shown(token)

        return both

    def finish(self, reply: Completion) -> None:
        """The reply is whole: its last sentence is checked too, unless rag cut the stream (it is unfinished)."""
        if self.feed is not None and not reply.stopped:
            self.feed.finish()


def _fall_back(answer: Answer, fallback: Answer, reason: str = FALLBACK_NOTE) -> Answer:
    """No shown sentence is supported (or none is about the question): show ``fallback`` (quotes or paragraphs),
    keep the model's text for --json."""
    unshown_reason = WEAK_ONLY if reason == FALLBACK_NOTE else OFF_QUESTION
    unshown = answer.dropped + [DroppedSentence(s.text, unshown_reason) for s in answer.sentences]
    written = len(unshown)
    why = f"{reason} (of {written} sentence{'s' if written != 1 else ''}; --json has them)"
    fallback.notes = [*answer.notes, f"{why}; showing {FALLBACK_NAMES[fallback.mode]} instead", *fallback.notes]
    fallback.model_text, fallback.dropped = answer.model_text, unshown
    fallback.usage, fallback.model = answer.usage, answer.model
    fallback.removed_citations = answer.removed_citations
    return fallback


def answer_tokens(long: bool) -> int:
    """The most tokens an answer of that length needs (its sentences, JSON around them): a short answer is
    not left to run on to RAG_LLM_MAX_TOKENS."""
    return LONG_ANSWER_TOKENS if long else SHORT_ANSWER_TOKENS


def _quoted(question: str, hits: Sequence[Hit], quotes: Sequence[Quote], related: list[Paper]) -> Answer:
    answer = quoted_answer(question, hits, quotes)
    answer.related = related
    return answer


def _add_more_from_papers(answer: Answer, quotes: Sequence[Quote]) -> None:
    """Fewer supported sentences than quotes: the quotes of papers no supported sentence cites go under it."""
    supported = [s for s in answer.sentences if s.support is not None and s.support.is_top]
    if len(supported) >= len(quotes):
        return
    backed = {answer.citations[n - 1].paper.id for s in supported for n in s.citations}
    for quote in quotes:
        if quote.hit.paper.id in backed:
            continue
        listed = [*answer.citations, *answer.more_citations]
        known = next((c.n for c in listed if c.paper.id == quote.hit.paper.id), None)
        if known is None:
            known = len(listed) + 1
            answer.more_citations.append(Citation(known, quote.hit.paper))
        answer.more_from_papers.append(quote.line(known))


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


def _refused(question: str, hits: Sequence[Hit], related: list[Paper]) -> Answer:
    """'Insufficient evidence', with the title-only papers as relevant as evidence would be."""
    answer = refusal(question, hits)
    answer.related = related
    return answer


def _as_text(reply: Completion) -> str:
    """A reply written back as [n] text (a partial summary fed to the merge)."""
    return " ".join(with_citations(claim.text, claim.numbers) for claim in read_claims(reply))


@dataclass
class Composer:
    """Every model-written text the same way: numbered sources in a prompt, the reply in JSON sentences where the
    endpoint takes a schema (else [n] text, and a stream that loops is cut), each sentence checked against the
    sources it cites (rag.check.answers), and what the reader sees instead when none is supported: quotes
    for an answer, paragraphs of the papers' own sentences for a summary or a draft. ``on_token`` hears the
    reply as it streams, ``on_sentence`` each checked sentence as it completes (rag.check.live)."""

    model: ChatModel
    embedder: Embedder | None
    options: GenerationOptions = field(default_factory=GenerationOptions)
    on_token: OnToken | None = None
    on_sentence: OnSentence | None = None

    def answer(
        self, question: str, hits: Sequence[Hit], min_relevance: float, field: AbstractSet[str] = frozenset()
    ) -> Answer:
        """A cited answer, or a refusal (without calling the model) when nothing is relevant or the papers answer
        the question only without what they lack (rag.writing.extractive.unanswered, ``field`` as there); quotes
        from the papers instead when no sentence is supported or none is about the question, and under it when the
        model kept fewer supported sentences than there are quotes."""
        evidence_hits = answer_evidence(question, hits, min_relevance)
        related = related_without_abstract(hits, question, min_relevance)
        if not evidence_hits or misses_key_concepts(question, evidence_hits, self.embedder, field):
            return _refused(question, hits, related)
        table = sentence_table(question, evidence_hits, self.embedder)
        quotes = choose_quotes(table)
        if drifts_from_quotes(question, quotes, self.embedder):
            return _refused(question, hits, related)
        long, source_tokens = self.options.long, self.options.source_tokens
        if long:
            shown = focused_sources(table, LONG_SOURCE_SENTENCES, source_tokens)
        else:
            shown = focused_sources(table, SHORT_SOURCE_SENTENCES, min(self.options.short_source_tokens, source_tokens))
        evidence = [row.hit.evidence() for row in table[: len(shown)]]  # checked against the whole text
        length = LONG_ANSWER if long else SHORT_ANSWER

        def prompt(citation_format: str) -> str:
            sources = sources_text(shown, max_authors=PROMPT_AUTHORS)
            return load_prompt("ask").render(
                question=question, sources=sources, length=length, citation_format=citation_format
            )

        notes: list[str] = []
        limit = LONG_ANSWER_SENTENCES if long else SHORT_ANSWER_SENTENCES
        reply = self._reply(prompt, evidence, limit, notes, max_tokens=answer_tokens(long))
        answer = self._checked(question, reply, evidence, Usage(), notes)
        answer.hits, answer.related = list(hits), related
        if not has_supported_sentence(answer):
            return _fall_back(answer, _quoted(question, hits, quotes, related))
        if not addresses_question(question, [s.text for s in answer.sentences], self.embedder):
            return _fall_back(answer, _quoted(question, hits, quotes, related), OFF_QUESTION_NOTE)
        _add_more_from_papers(answer, quotes)
        return answer

    def summary(self, topic: str, papers: Sequence[Paper]) -> Answer:
        """Themed, cited summary; papers that do not fit one prompt (the options' source tokens) are summarized
        in parts, then merged."""
        usage = Usage()
        notes: list[str] = []
        parts = _parts(papers, self.options.source_tokens)

        def part_prompt(part: list[int]) -> Callable[[str], str]:
            block = "\n\n".join(source_block(i + 1, papers[i]) for i in part)
            return lambda citation_format: load_prompt("summarize").render(
                topic=topic, sources=block, citation_format=citation_format
            )

        if len(parts) == 1:
            reply = self._reply(part_prompt(parts[0]), papers, _long_limit(len(papers)), notes)
        else:
            partials = []
            for part in parts:
                partial = self._reply(part_prompt(part), papers, _long_limit(len(part)), notes, streamed=False)
                usage.add(partial.usage)
                partials.append(_as_text(partial))

            def merge_prompt(citation_format: str) -> str:
                summaries = "\n\n".join(partials)
                return load_prompt("summarize_merge").render(
                    topic=topic, summaries=summaries, citation_format=citation_format
                )

            reply = self._reply(merge_prompt, papers, _long_limit(len(papers)), notes)
        return self._or_paragraphs(self._checked(topic, reply, papers, usage, notes), papers)

    def draft(self, topic: str, papers: Sequence[Paper], must_cite: Sequence[Paper]) -> Answer:
        """Related-work paragraphs; lists the given papers the model left uncited."""
        numbers = [papers.index(p) + 1 for p in must_cite]
        requirement = f"You must cite {''.join(f'[{n}]' for n in numbers)}." if numbers else ""

        def prompt(citation_format: str) -> str:
            return load_prompt("draft").render(
                topic=topic, sources=sources_text(papers), must_cite=requirement, citation_format=citation_format
            )

        notes: list[str] = []
        reply = self._reply(prompt, papers, _long_limit(len(papers)), notes)
        draft = self._or_paragraphs(self._checked(topic, reply, papers, Usage(), notes), papers)
        cited = {c.paper.id for c in draft.citations}
        draft.uncited = [p for p in papers if p.id not in cited]
        return draft

    def _reply(
        self,
        prompt: Callable[[str], str],
        given: Sequence[Paper],
        max_sentences: int,
        notes: list[str],
        *,
        streamed: bool = True,
        max_tokens: int | None = None,
    ) -> Completion:
        """The model's reply in JSON sentences where the endpoint takes a schema, else in [n] text; shown as it
        streams unless it is a part of a longer text (``streamed`` False)."""
        stream = Stream(self.on_token, self.on_sentence, given) if streamed else Stream()
        system = load_prompt("system").template
        reply = None
        if self.model.accepts_schema:
            try:
                reply = self.model.complete(
                    system,
                    prompt(load_prompt("format_json").render()),
                    stream.tokens(structured=True),
                    schema=citation_schema(len(given), max_sentences),
                    watch=repetition_watch(),
                    max_tokens=max_tokens,
                )
            except SchemaRefusedError as refused:
                notes.append(str(refused))
        if reply is None:
            reply = self.model.complete(
                system,
                prompt(load_prompt("format_text").render()),
                stream.tokens(structured=False),
                watch=repetition_watch(),
                max_tokens=max_tokens,
            )
        stream.finish(reply)
        return reply

    def _checked(self, topic: str, reply: Completion, given: Sequence[Paper], usage: Usage, notes: list[str]) -> Answer:
        usage.add(reply.usage)
        judge = self.model if self.options.verify_with_llm else None
        answer = check_reply(topic, reply, given, usage, judge)
        answer.model = self.model.name
        answer.notes = notes + answer.notes
        return answer

    def _or_paragraphs(self, written: Answer, papers: Sequence[Paper]) -> Answer:
        """A summary or draft with no supported sentence: paragraphs of the papers' own sentences instead."""
        if has_supported_sentence(written):
            return written
        return _fall_back(written, prose_or_outline(written.question, papers, self.embedder, FALLBACK_OUTLINE))
