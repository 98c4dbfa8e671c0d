"""The rows rag needs from a Zotero database, as plain records: its regular items (not in the trash,
not feed items) with their fields, creators, collections and attachments, and the collection tree.

A field is kept under its own name and, where Zotero maps it to a base field (``proceedingsTitle``,
``bookTitle`` and ``websiteTitle`` are ``publicationTitle``; ``university`` is ``publisher``), under
that base field's name too, so the reader asks for one name whatever the item type.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from rag.corpus.zotero.schema import NOT_PAPERS, OPTIONAL_COLUMNS, RETRACTED_COLUMNS, TODAY, Dialect
from rag.corpus.zotero.sqlite_files import missing_columns

# Zotero's attachment link modes (Zotero.Attachments.LINK_MODE_*): the file is in storage/<key>/ for
# the first two, anywhere on disk for a linked file; a linked URL has no file.
IMPORTED_FILE, IMPORTED_URL, LINKED_FILE = 0, 1, 2
PDF_TYPE = "application/pdf"
# Which creators are a work's authors: the item type's primary creators (authors, a film's
# directors, a program's programmers), else its editors, else whoever is named.
PRIMARY, EDITOR, OTHER = 0, 1, 2
COLLECTION_SEPARATOR = "/"

_NOT_PAPERS = ", ".join(f"'{name}'" for name in NOT_PAPERS)
COLLECTIONS_SQL = "SELECT collectionID, collectionName, parentCollectionID FROM collections"
TRASHED_COLLECTIONS_SQL = "SELECT collectionID FROM deletedCollections"
COLLECTION_ITEMS_SQL = "SELECT collectionID, itemID FROM collectionItems"
RETRACTED_SQL = "SELECT itemID FROM retractedItems"


@dataclass(frozen=True)
class Queries:
    """The SQL that reads a database of one ``Dialect``."""

    items: str
    fields: str
    creators: str
    attachments: str

    @classmethod
    def of(cls, dialect: Dialect) -> Queries:
        live = "i.itemID NOT IN (SELECT itemID FROM deletedItems)"
        if dialect.feeds:
            live += " AND i.itemID NOT IN (SELECT itemID FROM feedItems)"
        # Zotero 4 left a personal library's libraryID empty; Zotero 5 made it 1 (what Better BibTeX keys by).
        return cls(
            items=f"""
SELECT i.itemID, COALESCE(i.libraryID, 1), i.key, t.typeName FROM items i
JOIN itemTypesCombined t ON t.itemTypeID = i.itemTypeID
WHERE {live} AND t.typeName NOT IN ({_NOT_PAPERS}) ORDER BY i.itemID""",
            fields="""
SELECT d.itemID, f.fieldName, b.fieldName, v.value FROM itemData d
JOIN items i ON i.itemID = d.itemID
JOIN fieldsCombined f ON f.fieldID = d.fieldID
JOIN itemDataValues v ON v.valueID = d.valueID
LEFT JOIN baseFieldMappingsCombined m ON m.itemTypeID = i.itemTypeID AND m.fieldID = d.fieldID
LEFT JOIN fieldsCombined b ON b.fieldID = m.baseFieldID""",
            creators=f"""
SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, ct.creatorType, COALESCE(tc.primaryField, 0)
FROM itemCreators ic
JOIN items i ON i.itemID = ic.itemID
{dialect.creators}
JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID
LEFT JOIN itemTypeCreatorTypes tc ON tc.itemTypeID = i.itemTypeID AND tc.creatorTypeID = ic.creatorTypeID
ORDER BY ic.itemID, ic.orderIndex""",
            attachments=f"""
SELECT a.{dialect.parent}, i.key, a.linkMode, a.{dialect.content_type}, a.path FROM itemAttachments a
JOIN items i ON i.itemID = a.itemID WHERE {live} ORDER BY a.{dialect.parent}, i.dateAdded, i.itemID""",
        )


@dataclass
class Attachment:
    key: str  # the attachment item's own key: its folder under storage/
    link_mode: int
    content_type: str
    path: str  # 'storage:NAME.pdf', an absolute path, or 'attachments:REL' (a linked file's base directory)

    @property
    def is_pdf(self) -> bool:
        return self.content_type == PDF_TYPE or self.path.lower().endswith(".pdf")


@dataclass
class ZoteroItem:
    item_id: int
    library_id: int
    key: str
    type_name: str
    fields: dict[str, str] = field(default_factory=dict)
    creators: list[tuple[int, str]] = field(default_factory=list)  # (PRIMARY/EDITOR/OTHER, name), in order
    collection_ids: list[int] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    retracted: bool = False

    @property
    def authors(self) -> list[str]:
        """The names of the highest-ranked creators, in Zotero's order."""
        best = min((rank for rank, _ in self.creators), default=OTHER)
        return [name for rank, name in self.creators if rank == best]


@dataclass
class ZoteroLibrary:
    items: list[ZoteroItem]
    collections: dict[int, str]  # id -> path from the top ('Thesis/Chapter 2')
    names: dict[int, str]  # id -> its own name ('Chapter 2')
    parents: dict[int, int | None]
    # PDFs at the top level of the library (not attached to an item): files, not references.
    standalone_pdfs: int = 0

    def subtree(self, ids: set[int]) -> set[int]:
        """Of the collections, those in ``ids`` or below one of them."""
        chosen: set[int] = set()
        for collection in self.collections:
            node: int | None = collection
            seen: set[int] = set()
            while node is not None and node not in seen:  # a damaged tree with a cycle ends the walk
                if node in ids:
                    chosen.add(collection)
                    break
                seen.add(node)
                node = self.parents.get(node)
        return chosen


def _name(first: object, last: object, field_mode: object) -> str:
    """'Surname, Given'; a single-field name (an institution, a channel) as Zotero holds it."""
    first, last = str(first or "").strip(), str(last or "").strip()
    if field_mode == 1 or not first:
        return last or first
    return f"{last}, {first}" if last else first


def _creator_rank(creator_type: str, primary: object) -> int:
    if primary:
        return PRIMARY
    return EDITOR if creator_type == "editor" else OTHER


def read_library(connection: sqlite3.Connection, dialect: Dialect = TODAY) -> ZoteroLibrary:
    sql = Queries.of(dialect)
    items = {row[0]: ZoteroItem(row[0], row[1], row[2], row[3]) for row in connection.execute(sql.items)}
    for item_id, name, base, value in connection.execute(sql.fields):
        if (item := items.get(item_id)) is not None and value is not None:
            item.fields[name] = str(value)
            if base:
                item.fields[base] = str(value)
    for item_id, first, last, mode, creator_type, primary in connection.execute(sql.creators):
        if (item := items.get(item_id)) is not None and (name := _name(first, last, mode)):
            item.creators.append((_creator_rank(creator_type, primary), name))
    standalone = 0
    for parent, key, link_mode, content_type, path in connection.execute(sql.attachments):
        mode = link_mode if isinstance(link_mode, int) else -1  # a damaged row names no mode rag reads
        attachment = Attachment(str(key), mode, str(content_type or ""), str(path or ""))
        if parent is None:
            standalone += attachment.is_pdf
        elif (item := items.get(parent)) is not None:
            item.attachments.append(attachment)
    collections, names, parents = _collections(connection)
    for collection_id, item_id in connection.execute(COLLECTION_ITEMS_SQL):
        if collection_id in collections and (item := items.get(item_id)) is not None:
            item.collection_ids.append(collection_id)
    if not missing_columns(connection, RETRACTED_COLUMNS):
        for (item_id,) in connection.execute(RETRACTED_SQL):
            if (item := items.get(item_id)) is not None:
                item.retracted = True
    return ZoteroLibrary(list(items.values()), collections, names, parents, standalone)


def _collections(connection: sqlite3.Connection) -> tuple[dict[int, str], dict[int, str], dict[int, int | None]]:
    """Every collection not in the trash by id: its path from the top, its own name, its parent."""
    trashed: set[int] = set()
    if not missing_columns(connection, OPTIONAL_COLUMNS):
        trashed = {row[0] for row in connection.execute(TRASHED_COLLECTIONS_SQL)}
    names: dict[int, str] = {}
    parents: dict[int, int | None] = {}
    for collection_id, name, parent in connection.execute(COLLECTIONS_SQL):
        names[collection_id], parents[collection_id] = str(name), parent
    children: dict[int | None, list[int]] = defaultdict(list)
    for collection_id, parent in parents.items():
        children[parent if parent in names else None].append(collection_id)
    paths: dict[int, str] = {}
    stack = [(collection_id, names[collection_id]) for collection_id in children[None]]
    while stack:  # from the top down, so a collection under a trashed one is left out with it
        collection_id, path = stack.pop()
        if collection_id in trashed or collection_id in paths:
            continue
        paths[collection_id] = path
        stack.extend((child, f"{path}{COLLECTION_SEPARATOR}{names[child]}") for child in children[collection_id])
    return paths, {cid: names[cid] for cid in paths}, parents
