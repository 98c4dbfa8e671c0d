"""Builds of the local model (RAG_EMBED_VARIANT): each library records the build of its vectors, a mix is
refused with the fix, queries use the library's build, and the int8 build is made once from the user's files."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest
from conftest import MODEL_DIR, SEEDS, needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.config import EmbedVariant, load_settings
from rag.embed import (
    MODEL_FILES,
    NEW_LIBRARY_VARIANT,
    OnnxMiniLM,
    build_name,
    int8_cache_dir,
    int8_model,
    model_files_dir,
)
from rag.errors import EmbeddingMismatchError, InputError
from rag.index import VectorStore, connect
from rag.services import Context, SearchRequest
from rag.services import ingest as ingest_service
from rag.services import read as read_service

runner = CliRunner()
FP32 = build_name(EmbedVariant.FP32)
INT8 = build_name(EmbedVariant.INT8)
# The build a new library does not get.
OTHER = EmbedVariant.INT8 if NEW_LIBRARY_VARIANT is EmbedVariant.FP32 else EmbedVariant.FP32
FIRST_LIST = SEEDS / "000_e22c73655386b99b.txt"
SECOND_LIST = SEEDS / "002_1079d4b498cf8dd9.txt"
QUERY = "tensor parallel strategies"
# The int8 build's vectors are close to fp32's, not equal (benchmarks/embedding_variants.py: mean cosine ~0.9).
NEAR_COSINE = 0.8


@pytest.fixture
def own_model_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """rag's cache folder (where the int8 build is made) inside the test's own folder, empty."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return int8_cache_dir()


def built_with(data_dir: Path, collection: str) -> str | None:
    return VectorStore(connect(data_dir, None), collection, "?", check_model=False).built_with()


def model_files() -> Path:
    files = model_files_dir(MODEL_DIR) if MODEL_DIR else None
    assert files is not None
    return files


def test_the_setting_validates(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().embed_variant is EmbedVariant.AUTO
    assert load_settings(embed_variant=" INT8 ").embed_variant is EmbedVariant.INT8
    with pytest.raises(InputError, match=r"embed_variant.*'auto', 'fp32' or 'int8'"):
        load_settings(embed_variant="fp16")
    monkeypatch.setenv("RAG_EMBED_VARIANT", "int4")
    result = runner.invoke(app, ["search", "gpu"])
    assert result.exit_code == 1
    assert "RAG_EMBED_VARIANT=int4 in the environment: Input should be 'auto', 'fp32' or 'int8'" in result.stderr


@needs_model
def test_int8_build_is_made_once_and_reused(own_model_cache: Path) -> None:
    source = model_files() / "model.onnx"
    made = int8_model(source)
    assert made.is_file() and own_model_cache in made.parents
    first = made.stat()
    again = int8_model(source)
    assert again == made and again.stat().st_mtime_ns == first.st_mtime_ns and again.stat().st_ino == first.st_ino
    assert [p.name for p in made.parent.iterdir()] == ["model.onnx"], "no temporary file is left behind"
    texts = ["GPU kernels for sparse attention", "protein folding with deep networks"]
    int8 = OnnxMiniLM(model_files(), model_file=lambda: int8_model(source), name=INT8).embed(texts)
    fp32 = OnnxMiniLM(model_files()).embed(texts)
    cosines = (int8 * fp32).sum(axis=1)
    assert cosines.min() > NEAR_COSINE and not np.allclose(int8, fp32, atol=1e-4)
    assert made.stat().st_mtime_ns == first.st_mtime_ns, "loading the build did not make it again"


@needs_model
def test_a_read_only_model_folder_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rag only reads the model folder (a shared or system one): the int8 build goes to rag's own cache.
    (Tests may run as root, which ignores the mode bits: the listing is what proves nothing was written.)"""
    folder = tmp_path / "read-only-model"
    folder.mkdir()
    for name in MODEL_FILES:
        shutil.copy(model_files() / name, folder / name)
    before = sorted(os.listdir(folder))
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(folder))
        settings = load_settings(collection="mine", embed_variant="int8")
        assert ingest_service.ingest(Context(settings), [FIRST_LIST]).added > 0
        assert read_service.search(Context(settings), SearchRequest(QUERY, 3)).hits
    finally:
        folder.chmod(stat.S_IRWXU)
    assert sorted(os.listdir(folder)) == before
    assert built_with(settings.data_dir, "mine") == INT8


@needs_model
def test_a_library_records_the_build_of_its_vectors() -> None:
    for variant, collection in ((EmbedVariant.FP32, "mine-fp32"), (EmbedVariant.INT8, "mine-int8")):
        settings = load_settings(collection=collection, embed_variant=variant.value)
        ingest_service.ingest(Context(settings), [FIRST_LIST])
        assert built_with(settings.data_dir, collection) == build_name(variant)
    listed = json.loads(runner.invoke(app, ["collections", "--json"]).stdout)["collections"]
    models = {row["name"]: row["model"] for row in listed}
    assert models["mine-fp32"] == FP32 and models["mine-int8"] == INT8
    new = load_settings(collection="mine-new")
    ingest_service.ingest(Context(new), [FIRST_LIST])
    assert built_with(new.data_dir, "mine-new") == build_name(NEW_LIBRARY_VARIANT), "auto: a new library's build"


@needs_model
def test_mixing_builds_is_refused_with_the_fix() -> None:
    ingest_service.ingest(Context(load_settings(collection="mine", embed_variant="fp32")), [FIRST_LIST])
    int8 = load_settings(collection="mine", embed_variant="int8")
    refusal = rf"built with embedding model '{re.escape(FP32)}', not '{re.escape(INT8)}'.*rag reindex"
    with pytest.raises(EmbeddingMismatchError, match=refusal):
        ingest_service.ingest(Context(int8), [SECOND_LIST])
    with pytest.raises(EmbeddingMismatchError, match="rag reindex"):
        read_service.search(Context(int8), SearchRequest(QUERY, 3))
    result = runner.invoke(app, ["--collection", "mine", "search", QUERY], env={"RAG_EMBED_VARIANT": "int8"})
    assert result.exit_code == 1 and "rag reindex" in result.stderr and "Traceback" not in result.stderr
    assert built_with(int8.data_dir, "mine") == FP32, "nothing was written with the other build"
    ingest_service.reindex(Context(int8))
    assert built_with(int8.data_dir, "mine") == INT8
    assert read_service.search(Context(int8), SearchRequest(QUERY, 3)).hits


@needs_model
def test_a_query_is_embedded_by_the_librarys_build() -> None:
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(load_settings(collection="mine", embed_variant=OTHER.value)), [FIRST_LIST])
    source = model_files() / "model.onnx"
    builds = {FP32: OnnxMiniLM(model_files()), INT8: OnnxMiniLM(model_files(), model_file=lambda: int8_model(source))}
    alone = {name: embedder.embed([QUERY])[0] for name, embedder in builds.items()}
    assert not np.allclose(alone[FP32], alone[INT8], atol=1e-3), "the builds differ enough for this test to tell"
    with Context(settings).reader() as library:
        assert library.embedder is not None and library.embedder.name == build_name(OTHER)
        np.testing.assert_allclose(library.query_vector(QUERY), alone[build_name(OTHER)], atol=1e-5)
    assert read_service.search(Context(settings), SearchRequest(QUERY, 1)).hits[0].dense is not None


@needs_model
def test_a_library_of_the_other_build_keeps_its_vectors_until_reindexed() -> None:
    """A library whose vectors another build made (set RAG_EMBED_VARIANT once, or made before the default
    changed) goes on working as it is under auto: its new papers are embedded by that build too, never mixed;
    doctor says how to switch; `rag reindex` moves it to the default build."""
    ingest_service.ingest(Context(load_settings(collection="mine", embed_variant=OTHER.value)), [FIRST_LIST])
    upgraded = load_settings(collection="mine")
    notices: list[str] = []
    report = ingest_service.ingest(Context(upgraded, notify=notices.append), [SECOND_LIST])
    assert report.added > 0 and not notices
    assert built_with(upgraded.data_dir, "mine") == build_name(OTHER)
    with Context(upgraded).reader() as library:
        assert library.store is not None and library.embedder is not None
        assert library.embedder.name == build_name(OTHER) and library.missing_units() == 0
    assert read_service.search(Context(upgraded), SearchRequest(QUERY, 3)).hits
    doctor = runner.invoke(app, ["--collection", "mine", "doctor"])
    line = next(line for line in doctor.stdout.splitlines() if "variant:" in line)
    assert f"keeps its {OTHER.value} vectors" in line and "rag reindex" in line
    ingest_service.reindex(Context(upgraded))
    assert built_with(upgraded.data_dir, "mine") == build_name(NEW_LIBRARY_VARIANT)
    assert "variant:" not in runner.invoke(app, ["--collection", "mine", "doctor"]).stdout
