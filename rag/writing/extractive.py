"""Extractive answers: the retrieved sentences that best match the question, each cited.

No model writes anything here, so nothing can be invented: every sentence is
quoted from the abstract its citation points to.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import split_sentences, term_coverage
from rag.writing.answer import Answer, AnswerMode, Citation
from rag.writing.citations import CITATION_GROUP
from rag.writing.sources import author_year

MAX_ANSWER_SENTENCES = 4
# A sentence's score: similarity to the question, plus this much for sharing its terms...
TERM_OVERLAP_WEIGHT = 0.5
# ...plus this much divided by its paper's retrieval rank, so the best papers lead.
RANK_PRIOR_WEIGHT = 0.2
# A paper counts as evidence with this share of the question's terms (and, with a model, a fair cosine)...
EVIDENCE_COVERAGE = 0.5
# ...or with a cosine similarity this high whatever the words (paraphrases).
STRONG_RELEVANCE = 0.40


def defuse_citations(quoted: str) -> str:
    """An abstract's own '[2]' would read as our reference [2]: write it as '(ref. 2)'."""
    return CITATION_GROUP.sub(lambda match: f"(ref. {match.group(1).strip()})", quoted)


def is_evidence(hit: Hit, question: str, min_relevance: float) -> bool:
    """Whether a hit may back an answer, on absolute signals (never the per-query rescaled score): a cosine
    similarity this strong alone, or at least ``min_relevance`` with half of the question's terms in the paper.

    Calibrated on the bundled corpus and a 5,000-abstract SciFact library, with on-topic questions (the labelled
    questions, SciFact's queries) and off-topic ones (eval/off_topic_questions.txt): a cosine floor alone either
    refuses on-topic questions on a small library or answers off-topic ones on a large one."""
    coverage = term_coverage(question, hit.evidence().searchable_text())
    if hit.dense is not None:
        return hit.dense >= STRONG_RELEVANCE or (hit.dense >= min_relevance and coverage >= EVIDENCE_COVERAGE)
    return coverage >= EVIDENCE_COVERAGE


def refusal(question: str, hits: Sequence[Hit]) -> Answer:
    """'Insufficient evidence' with the closest papers, instead of an answer."""
    closest = "; ".join(h.paper.display_title for h in hits[:3]) or "no paper shares a term with the question"
    return Answer(
        question,
        f"Insufficient evidence: no abstract in the library is relevant enough to answer this. Closest: {closest}.",
        AnswerMode.INSUFFICIENT,
        hits=list(hits),
    )


def _lead(paper: Paper) -> str:
    """'Title (Author, 2022): ' so a 'which works...' question is answered by naming the works."""
    if not paper.title:
        return ""
    who = author_year(paper)
    return f"{paper.title} ({who}): " if who else f"{paper.title}: "


def _quotable(hit: Hit) -> list[str]:
    """The abstract's sentences, and the matched passage's with the page they are on."""
    sentences = split_sentences(hit.paper.text)
    if hit.passage is not None:
        sentences += [f"{s} ({hit.passage.where})" for s in split_sentences(hit.passage.text)]
    return sentences


def extractive_answer(question: str, hits: Sequence[Hit], embedder: Embedder | None, min_relevance: float) -> Answer:
    evidence = [h for h in hits if is_evidence(h, question, min_relevance)]
    if not evidence:
        return refusal(question, hits)
    candidates = [(hit, sentence) for hit in evidence for sentence in _quotable(hit)]
    scores = np.array(
        [TERM_OVERLAP_WEIGHT * term_coverage(question, s) + RANK_PRIOR_WEIGHT / h.rank for h, s in candidates]
    )
    if embedder is not None:
        vectors = embedder.embed([question, *(s for _, s in candidates)])
        scores += vectors[1:] @ vectors[0]
    chosen: list[tuple[Hit, str]] = []
    for i in np.argsort(-scores, kind="stable"):
        hit, sentence = candidates[i]
        if all(hit.paper.id != h.paper.id for h, _ in chosen):
            chosen.append((hit, sentence))
        if len(chosen) == MAX_ANSWER_SENTENCES:
            break
    citations = [Citation(n, hit.paper) for n, (hit, _) in enumerate(chosen, start=1)]
    text = "\n".join(
        f"- {_lead(hit.paper)}{defuse_citations(sentence)} [{n}]" for n, (hit, sentence) in enumerate(chosen, start=1)
    )
    return Answer(question, text, AnswerMode.EXTRACTIVE, citations, list(hits))
