"""`rag log`: past questions, drafts and checks, newest first; and the one place commands record them."""

from __future__ import annotations

import json
from typing import Any

from rag.errors import NotFoundError, RagError
from rag.index.history import History
from rag.records import LogEntry
from rag.services.context import Context

DEFAULT_SHOWN = 20


def _history(ctx: Context) -> History:
    return History(ctx.storage().layout.history)


def record(
    ctx: Context, kind: str, question: str, answer: str, payload: dict[str, Any], mode: str, model: str | None
) -> None:
    """Log one command's result, unless logging is off; a log that cannot be written is a notice, not a failure."""
    if not ctx.settings.log:
        return
    entry = LogEntry(kind, ctx.settings.collection, model, mode, question, answer, json.dumps(payload))
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
