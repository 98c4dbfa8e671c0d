"""How well each sentence is backed by the sources it was given.

``score_against_sources`` rates every claim against every source offline (what the citation check and
attribution both need): the fitted support score (rag.check.support_model: on-point evidence, by words and
position) and the judge (rag.check.judge: does the source state it, read as a reader reads it), combined by a
logistic fitted on held-out claims (``judge/combine.json``, benchmarks/judge_eval.py --save). Without the
judge the fitted score decides alone. ``--verify llm`` asks the model to judge instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.check.judge import JUDGE_DIR, NOT_READ, Judgement, judge_texts, load_judge
from rag.check.sentences import Support
from rag.check.support_model import SupportScore, load_support_model
from rag.records import Paper
from rag.text import split_sentences


@dataclass
class SourceScore:
    """One claim against one source: how well it is backed, and by which sentence of it."""

    score: float
    support: Support
    position: int
    sentence: str
    conflict: bool = False
    stated: float | None = None  # the judge: P(the source states it); None when it did not read
    contradicted: float | None = None  # the judge: P(the source says otherwise)
    fitted: float = 0.0  # the fitted support score alone (what the wrong-paper model was fitted on)
    opposites: tuple[str, ...] = ()  # the judge: the source's passages that state the sentence's opposite, surest first
    passage: str = ""  # the judge: the stretch of the source it read as closest to stating the sentence
    fitted_conflict_only: bool = False  # the conflict is the fitted check's alone: the judge read none
    # the judge: P(says otherwise) in each other passage restating the sentence, with the passage
    restated: tuple[tuple[float, str], ...] = ()

    @property
    def opposite(self) -> str:
        """The surest passage the judge read as stating the sentence's opposite; empty when none does."""
        return self.opposites[0] if self.opposites else ""

    def said_otherwise(self) -> list[tuple[float, str]]:
        """The judge's readings of whether the source says otherwise, surest first: P(it does) and the passage,
        where the sentence is stated best and in each other passage restating it (none: the judge did not read)."""
        if self.contradicted is None:
            return []
        return sorted([(self.contradicted, self.passage), *self.restated], key=lambda reading: -reading[0])


@dataclass(frozen=True)
class Combination:
    """The fitted score and the judge's reading, weighed: a probability that the source states the sentence (the
    score a reader sees and rankings use), and the labels' rule: the top label where the judge reads the source
    as stating it and the fitted score finds some evidence, or the fitted score alone is high; a conflict where
    the judge reads a contradiction there. Fitted on held-out claims (benchmarks/judge_eval.py --save): the
    operating point that passes most stated sentences while catching at least the errors the fitted score and
    the rules caught alone."""

    fitted: float
    stated: float
    contradicted: float
    intercept: float
    stated_at: float  # the judge's P(stated) for the top label...
    fitted_with_judge_at: float  # ...with at least this fitted score
    fitted_alone_at: float  # the fitted score that is the top label by itself
    weak_at: float  # the probability below which a sentence is unsupported rather than weak
    contradiction_at: float  # the judge's P(contradicted) from which evidence counts as a conflict

    def probability(self, fitted: float, judgement: Judgement) -> float:
        z = (
            self.fitted * logit(fitted)
            + self.stated * logit(judgement.stated)
            + self.contradicted * logit(judgement.contradicted)
            + self.intercept
        )
        return 1 / (1 + math.exp(-max(min(z, 30.0), -30.0)))

    def conflicts(self, fitted_conflict: bool, judgement: Judgement) -> bool:
        """The evidence says otherwise: the judge reads a contradiction or the source stating the sentence's
        opposite, or the fitted check sees a negation or a reversal."""
        return judgement.contradicted >= self.contradiction_at or bool(judgement.opposite) or fitted_conflict

    def label(self, fitted: float, judgement: Judgement, probability: float) -> Support:
        stated = judgement.stated >= self.stated_at and fitted >= self.fitted_with_judge_at
        if stated or fitted >= self.fitted_alone_at:
            return Support.EVIDENCE
        return Support.WEAK if probability >= self.weak_at else Support.UNSUPPORTED


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


@lru_cache(maxsize=1)
def load_combination() -> Combination | None:
    path = JUDGE_DIR / "combine.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return Combination(**{k: float(v) for k, v in data["combination"].items()})


def read_pairs(
    claims: Sequence[str], texts: Sequence[str], titles: Sequence[str | None] | None = None
) -> list[tuple[SupportScore, Judgement]]:
    """Each claim against its text (``texts[i]`` for ``claims[i]``, opening with its paper's title ``titles[i]``
    where given): the fitted score, and the judge's reading (NOT_READ when the judge is off)."""
    fitted = load_support_model().score(list(claims), list(texts))
    combination = load_combination()
    judged = (
        judge_texts(claims, texts, titles) if combination is not None and load_judge() else [NOT_READ] * len(claims)
    )
    return list(zip(fitted, judged, strict=True))


def _source_score(result: SupportScore, judgement: Judgement) -> SourceScore:
    return source_score(result, judgement, load_combination())


def source_score(result: SupportScore, judgement: Judgement, combination: Combination | None) -> SourceScore:
    """One claim against one source: the fitted score and the judge's reading weighed by ``combination`` (the
    fitted score alone where there is none, or the judge did not read)."""
    position = max(result.evidence_index, 0)
    if combination is None or judgement is NOT_READ:
        return SourceScore(
            result.score, result.label, position, result.evidence_text, result.contradiction, fitted=result.score
        )
    probability = combination.probability(result.score, judgement)
    label = combination.label(result.score, judgement, probability)
    judged = combination.conflicts(False, judgement)
    return SourceScore(
        round(probability, 4), label, position, result.evidence_text, judged or result.contradiction,
        round(judgement.stated, 4), round(judgement.contradicted, 4), result.score, judgement.opposites,
        judgement.passage, result.contradiction and not judged,
        tuple((round(p, 4), passage) for p, passage in judgement.restated),
    )  # fmt: skip


def score_against_sources(claims: Sequence[str], papers: Sequence[Paper]) -> list[list[SourceScore]]:
    """``result[i][j]``: claim ``i`` against source ``j``, by the offline check (rag.check.support_model).

    The lexical weights are used: with MiniLM the check is 0.03 more precise on labelled claims but
    embeds every source sentence, ~100x slower per answer (benchmarks/support_check.py)."""
    if not claims or not papers:
        return [[] for _ in claims]
    texts, titles = [p.searchable_text() for p in papers], [p.title for p in papers]
    flat = read_pairs(
        [c for c in claims for _ in texts], [t for _ in claims for t in texts], [t for _ in claims for t in titles]
    )
    return [
        [_source_score(result, judgement) for result, judgement in flat[i * len(texts) : (i + 1) * len(texts)]]
        for i in range(len(claims))
    ]


def score_against_group(claim: str, papers: Sequence[Paper]) -> tuple[SourceScore, int]:
    """A claim citing several papers, against their texts read together (each may back one half of it);
    the score, and which of ``papers`` holds the best evidence sentence."""
    parts = [split_sentences(p.searchable_text()) for p in papers]
    # Each sentence closed with a full stop, so a snippet cut with '…' does not run into the next paper's text.
    joined = " ".join(s if s.endswith((".", "!", "?")) else f"{s}." for sentences in parts for s in sentences)
    ((result, judgement),) = read_pairs([claim], [joined])
    owner, position = _locate(result.evidence_text, parts)
    score = _source_score(result, judgement)
    score.position = position
    return score, owner


def _locate(evidence: str, parts: Sequence[Sequence[str]]) -> tuple[int, int]:
    """(paper, sentence) the evidence sentence came from, found by its text rather than by counting sentences
    (the joined text can split differently, e.g. before a sentence that starts in lower case)."""
    for exact in (True, False):
        for owner, sentences in enumerate(parts):
            for position, sentence in enumerate(sentences):
                if sentence == evidence if exact else evidence.startswith(sentence):
                    return owner, position
    return 0, 0


# A source a sentence is not scored against, or one known by its title alone: it backs nothing.
NO_EVIDENCE = SourceScore(0.0, Support.UNSUPPORTED, 0, "")
