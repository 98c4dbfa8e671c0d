"""`rag eval`: labelled JSONL files and BEIR folders, metrics and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import REPO
from typer.testing import CliRunner

from rag.config import load_settings
from rag.errors import InputError
from rag.evaluation import load_beir
from rag.records import Method
from rag.services import Context, EvalRequest
from rag.services import evaluation as evaluation_service

runner = CliRunner()
DEV = REPO / "eval" / "dev_questions.jsonl"  # the labelled questions ship with the repository


def _beir(folder: Path, qrels: str = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n") -> Path:
    (folder / "qrels").mkdir(parents=True)
    docs = [
        {"_id": "d1", "title": "GPU clusters", "text": "Scheduling jobs on heterogeneous GPU clusters."},
        {"_id": "d2", "title": "Robots", "text": "Imitation learning for robot manipulation."},
        {"_id": "d3", "title": "Vitamins", "text": "Vitamin D deficiency and bone health in adults."},
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n")
    queries = [{"_id": "q1", "text": "heterogeneous GPU scheduling"}, {"_id": "q2", "text": "vitamin D bones"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries) + "\n")
    (folder / "qrels" / "test.tsv").write_text(qrels)
    return folder


def test_beir_folder_end_to_end(tmp_path: Path) -> None:
    folder = _beir(tmp_path / "tiny")
    request = EvalRequest(folder, [Method.LEXICAL, Method.HYBRID])
    run = evaluation_service.evaluate_retrieval(Context(load_settings()), request) if _has_model() else None
    if run is None:
        run = evaluation_service.evaluate_retrieval(Context(load_settings()), EvalRequest(folder, [Method.LEXICAL]))
    assert run.collection == "eval-tiny" and run.documents == 3
    for report in run.reports.values():
        assert report.metrics["ndcg@10"] == pytest.approx(1.0)
        assert report.questions[0].ranked[0] == "d1"


def test_eval_json_contract_and_reuse(tmp_path: Path) -> None:
    folder = _beir(tmp_path / "tiny")
    args = ["eval", str(folder), "--method", "lexical", "--json"]
    first = runner.invoke(_app(), args)
    assert first.exit_code == 0, first.stderr
    payload = json.loads(first.stdout)
    assert set(payload) == {"metrics", "questions"}
    assert set(payload["metrics"]) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
    question = payload["questions"][0]
    assert {"query_id", "question", "ranked", "metrics"} <= set(question)
    again = runner.invoke(_app(), args)
    assert json.loads(again.stdout) == payload
    both = runner.invoke(_app(), [*args, "--method", "lexical", "-m", "dense"])
    if _has_model():
        assert set(json.loads(both.stdout)["methods"]) == {"lexical", "dense"}
    else:
        assert both.exit_code == 1 and "need the embedding model" in both.stderr


def test_dev_questions_file_against_bundled_corpus() -> None:
    run = evaluation_service.evaluate_retrieval(Context(load_settings()), EvalRequest(DEV, [Method.LEXICAL]))
    assert run.documents == 39
    assert run.reports["lexical"].metrics["ndcg@10"] > 0.5


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / "queries.jsonl").unlink(), r"queries\.jsonl: missing"),
        (
            lambda f: (f / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\n{oops\n'),
            r"corpus\.jsonl:2: malformed",
        ),
        (lambda f: (f / "qrels" / "test.tsv").write_text("q1\tzzz\t1\n"), r"test\.tsv:1: corpus id 'zzz' is not in"),
        (lambda f: (f / "qrels" / "test.tsv").write_text("q1\td1\n"), r"test\.tsv:1: expected"),
        (lambda f: (f / "qrels" / "test.tsv").unlink(), r"test\.tsv: missing; splits here: none"),
    ],
)
def test_broken_beir_folders(tmp_path: Path, damage, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = _beir(tmp_path / "tiny")
    damage(folder)
    with pytest.raises(InputError, match=message):
        load_beir(folder, "test")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "no questions in the file"),
        ('{"question": "x"}\n', r"q\.jsonl:1: not a labelled question"),
        ('{"question": "x", "relevant": {"a": 1}}\nnot json\n', r"q\.jsonl:2: not a labelled question"),
        ('{"question": "x", "relevant": {"nope#1": 2}}\n', "question 1: 'nope#1' is not in collection 'papers'"),
    ],
)
def test_broken_question_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(content)
    result = runner.invoke(_app(), ["eval", str(path), "-m", "lexical"])
    assert result.exit_code == 1
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(error_lines) == 1 and "Traceback" not in result.stderr
    assert re.search(message, error_lines[0])


def test_unknown_method(tmp_path: Path) -> None:
    result = runner.invoke(_app(), ["eval", str(tmp_path), "-m", "magic"])
    assert result.exit_code == 1 and "unknown --method" in result.stderr


def _app():  # type: ignore[no-untyped-def]
    from rag.cli import app

    return app


def _has_model() -> bool:
    from conftest import MODEL_DIR

    return MODEL_DIR is not None
