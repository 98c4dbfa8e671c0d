"""`rag doctor`: every check on one line, the fix beside it, keys masked, non-zero exit when broken."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import NEW_VECTORS, needs_model
from fake_openai import FakeOpenAI
from typer.testing import CliRunner

from rag.cli import app
from rag.redaction import mask

runner = CliRunner()
SECRET = "sk-proj-THIS-IS-A-SECRET-KEY-1234"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@needs_model
def test_healthy_setup_with_local_model(seeded: Path, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result = runner.invoke(app, ["doctor"], env={"RAG_LLM_MODEL": "test-model", "RAG_LLM_BASE_URL": fake.url})
    assert result.exit_code == 0, result.stdout
    assert f"papers (39 vectors, {NEW_VECTORS})" in result.stdout
    assert "vectors:" not in result.stdout, "every paper has its vector"
    assert "answers; model 'test-model'" in result.stdout
    assert "OPENAI_API_KEY is set but never sent to a custom base URL" in result.stdout
    assert fake.bearers == ["Bearer not-needed"]
    assert SECRET not in result.stdout


def test_broken_endpoint_fails_with_fix(seeded: Path) -> None:
    env = {"RAG_LLM_MODEL": "m", "RAG_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    result = runner.invoke(app, ["doctor", "--json"], env=env)
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["healthy"] is False
    failed = [c for c in payload["checks"] if c["status"] == "fail"]
    assert failed[0]["name"] == "llm" and failed[0]["fix"]


def test_model_without_key(seeded: Path) -> None:
    result = runner.invoke(app, ["doctor"], env={"RAG_LLM_MODEL": "gpt-4o-mini"})
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if "llm:" in line)
    assert "no key" in line and "->" in line


def test_openai_key_is_masked_everywhere(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    for args in (["doctor"], ["doctor", "--json"]):
        result = runner.invoke(app, args)
        assert SECRET not in result.stdout + result.stderr
        assert mask(SECRET) in result.stdout
    assert mask("short") == "****"


def test_missing_model_dir_is_a_warning_with_fix(seeded: Path, no_model: Path) -> None:
    result = runner.invoke(app, ["doctor"])
    line = next(line for line in result.stdout.splitlines() if "embeddings:" in line)
    assert "warn" in line and "RAG_EMBED_MODEL_DIR" in line
    assert result.exit_code == 0, "lexical-only search still works"


def test_doctor_never_writes_without_a_model_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No RAG_EMBED_MODEL_DIR and no cached model: doctor reports, but downloads and creates nothing."""
    monkeypatch.delenv("RAG_EMBED_MODEL_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # an empty Chroma cache
    data_dir = tmp_path / "never-created"
    result = runner.invoke(app, ["--data-dir", str(data_dir), "doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["data dir"]["detail"].endswith("(created on first use)")
    assert checks["embeddings"]["status"] == "warn"
    assert not data_dir.exists(), "doctor created the data dir (or a download marker in it)"


def test_a_data_dir_that_is_a_file_fails_with_the_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    result = runner.invoke(app, ["--data-dir", str(blocker), "doctor"])
    assert result.exit_code == 1
    line = next(line for line in result.stdout.splitlines() if "data dir:" in line)
    assert "fail" in line and "is a file" in line and "->" in line


@needs_model
def test_papers_without_vectors_are_reported(seeded: Path) -> None:
    from rag.config import load_settings
    from rag.index import VectorStore, connect

    store = VectorStore(connect(seeded, None), "papers", NEW_VECTORS)
    store.collection.delete(ids=store.collection.get(limit=10)["ids"])  # as if an ingest died before them
    del store
    result = runner.invoke(app, ["doctor"])
    line = next(line for line in result.stdout.splitlines() if "vectors:" in line)
    assert "warn" in line and "10 of 39" in line and "rag reindex" in line
    assert load_settings().data_dir == seeded


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size) for p in folder.rglob("*")}


@needs_model
def test_doctor_leaves_every_file_as_it_was(seeded: Path) -> None:
    """Opening Chroma rewrites its database and vector files: doctor reads them as files instead."""
    before = _snapshot(seeded)
    result = runner.invoke(app, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["chroma"]["status"] == "ok" and f"papers (39 vectors, {NEW_VECTORS})" in checks["chroma"]["detail"]
    assert _snapshot(seeded) == before


@needs_model  # without the model there is no Chroma database to damage
def test_a_damaged_chroma_database_is_a_finding_with_the_fix(seeded: Path) -> None:
    from rag.index import DataDir

    DataDir(seeded).chroma_db.write_bytes(b"not a database" * 100)
    result = runner.invoke(app, ["doctor"])
    line = next(line for line in result.stdout.splitlines() if "chroma:" in line)
    assert result.exit_code == 1 and "fail" in line and "rag reindex" in line
