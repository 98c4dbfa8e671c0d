"""rag in pipes and files, as scripts meet it: real processes, a closed stdout, output with no terminal layout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, NEW_VECTORS, needs_model

RAG = [sys.executable, "-m", "rag"]
TIMEOUT = 180
BOX_DRAWING = set("─│╭╮╰╯┏┓┗┛━┃┡┩└┘┌┐├┤┬┴┼")


@pytest.mark.parametrize(
    "args",
    [
        ["ask", HETEROGENEOUS_QUESTION],
        ["search", HETEROGENEOUS_QUESTION],
        ["summarize", "--list", "002"],
        ["draft", "decentralized training"],
        ["draft", "decentralized training", "--format", "latex"],
        ["show", "yuan2022decentralized"],
        ["papers"],
        ["export"],
        ["collections"],
        ["search", HETEROGENEOUS_QUESTION, "--json"],
    ],
    ids=lambda args: "-".join(args[:1] + [a for a in args[1:] if a.startswith("--")]),
)
def test_a_closed_stdout_ends_quietly_with_exit_0(seeded: Path, args: list[str]) -> None:
    """`rag ask ... | head -1`: the reader stops reading; rag must not complain or fail (it exited 1 silently)."""
    # As a user's shell runs it: stdout buffered (PYTHONUNBUFFERED would hide a write that fails only at exit).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    process = subprocess.Popen([*RAG, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # closed before rag writes a byte: every write meets a broken pipe
    errors = process.stderr.read().decode()
    assert process.wait(timeout=TIMEOUT) == 0, errors
    assert "Traceback" not in errors and "Broken pipe" not in errors and "error" not in errors.lower(), errors


def _run(*args: str, stderr_file: Path | None = None) -> tuple[str, str]:
    with (stderr_file or Path(os.devnull)).open("w") as err:
        done = subprocess.run([*RAG, *args], stdout=subprocess.PIPE, stderr=err, env=os.environ, timeout=TIMEOUT)
    assert done.returncode == 0
    return done.stdout.decode(), stderr_file.read_text() if stderr_file else ""


def test_show_in_a_file_is_field_lines_and_a_paragraph(seeded: Path) -> None:
    out, _ = _run("show", "yuan2022decentralized")
    lines = out.splitlines()
    assert lines[0] == "title\tDecentralized Training of Foundation Models in Heterogeneous Environments"
    assert "citekey\tyuan2022decentralized" in lines and "arXiv\t2206.01288" in lines
    assert lines[lines.index("") + 1].startswith("Training foundation models")
    assert not BOX_DRAWING & set(out) and max(map(len, lines)) < 1_000, "no box, no line padded to a width"


@needs_model  # the seeded library's vectors and the model's notices
def test_collections_in_a_pipe_are_tab_separated(seeded: Path) -> None:
    out, _ = _run("collections")
    assert out.splitlines() == ["collection\tpapers\tvectors\tembedding model", f"papers\t39\t39\t{NEW_VECTORS}"]


@needs_model  # the seeded library's vectors and the model's notices
def test_notes_on_stderr_in_a_file_are_neither_wrapped_nor_padded(seeded: Path, tmp_path: Path) -> None:
    long_name = "RAG_" + "X" * 150  # a misspelt setting: its notice is longer than 80 columns
    os.environ[long_name] = "1"
    try:
        _, err = _run("search", "gpu", stderr_file=tmp_path / "err.txt")
    finally:
        del os.environ[long_name]
    notice = next(line for line in err.splitlines() if long_name in line)
    assert "is not a rag setting" in notice, "one notice, one line"
    assert all(line == line.rstrip() for line in err.splitlines())
    _, notes = _run("draft", "decentralized training", "--format", "latex", stderr_file=tmp_path / "notes.txt")
    first = notes.splitlines()[0]
    assert first.startswith("Drafted without a language model") and " paragraphs" in first, notes
    assert all(line == line.rstrip() for line in notes.splitlines())


@pytest.mark.parametrize(("command", "field"), [("ask", "question"), ("search", "query")])
def test_a_dash_reads_the_question_from_stdin(seeded: Path, command: str, field: str) -> None:
    import json

    done = subprocess.run(
        [*RAG, command, "-", "--json"],
        input=f"{HETEROGENEOUS_QUESTION}\n",
        capture_output=True,
        text=True,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[field] == HETEROGENEOUS_QUESTION
    empty = subprocess.run([*RAG, command, "-"], input="", capture_output=True, text=True, env=os.environ)
    assert empty.returncode == 1 and empty.stderr.startswith("error: standard input is empty")


def test_help_names_what_each_argument_is_not_its_python_type() -> None:
    commands = ["ask", "search", "summarize", "draft", "show", "ingest", "remove", "export", "eval", "map", "config"]
    for command in commands:
        done = subprocess.run([*RAG, command, "--help"], capture_output=True, text=True, env=os.environ)
        assert "<str>" not in done.stdout and "<list" not in done.stdout and "<int>" not in done.stdout, done.stdout
        assert "{" not in done.stdout.splitlines()[0], done.stdout.splitlines()[0]
    ask = subprocess.run([*RAG, "ask", "--help"], capture_output=True, text=True, env=os.environ).stdout
    assert ask.startswith("Usage: rag ask [OPTIONS] QUESTION") and "-k, --top-k N" in ask
