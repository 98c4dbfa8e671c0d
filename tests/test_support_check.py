"""The offline support check (rag.check.support_model) with the shipped weights, no real model needed."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from rag.check import Support, load_support_model
from rag.records import ProgressFn
from rag.text import tokenize


class HashedBagOfWords:
    """A stand-in embedder: hashed stemmed terms, so texts sharing terms land closer together."""

    name = "hashed-bow"

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> np.ndarray:
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in tokenize(text):
                out[i, int(hashlib.md5(term.encode()).hexdigest(), 16) % 256] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


ABSTRACT = (
    "Colorectal cancer is a leading cause of death. "
    "We followed 2000 adults for ten years in a prospective cohort. "
    "Regular aspirin use decreased the risk of colorectal cancer compared with non-users. "
    "These findings support trials of aspirin for prevention."
)
EMBEDDERS = [pytest.param(None, id="lexical"), pytest.param(HashedBagOfWords(), id="embedding")]


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_reversed_direction_scores_lower_than_the_faithful_claim(embedder: HashedBagOfWords | None) -> None:
    faithful, reversed_, negated = load_support_model().score(
        [
            "Regular aspirin use decreases the risk of colorectal cancer.",
            "Regular aspirin use increases the risk of colorectal cancer.",
            "Regular aspirin use does not decrease the risk of colorectal cancer.",
        ],
        [ABSTRACT] * 3,
        embedder,
    )
    assert faithful.score > reversed_.score
    assert faithful.score > negated.score
    assert not faithful.contradiction


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_a_claim_on_another_topic_scores_low(embedder: HashedBagOfWords | None) -> None:
    on_topic, off_topic = load_support_model().score(
        ["Regular aspirin use decreases the risk of colorectal cancer.", "Graphene transistors switch at terahertz."],
        [ABSTRACT, ABSTRACT],
        embedder,
    )
    assert off_topic.score < 0.2 < on_topic.score
    assert off_topic.label is Support.UNSUPPORTED
    assert on_topic.label is not Support.UNSUPPORTED


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_the_best_evidence_sentence_is_the_matching_one(embedder: HashedBagOfWords | None) -> None:
    (result,) = load_support_model().score(["Aspirin lowers colorectal cancer risk."], [ABSTRACT], embedder)
    assert result.evidence_index == 2
    assert result.evidence_text.startswith("Regular aspirin use decreased")


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_the_best_of_several_cited_texts_wins(embedder: HashedBagOfWords | None) -> None:
    other = "Graphene transistors were fabricated on silicon. They switched at terahertz frequencies."
    (result,) = load_support_model().score(
        ["Regular aspirin use decreases the risk of colorectal cancer."], [[other, ABSTRACT]], embedder
    )
    assert result.source_index == 1
    assert result.evidence_index == 2


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_empty_evidence_is_unsupported(embedder: HashedBagOfWords | None) -> None:
    model = load_support_model()
    for evidence in ("", []):
        (result,) = model.score(["Aspirin lowers colorectal cancer risk."], [evidence], embedder)
        assert (result.score, result.evidence_index, result.evidence_text) == (0.0, -1, "")
        assert result.label is Support.UNSUPPORTED
    assert model.score([], [], embedder) == []


def test_a_claim_citing_two_papers_finds_its_evidence_in_the_right_one() -> None:
    """Read together, a snippet cut with '…' must not run into the next paper's first sentence."""
    from rag.check import score_against_group
    from rag.records import Paper

    cut = Paper(id="a", text="Holmes trains across clusters with heterogeneous NICs. Training is expensive and slow…")
    other = Paper(id="b", text="HexiSeq extends context parallelism to heterogeneous GPU meshes. It is fast.")
    claim = "HexiSeq extends context parallelism to heterogeneous GPU meshes, and Holmes trains across clusters."
    score, owner = score_against_group(claim, [cut, other])
    assert (owner, score.position) == (1, 0)
    assert score.sentence == "HexiSeq extends context parallelism to heterogeneous GPU meshes."
