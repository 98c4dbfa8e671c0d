"""`rag eval-support`: the citation check measured on labelled claim/paper pairs, bad lines reported."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.cli import app
from rag.evaluation import roc_auc, wilson

runner = CliRunner()
ABSTRACT = (
    "Aspirin use was associated with a reduced risk of colorectal cancer in a cohort of 50,000 adults. "
    "The reduction was larger with longer use. Bleeding was the main adverse effect."
)
PAIRS = [
    {"claim": "Aspirin use reduces the risk of colorectal cancer.", "abstract": ABSTRACT, "label": "SUPPORT"},
    {"claim": "Aspirin use increases the risk of colorectal cancer.", "abstract": ABSTRACT, "label": "CONTRADICT"},
    {"claim": "Statins prevent migraine in children.", "abstract": ABSTRACT, "label": "NEI", "title": "Aspirin"},
    {"claim": "Statins prevent migraine.", "abstract": ABSTRACT, "label": "NEI", "kind": "hard_negative"},
]


def _write(path: Path, rows: list[dict[str, str]] | list[str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_json_gives_one_entry_per_pair_in_input_order(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval-support", str(_write(tmp_path / "p.jsonl", PAIRS)), "--json"])
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert [p["label"] for p in payload["pairs"]] == ["SUPPORT", "CONTRADICT", "NEI", "hard_negative"]
    assert all(set(p) >= {"label", "score", "supported"} and isinstance(p["supported"], bool) for p in payload["pairs"])
    first, _, unrelated, hard = payload["pairs"]
    assert first["supported"] is True and unrelated["supported"] is False and hard["supported"] is False
    assert first["score"] > unrelated["score"]
    metrics = payload["metrics"]
    assert {"precision", "recall", "f1", "precision_ci95", "contradict_given_top_label"} <= set(metrics)
    assert metrics["hard_negative_given_top_label"] == 0.0
    assert payload["confusion"]["SUPPORT"] == {"evidence_found": 1}


def test_terminal_table(tmp_path: Path) -> None:
    result = runner.invoke(app, ["eval-support", str(_write(tmp_path / "p.jsonl", PAIRS))])
    assert result.exit_code == 0, result.stderr
    assert "precision of the top label" in result.stdout and "95% interval" in result.stdout
    assert "hard negatives given the top label" in result.stdout


def test_bad_lines_are_skipped_with_file_and_line(tmp_path: Path) -> None:
    rows: list[dict[str, str] | str] = [
        PAIRS[0],
        {"claim": "x", "abstract": ABSTRACT},
        {"claim": "x", "abstract": ABSTRACT, "label": "MAYBE"},
        {"claim": "  ", "abstract": ABSTRACT, "label": "NEI"},
        {"claim": "x", "abstract": "", "label": "NEI"},
        "{not json",
        "[1, 2]",
        PAIRS[2],
    ]
    path = _write(tmp_path / "p.jsonl", rows)  # type: ignore[arg-type]
    result = runner.invoke(app, ["eval-support", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["pairs"]) == 2 and json.loads(result.stdout)["skipped_lines"] == 6
    for line, why in ((2, "'label'"), (3, "unknown label 'MAYBE'"), (4, "'claim' is missing or empty")):
        assert f"p.jsonl:{line}: skipped" in result.stderr and why in result.stderr
    assert "and 1 more bad lines skipped" in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no labelled pairs"),
        (b'{"claim": "x"}\n', "no labelled pairs (1 bad lines)"),
        (
            b'{"claim": "x", "abstract": "y", "label": "NEI"}\n{"claim": "caf\xe9"}\n',
            "p.jsonl:2: not UTF-8 (byte 0xe9)",
        ),
    ],
)
def test_unusable_files_are_one_clear_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(content)
    result = runner.invoke(app, ["eval-support", str(path)])
    assert result.exit_code == 1
    assert message in result.stderr and "Traceback" not in result.stderr
    missing = runner.invoke(app, ["eval-support", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 1 and "cannot read" in missing.stderr


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


def test_the_model_as_judge(tmp_path: Path, fake: FakeOpenAI) -> None:
    verdicts = ["SUPPORTED", "CONTRADICTED", "NOT ENOUGH INFO", "SUPPORTED"]
    fake.play(*(Reply(text=json.dumps({"verdict": v})) for v in verdicts))
    path = _write(tmp_path / "p.jsonl", PAIRS)
    args = ["eval-support", str(path), "--verify", "llm", "--json", "--model", "judge", "--base-url", fake.url]
    payload = json.loads(runner.invoke(app, args).stdout)
    assert [p["check"] for p in payload["pairs"]] == ["supported", "contradicted", "unsupported", "supported"]
    assert payload["metrics"]["hard_negative_given_top_label"] == 1.0
    assert payload["checker"] == "llm judge (judge)" and payload["usage"]["calls"] == 4
    assert all("response_format" in r for r in fake.requests)


def test_interval_and_auc_helpers() -> None:
    assert wilson(0, 10)[0] == 0.0 and 0.0 < wilson(0, 10)[1] < 0.35
    assert wilson(5, 10)[0] < 0.5 < wilson(5, 10)[1]
    assert roc_auc([0.9, 0.8], [0.1, 0.2]) == 1.0 and roc_auc([0.5], [0.5]) == 0.5 and roc_auc([], [1.0]) is None


def test_a_tiny_judge_says_so_with_its_measured_figures(tmp_path: Path, fake: FakeOpenAI) -> None:
    fake.default = Reply(text=json.dumps({"verdict": "SUPPORTED"}))
    path = _write(tmp_path / "p.jsonl", PAIRS)
    judge = ["--verify", "llm", "--json", "--model", "SmolLM2-135M-Instruct", "--base-url", fake.url]
    first = runner.invoke(app, ["eval-support", str(path), *judge])
    assert first.stderr.count("is a small model (135M parameters)") == 1
    assert "measured with it: supported claims passed 25%" in first.stderr
    # What eval-support measured is what the next --verify llm with this model quotes.
    second = runner.invoke(app, ["eval-support", str(path), *judge])
    assert "measured here by rag eval-support: supported claims passed 100%" in second.stderr
    big = runner.invoke(
        app, ["eval-support", str(path), "--verify", "llm", "--model", "qwen2.5-7b", "--base-url", fake.url]
    )
    assert "small model" not in big.stderr
