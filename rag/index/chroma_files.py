"""An embedded Chroma folder read as files, without opening Chroma: nothing is written, locked or migrated.

Opening a ``PersistentClient`` rewrites Chroma's database and its vector files
(measured: their mtimes change), so ``rag doctor`` and change detection read the
SQLite file directly, read-only.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from rag.index.chroma import EMBED_MODEL_KEY

# (inode, mtime in ns, size) of a file, or None when it is absent.
FileStamp = tuple[int, int, int] | None
# Chroma keeps a collection's records, and so its count, in its metadata segment.
_COLLECTIONS_QUERY = """
select c.name,
       (select count(*) from embeddings e join segments s on e.segment_id = s.id
         where s.collection = c.id and s.scope = 'METADATA'),
       (select m.str_value from collection_metadata m where m.collection_id = c.id and m.key = ?)
from collections c
"""
BUSY_TIMEOUT_SECONDS = 1.0


def file_stamp(path: Path) -> FileStamp:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns, found.st_size


def read_collections(database: Path) -> dict[str, tuple[int, str | None]]:
    """Each collection's name -> (records, embedding model), from Chroma's SQLite file opened read-only.

    Raises ``sqlite3.Error`` when the file is not a Chroma database (damaged, or another schema)."""
    if not database.exists():
        return {}
    uri = f"{database.resolve().as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS)) as db:
        rows = db.execute(_COLLECTIONS_QUERY, (EMBED_MODEL_KEY,)).fetchall()
    return {str(name): (int(count), str(model) if model else None) for name, count, model in rows}
