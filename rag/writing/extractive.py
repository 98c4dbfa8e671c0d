"""Extractive answers: for each paper that best matches the question, the sentence of it that answers, cited.

No model writes anything here, so nothing can be invented: every sentence is
quoted from the abstract its citation points to. Which sentence is quoted is the
support check's evidence selector's choice (rag.check.support_model: sentence
similarity to the question, coverage of its rare terms, where results sit in an
abstract); benchmarks/quote_selection.py measures it against annotated evidence.
A paper known by its title alone is never quoted: it is listed as related.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cached_property

from rag.check.rules.facts import fold, names_kind, subjects_in
from rag.check.sentences import Answer, AnswerMode, Citation
from rag.check.sources import author_year
from rag.check.support_model import load_support_model
from rag.corpus.types import trial_registration
from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import split_sentences, tokenize
from rag.writing.evidence_sentences import (
    HitSentences,
    defuse_citations,
    is_evidence,
    question_frame,
    related_without_abstract,
    same_words,
    sentence_table,
)

MAX_ANSWER_SENTENCES = 4
# A refusal names this many of the closest papers (and lists the other papers found under it).
CLOSEST_NAMED = 3
# A paper's quote ranks by how well its best sentence matches the question (rag.writing.evidence_sentences),
# plus this much divided by its paper's retrieval rank, so the best papers lead.
RANK_PRIOR_WEIGHT = 0.2
# A question term this rare (the support check's IDF table; its ceiling, 6.7, is a term almost no abstract
# holds) names what is asked about. Papers that hold fewer than half of the question's rare terms do not answer
# it: a neighbouring method or disease the library never studies ("model predictive control" asked of a library
# on backstepping control; beavers and streams asked of one on restoration that mentions habitats). On the judged
# real questions the answerable ones' quoted papers hold at least two thirds of them.
KEY_TERM_IDF = 5.0
KEY_TERMS_HELD = 0.5
# ...when it has at least this many: one rare word alone may be the library's other form of it ("comprehend",
# "comprehension") or a synonym, not another subject.
MIN_KEY_TERMS = 2
# ...unless the words holding those terms, read alone, are this close (cosine) to a sentence of the papers or
# closer: they say what a paper says in other words ("renters ... a free lawyer ... eviction" beside "tenants ...
# a right to legal counsel in Housing Court"), not another subject ("P300 speller locked-in" beside a library on
# programmers' EEG). Chosen on the tune half of eval/refusal_questions (benchmarks/refusals.py): there the lay
# words of its paraphrases read 0.45-0.54 against their paper, the near-topic questions' other subjects 0.19-0.43
# (and 0.52 for one naming the library's own "EEG" beside the subject it lacks, which is answered since).
SAID_IN_OTHER_WORDS = 0.44
# A paper whose retrieval score is below this share of the best paper's shares only part of the question (a
# word, the field) and is not quoted as answering it: on the judged real questions (benchmarks/real_answers.py)
# 1 in 18 of the top five papers below it answers, 46 in 65 above it (quoted papers that answer: 69% -> 80%).
CLOSE_TO_BEST = 0.6
# The words of a question that the quoted papers lack, taken out of it, bring it this much closer (cosine) to
# the best quote or more: the quotes answer it without what those words ask about ("nicotine from smoking" in a
# question on resting EEG asked of a library that never studies it). A paraphrase's own words ("a free lawyer
# for poor renters") carry its meaning: taking them out moves it away from the quotes, or not at all. Chosen on
# the tune half of eval/refusal_questions (benchmarks/refusals.py), where no answerable question drifts by
# more than 0.04 and the near-topic ones the other rules miss drift by 0.10-0.15.
DRIFT = 0.09
# A population or condition named within this many words of "or" is one of the question's alternatives ("the
# prediction of dengue or malaria risk"): a paper on the other one answers it, so it is not asked of every paper.
ALTERNATIVE_WORDS = 3
_ALTERNATIVE = re.compile(r"or|either|nor")
_WORD = re.compile(r"[\w-]+")
# A question's words as the drift test takes them out and puts the rest back together.
_QUESTION_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*|\S")


def refusal(question: str, hits: Sequence[Hit]) -> Answer:
    """'Insufficient evidence' with the closest papers, instead of an answer."""
    named = "; ".join(h.paper.display_title for h in hits[:CLOSEST_NAMED])
    closest = named or "no paper shares a term with the question"
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
    """The sentence(s) of one paper that answer the question, and how well the paper answers it; ``twins``: other
    papers whose quote says the same (cited beside it, not quoted again)."""

    hit: Hit
    sentences: list[str]
    rank_score: float
    twins: list[Hit] = field(default_factory=list)

    @property
    def papers(self) -> list[Paper]:
        return [self.hit.paper, *(twin.paper for twin in self.twins)]

    def line(self, *numbers: int) -> str:
        """The bullet, citing its paper as ``numbers[0]`` and its twins as the numbers after (those given)."""
        cited = list(zip(self.papers, numbers, strict=False))
        leads = "; ".join(lead for paper, _ in cited if (lead := _lead(paper).removesuffix(": ")))
        lead = f"{leads}: " if leads else ""
        return f"- {lead}{defuse_citations(' '.join(self.sentences))} {''.join(f'[{n}]' for _, n in cited)}"

    @cached_property
    def _terms(self) -> list[set[str]]:
        """Each quoted sentence's terms (compared with every quote chosen before it: read once)."""
        return [set(tokenize(s)) for s in self.sentences]

    def says_the_same(self, other: Quote, nearly: bool = True) -> bool:
        """Whether a sentence of each is the same, or (``nearly``) says the same in nearly the same words."""
        if not nearly:
            return bool({_said(s) for s in self.sentences} & {_said(s) for s in other.sentences})
        return any(same_words(terms, theirs) for theirs in other._terms for terms in self._terms)


def _said(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def choose_quotes(table: Sequence[HitSentences], limit: int = MAX_ANSWER_SENTENCES, twins: bool = True) -> list[Quote]:
    """The quotes of at most ``limit`` papers whose quote answers the question, best first, one per paper (its
    quoted sentences); papers are ordered by their best-matching sentence and their retrieval rank. A paper whose
    quote says what one chosen already says (a duplicate record of one text, a preprint and its published version)
    is that quote's twin (``twins``); without twins (a table's row per paper) only a quote of the very same
    sentence is left out."""
    # A trial's registration holds its protocol, no findings: asked what is known, papers that report come first;
    # asked what was found (not which works there are), it does not answer, nor does a quote of a work's plan.
    protocols = {row.hit.paper.id for row in table if row.finding is not None and trial_registration(row.hit.paper)}
    quotes = [
        Quote(row.hit, [row.sentences[i] for i in row.quoted], max(row.match) + RANK_PRIOR_WEIGHT / row.hit.rank)
        for row in table
        if row.answers() and not (row.needs_finding and (row.hit.paper.id in protocols or row.quotes_a_plan))
    ]
    quotes.sort(key=lambda q: (q.hit.paper.id in protocols, -q.rank_score))
    chosen: list[Quote] = []
    for quote in quotes:
        same = next((c for c in chosen if quote.says_the_same(c, nearly=twins)), None)
        if same is None and len(chosen) < limit:
            chosen.append(quote)
        elif same is not None and twins:
            same.twins.append(quote.hit)
    return chosen


def also_found(table: Sequence[HitSentences], quotes: Sequence[Quote]) -> list[Paper]:
    """Papers found whose abstract does not answer the question (their best quote does not): still named."""
    quoted = {paper.id for q in quotes for paper in q.papers}
    return [row.hit.paper for row in table if row.hit.paper.id not in quoted]


def close_to_best(hits: Sequence[Hit]) -> list[Hit]:
    """The hits whose retrieval score is at least CLOSE_TO_BEST of the best one's, in their order (give it the
    hits that may be quoted: a paper known by its title alone may lead the retrieval and quote nothing)."""
    best = max((h.score for h in hits), default=0.0)
    return [h for h in hits if h.score >= CLOSE_TO_BEST * best]


def answer_evidence(question: str, hits: Sequence[Hit], min_relevance: float) -> list[Hit]:
    """The hits an answer, a table or a model's prompt draws on: evidence for the question (``is_evidence``)
    about whom or what it asks (``about_its_subjects``), close to the best of them."""
    return close_to_best(about_its_subjects(question, [h for h in hits if is_evidence(h, question, min_relevance)]))


def about_its_subjects(question: str, hits: Sequence[Hit]) -> list[Hit]:
    """The hits whose paper (title, abstract, passage) names who or what the question asks about, where it names
    any: a population, organism, cell, organ, setting or condition ("on videos of children", "patients with
    schizophrenia", "T cells"; rag.check.rules.kind_words), each of them (those named as alternatives aside), in
    any of its words ("paediatric" names children). A paper on adults does not answer a question on children,
    nor one on tumours in mice a question on tumours in humans, however close the rest of it reads: the same
    rule as for a sentence, whose population must be its source's."""
    asked = _asked_subjects(fold(question))
    if not asked:
        return list(hits)
    return [h for h in hits if _names_all(asked, fold(h.evidence().searchable_text()))]


def _names_all(groups: Sequence[int], folded: str) -> bool:
    return all(names_kind(group, folded) for group in groups)


def _asked_subjects(folded: str) -> list[int]:
    """The kind groups of who or what a (folded) question asks about, those named as one of its alternatives
    aside."""
    asked = []
    for group, named in subjects_in(folded).items():
        before, after = _WORD.findall(folded[: named.start()]), _WORD.findall(folded[named.end() :])
        if not any(_ALTERNATIVE.fullmatch(w) for w in before[-ALTERNATIVE_WORDS:] + after[:ALTERNATIVE_WORDS]):
            asked.append(group)
    return asked


def _held_terms(hits: Sequence[Hit]) -> set[str]:
    held: set[str] = set()
    for hit in hits:
        held |= set(tokenize(hit.evidence().searchable_text()))
    return held


def misses_key_concepts(
    question: str, hits: Sequence[Hit], embedder: Embedder | None = None, field: AbstractSet[str] = frozenset()
) -> bool:
    """Whether the question has MIN_KEY_TERMS rare terms or more and no one of ``hits`` (title, abstract,
    passage) holds KEY_TERMS_HELD of them, nor (with an ``embedder``) says what its lacked words say in other
    words. Read paper by paper: papers holding half each do not answer a question on both ("Black physicians
    ... medical boards" asked of papers on Black attorneys and on bar discipline). The library's ``field``
    words (rag.index.session.LibrarySession.field_words) are not key terms: nearly every paper holds them."""
    key = key_terms(question, field)
    if len(key) < MIN_KEY_TERMS or not hits:
        return False
    return all(_misses(question, key, hit, embedder) for hit in hits)


def key_terms(text: str, field: AbstractSet[str] = frozenset()) -> set[str]:
    """The terms of ``text`` that name what it asks about: rare ones (KEY_TERM_IDF), the library's ``field``
    words aside."""
    idf = load_support_model().idf
    return {term for term in tokenize(text) if idf(term) >= KEY_TERM_IDF} - field


def topic_evidence(
    topic: str, hits: Sequence[Hit], embedder: Embedder | None, min_relevance: float, field: AbstractSet[str]
) -> tuple[list[Paper], list[Paper]]:
    """The papers a summary or a draft on ``topic`` draws on: each hit that is evidence for it (``is_evidence``)
    and on the topic (``on_the_topic``), as its evidence (abstract, and the passage matched); and the evidence
    left out as off the topic (named under the text as found, not drawn on)."""
    evidence = [h for h in hits if is_evidence(h, topic, min_relevance)]
    on = on_the_topic(topic, evidence, embedder, field)
    kept = {h.paper.id for h in on}
    return [h.evidence() for h in on], [h.paper for h in evidence if h.paper.id not in kept]


def on_the_topic(
    topic: str, hits: Sequence[Hit], embedder: Embedder | None = None, field: AbstractSet[str] = frozenset()
) -> list[Hit]:
    """The hits whose paper (title, abstract, passage) holds one of the topic's key terms at least, or (with an
    ``embedder``) says them in other words: a summary or a draft leaves out a paper that matches its topic only
    on a word (the restoration of a theatre or of an implant crown in a summary on resin composite dental
    restorations, a survey of affective brain-computer interfaces in a draft on Riemannian geometry for EEG
    classification; the library's ``field`` words are no key terms). Looser than an answer's rule
    (``misses_key_concepts``: half of them), as a topic is broader than a question; and, as there, a topic with
    one rare term alone keeps every paper: the library may say it in other words ("distributed" for
    "decentralized training")."""
    key = key_terms(topic, field)
    if len(key) < MIN_KEY_TERMS:
        return list(hits)
    return [h for h in hits if key & _held_terms([h]) or said_in_other_words(topic, key, [h], embedder)]


def _misses(question: str, key: set[str], hit: Hit, embedder: Embedder | None) -> bool:
    lacked = key - _held_terms([hit])
    if len(key) - len(lacked) >= KEY_TERMS_HELD * len(key):
        return False
    return not said_in_other_words(question, lacked, [hit], embedder)


def said_in_other_words(question: str, lacked: set[str], hits: Sequence[Hit], embedder: Embedder | None) -> bool:
    """Whether the question's words holding the ``lacked`` terms, read alone, are SAID_IN_OTHER_WORDS close to a
    sentence of ``hits`` (title, abstract, passage): a paraphrase of what a paper says, not another subject."""
    words = [w for w in _QUESTION_WORD.findall(question) if set(tokenize(w)) & lacked]
    if embedder is None or not words:
        return False
    sentences = [s for hit in hits for s in split_sentences(hit.evidence().searchable_text())]
    if not sentences:
        return False
    vectors = embedder.embed([" ".join(words), *sentences])
    return bool((vectors[1:] @ vectors[0]).max() >= SAID_IN_OTHER_WORDS)


def _without_lacked_words(question: str, hits: Sequence[Hit]) -> str | None:
    """``question`` without its words that none of ``hits`` holds (in any form; "which works" and the like
    aside); None when they hold every word."""
    held, frame = _held_terms(hits), question_frame()
    words = _QUESTION_WORD.findall(question)
    kept = [w for w in words if not ((terms := tokenize(w)) and all(t not in held and t not in frame for t in terms))]
    return " ".join(kept) if len(kept) < len(words) else None


def drifts_from_quotes(question: str, quotes: Sequence[Quote], embedder: Embedder | None) -> bool:
    """Whether the quotes answer the question only without the words their papers lack: taking those words out
    brings the question DRIFT (cosine) or more closer to the best quote."""
    if embedder is None or not quotes:
        return False
    reduced = _without_lacked_words(question, [q.hit for q in quotes])
    if reduced is None:
        return False
    vectors = embedder.embed([question, reduced, *(" ".join(q.sentences) for q in quotes)])
    whole, without = (vectors[:2] @ vectors[2:].T).max(axis=1)
    return bool(without - whole >= DRIFT)


def unanswered(
    question: str, quotes: Sequence[Quote], embedder: Embedder | None, field: AbstractSet[str] = frozenset()
) -> bool:
    """No quote, or quotes that do not answer the question as asked: its key concepts (the library's ``field``
    words aside) are not in their papers (``misses_key_concepts``), or they speak to it only without what their
    papers lack (``drifts_from_quotes``)."""
    return (
        not quotes
        or misses_key_concepts(question, [q.hit for q in quotes], embedder, field)
        or drifts_from_quotes(question, quotes, embedder)
    )


def quoted_answer(question: str, hits: Sequence[Hit], quotes: Sequence[Quote]) -> Answer:
    """The quotes as an answer, each bullet citing the paper it quotes (and its twins)."""
    citations: list[Citation] = []
    lines = []
    for quote in quotes:
        numbers = range(len(citations) + 1, len(citations) + 1 + len(quote.papers))
        citations += [Citation(n, paper) for n, paper in zip(numbers, quote.papers, strict=True)]
        lines.append(quote.line(*numbers))
    text = "\n".join(lines)
    return Answer(question, text, AnswerMode.EXTRACTIVE, citations, list(hits))


def extractive_answer(
    question: str,
    hits: Sequence[Hit],
    embedder: Embedder | None,
    min_relevance: float,
    field: AbstractSet[str] = frozenset(),
) -> Answer:
    """A bullet for each paper whose quote answers the question (at most MAX_ANSWER_SENTENCES: a ceiling, not
    a quota); the other papers found are named under it; no quote answers: "Insufficient evidence". ``field``:
    the library's words for its field in the question (``unanswered``)."""
    evidence = answer_evidence(question, hits, min_relevance)
    table = sentence_table(question, evidence, embedder) if evidence else []
    quotes = choose_quotes(table)
    if unanswered(question, quotes, embedder, field):
        quotes = []
    answer = quoted_answer(question, hits, quotes) if quotes else refusal(question, hits)
    named = set() if quotes else {h.paper.id for h in hits[:CLOSEST_NAMED]}  # in the refusal's "Closest:"
    answer.uncited = [paper for paper in also_found(table, quotes) if paper.id not in named]
    answer.related = related_without_abstract(hits, question, min_relevance)
    return answer
