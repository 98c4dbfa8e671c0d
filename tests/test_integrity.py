"""Index integrity across processes: a killed ingest, a concurrent command, a re-run."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from conftest import needs_model

from rag.index import CATALOG_FILE, CHROMA_SUBDIR, SYNC_CHUNK

RAG = [sys.executable, "-m", "rag"]
DOCUMENTS = 1000
WORDS = [f"w{i}" for i in range(300)] + ["gpu", "cluster", "training", "heterogeneous", "network", "memory", "expert"]
START_TIMEOUT = 120.0
POLL_SECONDS = 0.05


def _big_seed_list(path: Path) -> None:
    rng = random.Random(7)
    snippets = [" ".join(rng.choice(WORDS) for _ in range(40)) + f" document {i}." for i in range(DOCUMENTS)]
    path.write_text("Related papers: a large synthetic list\n\n" + "\n\n".join(snippets) + "\n", encoding="utf-8")


def _stored_vectors(data_dir: Path) -> int:
    """Records Chroma has written so far, read from its SQLite file without opening Chroma."""
    try:
        with sqlite3.connect(
            f"file:{data_dir / CHROMA_SUBDIR / 'chroma.sqlite3'}?mode=ro", uri=True, timeout=0.1
        ) as db:
            return int(db.execute("select count(*) from embeddings_queue").fetchone()[0])
    except sqlite3.Error:  # not created yet, or busy for a moment: nothing to count now
        return 0


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for(condition: object, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not condition():  # type: ignore[operator]
        assert process.poll() is None, f"ingest ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL_SECONDS)


def _rag(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RAG, *args], capture_output=True, text=True, env=env, timeout=300)


@needs_model
def test_killed_ingest_recovers_readers_go_on_and_a_second_writer_is_refused(tmp_path: Path) -> None:
    seed = tmp_path / "big.txt"
    _big_seed_list(seed)
    env = {**os.environ, "RAG_COLLECTION": "big", "RAG_LOCK_TIMEOUT": "0.5"}
    data_dir = Path(env["RAG_DATA_DIR"])
    catalog = data_dir / "big" / CATALOG_FILE
    ingest = subprocess.Popen([*RAG, "ingest", str(seed)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for(catalog.exists, ingest, "saving the papers")

    reader = _rag("papers", "--json", env=env)
    assert reader.returncode == 0, "readers never wait for a writer: they see the last complete state"
    assert len(json.loads(reader.stdout)["papers"]) == DOCUMENTS
    during = _rag("search", "heterogeneous gpu cluster", env=env)
    assert during.returncode == 0 and "another rag process is indexing this library" in during.stderr, during.stderr
    assert "interrupted" not in during.stderr, "nothing was interrupted: the ingest is running"
    other = tmp_path / "other.txt"
    other.write_text("Related papers: X\n\nOne abstract about GPUs.\n")
    busy = _rag("ingest", str(other), env=env)
    assert busy.returncode == 1 and "another rag process is using" in busy.stderr

    # Killed once the first chunk of vectors is stored and before the last: some stored, some not.
    _wait_for(lambda: _stored_vectors(data_dir) >= SYNC_CHUNK, ingest, "storing the first vectors")
    ingest.send_signal(signal.SIGKILL)
    ingest.wait()
    assert SYNC_CHUNK <= _stored_vectors(data_dir) < DOCUMENTS

    search = _rag("search", "heterogeneous gpu cluster", "--json", env=env)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["hits"]
    assert "have no vector yet" in search.stderr and "rag reindex" in search.stderr, "a read says, does not embed"
    again = _rag("ingest", str(seed), env=env)
    assert again.returncode == 0
    assert "added vectors for" in again.stderr, "the next ingest completes the interrupted indexing"
    assert f"{DOCUMENTS} papers: 0 added, 0 updated, {DOCUMENTS} unchanged" in again.stdout
    assert "no vector yet" not in _rag("search", "gpu", env=env).stderr


def test_a_kill_before_anything_is_saved_leaves_nothing_behind(tmp_path: Path) -> None:
    seed = tmp_path / "small.txt"
    seed.write_text("Related papers: X\n\nOne abstract about GPUs.\n")
    env = {**os.environ, "RAG_COLLECTION": "small"}
    started = subprocess.Popen([*RAG, "ingest", str(seed)], env=env)
    started.send_signal(signal.SIGKILL)
    started.wait()
    done = _rag("ingest", str(seed), env=env)
    assert done.returncode == 0 and "library now has 1 paper\n" in done.stdout


@needs_model  # without the model the vector index is never opened, so its damage cannot show
def test_damaged_vector_index_says_how_to_rebuild(seeded: Path) -> None:
    env = dict(os.environ)
    (seeded / CHROMA_SUBDIR / "chroma.sqlite3").write_bytes(b"garbage" * 100)
    broken = _rag("search", "gpu", env=env)
    assert broken.returncode == 1 and "rag reindex" in broken.stderr
    rebuilt = _rag("reindex", env=env)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _rag("search", "gpu", env=env).returncode == 0


def test_damaged_papers_file_says_how_to_rebuild(seeded: Path) -> None:
    (seeded / "papers" / CATALOG_FILE).write_text(json.dumps({"format": 99, "papers": []}))
    (seeded / "papers" / (CATALOG_FILE + ".bak")).unlink(missing_ok=True)
    broken = _rag("papers", env=dict(os.environ))
    assert broken.returncode == 1 and "is corrupt" in broken.stderr and "rag ingest" in broken.stderr


@needs_model
def test_ctrl_c_during_an_ingest_says_what_was_kept(tmp_path: Path) -> None:
    seed = tmp_path / "big.txt"
    _big_seed_list(seed)
    env = {**os.environ, "RAG_COLLECTION": "big"}
    data_dir = Path(env["RAG_DATA_DIR"])
    ingest = subprocess.Popen(
        [*RAG, "ingest", str(seed)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A runner started in the background (`cmd &` in a script) ignores SIGINT, and so would the child: Python
        # then sets no KeyboardInterrupt, and the ingest ran to its end (exit 0). Ctrl-C at a terminal is default.
        preexec_fn=_default_sigint,
    )
    _wait_for(lambda: _stored_vectors(data_dir) >= SYNC_CHUNK, ingest, "storing the first vectors")
    ingest.send_signal(signal.SIGINT)
    _, stderr = ingest.communicate(timeout=120)
    assert ingest.returncode == 130
    last = stderr.decode().strip().splitlines()[-1]
    assert (
        last.startswith(f"interrupted: the {DOCUMENTS} papers read are saved") and "run the same `rag ingest`" in last
    )
    assert "embedding:" in stderr.decode(), "without a terminal, progress comes as lines"
    assert "Traceback" not in stderr.decode()
    kept = _stored_vectors(data_dir)
    assert kept >= SYNC_CHUNK, "the vectors computed before Ctrl-C are kept"
    again = _rag("ingest", str(seed), env=env)
    assert again.returncode == 0, again.stderr
    assert f"added vectors for {DOCUMENTS - kept} papers" in again.stderr, "the rerun embeds only the rest"
