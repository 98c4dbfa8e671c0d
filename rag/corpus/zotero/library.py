"""A Zotero library read straight from its database (``zotero.sqlite``), never changing it.

Each regular item (not a note, attachment or annotation; not in the trash) is one paper, cited as
``zotero.sqlite#<item key>``: title, creators, year, abstract, DOI, URL, venue, volume, issue,
pages, publisher, CSL item type, and the paths of the collections it is filed in
(``Parent/Child``). Its first readable PDF under ``storage/<attachment key>/`` (or a linked PDF at an
absolute path) gives the full-text passages, and the abstract when the item has none. Citekeys: Zotero's
own ``citationKey`` field (Zotero 7.0.31 and later), else the Better BibTeX database beside it, else a
``Citation Key: KEY`` line in Extra, else none (rag gives one).

Reading again is cheap except for the PDFs, which go through the PDF cache (rag.corpus.pdf.cache):
an unchanged file is not parsed again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rag.corpus.cleaning import clean_prose, clean_title
from rag.corpus.entries import clean_doi, clean_text, saying_something
from rag.corpus.identity import arxiv_in, content_id
from rag.corpus.pdf.cache import PdfCache
from rag.corpus.types import csl_type
from rag.corpus.zotero.attachments import AttachedPdfs
from rag.corpus.zotero.betterbibtex import Keys, better_bibtex_keys
from rag.corpus.zotero.database import ZoteroItem, ZoteroLibrary, read_library
from rag.corpus.zotero.schema import FALLBACK_CSL_TYPE, check_schema
from rag.corpus.zotero.sqlite_files import open_readonly, unfinished_writes
from rag.errors import InputError, OptionError
from rag.records import Paper, ProgressFn
from rag.text import plural

REPAIR_HINT = "restore Zotero's backup beside it (zotero.sqlite.bak) or let Zotero repair it (Settings > Advanced)"
# Collections named in the error for an unknown --zotero-collection.
MAX_LISTED_COLLECTIONS = 30
_CITATION_KEY_LINE = re.compile(r"^\s*citation key\s*:\s*(\S+)\s*$", re.I | re.M)
_DOI_LINE = re.compile(r"^\s*doi\s*:\s*(\S+)\s*$", re.I | re.M)
_SQL_DATE = re.compile(r"^(\d{4})-\d\d-\d\d")
_ANY_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
# Where an arXiv id may be said: a preprint's archive id ('arXiv:2206.01288'), the URL, DOI or Extra.
_ARXIV_FIELDS = ("archiveID", "url", "DOI", "extra", "number")
# Venue: the base field for journal, proceedings, book, website and blog titles, then the conference's name.
_VENUE_FIELDS = ("publicationTitle", "conferenceName", "journalAbbreviation")


def read_zotero(
    path: Path, collections: Sequence[str], full_text: bool, pdfs: PdfCache, progress: ProgressFn | None = None
) -> tuple[list[Paper], list[str]]:
    """The papers of the Zotero database ``path`` (only those in ``collections`` and below them, when
    given), and a warning per thing left out; ``InputError`` when the database cannot be read at all."""
    warnings: list[str] = []
    if (pending := unfinished_writes(path)) is not None:
        warnings.append(
            f"{path.name}: {pending} beside it holds changes Zotero had not finished writing; they are not read "
            "(run `rag ingest` again once Zotero is idle, or after closing it)"
        )
    with open_readonly(path, REPAIR_HINT) as connection:
        dialect, schema_warnings = check_schema(connection, path.name)
        warnings += schema_warnings
        library = read_library(connection, dialect)
    chosen = _chosen_collections(library, collections, path.name)
    keys, bbt_warnings = better_bibtex_keys(path.parent)
    warnings += bbt_warnings
    attached = AttachedPdfs(path.parent, full_text, pdfs)
    papers = _papers(path, library, chosen, keys, attached, progress)
    warnings += attached.report()
    if library.standalone_pdfs and chosen is None:
        alone = library.standalone_pdfs
        warnings.append(
            f"{path.name}: {plural(alone, 'PDF')} {'is' if alone == 1 else 'are'} not attached to an item, "
            "so not read (in Zotero: right-click > Create Parent Item)"
        )
    if not papers:
        within = f" in {', '.join(collections)}" if collections else ""
        raise InputError(f"{path.name}: no items to read{within}")
    return papers, warnings


def _papers(
    path: Path,
    library: ZoteroLibrary,
    chosen: set[int] | None,
    keys: Keys,
    attached: AttachedPdfs,
    progress: ProgressFn | None,
) -> list[Paper]:
    """A paper per item (in the ``chosen`` collections, when given), with its PDF's full text;
    what is left out is said in ``attached.warnings``."""
    papers: list[Paper] = []
    seen: set[str] = set()
    items = [item for item in library.items if chosen is None or chosen & set(item.collection_ids)]
    for done, item in enumerate(items):
        if progress is not None:  # a first read parses every PDF: minutes for a big library
            progress("reading Zotero items", done, len(items))
        where = f"{path.name}#{item.key}"
        if item.key in seen:  # two libraries (yours and a group's) may hold the same key
            attached.warnings.append(f"{where}: a second item with this key (another library); kept the first")
            continue
        seen.add(item.key)
        paper = _paper(item, library, path.name, _citekey(item, keys))
        attached.add_full_text(paper, item)
        if not paper.title and paper.no_abstract:
            attached.warnings.append(f"{where}: item has neither title nor abstract, skipped")
            continue
        papers.append(paper)
    if progress is not None:
        progress("reading Zotero items", len(items), len(items))
    return papers


def _chosen_collections(library: ZoteroLibrary, names: Sequence[str], file_name: str) -> set[int] | None:
    """The collections named (by name or path, in any case) and those below them; None for the whole library."""
    if not names:
        return None
    matched: set[int] = set()
    unknown = []
    for name in names:
        wanted = name.strip().casefold()
        found = {
            cid
            for cid, path in library.collections.items()
            if wanted in (path.casefold(), library.names[cid].casefold())
        }
        matched |= found
        if not found:
            unknown.append(name)
    if unknown:
        known = sorted(library.collections.values(), key=str.casefold)
        listing = ", ".join(known[:MAX_LISTED_COLLECTIONS])
        if len(known) > MAX_LISTED_COLLECTIONS:
            listing += f" ... ({len(known)} in all)"
        there = f"its collections are: {listing}" if known else "it has no collections (leave out --zotero-collection)"
        raise OptionError(f"{file_name}: no collection named {', '.join(map(repr, unknown))}; {there}")
    return library.subtree(matched)


def _citekey(item: ZoteroItem, keys: Keys) -> str:
    if native := item.fields.get("citationKey", "").strip():
        return native
    if found := keys.get((item.library_id, item.key)):
        return found
    match = _CITATION_KEY_LINE.search(item.fields.get("extra", ""))
    return match.group(1) if match else ""


def _year(date: str) -> int | None:
    """Zotero keeps dates as 'YYYY-MM-DD original' ('2019-12-00 12/2019'), with 0000 for an unknown year."""
    match = _SQL_DATE.match(date)
    if match and match.group(1) != "0000":
        return int(match.group(1))
    years = [year for year in _ANY_YEAR.findall(date) if year != "0000"]
    return int(years[0]) if years else None


def _paper(item: ZoteroItem, library: ZoteroLibrary, file_name: str, citekey: str) -> Paper:
    fields = item.fields
    title = clean_title(clean_text(fields.get("title", "")))
    abstract = clean_prose(clean_text(fields.get("abstractNote", "")))
    abstract = abstract if saying_something(abstract) else ""
    authors = item.authors
    doi_line = _DOI_LINE.search(fields.get("extra", ""))  # item types without a DOI field keep it in Extra
    return Paper(
        id=content_id(abstract or f"{title}\n{'; '.join(authors)}"),
        text=abstract or title,
        title=title or None,
        authors=authors,
        year=_year(fields.get("date", "")),
        arxiv=next((found for name in _ARXIV_FIELDS if (found := arxiv_in(fields.get(name, "")))), None),
        doi=clean_doi(fields.get("DOI") or (doi_line.group(1) if doi_line else "")),
        citekey=citekey,
        sources=[f"{file_name}#{item.key}"],
        lists=[file_name],
        no_abstract=not abstract,
        venue=next((value for name in _VENUE_FIELDS if (value := clean_text(fields.get(name, "")))), None),
        volume=fields.get("volume") or None,
        issue=fields.get("issue") or None,
        pages=fields.get("pages") or None,
        publisher=fields.get("publisher") or None,
        url=fields.get("url") or None,
        item_type=csl_type("zotero", item.type_name) or FALLBACK_CSL_TYPE,
        collections=sorted({library.collections[cid] for cid in item.collection_ids}, key=str.casefold),
        retracted=item.retracted,
    )
