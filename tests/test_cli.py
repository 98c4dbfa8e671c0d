"""The CLI as users meet it: CliRunner for every command, one real subprocess for `ask`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, SEEDS
from typer.testing import CliRunner

from rag.cli import app

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_search_json_contract(seeded: Path) -> None:
    code, out, _ = invoke("search", "tensor parallelism", "-k", "3", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["query"] == "tensor parallelism"
    assert len(payload["hits"]) == 3
    for rank, hit in enumerate(payload["hits"], start=1):
        assert set(hit) == {
            "id",
            "rank",
            "score",
            "relevance",
            "title",
            "year",
            "citekey",
            "text",
            "sources",
            "retracted",
            "passage",
        }
        assert hit["rank"] == rank and hit["passage"] is None  # abstracts only: no full text matched
    assert payload["hits"][0]["citekey"] == "shi2023tapas"
    assert payload["hits"][0]["sources"] == ["000_e22c73655386b99b.txt#8"]


def test_ask_json_contract(seeded: Path) -> None:
    code, out, _ = invoke("ask", HETEROGENEOUS_QUESTION, "--json")
    assert code == 0
    payload = json.loads(out)
    assert {"question", "answer", "mode", "citations"} <= set(payload)
    assert payload["mode"] == "extractive"
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", payload["answer"])}
    assert cited and cited == {c["n"] for c in payload["citations"]}
    assert all({"n", "id", "title", "citekey"} <= set(c) for c in payload["citations"])


def test_ask_human_output_has_references(seeded: Path) -> None:
    code, out, _ = invoke("ask", HETEROGENEOUS_QUESTION)
    assert code == 0
    assert "References" in out and "[1] " in out and "arXiv:" in out


def test_papers_and_show(seeded: Path) -> None:
    code, out, _ = invoke("papers", "--json")
    assert code == 0
    assert len(json.loads(out)["papers"]) == 39
    code, out, _ = invoke("show", "yuan2022decentralized")
    assert code == 0 and "Decentralized Training of Foundation Models" in out and "2206.01288" in out
    code, out, _ = invoke("show", "000_e22c73655386b99b.txt#7", "--json")
    assert json.loads(out)["citekey"] == "yuan2022decentralized"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope"), "error: no paper with id, citekey or source 'nope'"),
        (("ask", ""), "error: the question is empty"),
        (("search", "gpus", "-k", "0"), "error: -k must be at least 1"),
        (("ingest", "missing-folder"), "error: no such file or folder: missing-folder"),
        (("--collection", "x", "papers"), "error: invalid setting collection = 'x' given as a flag: collection names"),
    ],
)
def test_errors_are_one_line_exit_1(seeded: Path, args: tuple[str, ...], message: str) -> None:
    code, out, err = invoke(*args)
    assert code == 1
    lines = [line for line in err.strip().splitlines() if "using lexical search only" not in line]
    assert len(lines) == 1 and lines[0].startswith(message), "one error line (beside the no-model notice)"
    assert "Traceback" not in err + out


def test_ingest_reports_and_warns(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    shutil.copytree(SEEDS, folder)
    (folder / "junk.bin").write_bytes(b"\x00\x01")
    code, out, err = invoke("--collection", "mine", "ingest", str(folder))
    assert code == 0
    assert "39 papers (from 40 entries, 1 of them the same work as another): 39 added" in out
    assert "skipped" in err and "junk.bin" in err
    code, out, _ = invoke("--collection", "mine", "ingest", str(folder))
    assert "0 added, 0 updated, 39 unchanged" in out


def test_ingest_counts_a_preprint_and_its_article_as_one_paper(tmp_path: Path) -> None:
    """Two records of one work with different abstracts (a preprint and the article; no citekeys, as in a
    database export) are one paper of the library: the summary says so, its counts agree with "added"."""
    header = "Title,Author Names,Publication Year,Abstract,DOI"
    title = "Impact of household water treatment on childhood diarrhoea: a systematic review"
    rows = [
        f'"{title}","Waddington, H.",2023,"We pooled 30 trials of water treatment and found fewer diarrhoea '
        'episodes in children.",10.1101/2023.03.13.1',
        f'"{title}","Waddington, H.",2023,"Pooling 31 randomized trials of household water treatment, we found '
        'a 25% reduction in childhood diarrhoea.",10.1371/journal.pmed.1',
        '"Solar disinfection of drinking water","Conroy, R.",1996,"Children drinking solar-disinfected water had '
        'fewer episodes of diarrhoea.",10.1016/1',
    ]
    (tmp_path / "embase.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    code, out, _ = invoke("--collection", "water", "ingest", str(tmp_path / "embase.csv"), "--json")
    assert code == 0
    result = json.loads(out)
    assert (result["entries_read"], result["papers_found"], result["added"]) == (3, 2, 2)
    code, out, _ = invoke("--collection", "water2", "ingest", str(tmp_path / "embase.csv"))
    assert "2 papers (from 3 entries, 1 of them the same work as another): 2 added" in out


def test_hostile_text_is_shown_literally(tmp_path: Path) -> None:
    (tmp_path / "evil.txt").write_text(
        "Related papers: X\n\n[red]GPU[/red] scheduling \x1b[31mon heterogeneous\x1b[0m clusters\u200b.\n"
    )
    assert invoke("--collection", "evil", "ingest", str(tmp_path / "evil.txt"))[0] == 0
    code, out, _ = invoke("--collection", "evil", "search", "heterogeneous GPU scheduling")
    assert code == 0
    assert "[red]GPU[/red]" in out and "\x1b" not in out and "\u200b" not in out


def test_show_says_a_title_only_paper_has_no_abstract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from rag.cli import render_paper
    from rag.formats import NO_ABSTRACT
    from rag.mcp_server import show_text
    from rag.records import Paper
    from rag.services import PaperView

    monkeypatch.setenv("RAG_EMBED_MODEL", "none")
    (tmp_path / "books.bib").write_text("@book{roe1999, title={Scheduling Clusters by Hand}, author={Roe, Ann}}\n")
    assert invoke("--collection", "books", "ingest", str(tmp_path / "books.bib"))[0] == 0
    code, out, _ = invoke("--collection", "books", "show", "roe1999")
    assert code == 0 and out.rstrip().endswith(NO_ABSTRACT)
    assert out.count("Scheduling Clusters by Hand") == 1, "the title is not shown again as if it were the abstract"
    code, out, _ = invoke("--collection", "books", "show", "roe1999", "--json")
    paper = json.loads(out)
    assert paper["no_abstract"] is True
    view = PaperView(Paper.from_dict({k: v for k, v in paper.items() if k != "list_subjects"}), [])
    assert "no abstract" in show_text(view) and show_text(view).count("Scheduling Clusters by Hand") == 1
    terminal = Console(force_terminal=True, width=100, record=True)
    render_paper(terminal, view)
    assert "no abstract" in terminal.export_text()


def test_help_lists_commands() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    for command in ("ingest", "search", "ask", "papers", "show", "reindex"):
        assert command in out


def test_installed_ask_script(seeded: Path) -> None:
    script = Path(sys.executable).parent / "ask"
    if not script.exists():
        pytest.skip("the `ask` console script is not installed in this environment")
    done = subprocess.run(
        [str(script), HETEROGENEOUS_QUESTION, "--json"], capture_output=True, text=True, env=os.environ, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["citations"]
    module = subprocess.run(
        [sys.executable, "-m", "rag", "show", "shi2023tapas"], capture_output=True, text=True, timeout=120
    )
    assert module.returncode == 0 and "TAPAS" in module.stdout


def test_paths_expand_home_and_blank_means_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.config import default_data_dir, load_settings

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAG_DATA_DIR", "~/research/rag-data")
    assert load_settings().data_dir == tmp_path / "home" / "research" / "rag-data"
    monkeypatch.setenv("PROJECTS", str(tmp_path / "p"))
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", "$PROJECTS/model")
    assert load_settings().embed_model_dir == tmp_path / "p" / "model"
    monkeypatch.setenv("RAG_DATA_DIR", "")
    assert load_settings().data_dir == default_data_dir(), "an empty value is unset, not the current folder"


def test_misspelt_settings_are_named_with_the_closest_one(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_TOPK", "3")
    Path(".env").write_text("RAG_LLM_MODLE=llama3.1\n", encoding="utf-8")
    result = runner.invoke(app, ["search", "gpu", "--json"])
    assert result.exit_code == 0
    assert "RAG_TOPK (environment) is not a rag setting and is ignored; did you mean RAG_TOP_K?" in result.stderr
    assert "RAG_LLM_MODLE (.env) is not a rag setting" in result.stderr and "RAG_LLM_MODEL?" in result.stderr


def test_output_in_a_pipe_is_never_hard_wrapped(seeded: Path) -> None:
    answer = runner.invoke(app, ["ask", HETEROGENEOUS_QUESTION])
    lines = answer.stdout.splitlines()
    assert any(len(line) > 120 for line in lines), "one quote, one line"
    assert not any(line != line.rstrip() for line in lines), "no trailing spaces"
    listing = runner.invoke(app, ["papers", "--limit", "3"])
    rows = [line.split("\t") for line in listing.stdout.splitlines()]
    assert len(rows) == 3 and all(len(row) == 4 for row in rows), "tab-separated citekey, year, title, sources"
    assert rows[0][0] == "wei2026optimus"


def test_a_draft_without_model_as_latex_keeps_stdout_pure(seeded: Path) -> None:
    result = runner.invoke(app, ["draft", "decentralized training", "--format", "latex", "--no-llm"])
    assert result.exit_code == 0
    assert "\\cite{" in result.stdout and "Drafted" not in result.stdout and "citation check" not in result.stdout
    assert "Drafted without a language model" in result.stderr and "paragraphs" in result.stderr
