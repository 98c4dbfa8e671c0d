"""Vectors kept on disk between runs: `rag check` run again on a manuscript (a pre-commit hook) embeds only the
sentences that changed, and its judge reads only the pairs it has not read before (rag.embed.cross_encoder).

One SQLite file in the data dir, keyed by the model's name and the text's hash; the newest MAX_DISK_TEXTS are
kept. It is a cache: any trouble with the file (locked by another process, damaged, read-only) means the
texts are embedded as if it were not there, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from rag.embed.types import Embedder, Vectors
from rag.records import ProgressFn

# About 1.5 kB a MiniLM vector: some 30 MB on disk.
MAX_DISK_TEXTS = 20_000
# Seconds to wait for another process writing the file before doing without it.
BUSY_SECONDS = 2.0
# Keys asked of SQLite at once (its limit on a statement's variables is 32,766 in today's builds).
LOOKUP_CHUNK = 500


class DiskVectors:
    """Rows of float32 numbers on disk by key (``path``: the SQLite file), the newest ``capacity`` kept. Every
    failure reads as "not there" or "not kept": a cache never stops a command."""

    def __init__(self, path: Path, capacity: int = MAX_DISK_TEXTS) -> None:
        self.path = path
        self.capacity = capacity
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # an editor's server reads and writes from more than one thread

    @contextlib.contextmanager
    def _database(self) -> Iterator[sqlite3.Connection]:
        """The file, opened on first use and kept open, in write-ahead-log mode: a commit is not a flush to disk.
        Opening the file and flushing at every commit took a second and a half of a thesis's check (the judge
        writes after each of its ~900 small reads); a crash may lose the last rows now, never the file."""
        with self._lock:
            if self._connection is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, check_same_thread=False)
                try:
                    connection.execute("PRAGMA journal_mode=WAL")
                    connection.execute("PRAGMA synchronous=NORMAL")
                    connection.execute(
                        "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
                    )
                except sqlite3.Error:
                    connection.close()
                    raise
                self._connection = connection
            try:
                yield self._connection
                self._connection.commit()
            except BaseException:
                self._connection.rollback()
                raise

    def read(self, keys: Sequence[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        with contextlib.suppress(sqlite3.Error, OSError), self._database() as database:
            for start in range(0, len(keys), LOOKUP_CHUNK):
                chunk = keys[start : start + LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, blob in database.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def write(self, rows: Sequence[tuple[str, Vectors]]) -> None:
        with contextlib.suppress(sqlite3.Error, OSError), self._database() as database:
            database.executemany(
                "INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)",
                [(key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in rows],
            )
            database.execute(
                "DELETE FROM vectors WHERE rowid <= (SELECT MAX(rowid) FROM vectors) - ?", (self.capacity,)
            )


def text_key(*parts: str) -> str:
    """The key of a text (with what read it: a model's name) in a DiskVectors file."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


class DiskCachedEmbedder:
    """An Embedder whose vectors outlive the process (``path``: the SQLite file)."""

    def __init__(self, inner: Embedder, path: Path, capacity: int = MAX_DISK_TEXTS) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = path
        self.store = DiskVectors(path, capacity)

    def _key(self, text: str) -> str:
        return text_key(self.name, text)

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        keys = [self._key(t) for t in texts]
        found = self.store.read(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        if missing:
            fresh = self.inner.embed(missing, progress)
            rows = [(self._key(t), v) for t, v in zip(missing, fresh, strict=True)]
            found.update(rows)
            self.store.write(rows)
        if not texts:
            return self.inner.embed([], progress)
        return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)
