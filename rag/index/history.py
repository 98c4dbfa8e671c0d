"""The log of past questions, drafts and checks (`rag log`), one SQLite file in the data dir.

Bounded: only the newest ``MAX_ENTRIES`` are kept. Several rag processes may write at once (SQLite
serialises them); a log that cannot be written never fails the command it records.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from rag.errors import StoreError
from rag.records import LogEntry

# A year of daily use; older entries are dropped as new ones come.
MAX_ENTRIES = 2_000
BUSY_TIMEOUT_SECONDS = 5.0
_SCHEMA = """
create table if not exists entries (
    id integer primary key autoincrement,
    at text not null,
    kind text not null,
    library text not null,
    model text,
    mode text not null,
    question text not null,
    answer text not null,
    payload text not null
)
"""


class History:
    def __init__(self, path: Path, max_entries: int = MAX_ENTRIES) -> None:
        self.path = path
        self.max_entries = max_entries

    @contextlib.contextmanager
    def _db(self, create: bool) -> Iterator[sqlite3.Connection]:
        if not create and not self.path.exists():
            raise StoreError("the log is empty: questions, drafts and checks are logged as you run them")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.closing(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS)) as db, db:
                db.execute(_SCHEMA)
                yield db
        except sqlite3.Error as exc:
            raise StoreError(f"cannot use the log {self.path} ({exc}); remove it to start a new one") from None

    def record(self, entry: LogEntry) -> int:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._db(create=True) as db:
            cursor = db.execute(
                "insert into entries (at, kind, library, model, mode, question, answer, payload) "
                "values (?, ?, ?, ?, ?, ?, ?, ?)",
                (at, entry.kind, entry.library, entry.model, entry.mode, entry.question, entry.answer, entry.payload),
            )
            db.execute("delete from entries where id <= (select max(id) from entries) - ?", (self.max_entries,))
            return int(cursor.lastrowid or 0)

    def recent(self, limit: int) -> list[LogEntry]:
        """The newest ``limit`` entries, newest first."""
        with self._db(create=False) as db:
            rows = db.execute(
                "select id, at, kind, library, model, mode, question, answer, payload from entries "
                "order by id desc limit ?",
                (limit,),
            ).fetchall()
        return [_entry(row) for row in rows]

    def get(self, entry_id: int) -> LogEntry | None:
        with self._db(create=False) as db:
            row = db.execute(
                "select id, at, kind, library, model, mode, question, answer, payload from entries where id = ?",
                (entry_id,),
            ).fetchone()
        return _entry(row) if row else None


def _entry(row: tuple[object, ...]) -> LogEntry:
    entry_id, at, kind, library, model, mode, question, answer, payload = row
    return LogEntry(
        str(kind), str(library), str(model) if model else None, str(mode), str(question), str(answer), str(payload),
        int(str(entry_id)), str(at),
    )  # fmt: skip
