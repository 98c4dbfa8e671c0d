"""One writer at a time per data directory.

Chroma's embedded store is single-process: a second process opening the same
folder can wait on SQLite for about 16 minutes. Taking our own lock first turns
that wait into an immediate, explained refusal.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from rag.errors import StoreBusyError, StoreError
from rag.index.layout import DataDir


def ensure_data_dir(path: Path) -> None:
    """The data directory exists (made if missing) and is a folder; it may be read-only (readers need no more)."""
    if path.exists() and not path.is_dir():
        raise StoreError(f"data directory {path} is a file, not a folder; set RAG_DATA_DIR (or --data-dir) to a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create data directory {path}: {exc.strerror or exc}; "
            "set RAG_DATA_DIR (or --data-dir) to a writable folder"
        ) from None


def ensure_writable_dir(path: Path) -> None:
    ensure_data_dir(path)
    try:
        handle, name = tempfile.mkstemp(prefix=".rag-write-test-", dir=path)  # unique: parallel starts never collide
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        raise StoreError(
            f"data directory {path} is not writable ({exc.strerror or exc}); "
            "fix its permissions or set RAG_DATA_DIR to another folder"
        ) from None


@contextmanager
def data_dir_lock(data_dir: Path, timeout: float) -> Iterator[None]:
    """Hold the data directory's lock, or fail within ``timeout`` seconds with a clear message."""
    ensure_writable_dir(data_dir)
    lock = FileLock(str(DataDir(data_dir).lock))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise StoreBusyError(
            f"another rag process is using {data_dir}; wait for it to finish and retry "
            "(for several concurrent users, run a Chroma server and set RAG_CHROMA_URL)"
        ) from None
    try:
        yield
    finally:
        lock.release()


def is_locked(lock_file: Path) -> bool:
    """Whether another process holds ``lock_file`` right now, asked without taking it or touching the file
    (taking a FileLock truncates the file, which changes its mtime)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: ask the way writers lock, which may touch the file
        return _busy_by_filelock(lock_file)
    try:
        handle = os.open(lock_file, os.O_RDONLY)
    except OSError:
        return False  # no lock file: nobody has ever written here
    try:
        fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(handle)  # closing drops the shared lock, if it was taken
    return False


def _busy_by_filelock(lock_file: Path) -> bool:
    if not lock_file.exists():
        return False
    lock = FileLock(str(lock_file))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    lock.release()
    return False


@contextmanager
def lock_if_free(data_dir: Path) -> Iterator[bool]:
    """Hold the data directory's lock for the block if it is free right now (True), else hold nothing (False):
    for optional writes a reader may do when no writer is busy. A read-only data dir gives False."""
    lock = FileLock(str(DataDir(data_dir).lock))
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):
        yield False
        return
    try:
        yield True
    finally:
        lock.release()
