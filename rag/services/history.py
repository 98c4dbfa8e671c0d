"""`rag log`: past questions, drafts and checks, newest first; and the one place commands record them."""

from __future__ import annotations

import json

from rag.check.sentences import Answer
from rag.check.verdicts import finding
from rag.errors import NotFoundError, RagError
from rag.formats.shown import answer_lines, plain
from rag.index.history import History
from rag.records import LogEntry
from rag.services.context import Context
from rag.services.contracts import answer_json, check_json
from rag.services.requests import WritingOptions
from rag.services.results import CheckReport

DEFAULT_SHOWN = 20


def _history(ctx: Context) -> History:
    return History(ctx.storage().layout.history)


def record_answer(
    ctx: Context, kind: str, question: str, answer: Answer, options: WritingOptions, document: str | None = None
) -> None:
    """Log an answer, summary or draft as the user read it: its text with the check's marks and notes, the
    references (rag.formats.shown), or the document."""
    if options.log:
        text = document if document is not None else plain(answer_lines(answer))
        payload = json.dumps(answer_json(answer))
        _record(ctx, LogEntry(kind, ctx.settings.collection, answer.model, answer.mode.value, question, text, payload))


def record_check(ctx: Context, report: CheckReport) -> None:
    """Log a manuscript check: its findings as the linter lines, and the summary."""
    lines = [finding(c) for c in report.problems] + [report.summary_line()]
    question = ", ".join(report.files)
    payload = json.dumps(check_json(report))
    _record(ctx, LogEntry("check", ctx.settings.collection, None, report.checker, question, "\n".join(lines), payload))


def _record(ctx: Context, entry: LogEntry) -> None:
    """Log one command's result, unless logging is off; a log that cannot be written is a notice, not a failure."""
    if not ctx.settings.log:
        return
    try:
        _history(ctx).record(entry)
    except RagError as exc:
        ctx.notify(f"not logged: {exc}")


def recent(ctx: Context, limit: int = DEFAULT_SHOWN) -> list[LogEntry]:
    return _history(ctx).recent(limit)


def entry(ctx: Context, entry_id: int) -> LogEntry:
    found = _history(ctx).get(entry_id)
    if found is None:
        raise NotFoundError(f"there is no log entry {entry_id}; `rag log` lists them with their numbers")
    return found
