"""Shared fixtures: an isolated data dir per test, the real model when it is available.

No test may reach the network: RAG_EMBED_MODEL_DIR is always set (to the real
model folder or to an empty one), so rag never tries to download a model.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.services.context import Context

REPO = Path(__file__).resolve().parent.parent
SHARED_MODEL = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2"
SEEDS = REPO / "seeds"
HETEROGENEOUS_QUESTION = "which works target heterogeneous GPUs?"


def _model_dir() -> Path | None:
    from rag.embed.onnx import model_files_dir

    configured = os.environ.get("RAG_EMBED_MODEL_DIR")
    for candidate in (Path(configured) if configured else None, SHARED_MODEL):
        if candidate is not None and model_files_dir(candidate) is not None:
            return candidate
    return None


MODEL_DIR = _model_dir()
needs_model = pytest.mark.skipif(
    MODEL_DIR is None,
    reason="all-MiniLM-L6-v2 files not found: set RAG_EMBED_MODEL_DIR (CI uses ../shared/models/all-MiniLM-L6-v2)",
)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("RAG_") or name == "OPENAI_API_KEY":
            monkeypatch.delenv(name)
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(MODEL_DIR or empty))
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    yield


@pytest.fixture
def no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point rag at a folder without model files: lexical-only retrieval."""
    folder = tmp_path / "no-model"
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the bundled corpus indexed once (with the model when present)."""
    from rag.config import load_settings
    from rag.services.read import papers

    folder = tmp_path_factory.mktemp("seeded") / "data"
    empty = tmp_path_factory.mktemp("empty-model")
    settings = load_settings(data_dir=folder, embed_model_dir=MODEL_DIR or empty)
    papers(Context(settings))
    return folder


@pytest.fixture
def seeded(seeded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the seeded data dir, set as RAG_DATA_DIR."""
    folder = tmp_path / "seeded-data"
    shutil.copytree(seeded_template, folder)
    monkeypatch.setenv("RAG_DATA_DIR", str(folder))
    return folder
