"""Library management: collections, remove, export; --collection on every command."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SEEDS
from typer.testing import CliRunner

from rag.cli import app

runner = CliRunner()


def test_collections_lists_each_library(seeded: Path) -> None:
    assert (
        runner.invoke(app, ["--collection", "second", "ingest", str(SEEDS / "002_1079d4b498cf8dd9.txt")]).exit_code == 0
    )
    result = runner.invoke(app, ["collections", "--json"])
    assert result.exit_code == 0, result.stderr
    rows = {c["name"]: c for c in json.loads(result.stdout)["collections"]}
    assert rows["papers"]["papers"] == 39 and rows["second"]["papers"] == 20
    human = runner.invoke(app, ["collections"])
    assert "second" in human.stdout and "papers" in human.stdout


def test_remove_is_all_or_nothing(seeded: Path) -> None:
    failed = runner.invoke(app, ["remove", "yuan2022decentralized", "no-such-paper"])
    assert failed.exit_code == 1 and "no-such-paper" in failed.stderr
    assert len(json.loads(runner.invoke(app, ["papers", "--json"]).stdout)["papers"]) == 39
    done = runner.invoke(app, ["remove", "yuan2022decentralized", "000_e22c73655386b99b.txt#8"])
    assert done.exit_code == 0 and "removed 2 papers" in done.stdout
    left = json.loads(runner.invoke(app, ["papers", "--json"]).stdout)["papers"]
    assert len(left) == 37 and "yuan2022decentralized" not in {p["citekey"] for p in left}
    search = json.loads(runner.invoke(app, ["search", "decentralized training heterogeneous", "--json"]).stdout)
    assert "yuan2022decentralized" not in {h["citekey"] for h in search["hits"]}


def test_export_bibtex_and_jsonl(seeded: Path, tmp_path: Path) -> None:
    bib = runner.invoke(app, ["export"])
    assert bib.exit_code == 0 and bib.stdout.count("@misc{") == 39
    assert "eprint = {2206.01288}" in bib.stdout
    out = tmp_path / "library.jsonl"
    assert runner.invoke(app, ["export", "--format", "jsonl", "-o", str(out)]).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 39 and {"id", "title", "citekey", "sources"} <= set(rows[0])
    bad = runner.invoke(app, ["export", "--format", "xml"])
    assert bad.exit_code == 1 and "unknown export format" in bad.stderr


def test_exported_jsonl_ingests_back_identically(seeded: Path, tmp_path: Path) -> None:
    out = tmp_path / "library.jsonl"
    runner.invoke(app, ["export", "--format", "jsonl", "-o", str(out)])
    result = runner.invoke(app, ["--collection", "copy", "ingest", str(out), "--field", "abstract=text"])
    assert result.exit_code == 0, result.stderr
    copy = json.loads(runner.invoke(app, ["--collection", "copy", "papers", "--json"]).stdout)["papers"]
    original = json.loads(runner.invoke(app, ["papers", "--json"]).stdout)["papers"]
    assert {p["id"] for p in copy} == {p["id"] for p in original}
