"""What rag reads of a Zotero database: its tables and columns, the schema versions it knows, and
Zotero's item types in CSL's terms.

Zotero numbers its schema in the ``version`` table; ``userdata`` is the one that changes the tables
rag reads. rag was tested on userdata 120 (Zotero 6) and 123 (Zotero 7). Zotero's schema changes
are additive as a rule, so a newer database whose tables still have every column rag reads is read,
with one line saying it is newer than rag knows; one that lacks any of them is refused, saying
which, and what to do instead.
"""

from __future__ import annotations

import sqlite3

from rag.corpus.sqlite_files import missing_columns, table_names
from rag.errors import InputError

ZOTERO_DATABASE = "zotero.sqlite"
# The userdata schema versions of the databases rag was tested on (Zotero 6, Zotero 7).
TESTED_USERDATA = (120, 123)
EXPORT_INSTEAD = "or export the library from Zotero (File > Export Library..., BibTeX or CSL JSON) and ingest that"

# Every table and column the reader queries (rag.corpus.zotero_db); tests check them against real databases.
READ_COLUMNS: dict[str, tuple[str, ...]] = {
    "version": ("schema", "version"),
    "items": ("itemID", "itemTypeID", "libraryID", "key", "dateAdded"),
    "itemTypesCombined": ("itemTypeID", "typeName"),
    "itemData": ("itemID", "fieldID", "valueID"),
    "itemDataValues": ("valueID", "value"),
    "fieldsCombined": ("fieldID", "fieldName"),
    "baseFieldMappingsCombined": ("itemTypeID", "baseFieldID", "fieldID"),
    "creators": ("creatorID", "firstName", "lastName", "fieldMode"),
    "itemCreators": ("itemID", "creatorID", "creatorTypeID", "orderIndex"),
    "creatorTypes": ("creatorTypeID", "creatorType"),
    "itemTypeCreatorTypes": ("itemTypeID", "creatorTypeID", "primaryField"),
    "collections": ("collectionID", "collectionName", "parentCollectionID"),
    "collectionItems": ("collectionID", "itemID"),
    "deletedItems": ("itemID",),
    "feedItems": ("itemID",),
    "itemAttachments": ("itemID", "parentItemID", "linkMode", "contentType", "path"),
}
# Read when there (Zotero 7 puts trashed collections here; older databases delete them outright).
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {"deletedCollections": ("collectionID",)}

# Item types that are parts of other items, never papers.
NOT_PAPERS = ("attachment", "note", "annotation")
# A type Zotero adds later (or a custom one) is a document until rag knows better.
FALLBACK_CSL_TYPE = "document"


def check_schema(connection: sqlite3.Connection, name: str) -> list[str]:
    """Warnings for a database rag can read; ``InputError`` (one line: why, and what to do) for one it cannot."""
    tables = table_names(connection)
    userdata = _userdata_version(connection) if "version" in tables else None
    if userdata is None:
        if {"citationkey", "better-bibtex"} & tables:
            raise InputError(
                f"{name}: a Better BibTeX database (citation keys only), not a Zotero library; "
                f"ingest the {ZOTERO_DATABASE} of its Zotero data directory, which reads these keys"
            )
        raise InputError(f"{name}: an SQLite database but not a Zotero library (no userdata schema version)")
    oldest, newest = TESTED_USERDATA
    missing = missing_columns(connection, READ_COLUMNS)
    if missing:
        if userdata > newest:
            raise InputError(
                f"{name}: Zotero schema userdata {userdata} is newer than rag supports (up to {newest}) and has "
                f"changed what rag reads ({', '.join(missing[:3])} missing); update rag, {EXPORT_INSTEAD}"
            )
        if userdata < oldest:
            raise InputError(
                f"{name}: Zotero schema userdata {userdata} is older than rag supports ({oldest} to {newest}); "
                f"open the library once in a current Zotero, which upgrades it, {EXPORT_INSTEAD}"
            )
        raise InputError(f"{name}: not a complete Zotero database ({', '.join(missing[:3])} missing)")
    if userdata > newest:
        return [
            f"{name}: Zotero schema userdata {userdata} is newer than rag was tested with (up to {newest}); "
            "every table and column rag reads is there, so it was read: if anything looks wrong, update rag"
        ]
    return []


def _userdata_version(connection: sqlite3.Connection) -> int | None:
    try:
        row = connection.execute("SELECT version FROM version WHERE schema = 'userdata'").fetchone()
    except sqlite3.OperationalError:  # a table named version with other columns
        return None
    try:
        return int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        return None
