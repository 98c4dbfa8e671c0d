"""Index integrity across processes: a killed ingest, a concurrent command, a re-run."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import needs_model

from rag.index.catalog import CATALOG_FILE

RAG = [sys.executable, "-m", "rag"]
DOCUMENTS = 1000
WORDS = [f"w{i}" for i in range(300)] + ["gpu", "cluster", "training", "heterogeneous", "network", "memory", "expert"]
KILL_AFTER_SECONDS = 1.0
START_TIMEOUT = 120.0


def _big_seed_list(path: Path) -> None:
    rng = random.Random(7)
    snippets = [" ".join(rng.choice(WORDS) for _ in range(40)) + f" document {i}." for i in range(DOCUMENTS)]
    path.write_text("Related papers: a large synthetic list\n\n" + "\n\n".join(snippets) + "\n", encoding="utf-8")


def _rag(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RAG, *args], capture_output=True, text=True, env=env, timeout=300)


@needs_model
def test_killed_ingest_recovers_and_a_concurrent_command_is_refused(tmp_path: Path) -> None:
    seed = tmp_path / "big.txt"
    _big_seed_list(seed)
    env = {**os.environ, "RAG_COLLECTION": "big", "RAG_LOCK_TIMEOUT": "0.5"}
    catalog = Path(env["RAG_DATA_DIR"]) / "big" / CATALOG_FILE
    ingest = subprocess.Popen([*RAG, "ingest", str(seed)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + START_TIMEOUT
    while not catalog.exists():
        assert ingest.poll() is None, "ingest ended before saving the papers"
        assert time.monotonic() < deadline
        time.sleep(0.05)

    busy = _rag("papers", env=env)
    assert busy.returncode == 1 and "another rag process is using" in busy.stderr

    time.sleep(KILL_AFTER_SECONDS)
    still_running = ingest.poll() is None
    ingest.send_signal(signal.SIGKILL)
    ingest.wait()

    search = _rag("search", "heterogeneous gpu cluster", "--json", env=env)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"]
    if still_running:
        assert "added vectors for" in search.stderr, "the next command completes the interrupted indexing"
    again = _rag("ingest", str(seed), env=env)
    assert again.returncode == 0
    assert f"{DOCUMENTS} papers: 0 added, 0 updated, {DOCUMENTS} unchanged" in again.stdout


def test_a_kill_before_anything_is_saved_leaves_nothing_behind(tmp_path: Path) -> None:
    seed = tmp_path / "small.txt"
    seed.write_text("Related papers: X\n\nOne abstract about GPUs.\n")
    env = {**os.environ, "RAG_COLLECTION": "small"}
    started = subprocess.Popen([*RAG, "ingest", str(seed)], env=env)
    started.send_signal(signal.SIGKILL)
    started.wait()
    done = _rag("ingest", str(seed), env=env)
    assert done.returncode == 0 and "library now has 1 papers" in done.stdout


@pytest.mark.parametrize("damage", ["sqlite", "catalog-format"])
def test_damaged_data_dir_says_how_to_rebuild(seeded: Path, damage: str) -> None:
    env = dict(os.environ)
    if damage == "sqlite":
        (seeded / "chroma" / "chroma.sqlite3").write_bytes(b"garbage" * 100)
        broken = _rag("search", "gpu", env=env)
        if broken.returncode == 0:
            pytest.skip("no model: the embedded vector index is not opened")
        assert broken.returncode == 1 and "rag reindex" in broken.stderr
        rebuilt = _rag("reindex", env=env)
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert _rag("search", "gpu", env=env).returncode == 0
    else:
        (seeded / "papers" / CATALOG_FILE).write_text(json.dumps({"format": 99, "papers": []}))
        (seeded / "papers" / (CATALOG_FILE + ".bak")).unlink(missing_ok=True)
        broken = _rag("papers", env=env)
        assert broken.returncode == 1 and "is corrupt" in broken.stderr and "rag ingest" in broken.stderr
