"""`rag log`: every question, draft and check kept (bounded), listed newest first, shown again on demand."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rag.cli import app
from rag.index.history import History
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
