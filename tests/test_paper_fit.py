"""The fit's features read from a manuscript's scores: what a sentence says of the paper it cites, against the
library's other papers and against the manuscript's other sentences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rag.check.paper_fit import (
    EMBEDDING,
    MIN_SENTENCES_FOR_SPREAD,
    SPREAD,
    ManuscriptScores,
    Pair,
    features,
    load_fit_model,
)


def unit(rows: list[list[float]]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def scores_of(sentences: np.ndarray, papers: np.ndarray) -> ManuscriptScores:
    count = len(papers)
    return ManuscriptScores(
        lexical=np.zeros((len(sentences), count), dtype=np.float32),
        titles=["A title"] * count,
        texts=["An abstract on the field."] * count,
        title_only=[False] * count,
        sentence_vectors=sentences,
        paper_vectors=papers,
    )


# Paper 0 sits in the thesis's field: every sentence is near it. Sentence 0 is written about it; the last is
# about another paper of the field and cites paper 0 by mistake.
PAPERS = unit([[1.0, 0.2, 0.0], [0.0, 1.0, 0.0]])
FIELD = [[1.0, 0.5 + 0.3 * (i % 4) / 3, 0.1 + 0.3 * (i % 3) / 2] for i in range(MIN_SENTENCES_FOR_SPREAD)]
SENTENCES = unit([[1.0, 0.2, 0.0], *FIELD, [1.0, 0.9, 0.3]])


def test_a_sentence_written_about_a_paper_stands_out_among_the_manuscripts_sentences_for_it() -> None:
    scores = scores_of(SENTENCES, PAPERS)
    meant = features(scores, Pair(0, 0, "Sentence about the paper.", 0.5))
    swapped = features(scores, Pair(len(SENTENCES) - 1, 0, "Sentence about another paper.", 0.5))
    assert meant["similarity_column_z"] > 1.0
    assert swapped["similarity_column_z"] < 0.0, "close to the paper, as every sentence of its field is"
    assert swapped["similarity"] > 0.8, "closeness alone does not tell it"
    assert meant["context_column_z"] > swapped["context_column_z"]


def test_too_few_sentences_to_tell_a_spread_by_are_weighed_without_it() -> None:
    few = SENTENCES[: MIN_SENTENCES_FOR_SPREAD - 1]
    values = features(scores_of(few, PAPERS), Pair(0, 0, "Sentence about the paper.", 0.5))
    assert all(math.isnan(values[name]) for name in SPREAD)
    model = load_fit_model()
    assert model is not None
    assert model.probability(values) == pytest.approx(model.short.probability(values))
    assert model.wrong_below(values) == model.short_wrong_below
    assert not set(SPREAD) & set(model.short.features)
    counted = values | dict.fromkeys(SPREAD, 0.0)
    assert model.probability(counted) == pytest.approx(model.embedding.probability(counted))


@pytest.mark.parametrize("name", SPREAD)
def test_the_shipped_fit_weighs_how_far_a_sentence_stands_out(name: str) -> None:
    model = load_fit_model()
    assert model is not None and name in EMBEDDING
    weight = dict(zip(model.embedding.features, model.embedding.coefficients, strict=True))[name]
    assert weight > 0, "standing out among the sentences citing a paper speaks for it"
