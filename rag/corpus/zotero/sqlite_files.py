"""Other programs' SQLite files (Zotero's, Better BibTeX's), opened so that reading them can change nothing.

``immutable=1`` tells SQLite the file cannot change while it is open: it takes no lock, reads no
rollback journal or write-ahead log and creates none. So reading works while Zotero runs (Zotero
holds its database with an exclusive lock), never makes Zotero wait, and leaves the file's bytes and
modification time as they were. The price: what Zotero has not yet written into the file itself is
not seen (``unfinished_writes`` says when that may be the case).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from rag.errors import InputError

SQLITE_HEADER = b"SQLite format 3\x00"
# A rollback journal's header: a program in a transaction has written it (with SQLite's magic number once
# the change is on its way into the database file). Zeroed, or an empty file, it holds nothing: SQLite
# leaves such a journal behind in exclusive locking mode, which Zotero uses.
JOURNAL_HEADER_BYTES = 28
JOURNAL_SUFFIX = "-journal"
WAL_SUFFIX = "-wal"


def is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


@contextmanager
def open_readonly(path: Path, repair_hint: str) -> Iterator[sqlite3.Connection]:
    """A connection that can only read ``path``; SQLite's errors (here or in the block) become one
    ``InputError`` line naming the file, ending with ``repair_hint`` when the file is damaged."""
    name = path.name
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    if header != SQLITE_HEADER:
        raise InputError(f"{name}: not an SQLite database (damaged, or another kind of file); {repair_hint}")
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise InputError(f"{name}: cannot open ({exc})") from None
    connection.text_factory = _text  # a damaged row's text is read as what it holds, not a UnicodeDecodeError
    try:
        yield connection
    except sqlite3.DatabaseError as exc:
        raise InputError(_reason(name, exc, repair_hint)) from None
    except UnicodeDecodeError:  # SQLite's own message quoted a damaged schema's bytes
        raise InputError(f"{name}: damaged (its schema is unreadable); {repair_hint}") from None
    finally:
        connection.close()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _reason(name: str, exc: sqlite3.DatabaseError, repair_hint: str) -> str:
    message = " ".join(str(exc).split())  # SQLite quotes the damaged schema text, newlines and all: one line
    if "locked" in message or "busy" in message:  # not expected with immutable=1, which takes no lock
        return f"{name}: locked by another program ({message}); run `rag ingest` again once it is done"
    if isinstance(exc, sqlite3.OperationalError) and "malformed" not in message:
        return f"{name}: cannot be read ({message})"
    return (
        f"{name}: damaged ({message}); if a program was writing it just now, run `rag ingest` again, else {repair_hint}"
    )


def missing_columns(connection: sqlite3.Connection, wanted: Mapping[str, Sequence[str]]) -> list[str]:
    """Of the tables and columns in ``wanted``, those the database lacks ('table' or 'table.column')."""
    missing: list[str] = []
    for table, columns in wanted.items():
        quoted = table.replace('"', '""')
        have = {row[1] for row in connection.execute(f'PRAGMA table_info("{quoted}")')}
        if not have:
            missing.append(table)
        else:
            missing.extend(f"{table}.{column}" for column in columns if column not in have)
    return missing


def table_names(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def unfinished_writes(path: Path) -> str | None:
    """Which file beside ``path`` may hold changes an immutable read does not see, if any: a rollback
    journal of a transaction (a program is writing, or crashed while writing), or a non-empty
    write-ahead log."""
    journal = path.with_name(path.name + JOURNAL_SUFFIX)
    wal = path.with_name(path.name + WAL_SUFFIX)
    try:
        if journal.is_file():
            with journal.open("rb") as handle:
                if handle.read(JOURNAL_HEADER_BYTES).strip(b"\x00"):
                    return journal.name
        if wal.is_file() and wal.stat().st_size > 0:
            return wal.name
    except OSError:
        return None
    return None
