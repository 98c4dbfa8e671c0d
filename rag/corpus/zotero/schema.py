"""What rag reads of a Zotero database: its tables and columns, the schema versions it knows, and
Zotero's item types in CSL's terms.

Zotero numbers its schema in the ``version`` table; ``userdata`` is the one that changes the tables
rag reads. rag was tested on userdata 120 (Zotero 6) and 123 (Zotero 7). Zotero's schema changes
are additive as a rule, so a newer database whose tables still have every column rag reads is read,
with one line saying it is newer than rag knows; one that lacks any of them is refused, saying
which, and what to do instead.

An older database (Zotero 5, and Zotero 4's userdata 7x) is read from the tables it shares with
today's, with one line naming its schema. What moved is one ``Dialect``: Zotero 4 keeps names in
``creatorData`` (``creators`` points at them), calls an attachment's parent ``sourceItemID`` and its
type ``mimeType``, and has no feeds.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace

from rag.corpus.zotero.sqlite_files import missing_columns, table_names
from rag.errors import InputError

ZOTERO_DATABASE = "zotero.sqlite"
# The userdata schema versions of the databases rag was tested on (Zotero 6, Zotero 7).
TESTED_USERDATA = (120, 123)
EXPORT_INSTEAD = "or export the library from Zotero (File > Export Library..., BibTeX or CSL JSON) and ingest that"

# Every table and column the reader queries in today's schema (rag.corpus.zotero.database); tests check them against
# real databases.
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
# Zotero 5.0.74+ keeps Retraction Watch's notices here (an item listed is retracted, whether or not the user
# hid the banner); older databases have no such table.
RETRACTED_COLUMNS: dict[str, tuple[str, ...]] = {"retractedItems": ("itemID",)}
# Zotero 4's names of what READ_COLUMNS reads elsewhere (userdata 7x; Zotero 5 moved them).
ZOTERO4_COLUMNS: dict[str, tuple[str, ...]] = {
    "creators": ("creatorID", "creatorDataID"),
    "creatorData": ("creatorDataID", "firstName", "lastName", "fieldMode"),
    "itemAttachments": ("itemID", "sourceItemID", "linkMode", "mimeType", "path"),
}
# Tables an older database may lack without rag missing anything it needs: no feeds before Zotero 5.
NOT_NEEDED = ("feedItems",)


@dataclass(frozen=True)
class Dialect:
    """Where a database keeps what rag reads: today's tables, or Zotero 4's names for some of them."""

    # The join from itemCreators ic to the names: c.firstName, c.lastName, c.fieldMode.
    creators: str = "JOIN creators c ON c.creatorID = ic.creatorID"
    parent: str = "parentItemID"  # an attachment's item
    content_type: str = "contentType"
    feeds: bool = True  # feedItems is there (items in it are feed entries, not the library's)


TODAY = Dialect()
ZOTERO4 = Dialect(
    creators="JOIN creators cr ON cr.creatorID = ic.creatorID JOIN creatorData c ON c.creatorDataID = cr.creatorDataID",
    parent="sourceItemID",
    content_type="mimeType",
    feeds=False,
)

# Item types that are parts of other items, never papers.
NOT_PAPERS = ("attachment", "note", "annotation")
# A type Zotero adds later (or a custom one) is a document until rag knows better.
FALLBACK_CSL_TYPE = "document"


def check_schema(connection: sqlite3.Connection, name: str) -> tuple[Dialect, list[str]]:
    """How to read a database rag can read, and a warning when it is not one rag was tested on;
    ``InputError`` (one line: why, and what to do) for one it cannot read."""
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
    dialect, missing = _dialect(connection)
    if missing:
        if userdata > newest:
            raise InputError(
                f"{name}: Zotero schema userdata {userdata} is newer than rag supports (up to {newest}) and has "
                f"changed what rag reads ({', '.join(missing[:3])} missing); update rag, {EXPORT_INSTEAD}"
            )
        if userdata < oldest:
            raise InputError(
                f"{name}: Zotero schema userdata {userdata} is older than rag can read ({', '.join(missing[:3])} "
                f"missing); open the library once in a current Zotero, which upgrades it, {EXPORT_INSTEAD}"
            )
        raise InputError(f"{name}: not a complete Zotero database ({', '.join(missing[:3])} missing)")
    if userdata > newest:
        return dialect, [
            f"{name}: Zotero schema userdata {userdata} is newer than rag was tested with (up to {newest}); "
            "every table and column rag reads is there, so it was read: if anything looks wrong, update rag"
        ]
    if userdata < oldest:
        era = "Zotero 4" if dialect.parent == ZOTERO4.parent else "Zotero 5"
        return dialect, [
            f"{name}: Zotero schema userdata {userdata} ({era} era) is older than rag was tested with ({oldest} to "
            f"{newest}); read from the tables it shares with today's schema: if anything looks wrong, open the "
            "library once in a current Zotero, which upgrades it"
        ]
    return dialect, []


def _dialect(connection: sqlite3.Connection) -> tuple[Dialect, list[str]]:
    """Today's schema when it has everything, else Zotero 4's when that has everything; and what is missing."""
    missing = [m for m in missing_columns(connection, READ_COLUMNS) if m not in NOT_NEEDED]
    feeds = "feedItems" not in missing_columns(connection, {"feedItems": ("itemID",)})
    if not missing:
        return replace(TODAY, feeds=feeds), []
    shared = {table: columns for table, columns in READ_COLUMNS.items() if table not in ZOTERO4_COLUMNS}
    old = [m for m in missing_columns(connection, {**shared, **ZOTERO4_COLUMNS}) if m not in NOT_NEEDED]
    if not old:
        return replace(ZOTERO4, feeds=feeds), []
    return TODAY, missing


def _userdata_version(connection: sqlite3.Connection) -> int | None:
    try:
        row = connection.execute("SELECT version FROM version WHERE schema = 'userdata'").fetchone()
    except sqlite3.OperationalError:  # a table named version with other columns
        return None
    try:
        return int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        return None
