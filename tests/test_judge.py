"""The citation check's judge: the shipped cross-encoder reads a sentence against the stretches of its source
it is closest to; attribution is who says it, not what; off, the check reads as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.check import judge
from rag.check.scoring import score_against_sources
from rag.embed.cross_encoder import CrossEncoder
from rag.errors import ModelUnavailableError
from rag.records import Paper

ABSTRACT = (
    "Shift work is common among nurses. In a cohort of 2,100 hospital nurses followed for six years, night "
    "shifts were associated with a 30% higher incidence of type 2 diabetes. The association was stronger in "
    "nurses younger than 40. Sleep duration did not explain the difference."
)
PAPER = Paper(id="p1", text=ABSTRACT, title="Night shifts and diabetes in nurses", authors=["Lee, Ana"], year=2020)


@pytest.fixture(autouse=True)
def judge_on() -> None:
    judge.use_judge(True)


def test_attribution_is_who_says_it_not_what() -> None:
    assert judge.what_it_reports("Lee et al. (2020) report that night shifts raise diabetes risk.") == (
        "Night shifts raise diabetes risk."
    )
    assert judge.what_it_reports("According to Lee (2020), night shifts raise risk.") == "Night shifts raise risk."
    assert judge.what_it_reports("The authors found that sleep did not explain it.") == "Sleep did not explain it."
    assert judge.what_it_reports("Night shifts raise risk.") == "Night shifts raise risk."


def test_the_judge_reads_the_stretches_closest_to_the_sentence() -> None:
    passages = judge.passages_for("Younger nurses showed a stronger association.", ABSTRACT)
    assert judge.PASSAGES_READ <= len(passages) <= judge.PASSAGES_READ + 1
    assert any("younger than 40" in p for p in passages)


def test_the_shipped_judge_loads_and_reads_a_copy_as_stated() -> None:
    model = judge.load_judge()
    assert model is not None, "rag/check/judge/ ships with the package"
    copy = "Night shifts were associated with a 30% higher incidence of type 2 diabetes."
    unrelated = "Transformers pretrained on code generate unit tests."
    stated, other = judge.judge_texts([copy, unrelated], [ABSTRACT, ABSTRACT])
    assert stated.stated > other.stated and "night shifts" in stated.passage
    rows = model.probabilities([(ABSTRACT, copy)])
    assert rows.shape == (1, 3) and np.isclose(rows.sum(), 1.0, atol=1e-4)


def test_off_the_check_reads_with_the_fitted_score_and_rules_alone() -> None:
    judge.use_judge(False)
    assert judge.load_judge() is None
    (score,) = score_against_sources(["Night shifts raise diabetes risk in nurses."], [PAPER])[0]
    assert score.stated is None and score.score == score.fitted
    judge.use_judge(True)
    (score,) = score_against_sources(["Night shifts raise diabetes risk in nurses."], [PAPER])[0]
    assert score.stated is not None and 0.0 <= score.score <= 1.0


def test_a_broken_model_file_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "judge.onnx").write_bytes(b"not a model")
    broken = CrossEncoder(tmp_path / "judge.onnx", judge.JUDGE_DIR / "tokenizer.json", judge.MAX_TOKENS)
    with pytest.raises(ModelUnavailableError, match="cannot load the citation check's judge"):
        broken.probabilities([("a", "b")])


def test_a_sentence_longer_than_the_judges_budget_is_read_not_refused() -> None:
    """A table row or a run-on sentence read as one sentence: longer than the model's tokens by itself."""
    model = judge.load_judge()
    assert model is not None
    long_sentence = " ".join(["night shifts and type 2 diabetes in nurses"] * 60)
    rows = model.probabilities([(ABSTRACT, long_sentence), ("Short.", long_sentence)])
    assert rows.shape == (2, 3) and np.allclose(rows.sum(axis=1), 1.0, atol=1e-4)


def test_a_pair_reads_the_same_whatever_is_read_with_it() -> None:
    """The int8 judge quantises what it reads at once by its range: a pair read beside others, padded to their
    length, came out up to 0.2 apart from the same pair alone, so a verdict hung on its neighbours."""
    model_file, tokenizer_file, _ = judge.judge_files()
    sentences = [
        "Night shifts raise diabetes risk.",
        "Nurses younger than 40 showed a stronger association between night shifts and type 2 diabetes.",
        "Sleep duration explained the difference.",
        "Shift work is rare.",
        "Transformers pretrained on code generate unit tests for programs written in many languages.",
    ]
    pairs = [(passage, sentence) for sentence in sentences for passage in (ABSTRACT, ABSTRACT.split(". ")[1])]
    together = CrossEncoder(model_file, tokenizer_file, judge.MAX_TOKENS).probabilities(pairs)
    alone = np.stack([CrossEncoder(model_file, tokenizer_file, judge.MAX_TOKENS).probabilities([p])[0] for p in pairs])
    assert np.array_equal(together, alone)


def test_readings_kept_on_disk_answer_a_later_run_without_reading_again(tmp_path: Path) -> None:
    model_file, tokenizer_file, _ = judge.judge_files()
    pairs = [(ABSTRACT, "Night shifts raise diabetes risk."), (ABSTRACT, "Nurses slept less.")]
    first = CrossEncoder(model_file, tokenizer_file, judge.MAX_TOKENS)
    first.keep_on_disk(tmp_path / "judge_cache.sqlite")
    read = first.probabilities(pairs)

    later = CrossEncoder(model_file, tokenizer_file, judge.MAX_TOKENS)  # another process, the next run
    later.keep_on_disk(tmp_path / "judge_cache.sqlite")

    def refuse(_: object) -> np.ndarray:
        raise AssertionError("read again although kept on disk")

    later._run = refuse  # type: ignore[method-assign]
    assert np.allclose(later.probabilities(pairs), read)
    with pytest.raises(AssertionError, match="read again"):
        later.probabilities([(ABSTRACT, "A sentence never read.")])


def test_a_damaged_cache_file_is_read_around(tmp_path: Path) -> None:
    model_file, tokenizer_file, _ = judge.judge_files()
    cache = tmp_path / "judge_cache.sqlite"
    cache.write_bytes(b"not a database")
    model = CrossEncoder(model_file, tokenizer_file, judge.MAX_TOKENS)
    model.keep_on_disk(cache)
    assert model.probabilities([(ABSTRACT, "Nurses slept less.")]).shape == (1, 3)


def test_the_judge_keeps_what_each_passage_restating_the_sentence_says_otherwise() -> None:
    """Besides the passage where the sentence is stated best, every other passage restating it (half its content
    words or more) is kept with the judge's P(it says otherwise): rag check reads them all, and only those."""
    sentence = "Night shifts were associated with a lower incidence of type 2 diabetes in nurses."
    (read,) = judge.judge_texts([sentence], [ABSTRACT])
    passages = judge.passages_for(sentence, ABSTRACT)
    restating = [
        p for p in passages if p != read.passage and judge.aligned_share(sentence, p) >= judge.MIN_ALIGNED_SHARE
    ]
    assert [p for _, p in read.restated] == restating and restating
    assert all(0.0 <= p <= 1.0 for p, _ in read.restated)
    (unrelated,) = judge.judge_texts(["Transformers pretrained on code generate unit tests."], [ABSTRACT])
    assert unrelated.restated == ()
