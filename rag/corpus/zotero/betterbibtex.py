"""Better BibTeX citation keys from its database beside ``zotero.sqlite``, read without changing it.

Three layouts are met: the current one (``better-bibtex.sqlite`` with a ``citationkey`` table),
the legacy LokiJS one (a table ``better-bibtex`` whose row ``better-bibtex.citekey`` holds the keys
as JSON), and ``better-bibtex.db`` in either form or as a LokiJS JSON file. Since Zotero 7.0.31 the
key is a field of Zotero's own (``citationKey``) and Better BibTeX renames its database to
``better-bibtex.migrated``, which is no longer kept up to date and is not read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rag.corpus.textfile import read_text_file
from rag.corpus.zotero.sqlite_files import is_sqlite, open_readonly, table_names
from rag.errors import InputError

BBT_FILES = ("better-bibtex.sqlite", "better-bibtex.db")
LEGACY_TABLE = "better-bibtex"
LEGACY_ROW = "better-bibtex.citekey"
LEGACY_COLLECTION = "citekey"
REPAIR_HINT = "Better BibTeX rebuilds it when Zotero starts"
# (libraryID, item key) -> citation key
Keys = dict[tuple[int, str], str]


def better_bibtex_keys(folder: Path) -> tuple[Keys, list[str]]:
    """The keys in the Better BibTeX database in ``folder`` (if any), and a warning when it is there
    but cannot be read."""
    for name in BBT_FILES:
        path = folder / name
        if path.is_file():
            try:
                return _read(path), []
            except InputError as exc:
                return {}, [f"{exc}; its citation keys are not used (rag reads keys from Extra or gives one)"]
    return {}, []


def _read(path: Path) -> Keys:
    if not is_sqlite(path):
        return _lokijs_keys(_json(read_text_file(path), path.name), path.name)
    with open_readonly(path, REPAIR_HINT) as connection:
        tables = table_names(connection)
        if "citationkey" in tables:
            rows = connection.execute("SELECT libraryID, itemKey, citationKey FROM citationkey")
            return _keys({"libraryID": lib, "itemKey": key, "citekey": cite} for lib, key, cite in rows)
        if LEGACY_TABLE in tables:
            return _legacy_table(connection, path.name)
    raise InputError(f"{path.name}: no citation key table (citationkey or {LEGACY_TABLE})")


def _legacy_table(connection: sqlite3.Connection, name: str) -> Keys:
    row = connection.execute(f'SELECT data FROM "{LEGACY_TABLE}" WHERE name = ?', (LEGACY_ROW,)).fetchone()
    if row is None:
        raise InputError(f"{name}: no {LEGACY_ROW} row in the {LEGACY_TABLE} table")
    data = _json(str(row[0]), name)
    entries = data.get("data") if isinstance(data, dict) else None
    return _keys(entries if isinstance(entries, list) else [])


def _lokijs_keys(data: Any, name: str) -> Keys:
    """A LokiJS database saved as JSON: its ``citekey`` collection."""
    collections = data.get("collections") if isinstance(data, dict) else None
    for collection in collections if isinstance(collections, list) else []:
        if isinstance(collection, dict) and collection.get("name") == LEGACY_COLLECTION:
            entries = collection.get("data")
            return _keys(entries if isinstance(entries, list) else [])
    raise InputError(f"{name}: neither an SQLite database nor a LokiJS file with a {LEGACY_COLLECTION} collection")


def _json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{name}: damaged ({exc})") from None


def _keys(entries: Iterable[Any]) -> Keys:
    keys: Keys = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        library, item_key, citekey = entry.get("libraryID"), entry.get("itemKey"), entry.get("citekey")
        if isinstance(item_key, str) and isinstance(citekey, str) and citekey.strip():
            try:
                keys[(int(library) if library is not None else 1, item_key)] = citekey.strip()
            except (TypeError, ValueError):
                continue
    return keys
