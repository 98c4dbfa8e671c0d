"""What a model is shown, and whether what it wrote is about the question: both by relevance to the question.

A small model reads slowly (~170 prompt tokens/s on one CPU thread) and loses the
thread in long prompts, so each source is given as the few sentences that answer
the question best (rag.writing.extractive ranks them, as it ranks quotes), not the
whole abstract; the answer is still checked against the whole text. An answer none
of whose sentences is about the question falls back to quotes, on the signal the
retriever trusts: the cosine similarity to the question, or the question's terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from rag.check.markers import CITATION_GROUP
from rag.check.screen import no_news_terms
from rag.check.sources import source_block
from rag.embed.types import Embedder
from rag.llm.types import CHARS_PER_TOKEN
from rag.records import Paper
from rag.text import tokenize
from rag.writing.evidence_sentences import HitSentences

# Sentences of each source the model sees for a short answer, and for --long (the rest is left out)...
SHORT_SOURCE_SENTENCES = 2
LONG_SOURCE_SENTENCES = 5
# ...within this many (estimated) tokens of sources for a short answer: SmolLM2 on one thread reads ~170 prompt
# tokens/s, so 500 tokens of sources and the ~350 of instructions take ~5 s; sources past the budget are left
# to "more from the papers" (a --long answer has the whole source budget of the endpoint).
SHORT_SOURCE_TOKENS = 500
# A model behind an endpoint reads a prompt in a moment: a short answer's sources may be twice as long, so the
# papers close to the best match are shown, not the first two or three (on the judged real questions, the papers
# that answer held by the prompt: 64.6% at 500 tokens, 73.2% at 1,000, the same at 2,000; RAG_LLM_CONTEXT_TOKENS
# still bounds it, for a slow server).
ENDPOINT_SHORT_SOURCE_TOKENS = 1000
# Authors named per source in the prompt (then "et al."): a 12-author list is 60 tokens the answer rarely needs.
PROMPT_AUTHORS = 3
GAP = " … "
# A sentence is about the question with this cosine similarity to it, or when it shares one of the question's
# terms that name its topic (not "work", "paper", "study"). Sentence cosines run low for good answers (a sentence
# on Holmes' heterogeneous NICs scores 0.16 against "which works target heterogeneous GPUs?"; quotes answering
# the dev questions 0.17-0.75), so the cosine alone would fall back on answers a reader wants; a sentence that
# shares no topic term and is not close in meaning is about something else.
ADDRESSES_COSINE = 0.3


def focused_sources(table: Sequence[HitSentences], per_source: int, budget_tokens: int) -> list[Paper]:
    """The hits' papers as the model is shown them, in retrieval order: each one's ``per_source`` best sentences in
    their own order, gaps marked with '…', a passage's under "From the full text (p. N):" as the whole paper's
    evidence text has it; within ``budget_tokens`` (a source that does not fit is shown with its best sentence,
    and once even that does not fit the rest are left out; the first source is always shown)."""
    papers: list[Paper] = []
    used = 0
    for row in table:
        for count in dict.fromkeys((per_source, 1)):
            paper = _focused(row, count)
            size = len(source_block(len(papers) + 1, paper, PROMPT_AUTHORS)) // CHARS_PER_TOKEN
            if not papers or used + size <= budget_tokens:
                papers.append(paper)
                used += size
                break
        else:
            break
    return papers


def _focused(row: HitSentences, per_source: int) -> Paper:
    kept = sorted(row.ranked[:per_source])
    abstract = [row.sentences[i] for i in kept if i < row.abstract_sentences]
    passage = [row.sentences[i] for i in kept if i >= row.abstract_sentences]
    text = _joined(abstract, [i for i in kept if i < row.abstract_sentences])
    if passage and row.hit.passage is not None:
        where = f" ({row.hit.passage.where})"
        body = " ".join(s.removesuffix(where) for s in passage)
        text = f"{text}\n\nFrom the full text{where}: {body}".strip()
    return replace(row.hit.paper, text=text)


def _joined(sentences: Sequence[str], positions: Sequence[int]) -> str:
    out = ""
    for i, sentence in enumerate(sentences):
        if i and positions[i] != positions[i - 1] + 1:
            out += GAP
        elif i:
            out += " "
        out += sentence
    return out


def addresses_question(question: str, sentences: Sequence[str], embedder: Embedder | None) -> bool:
    """Whether at least one of ``sentences`` is about ``question``: it shares a topic term of the question, or
    (with an embedding model) its cosine similarity to the question reaches ADDRESSES_COSINE."""
    topic = set(tokenize(question)) - no_news_terms()
    bare = [CITATION_GROUP.sub("", s) for s in sentences]
    if any(topic & set(tokenize(s)) for s in bare):
        return True
    if embedder is None or not bare:
        return False
    vectors = np.asarray(embedder.embed([question, *bare]), dtype=np.float64)
    return bool((vectors[1:] @ vectors[0] >= ADDRESSES_COSINE).any())
