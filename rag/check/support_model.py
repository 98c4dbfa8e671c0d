"""Offline citation check: is a cited sentence backed by the abstract(s) it cites?

No language model and no network. Three small logistic regressions, fitted on labelled SciFact pairs by
``benchmarks/support_check.py`` (weights, IDF table, thresholds and the grouped-CV numbers are in
``support_model.json``):

1. a *selector* ranks the sentences of the cited text (similarity, IDF coverage, position: results and
   conclusions sit late in an abstract) and picks the best evidence sentence;
2. a *relevance* model: does the text speak to the claim at all (similarity to the best sentence, coverage of
   the claim's terms, rare terms, numbers)? It separates cited-and-on-point from off-topic or similar-but-wrong;
3. an *agreement* model over negation / direction-of-effect / antonym / null-result conflicts between the claim
   and the evidence: it only looks at the pair, never at the claim alone.

score = P(relevant) * P(agrees | relevant). Works without an embedder (lexical weights, fewer features).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.abbreviations import spelled_out
from rag.check.rules.polarity import antonyms as _antonyms
from rag.check.rules.polarity import direction as _direction
from rag.check.rules.polarity import negated as _negated
from rag.check.rules.polarity import words as _words
from rag.check.sentences import Support
from rag.embed.types import Embedder
from rag.text import split_sentences, tokenize

MODEL_FILE = Path(__file__).with_name("support_model.json")
FloatArray = npt.NDArray[np.float64]
SELECTOR_LEXICAL = ("idf_coverage", "coverage", "position", "is_last", "is_first", "log_terms", "results_cue")
SELECTOR_EMBEDDING = ("similarity", "similarity_gap", *SELECTOR_LEXICAL)
RELEVANCE_LEXICAL = (
    "selector_best",  # how evidence-like the best sentence looks (the selector's logit)
    "coverage_best",  # share of the claim's terms in the best sentence and its neighbours
    "idf_coverage_best",  # the same weighted by IDF: a matched rare term counts more than "cell"
    "idf_coverage_abstract",
    "rare_coverage_abstract",  # share of the claim's rare terms (document frequency <= 1%) anywhere in the text
    "bigram_coverage_abstract",  # adjacent term pairs of the claim also adjacent in the text
    "numbers_missing",  # share of the claim's numbers the text never mentions
    "log_claim_terms",
)


RELEVANCE_EMBEDDING = (
    "similarity_best",
    "similarity_max",
    "similarity_margin",
    "similarity_abstract",
    *RELEVANCE_LEXICAL,
)


AGREEMENT = (
    "negation_mismatch",  # one of claim / best sentence is negated, the other not
    "evidence_negated_only",
    "direction_conflict",  # claim "increases", best sentence "decreases" (each flipped by its own negation)
    "direction_conflict_window",  # the same against the best sentence and its neighbours
    "direction_agree",
    "antonym_best",  # claim says "higher", best sentence says "lower" and not "higher"
    "antonym_window",
    "antonym_abstract",
    "null_best",  # best sentence reports no effect / no association, the claim is not negated
    "null_window",
    "null_abstract",
    "negated_share_abstract",
)


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
# "no significant difference", "was not associated with", "had no effect on": a null finding.
_NULL_RESULT = re.compile(
    r"\b(no|not|nor|neither|without|none)\b(?:\W+\w+){0,4}?\W+(significant\w*|associat\w*|effect\w*|differen\w*|"
    r"chang\w*|correlat\w*|impact\w*|influenc\w*|role|benefit\w*|alter\w*|affect\w*|relat\w*|evidence)"
)


_RESULTS_CUE = re.compile(
    r"^(conclusion|results|findings|interpretation)|\b(we (show|found|find|demonstrate|report)|these (results|findings|"
    r"data)|suggest|indicat)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SupportScore:
    score: float  # probability-like 0..1 that the cited text supports the claim
    label: Support  # evidence found, weak (related) or unsupported (no evidence)
    evidence_index: int  # best sentence in split_sentences(text) of the chosen source; -1 without evidence
    evidence_text: str
    source_index: int = 0  # which of the claim's cited texts gave the score
    contradiction: bool = False  # the evidence negates, reverses or reports no effect for the claim


@dataclass(frozen=True)
class Idf:
    """IDF of stemmed terms over the training abstracts; unseen terms count as the rarest."""

    table: dict[str, float]
    unseen: float
    rare_at: float

    def __call__(self, term: str) -> float:
        return self.table.get(term, self.unseen)


def build_idf(texts: Sequence[str], rare_share: float = 0.01, min_df: int = 2) -> Idf:
    """Smoothed IDF; terms in fewer than ``min_df`` texts are left out of the table (they get ``unseen``)."""
    df: dict[str, int] = {}
    for text in texts:
        for term in set(tokenize(text)):
            df[term] = df.get(term, 0) + 1
    n = len(texts)
    table = {t: round(math.log((1 + n) / (1 + c)), 3) for t, c in sorted(df.items()) if c >= min_df}
    return Idf(table, round(math.log(1 + n), 3), round(math.log((1 + n) / (1 + rare_share * n)), 3))


@dataclass(frozen=True)
class LogisticModel:
    """Standardized features -> logistic regression."""

    features: tuple[str, ...]
    means: FloatArray
    scales: FloatArray
    coefficients: FloatArray
    intercept: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticModel:
        means, scales, coefficients = (np.array(data[k], dtype=np.float64) for k in ("means", "scales", "coefficients"))
        return cls(tuple(data["features"]), means, scales, coefficients, float(data["intercept"]))

    def logits(self, x: FloatArray) -> FloatArray:
        """Rows of ``x`` hold the features in ``self.features`` order."""
        return np.asarray(((x - self.means) / self.scales) @ self.coefficients + self.intercept)

    def probability(self, values: dict[str, float]) -> float:
        z = float(self.logits(np.array([[values[f] for f in self.features]]))[0])
        return 1 / (1 + math.exp(-max(min(z, 30.0), -30.0)))


def _share(wanted: Sequence[str], have: AbstractSet[str], idf: Idf | None = None) -> float:
    weights = [idf(t) if idf else 1.0 for t in wanted]
    return sum(w for t, w in zip(wanted, weights, strict=True) if t in have) / sum(weights) if wanted else 0.0


@dataclass(frozen=True)
class _Read:
    """One sentence of a cited text as the features read it, worked out once however many claims cite it."""

    tokens: tuple[str, ...]
    terms: frozenset[str]
    words: tuple[str, ...]
    numbers: frozenset[str]
    cue: bool
    null: bool
    negated: bool


@lru_cache(maxsize=65_536)
def _read(sentence: str) -> _Read:
    tokens, words = tuple(tokenize(sentence)), tuple(_words(sentence))
    return _Read(
        tokens,
        frozenset(tokens),
        words,
        frozenset(_NUMBER.findall(sentence)),
        bool(_RESULTS_CUE.search(sentence)),
        bool(_NULL_RESULT.search(sentence.lower())),
        _negated(words),
    )


def sentence_table(terms: Sequence[str], sentences: Sequence[str], idf: Idf, cosines: FloatArray | None) -> FloatArray:
    """Selector features, one row per sentence, in SELECTOR_EMBEDDING (or SELECTOR_LEXICAL) order."""
    n = len(sentences)
    rows = []
    for i, s in enumerate(sentences):
        st = _read(s).terms
        cue = float(_read(s).cue)
        rows.append(
            [_share(terms, st, idf), _share(terms, st), i / max(n - 1, 1), i == n - 1, i == 0, math.log1p(len(st)), cue]
        )
    table = np.array(rows, dtype=np.float64).reshape(n, len(SELECTOR_LEXICAL))
    if cosines is None:
        return table
    return np.hstack([cosines[:, None], (cosines - cosines.max(initial=0.0))[:, None], table])


def pair_features(
    claim: str, sentences: Sequence[str], idf: Idf, selector: LogisticModel, vectors: tuple[Any, Any] | None = None
) -> tuple[dict[str, float], int]:
    """Features of (claim, cited text split into sentences) and the best sentence's index (-1 if none).

    ``vectors`` is (claim vector, one unit row per sentence) or None for the lexical features only.
    """
    if not sentences:
        return {}, -1
    terms = list(dict.fromkeys(tokenize(claim)))
    cosines = np.asarray(vectors[1] @ vectors[0], dtype=np.float64) if vectors is not None else None
    selector_logits = selector.logits(sentence_table(terms, sentences, idf, cosines))
    best = int(np.argmax(selector_logits))
    read = [_read(s) for s in sentences]
    terms_of = [r.terms for r in read]
    window_terms, all_terms = set().union(*terms_of[max(best - 1, 0) : best + 2]), set().union(*terms_of)
    rare = [t for t in terms if idf(t) >= idf.rare_at]
    pairs = list(itertools.pairwise(terms))
    tokens = [t for r in read for t in r.tokens]
    text_pairs = set(itertools.pairwise(tokens))
    numbers, text_numbers = set(_NUMBER.findall(claim)), {x for r in read for x in r.numbers}
    cw, bw = _words(claim), list(read[best].words)
    window_read = read[max(best - 1, 0) : best + 2]
    ww, aw = [w for r in window_read for w in r.words], [w for r in read for w in r.words]
    claim_negated, claim_dir, best_dir = _negated(cw), _direction(cw), _direction(bw)
    values = {
        "selector_best": float(selector_logits[best]),
        "coverage_best": _share(terms, window_terms),
        "idf_coverage_best": _share(terms, window_terms, idf),
        "idf_coverage_abstract": _share(terms, all_terms, idf),
        "rare_coverage_abstract": _share(rare, all_terms) if rare else 1.0,
        "bigram_coverage_abstract": sum(p in text_pairs for p in pairs) / len(pairs) if pairs else 0.0,
        "numbers_missing": len(numbers - text_numbers) / len(numbers) if numbers else 0.0,
        "log_claim_terms": math.log1p(len(terms)),
        "negation_mismatch": float(claim_negated != _negated(bw)),
        "evidence_negated_only": float(_negated(bw) and not claim_negated),
        "direction_conflict": float(claim_dir * best_dir < 0),
        "direction_conflict_window": float(claim_dir * _direction(ww) < 0),
        "direction_agree": float(claim_dir * best_dir > 0),
        "antonym_best": _antonyms(cw, bw),
        "antonym_window": _antonyms(cw, ww),
        "antonym_abstract": _antonyms(cw, aw),
        "null_best": float(read[best].null and not claim_negated),
        "null_window": float(any(r.null for r in window_read) and not claim_negated),
        "null_abstract": float(any(r.null for r in read) and not claim_negated),
        "negated_share_abstract": float(np.mean([r.negated for r in read])),
    }
    if cosines is not None:
        ranked = np.sort(cosines)[::-1]
        mean = np.asarray(vectors[1], dtype=np.float64).mean(axis=0) if vectors else np.zeros(1)
        values |= {
            "similarity_best": float(cosines[best]),
            "similarity_max": float(ranked[0]),
            "similarity_margin": float(ranked[0] - ranked[1]) if len(ranked) > 1 else 0.0,
            "similarity_abstract": float(mean @ vectors[0]) / (float(np.linalg.norm(mean)) or 1.0) if vectors else 0.0,
        }
    return values, best


@dataclass(frozen=True)
class Variant:
    """The three models and thresholds for one feature set (with or without sentence vectors)."""

    selector: LogisticModel
    relevance: LogisticModel
    agreement: LogisticModel
    supported_at: float
    weak_at: float
    contradiction_at: float  # P(agrees | relevant) below this on a relevant pair flags a contradiction

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Variant:
        selector, relevance, agreement = (
            LogisticModel.from_json(data[k]) for k in ("selector", "relevance", "agreement")
        )
        t = data["thresholds"]
        return cls(selector, relevance, agreement, float(t["supported"]), float(t["weak"]), float(t["contradiction"]))

    def label(self, score: float) -> Support:
        """Named for what the score measures. It finds on-point evidence well (ROC AUC ~0.86 against off-topic
        and similar-but-wrong papers) but tells support from contradiction only weakly (~0.59), so the top label
        says "evidence found", not "supported"; ``SupportScore.contradiction`` marks the conflicts it does see."""
        if score >= self.supported_at:
            return Support.EVIDENCE
        return Support.WEAK if score >= self.weak_at else Support.UNSUPPORTED


class SupportModel:
    """The fitted check: one variant with sentence embeddings, one lexical-only fallback."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.idf = Idf(dict(data["idf"]["table"]), float(data["idf"]["unseen"]), float(data["idf"]["rare_at"]))
        self.embedding = Variant.from_json(data["models"]["embedding"])
        self.lexical = Variant.from_json(data["models"]["lexical"])

    def score(
        self, claims: Sequence[str], evidence: Sequence[str | Sequence[str]], embedder: Embedder | None = None
    ) -> list[SupportScore]:
        """One score per claim against its cited text(s) (one text, or a list if it cites several): best wins."""
        split = [[split_sentences(t) for t in ([e] if isinstance(e, str) else e)] for e in evidence]
        # Read with its abbreviations spelled out ("prevalence of MCR" states what a claim says of "motoric
        # cognitive risk syndrome"); the evidence shown is the sentence as written.
        readable = [[spelled_out(ss, claim) for ss in per] for claim, per in zip(claims, split, strict=True)]
        vectors: dict[str, FloatArray] = {}
        if embedder is not None:
            # One batch per answer: every claim and every evidence sentence, each embedded once.
            texts = list(dict.fromkeys([*claims, *(s for per in readable for ss in per for s in ss)]))
            vectors = dict(zip(texts, np.asarray(embedder.embed(texts), dtype=np.float64), strict=True))
        variant = self.embedding if embedder is not None else self.lexical
        out = []
        for claim, per_claim, per_read in zip(claims, split, readable, strict=True):
            best = SupportScore(0.0, variant.label(0.0), -1, "")
            for source, (sentences, read) in enumerate(zip(per_claim, per_read, strict=True)):
                pair = (vectors[claim], np.array([vectors[s] for s in read])) if vectors and read else None
                values, index = pair_features(claim, read, self.idf, variant.selector, pair)
                if index < 0:
                    continue
                relevant, agrees = variant.relevance.probability(values), variant.agreement.probability(values)
                p = relevant * agrees
                if best.evidence_index < 0 or p > best.score:
                    contradiction = relevant >= 0.5 and agrees < variant.contradiction_at
                    best = SupportScore(round(p, 4), variant.label(p), index, sentences[index], source, contradiction)
            out.append(best)
        return out


@lru_cache(maxsize=1)
def load_support_model(path: Path = MODEL_FILE) -> SupportModel:
    return SupportModel(json.loads(path.read_text(encoding="utf-8")))


def covered_by(sentence: str, passage: str) -> float:
    """The share of the sentence's terms, each weighed by its IDF, that the passage holds (0 to 1)."""
    wanted = list(dict.fromkeys(tokenize(sentence)))
    return _share(wanted, set(tokenize(passage)), load_support_model().idf)
