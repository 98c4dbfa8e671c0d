"""Libraries: only ingest creates one, the bundled corpus seeds the default library once, delete removes
one whole, and readers run side by side (and beside a writer) as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import SEEDS, needs_model
from typer.testing import CliRunner

from rag.cli import app

runner = CliRunner()
RAG = [sys.executable, "-m", "rag"]
PARALLEL_READERS = 6  # enough to meet the race of several processes creating the store at once


def test_a_missing_library_is_an_error_and_is_not_created(seeded: Path) -> None:
    result = runner.invoke(app, ["--collection", "nosuchlib", "search", "gpu"])
    assert result.exit_code == 1
    assert "there is no library 'nosuchlib' (libraries: papers)" in result.stderr
    assert "rag --collection nosuchlib ingest" in result.stderr
    assert not (seeded / "nosuchlib").exists()
    listed = json.loads(runner.invoke(app, ["collections", "--json"]).stdout)["collections"]
    assert "nosuchlib" not in {c["name"] for c in listed}


def test_an_emptied_default_library_stays_empty(seeded: Path) -> None:
    keys = [p["citekey"] for p in json.loads(runner.invoke(app, ["papers", "--json"]).stdout)["papers"]]
    assert runner.invoke(app, ["remove", *keys]).exit_code == 0
    again = runner.invoke(app, ["papers", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["papers"] == []
    assert "first run" not in again.stderr, "the bundled corpus seeds the default library once"


def test_delete_a_library(seeded: Path) -> None:
    assert (
        runner.invoke(app, ["--collection", "mine", "ingest", str(SEEDS / "000_e22c73655386b99b.txt")]).exit_code == 0
    )
    refused = runner.invoke(app, ["collections", "--delete", "mine"])  # no terminal to ask on
    assert refused.exit_code == 1 and "pass --yes" in refused.stderr
    deleted = runner.invoke(app, ["collections", "--delete", "mine", "--yes"])
    assert deleted.exit_code == 0 and "deleted library 'mine'" in deleted.stderr
    names = {c["name"] for c in json.loads(runner.invoke(app, ["collections", "--json"]).stdout)["collections"]}
    assert "mine" not in names and "papers" in names and not (seeded / "mine").exists()
    missing = runner.invoke(app, ["collections", "--delete", "mine", "--yes"])
    assert missing.exit_code == 1 and "there is no library 'mine'" in missing.stderr


def _search(env: dict[str, str]) -> subprocess.Popen[str]:
    """A `rag search --json` process, its output captured."""
    command = [*RAG, "search", "heterogeneous GPUs", "--json"]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@needs_model
def test_readers_run_side_by_side_right_after_the_first_indexing(tmp_path: Path) -> None:
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "fresh")}
    readers = [_search(env) for _ in range(PARALLEL_READERS)]
    outcomes = [
        (r.wait(timeout=300), r.stdout.read() if r.stdout else "", r.stderr.read() if r.stderr else "") for r in readers
    ]
    assert [code for code, _, _ in outcomes] == [0] * PARALLEL_READERS, [err for _, _, err in outcomes]
    assert all(json.loads(out)["hits"] for _, out, _ in outcomes)
    assert sum("first run" in err for _, _, err in outcomes) == 1, "one process seeds, the others wait and read"


@needs_model
def test_first_runs_started_one_after_another_wait_for_the_seeding_instead_of_ranking_by_words(
    tmp_path: Path,
) -> None:
    """Started while the first one is still embedding the bundled corpus, later searches used to say "papers have
    no vector yet (an interrupted ingest ...)" and rank by words only; they wait for the seeding instead."""
    env = {**os.environ, "RAG_DATA_DIR": str(tmp_path / "fresh")}
    catalog = tmp_path / "fresh" / "papers" / "papers.json"
    first = _search(env)
    deadline = time.monotonic() + 120
    while not catalog.exists():  # the papers are saved; their vectors are being computed now
        assert first.poll() is None and time.monotonic() < deadline, "the first run ended before saving the papers"
        time.sleep(0.02)
    later = [_search(env) for _ in range(PARALLEL_READERS)]
    for process in (first, *later):
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        assert "no vector yet" not in err and "not searchable by meaning" not in err, err
        assert all(hit["relevance"] is not None for hit in json.loads(out)["hits"]), "ranked by meaning too"


def test_the_storage_backend_is_a_seam_a_context_can_be_given(tmp_path: Path, no_model: Path) -> None:
    """Context builds its backend from the settings unless one is given; every command then uses that one."""
    from rag.config import load_settings
    from rag.index import DataDir, EmbeddedBackend
    from rag.services import Context, papers

    elsewhere = DataDir(tmp_path / "elsewhere")
    settings = load_settings()
    listing = papers(Context(settings, backend=EmbeddedBackend(elsewhere)))
    assert len(listing.papers) == 39
    assert elsewhere.catalog("papers").exists() and not settings.data_dir.exists()


def test_every_command_that_reads_the_default_library_fills_it_the_first_time(tmp_path: Path, no_model: Path) -> None:
    """`rag remove --dry-run KEY` on a new data dir said the default library did not exist, while show, papers,
    export, map and summarize filled it with the bundled corpus: one first-use rule for all."""
    dry = runner.invoke(app, ["--data-dir", str(tmp_path / "a"), "remove", "--dry-run", "yuan2022decentralized"])
    assert dry.exit_code == 0, dry.stderr
    assert "first run: indexing the bundled corpus" in dry.stderr and "yuan2022decentralized" in dry.stdout
    assert runner.invoke(app, ["--data-dir", str(tmp_path / "b"), "export"]).stdout.count("@misc{") == 39
