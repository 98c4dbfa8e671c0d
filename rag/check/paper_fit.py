"""Does the cited paper fit the sentence that cites it, judged against the rest of the library?

A manuscript cites to name a method, a dataset or a tool, to point to background or to credit earlier work:
most such citations cannot be proved from an abstract, and are fine. What an author needs caught is the wrong
paper (a swapped or mistyped key, a citation attached to the wrong claim). The signal is relative: the right
paper is close to the sentence *compared with the other papers of the library*, it is close to the sentence's
neighbours and to the other places the manuscript cites it, and to the papers cited beside it.

A logistic regression over those features, fitted on real theses whose citations are taken as fine and the same
citations with the key replaced by another key of the same bibliography (``benchmarks/check_real.py --save``;
weights, thresholds and the leave-one-thesis-out figures in ``fit_model.json``). One variant uses sentence
and paper vectors, one words only (a library without an embedding model).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.check.support_model import Idf, LogisticModel, load_support_model
from rag.corpus.identity import surname
from rag.records import Paper
from rag.text import tokenize

MODEL_FILE = Path(__file__).with_name("fit_model.json")
Matrix = npt.NDArray[np.float32]
LEXICAL = (
    "lexical_rank",  # where the paper ranks among the library's by BM25 for the sentence (log scale, 0 = first)
    "lexical_share",  # its BM25 score as a share of the best paper's
    "idf_coverage",  # share of the sentence's terms (IDF-weighted) the paper's text has
    "title_coverage",  # share of the title's terms the sentence uses (it names the work)
    "support",  # the support check's score of the pair (0 for a paper known by its title only)
    "title_only",
    "names_author",  # the sentence names one of the paper's authors ("as Floyd et al. show")
    "names_other_author",  # ...or an author of another paper of the library, none of this one's
    "names_year",  # the sentence says the paper's year ("the 2016 work of")
    "names_other_year",  # ...or another year, not the paper's
    "content_terms",  # how much the sentence says (log of its terms): "see." says nothing to judge by
)


EMBEDDING = (
    "similarity",  # cosine of sentence and paper
    "similarity_rank",  # where the paper ranks among the library's by that cosine (log scale)
    "similarity_margin",  # the best paper's cosine minus this one's
    "context_similarity",  # cosine with the sentence and its neighbours
    "context_rank",
    # How far the sentence stands out among the manuscript's citing sentences for this paper (z-score down the
    # paper's column): a paper near every sentence of a thesis on its field is near a swapped one too, but the
    # sentences written about it stand out. Leave-one-thesis-out on six real theses (4,552 citations real and
    # swapped), swaps below where 3% of each thesis's real citations are: 71.7% -> 75.4% (AUC 0.945 -> 0.949).
    "similarity_column_z",
    "context_column_z",
    # With nothing to compare (a key cited once, a sentence citing one paper) these take NEUTRAL_SIMILARITY:
    # how often a key is cited says nothing of whether it is the right one.
    "same_key",  # the closest other sentence of the manuscript citing the same key
    "siblings",  # mean cosine with the other papers cited in the same sentence
    "nearby",  # closest of the papers cited in the sentences around it (the paragraph's topic)
    *LEXICAL,
)
# The features a manuscript too short to tell a spread by lacks (ABSENT): its citations are weighed by a model
# fitted without them (FitModel.short), as one with them leans on them.
SPREAD = ("similarity_column_z", "context_column_z")
EMBEDDING_WITHOUT_SPREAD = tuple(name for name in EMBEDDING if name not in SPREAD)


# Features that are absent for a pair (no other sentence cites the key, no other paper is cited beside it)
# get this neutral value.
NEUTRAL_SIMILARITY = 0.3
# Words of a citing sentence that say nothing of what is cited ("see", "work", "et al.").
_FRAME_WORDS = "see also e.g. i.e. cf. et al work works paper study studies as shown described review"
# Sentences on each side whose mean vector is the sentence's context, and whose cited papers are its
# neighbours' papers.
CONTEXT_SENTENCES = 2
# Citing sentences a manuscript needs before a paper's scores over them have a spread worth comparing with (the
# shortest thesis the fit learned from has 85 citations): a paragraph checked as it is typed has not.
MIN_SENTENCES_FOR_SPREAD = 30
# A feature that cannot be read for a pair (not 0, which for a z-score is what a swapped key scores).
ABSENT = math.nan


@dataclass
class ManuscriptScores:
    """A manuscript's citing sentences against every paper of the library, computed once.

    ``lexical[i, j]``: BM25 of sentence ``i`` for paper ``j``; ``sentence_vectors`` / ``paper_vectors``: unit
    rows (None for a library without vectors); ``papers`` gives each paper's text and title."""

    lexical: Matrix
    titles: Sequence[str]
    texts: Sequence[str]
    title_only: Sequence[bool]
    sentence_vectors: Matrix | None = None
    paper_vectors: Matrix | None = None
    surnames: Sequence[frozenset[str]] = ()  # each paper's authors' surnames, folded to lower case
    years: Sequence[int | None] = ()

    @cached_property
    def all_surnames(self) -> frozenset[str]:
        return frozenset().union(*self.surnames) if self.surnames else frozenset()

    @property
    def has_vectors(self) -> bool:
        return self.sentence_vectors is not None and self.paper_vectors is not None

    @cached_property
    def similarity(self) -> Matrix:
        """Cosine of each sentence with each paper."""
        assert self.sentence_vectors is not None and self.paper_vectors is not None
        return self.sentence_vectors @ self.paper_vectors.T

    @cached_property
    def context(self) -> Matrix:
        """Cosine of each sentence's context (it and CONTEXT_SENTENCES citing sentences on each side, averaged)
        with each paper."""
        assert self.sentence_vectors is not None and self.paper_vectors is not None
        rows = self.sentence_vectors
        summed = np.zeros_like(rows)
        for shift in range(-CONTEXT_SENTENCES, CONTEXT_SENTENCES + 1):
            lo, hi = max(shift, 0), len(rows) + min(shift, 0)
            summed[lo - shift : hi - shift] += rows[lo:hi]
        norms = np.linalg.norm(summed, axis=1, keepdims=True)
        return ((summed / np.where(norms == 0, 1, norms)) @ self.paper_vectors.T).astype(np.float32)

    @cached_property
    def similarity_standing_out(self) -> Matrix:
        return _standing_out(self.similarity)

    @cached_property
    def context_standing_out(self) -> Matrix:
        return _standing_out(self.context)


def _standing_out(matrix: Matrix) -> Matrix:
    """How many spreads each score lies above its paper's mean over the manuscript's citing sentences, worked out
    once for every pair; ABSENT with too few sentences to tell a spread by (a paragraph checked as it is typed)
    and for a paper whose scores do not spread."""
    if len(matrix) < MIN_SENTENCES_FOR_SPREAD:
        return np.full_like(matrix, ABSENT)
    spread = matrix.std(axis=0)
    flat = spread < 1e-6
    standing = (matrix - matrix.mean(axis=0)) / np.where(flat, 1.0, spread)
    return np.where(flat, ABSENT, standing).astype(np.float32)


def _rank(row: npt.NDArray[Any], j: int) -> float:
    """Papers scoring above paper ``j``, on a log scale relative to the library's size (0 = first)."""
    return math.log1p(float((row > row[j]).sum())) / math.log1p(len(row))


_CAPITALISED = re.compile(r"\b[^\W\d_][\w'’-]+")
_POSSESSIVE = re.compile(r"['’]s?$")  # "Bell's theorem", "Jones' model" name Bell and Jones
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def _named(scores: ManuscriptScores, pair: Pair) -> dict[str, float]:
    """What the sentence itself says of the work it cites: its authors' names, its year."""
    words = {fold_name(_POSSESSIVE.sub("", w)) for w in _CAPITALISED.findall(pair.text) if w[0].isupper()}
    own = scores.surnames[pair.paper] if scores.surnames else frozenset()
    years = {int(y) for y in _YEAR.findall(pair.text)}
    year = scores.years[pair.paper] if scores.years else None
    return {
        "names_author": float(bool(words & own)),
        "names_other_author": float(bool(words & (scores.all_surnames - own)) and not words & own),
        "names_year": float(year in years),
        "names_other_year": float(bool(years) and year not in years),
        "content_terms": math.log1p(len(set(tokenize(pair.text)) - _frame_terms())),
    }


@lru_cache(maxsize=1)
def _frame_terms() -> frozenset[str]:
    return frozenset(tokenize(_FRAME_WORDS))


def fold_name(name: str) -> str:
    """A surname as compared: lower case, without accents."""
    decomposed = unicodedata.normalize("NFKD", name.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def surnames_of(authors: Sequence[str]) -> frozenset[str]:
    """The last word of each author's surname ("van der Berg" is named "Berg" in a sentence)."""
    return frozenset(fold_name(surname(a).split()[-1]) for a in authors if surname(a).strip())


@lru_cache(maxsize=16_384)
def _terms(text: str) -> frozenset[str]:
    """A paper's terms, tokenized once however many sentences cite it."""
    return frozenset(tokenize(text))


def _coverage(wanted: Sequence[str], have: frozenset[str], idf: Idf) -> float:
    weights = [idf(t) for t in wanted]
    return sum(w for t, w in zip(wanted, weights, strict=True) if t in have) / sum(weights) if wanted else 0.0


@dataclass(frozen=True)
class Pair:
    """One citation: sentence ``sentence`` citing paper ``paper`` (indexes into ManuscriptScores), with the
    other papers its sentence cites and the other sentences citing the same paper."""

    sentence: int
    paper: int
    text: str
    support: float
    siblings: Sequence[int] = ()
    same_key: Sequence[int] = ()
    nearby: Sequence[int] = ()  # papers cited by the sentences around it (not this one)


def features(scores: ManuscriptScores, pair: Pair) -> dict[str, float]:
    """The pair's features, by name (EMBEDDING's names with vectors, LEXICAL's without)."""
    idf = load_support_model().idf
    terms = list(dict.fromkeys(tokenize(pair.text)))
    lexical = scores.lexical[pair.sentence]
    best = float(lexical.max(initial=0.0))
    title_terms = _terms(scores.titles[pair.paper])
    values = {
        "lexical_rank": _rank(lexical, pair.paper),
        "lexical_share": float(lexical[pair.paper]) / best if best > 0 else 0.0,
        "idf_coverage": _coverage(terms, _terms(scores.texts[pair.paper]), idf),
        "title_coverage": len(title_terms & set(terms)) / len(title_terms) if title_terms else 0.0,
        "support": pair.support,
        "title_only": float(scores.title_only[pair.paper]),
        **_named(scores, pair),
    }
    if not scores.has_vectors:
        return values
    similarity, context = scores.similarity[pair.sentence], scores.context[pair.sentence]
    assert scores.sentence_vectors is not None and scores.paper_vectors is not None
    others = [s for s in pair.same_key if s != pair.sentence]
    same = scores.sentence_vectors[others] @ scores.sentence_vectors[pair.sentence] if others else None
    beside = scores.paper_vectors[list(pair.siblings)] @ scores.paper_vectors[pair.paper] if pair.siblings else None
    around = [j for j in pair.nearby if j != pair.paper]
    near = scores.paper_vectors[around] @ scores.paper_vectors[pair.paper] if around else None
    return values | {
        "similarity": float(similarity[pair.paper]),
        "similarity_rank": _rank(similarity, pair.paper),
        "similarity_margin": float(similarity.max() - similarity[pair.paper]),
        "context_similarity": float(context[pair.paper]),
        "context_rank": _rank(context, pair.paper),
        "same_key": float(same.max()) if same is not None else NEUTRAL_SIMILARITY,
        "siblings": float(beside.mean()) if beside is not None else NEUTRAL_SIMILARITY,
        "nearby": float(near.max()) if near is not None else NEUTRAL_SIMILARITY,
        "similarity_column_z": float(scores.similarity_standing_out[pair.sentence, pair.paper]),
        "context_column_z": float(scores.context_standing_out[pair.sentence, pair.paper]),
    }


@dataclass(frozen=True)
class FitModel:
    """The fitted fit check: P(the cited paper is the one meant) and the threshold below which it is likely
    the wrong paper, per variant."""

    embedding: LogisticModel
    lexical: LogisticModel
    embedding_wrong_below: float
    lexical_wrong_below: float
    # With vectors, for a manuscript too short to tell a spread by (EMBEDDING_WITHOUT_SPREAD).
    short: LogisticModel
    short_wrong_below: float
    # Another paper is "clearly meant" (and the cited one called the wrong paper) when the judge reads its
    # abstract as stating the sentence at least this surely, or it fits the sentence at least this well.
    clearly_stated: float = 0.0
    clearly_fits: float = 0.0
    # The judge's P(the abstract says otherwise) from which a manuscript's citation is called contradicted
    # (above 1: never, before it is calibrated).
    contradicted_at: float = 2.0
    # A paper fitting its sentence below this is the wrong one even where no other paper is clearly meant: the
    # sentence says enough to judge by, and nearly every paper of the library fits it better (the right one
    # may be known by its title alone, or not in the library). 0: never, before it is calibrated.
    unrelated_below: float = 0.0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FitModel:
        return cls(
            LogisticModel.from_json(data["models"]["embedding"]),
            LogisticModel.from_json(data["models"]["lexical"]),
            float(data["thresholds"]["embedding"]),
            float(data["thresholds"]["lexical"]),
            LogisticModel.from_json(data["models"]["short"]),
            float(data["thresholds"]["short"]),
            float(data.get("clearly", {}).get("stated", 0.0)),
            float(data.get("clearly", {}).get("fits", 0.0)),
            float(data.get("contradicted_at", 2.0)),
            float(data.get("unrelated_below", 0.0)),
        )

    def _variant(self, values: dict[str, float]) -> tuple[LogisticModel, float]:
        """The model that weighs ``values`` (as its features were read) and its wrong-paper threshold."""
        if "similarity" not in values:
            return self.lexical, self.lexical_wrong_below
        if any(math.isnan(values[name]) for name in SPREAD):
            return self.short, self.short_wrong_below
        return self.embedding, self.embedding_wrong_below

    def probability(self, values: dict[str, float]) -> float:
        return self._variant(values)[0].probability(values)

    def clearly_meant(self, stated: float, fits: float) -> bool:
        """Another paper is clearly the one the sentence means: the cited one is then the wrong paper."""
        return stated >= self.clearly_stated or fits >= self.clearly_fits

    def unrelated(self, fit: float) -> bool:
        """The cited paper fits its sentence so poorly that it is the wrong one, with no other paper meant."""
        return fit < self.unrelated_below

    def wrong_below(self, values: dict[str, float]) -> float:
        return self._variant(values)[1]


@lru_cache(maxsize=1)
def load_fit_model(path: Path = MODEL_FILE) -> FitModel | None:
    """The fitted model, or None before one is fitted (the check then never calls a paper the wrong one)."""
    if not path.is_file():
        return None
    return FitModel.from_json(json.loads(path.read_text(encoding="utf-8")))


# Kinds of work a sentence cites for a whole field rather than for one finding: a textbook's description states
# nothing a sentence draws from it.
GENERIC_KINDS = frozenset({"book"})


def textbook(paper: Paper) -> bool:
    """A work cited for its whole field (GENERIC_KINDS), whose description states nothing a sentence draws from it."""
    return (paper.item_type or "") in GENERIC_KINDS
