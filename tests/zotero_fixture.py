"""Small Zotero data directories for tests and benchmarks, built from scratch.

The tables hold the columns rag reads (rag.corpus.zotero.schema.READ_COLUMNS) and a few Zotero
writers change (dateModified, version), written here by hand: nothing is taken from Zotero's own
schema files. A test checks that each real database in ../shared has what this fixture has.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from pdf_fixture import write_pdf

SCHEMA = """
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL);
CREATE TABLE itemTypesCombined (itemTypeID INT NOT NULL, typeName TEXT NOT NULL);
CREATE TABLE fieldsCombined (fieldID INT NOT NULL, fieldName TEXT NOT NULL);
CREATE TABLE baseFieldMappingsCombined (itemTypeID INT, baseFieldID INT, fieldID INT);
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE itemTypeCreatorTypes (itemTypeID INT, creatorTypeID INT, primaryField INT);
CREATE TABLE items (
    itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    dateModified TIMESTAMP DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key));
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID));
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT);
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0);
CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL,
    parentCollectionID INT DEFAULT NULL, libraryID INT NOT NULL DEFAULT 1, key TEXT NOT NULL DEFAULT '');
CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0);
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);
CREATE TABLE deletedCollections (collectionID INTEGER PRIMARY KEY);
CREATE TABLE feedItems (itemID INTEGER PRIMARY KEY);
CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT,
    path TEXT);
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT);
"""
ITEM_TYPES = [
    "note",
    "attachment",
    "annotation",
    "journalArticle",
    "conferencePaper",
    "book",
    "bookSection",
    "thesis",
    "webpage",
    "preprint",
    "videoRecording",
    "someFutureType",
]
FIELDS = [
    "title",
    "abstractNote",
    "date",
    "DOI",
    "url",
    "extra",
    "volume",
    "issue",
    "pages",
    "publisher",
    "publicationTitle",
    "proceedingsTitle",
    "bookTitle",
    "websiteTitle",
    "university",
    "conferenceName",
    "archiveID",
    "citationKey",
]
# (item type, field, its base field): Zotero's mappings for the fields the fixture uses.
BASE_FIELDS = [
    ("conferencePaper", "proceedingsTitle", "publicationTitle"),
    ("bookSection", "bookTitle", "publicationTitle"),
    ("webpage", "websiteTitle", "publicationTitle"),
    ("thesis", "university", "publisher"),
]
CREATOR_TYPES = ["author", "editor", "director", "contributor", "translator"]
PRIMARY_CREATOR = {"videoRecording": "director"}
USER_LIBRARY = 1


class ZoteroFixture:
    """A Zotero data directory under construction: ``folder/zotero.sqlite`` and ``folder/storage/``."""

    def __init__(self, folder: Path, userdata: int = 123) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "zotero.sqlite"
        self.db = sqlite3.connect(self.path)
        self.db.executescript(SCHEMA)
        self.db.executemany("INSERT INTO version VALUES (?, ?)", [("userdata", userdata), ("globalSchema", 30)])
        self.db.execute("INSERT INTO libraries VALUES (?, 'user')", (USER_LIBRARY,))
        self.types = {name: number for number, name in enumerate(ITEM_TYPES, start=1)}
        self.fields = {name: number for number, name in enumerate(FIELDS, start=1)}
        self.creator_types = {name: number for number, name in enumerate(CREATOR_TYPES, start=1)}
        self.db.executemany("INSERT INTO itemTypesCombined VALUES (?, ?)", [(n, t) for t, n in self.types.items()])
        self.db.executemany("INSERT INTO fieldsCombined VALUES (?, ?)", [(n, f) for f, n in self.fields.items()])
        self.db.executemany(
            "INSERT INTO baseFieldMappingsCombined VALUES (?, ?, ?)",
            [(self.types[t], self.fields[base], self.fields[f]) for t, f, base in BASE_FIELDS],
        )
        self.db.executemany("INSERT INTO creatorTypes VALUES (?, ?)", [(n, c) for c, n in self.creator_types.items()])
        self.db.executemany(
            "INSERT INTO itemTypeCreatorTypes VALUES (?, ?, 1)",
            [(n, self.creator_types[PRIMARY_CREATOR.get(t, "author")]) for t, n in self.types.items()],
        )
        self.ids: dict[str, int] = {}  # item key -> itemID
        self.db.commit()

    def item(
        self,
        key: str,
        type_name: str = "journalArticle",
        creators: Sequence[tuple[str, str] | tuple[str, str, str] | str] = (),
        library: int = USER_LIBRARY,
        **fields: str,
    ) -> int:
        """An item; a creator is (first, last[, type]) or a single-field name."""
        cursor = self.db.execute(
            "INSERT INTO items (itemTypeID, libraryID, key) VALUES (?, ?, ?)", (self.types[type_name], library, key)
        )
        item_id = int(cursor.lastrowid or 0)
        self.ids[key] = item_id
        for name, value in fields.items():
            self.set_field(item_id, name, value)
        for order, creator in enumerate(creators):
            if isinstance(creator, str):
                first, last, kind, mode = "", creator, "author", 1
            else:
                first, last, kind, mode = creator[0], creator[1], creator[2] if len(creator) > 2 else "author", 0
            if type_name in PRIMARY_CREATOR and kind == "author":
                kind = PRIMARY_CREATOR[type_name]
            row = self.db.execute(
                "INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)", (first, last, mode)
            )
            self.db.execute(
                "INSERT INTO itemCreators VALUES (?, ?, ?, ?)",
                (item_id, row.lastrowid, self.creator_types[kind], order),
            )
        self.db.commit()
        return item_id

    def set_field(self, item_id: int, name: str, value: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
        (value_id,) = self.db.execute("SELECT valueID FROM itemDataValues WHERE value = ?", (value,)).fetchone()
        self.db.execute("INSERT OR REPLACE INTO itemData VALUES (?, ?, ?)", (item_id, self.fields[name], value_id))

    def touch(self, item_id: int, **fields: str) -> None:
        """What Zotero does when an item is edited: new field values, a new dateModified and version."""
        for name, value in fields.items():
            self.set_field(item_id, name, value)
        self.db.execute(
            "UPDATE items SET dateModified = datetime('now', '+1 minute'), version = version + 1 WHERE itemID = ?",
            (item_id,),
        )
        self.db.commit()

    def collection(self, name: str, parent: int | None = None, *items: int) -> int:
        cursor = self.db.execute(
            "INSERT INTO collections (collectionName, parentCollectionID) VALUES (?, ?)", (name, parent)
        )
        collection_id = int(cursor.lastrowid or 0)
        self.db.executemany("INSERT INTO collectionItems VALUES (?, ?, 0)", [(collection_id, i) for i in items])
        self.db.commit()
        return collection_id

    def pdf(
        self,
        parent: int | None,
        key: str,
        lines: Sequence[str] | None = None,
        more_pages: Sequence[list[str]] = (),
        name: str = "paper.pdf",
        link_mode: int = 1,
        path: str | None = None,
    ) -> int:
        """A PDF attachment of ``parent``; its file under storage/<key>/ is written when ``lines`` are given."""
        attachment = self.item(key, "attachment")
        stored = path if path is not None else f"storage:{name}"
        self.db.execute(
            "INSERT INTO itemAttachments VALUES (?, ?, ?, 'application/pdf', ?)",
            (attachment, parent, link_mode, stored),
        )
        self.db.commit()
        if lines is not None:
            (self.folder / "storage" / key).mkdir(parents=True, exist_ok=True)
            write_pdf(self.folder / "storage" / key / name, list(lines), more_pages=more_pages)
        return attachment

    def note(self, parent: int | None, key: str, text: str = "<p>a note</p>") -> int:
        note = self.item(key, "note")
        self.db.execute("INSERT INTO itemNotes VALUES (?, ?, ?, '')", (note, parent, text))
        self.db.commit()
        return note

    def trash(self, item_id: int) -> None:
        self.db.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (item_id,))
        self.db.commit()

    def trash_collection(self, collection_id: int) -> None:
        self.db.execute("INSERT INTO deletedCollections VALUES (?)", (collection_id,))
        self.db.commit()

    def as_zotero4(self, userdata: int = 77) -> None:
        """The database as Zotero 4 kept it: names in creatorData, an attachment's parent and type under their
        old names, no feeds, no trashed collections."""
        self.db.executescript(
            f"""
            CREATE TABLE creatorData (creatorDataID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT,
                shortName TEXT, fieldMode INT, birthYear INT);
            INSERT INTO creatorData SELECT creatorID, firstName, lastName, '', fieldMode, NULL FROM creators;
            CREATE TABLE creators4 (creatorID INTEGER PRIMARY KEY, creatorDataID INT NOT NULL, key TEXT NOT NULL);
            INSERT INTO creators4 SELECT creatorID, creatorID, 'C' || creatorID FROM creators;
            DROP TABLE creators;
            ALTER TABLE creators4 RENAME TO creators;
            ALTER TABLE itemAttachments RENAME COLUMN parentItemID TO sourceItemID;
            ALTER TABLE itemAttachments RENAME COLUMN contentType TO mimeType;
            DROP TABLE feedItems;
            DROP TABLE deletedCollections;
            UPDATE version SET version = {userdata} WHERE schema = 'userdata';
            """
        )
        self.db.commit()

    def close(self) -> Path:
        self.db.close()
        return self.folder


def better_bibtex_sqlite(folder: Path, keys: dict[str, str], library: int = USER_LIBRARY) -> Path:
    """The current Better BibTeX database: a ``citationkey`` table (item key -> citation key)."""
    path = folder / "better-bibtex.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE citationkey (itemID NOT NULL PRIMARY KEY, itemKey NOT NULL, libraryID NOT NULL, "
        "citationKey NOT NULL, pinned)"
    )
    db.executemany(
        "INSERT INTO citationkey VALUES (?, ?, ?, ?, 0)",
        [(n, item_key, library, citekey) for n, (item_key, citekey) in enumerate(keys.items(), start=1)],
    )
    db.commit()
    db.close()
    return path


def lokijs_entries(keys: dict[str, str], library: int = USER_LIBRARY) -> list[dict[str, object]]:
    return [
        {"citekey": citekey, "pinned": False, "itemID": n, "libraryID": library, "itemKey": item_key, "$loki": n}
        for n, (item_key, citekey) in enumerate(keys.items(), start=1)
    ]


def better_bibtex_legacy(folder: Path, keys: dict[str, str]) -> Path:
    """The legacy Better BibTeX database: LokiJS collections as JSON in a table named better-bibtex."""
    path = folder / "better-bibtex.sqlite"
    db = sqlite3.connect(path)
    db.execute('CREATE TABLE "better-bibtex" (name TEXT PRIMARY KEY NOT NULL, data TEXT NOT NULL)')
    db.execute(
        'INSERT INTO "better-bibtex" VALUES (?, ?)',
        ("better-bibtex.citekey", json.dumps({"name": "citekey", "data": lokijs_entries(keys)})),
    )
    db.execute('INSERT INTO "better-bibtex" VALUES (?, ?)', ("better-bibtex", json.dumps({"collections": []})))
    db.commit()
    db.close()
    return path
