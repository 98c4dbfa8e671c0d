"""Extractive answers: for each paper that best matches the question, the sentence of it that answers, cited.

No model writes anything here, so nothing can be invented: every sentence is
quoted from the abstract its citation points to. Which sentence is quoted is the
support check's evidence selector's choice (rag.writing.support_check: sentence
similarity to the question, coverage of its rare terms, where results sit in an
abstract); benchmarks/quote_selection.py measures it against annotated evidence.
A paper known by its title alone is never quoted: it is listed as related.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import split_sentences, term_coverage, tokenize
from rag.writing import support_check
from rag.writing.answer import Answer, AnswerMode, Citation
from rag.writing.citations import CITATION_GROUP
from rag.writing.sources import author_year
from rag.writing.support_check import load_support_model

MAX_ANSWER_SENTENCES = 4
# A paper's rank among the quotes: similarity of its best sentence to the question, plus this much for sharing
# the question's terms...
TERM_OVERLAP_WEIGHT = 0.5
# ...plus this much divided by its paper's retrieval rank, so the best papers lead.
RANK_PRIOR_WEIGHT = 0.2
# A paper counts as evidence with this share of the question's terms (and, with a model, a fair cosine)...
EVIDENCE_COVERAGE = 0.5
# ...or with a cosine similarity this high whatever the words (paraphrases).
STRONG_RELEVANCE = 0.40
# A second sentence is quoted when the evidence selector's logit for it is within this of the best one's:
# 77% of SciFact claims then get an annotated evidence sentence (one sentence: 66%), 1.37 sentences a quote
# (grouped 5-fold CV, benchmarks/quote_selection.py; margins 0.5 / 0.75 / 1.0 give 77 / 80 / 82% at 1.37 /
# 1.51 / 1.64 sentences: the shortest quotes that reach the goal).
SECOND_QUOTE_MARGIN = 0.5
FloatArray = npt.NDArray[np.float64]


def defuse_citations(quoted: str) -> str:
    """An abstract's own '[2]' would read as our reference [2]: write it as '(ref. 2)'."""
    return CITATION_GROUP.sub(lambda match: f"(ref. {match.group(1).strip()})", quoted)


def is_evidence(hit: Hit, question: str, min_relevance: float) -> bool:
    """Whether a hit may back an answer, on absolute signals (never the per-query rescaled score): a cosine
    similarity this strong alone, or at least ``min_relevance`` with half of the question's terms in the paper.
    A paper with no abstract is never evidence: its title is not a finding.

    Calibrated on the bundled corpus and a 5,000-abstract SciFact library, with on-topic questions (the labelled
    questions, SciFact's queries) and off-topic ones (eval/off_topic_questions.txt): a cosine floor alone either
    refuses on-topic questions on a small library or answers off-topic ones on a large one."""
    return not hit.paper.no_abstract and _relevant(hit, question, min_relevance)


def _relevant(hit: Hit, question: str, min_relevance: float) -> bool:
    coverage = term_coverage(question, hit.evidence().searchable_text())
    if hit.dense is not None:
        return hit.dense >= STRONG_RELEVANCE or (hit.dense >= min_relevance and coverage >= EVIDENCE_COVERAGE)
    return coverage >= EVIDENCE_COVERAGE


def related_without_abstract(hits: Sequence[Hit], question: str, min_relevance: float) -> list[Paper]:
    """Title-only papers as relevant as evidence would be: listed under an answer as "related, no abstract"."""
    return [h.paper for h in hits if h.paper.no_abstract and _relevant(h, question, min_relevance)]


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
    """'Title (Author, 2022): ' so a 'which works...' question is answered by naming the works; a retracted
    work says so before it is quoted."""
    retracted = " [RETRACTED]" if paper.retracted else ""
    if not paper.title:
        return retracted.strip() + ": " if retracted else ""
    who = author_year(paper)
    return f"{paper.title} ({who}){retracted}: " if who else f"{paper.title}{retracted}: "


@dataclass
class Quote:
    """The sentence(s) of one paper that answer the question, and how well the paper answers it."""

    hit: Hit
    sentences: list[str]
    rank_score: float

    def line(self, n: int) -> str:
        return f"- {_lead(self.hit.paper)}{defuse_citations(' '.join(self.sentences))} [{n}]"


def _quotable(hit: Hit) -> tuple[list[str], int]:
    """The abstract's sentences, then the matched passage's with the page they are on; and how many of them
    are the abstract's."""
    sentences = split_sentences(hit.paper.text)
    abstract = len(sentences)
    if hit.passage is not None:
        sentences += [f"{s} ({hit.passage.where})" for s in split_sentences(hit.passage.text)]
    return sentences, abstract


@dataclass
class HitSentences:
    """One hit's quotable sentences, ranked by how well each answers the question (best first)."""

    hit: Hit
    sentences: list[str]
    abstract_sentences: int
    ranked: list[int]
    quoted: list[int]
    # Per sentence: similarity to the question (0 without vectors) + TERM_OVERLAP_WEIGHT x term coverage.
    match: list[float]


def selector_logits(
    question: str, sentences: Sequence[str], question_vector: FloatArray | None, vectors: FloatArray | None
) -> FloatArray:
    """How evidence-like each sentence is for the question, by the support check's evidence selector (with
    sentence vectors when there are any): similarity, coverage of the question's (rare) terms, where results
    sit in an abstract."""
    model = load_support_model()
    with_vectors = question_vector is not None and vectors is not None
    variant = model.embedding if with_vectors else model.lexical
    cosines = np.asarray(vectors @ question_vector, dtype=np.float64) if with_vectors else None  # type: ignore[operator]
    terms = list(dict.fromkeys(tokenize(question)))
    return variant.selector.logits(support_check.sentence_table(terms, sentences, model.idf, cosines))


def quoted_sentences(logits: FloatArray) -> list[int]:
    """The sentence the selector ranks first, and the runner-up when the selector rates it nearly as high
    (within SECOND_QUOTE_MARGIN): abstracts often give their finding over two sentences. In document order.
    Measured in benchmarks/quote_selection.py (grouped cross-validation on SciFact's evidence sentences)."""
    order = [int(i) for i in np.argsort(-logits, kind="stable")]
    chosen = order[:1]
    if len(order) > 1 and logits[order[0]] - logits[order[1]] < SECOND_QUOTE_MARGIN:
        chosen.append(order[1])
    return sorted(chosen)


def sentence_table(question: str, hits: Sequence[Hit], embedder: Embedder | None) -> list[HitSentences]:
    """Every quotable sentence of ``hits`` ranked per hit; all of them embedded in one batch."""
    per_hit = [(hit, *_quotable(hit)) for hit in hits]
    per_hit = [row for row in per_hit if row[1]]
    flat = [s for _, sentences, _ in per_hit for s in sentences]
    question_vector, vectors = None, None
    if embedder is not None and flat:
        embedded = np.asarray(embedder.embed([question, *flat]), dtype=np.float64)
        question_vector, vectors = embedded[0], embedded[1:]
    table, start = [], 0
    for hit, sentences, abstract in per_hit:
        own = vectors[start : start + len(sentences)] if vectors is not None else None
        start += len(sentences)
        similarity = own @ question_vector if own is not None and question_vector is not None else None
        match = [
            TERM_OVERLAP_WEIGHT * term_coverage(question, s) + (float(similarity[i]) if similarity is not None else 0.0)
            for i, s in enumerate(sentences)
        ]
        logits = selector_logits(question, sentences, question_vector, own)
        ranked = [int(i) for i in np.argsort(-logits, kind="stable")]
        table.append(HitSentences(hit, sentences, abstract, ranked, quoted_sentences(logits), match))
    return table


def choose_quotes(table: Sequence[HitSentences], limit: int = MAX_ANSWER_SENTENCES) -> list[Quote]:
    """The quotes of the ``limit`` papers that answer best, best first, one per paper (its quoted sentences);
    papers are ordered by their best-matching sentence and their retrieval rank."""
    quotes = [
        Quote(row.hit, [row.sentences[i] for i in row.quoted], max(row.match) + RANK_PRIOR_WEIGHT / row.hit.rank)
        for row in table
    ]
    quotes.sort(key=lambda q: -q.rank_score)
    return quotes[:limit]


def quoted_answer(question: str, hits: Sequence[Hit], quotes: Sequence[Quote]) -> Answer:
    """The quotes as an answer, each bullet citing the paper it quotes."""
    citations = [Citation(n, q.hit.paper) for n, q in enumerate(quotes, start=1)]
    text = "\n".join(q.line(n) for n, q in enumerate(quotes, start=1))
    return Answer(question, text, AnswerMode.EXTRACTIVE, citations, list(hits))


def extractive_answer(question: str, hits: Sequence[Hit], embedder: Embedder | None, min_relevance: float) -> Answer:
    evidence = [h for h in hits if is_evidence(h, question, min_relevance)]
    if evidence:
        answer = quoted_answer(question, hits, choose_quotes(sentence_table(question, evidence, embedder)))
    else:
        answer = refusal(question, hits)
    answer.related = related_without_abstract(hits, question, min_relevance)
    return answer
