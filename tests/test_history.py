"""`rag log`: every question, draft and check kept (bounded), listed newest first, shown again on demand."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rag.cli import app
from rag.index import History
from rag.records import LogEntry

runner = CliRunner()


def _entry(question: str) -> LogEntry:
    return LogEntry("ask", "papers", None, "extractive", question, f"answer to {question}", json.dumps({"q": question}))


def test_the_log_keeps_the_newest_entries_only(tmp_path: Path) -> None:
    history = History(tmp_path / "history.sqlite", max_entries=3)
    ids = [history.record(_entry(f"q{i}")) for i in range(5)]
    assert [e.question for e in history.recent(10)] == ["q4", "q3", "q2"]
    assert history.get(ids[0]) is None and history.get(ids[-1]) == history.recent(1)[0]


def test_a_damaged_log_is_one_line_and_never_fails_the_command(seeded: Path) -> None:
    (seeded / "history.sqlite").write_bytes(b"not a database" * 100)
    listed = runner.invoke(app, ["log"])
    assert listed.exit_code == 1 and "cannot use the log" in listed.stderr and "remove it" in listed.stderr


def test_questions_drafts_and_checks_are_logged_and_shown_again(seeded: Path, tmp_path: Path) -> None:
    asked = runner.invoke(app, ["ask", "which works target heterogeneous GPUs?"])
    assert asked.exit_code == 0
    runner.invoke(app, ["draft", "mixture of experts", "--format", "latex"])
    runner.invoke(app, ["ask", "a private question", "--no-log"])
    (tmp_path / "paper.tex").write_text("Holmes trains models across heterogeneous NICs~\\cite{yang2023holmes}.\n")
    runner.invoke(app, ["check", str(tmp_path / "paper.tex")])
    listed = json.loads(runner.invoke(app, ["log", "--json"]).stdout)["entries"]
    assert [(e["kind"], e["mode"]) for e in listed] == [
        ("check", "offline"),
        ("draft", "extractive_prose"),
        ("ask", "extractive"),
    ]
    assert listed[2]["question"] == "which works target heterogeneous GPUs?" and listed[2]["library"] == "papers"
    shown = runner.invoke(app, ["log", "show", str(listed[2]["id"])])
    assert shown.exit_code == 0 and "References" in shown.stdout and "yuan2022decentralized" in shown.stdout
    again = json.loads(runner.invoke(app, ["log", "show", str(listed[1]["id"]), "--json"]).stdout)
    assert again["mode"] == "extractive_prose" and again["citations"]
    assert "\\cite{" in runner.invoke(app, ["log", "show", str(listed[1]["id"])]).stdout, "the draft as written"
    assert runner.invoke(app, ["log", "-n", "1", "--json"]).stdout.count('"kind"') == 1
    missing = runner.invoke(app, ["log", "show", "9999"])
    assert missing.exit_code == 1 and "`rag log` lists them" in missing.stderr


def test_log_show_prints_a_model_answer_as_it_was_shown(seeded: Path) -> None:
    """The marks ("(weak support)", the dagger of a citation rag added), the check's footer and the references."""
    from fake_openai import FakeOpenAI, Reply

    holmes = "Holmes trains large language models across clusters with heterogeneous NIC environments."
    with FakeOpenAI() as fake:
        fake.play(Reply(text=f"{holmes} Scheduling matters for training speed [2]."))
        model = ["--model", "test-model", "--base-url", fake.url, "--no-cache"]
        asked = runner.invoke(app, ["ask", "which works target heterogeneous GPUs?", *model])
    assert asked.exit_code == 0, asked.output
    assert "†" in asked.stdout and "citation check:" in asked.stdout
    entry = json.loads(runner.invoke(app, ["log", "-n", "1", "--json"]).stdout)["entries"][0]
    again = runner.invoke(app, ["log", "show", str(entry["id"])]).stdout
    assert " ".join(again.split()) == " ".join(asked.stdout.split())


def test_logging_can_be_turned_off(seeded: Path) -> None:
    runner.invoke(app, ["ask", "which works target heterogeneous GPUs?"], env={"RAG_LOG": "false"})
    listed = runner.invoke(app, ["log"])
    assert listed.exit_code == 1 and "the log is empty" in listed.stderr


def test_options_that_cannot_apply_say_so(seeded: Path) -> None:
    long = runner.invoke(app, ["ask", "which works target heterogeneous GPUs?", "--long"])
    assert long.exit_code == 0 and "--long needs a language model" in long.stderr
    future = runner.invoke(app, ["ask", "which works target heterogeneous GPUs?", "--since", "2030"])
    assert future.exit_code == 1 and "no paper here matches --since 2030: drop or widen the filter" in future.stderr
