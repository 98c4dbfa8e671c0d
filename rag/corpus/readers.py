"""Which reader reads a file: one table by ending, and for text files that many formats share (.txt),
sniffers that look at what the file holds. Adding a format is one reader, one entry in
``rag.corpus.file_formats`` (its name and endings) and one line pairing them here.

A reader returns the file's papers and a warning (``file:line``) per entry it could not use, or raises
``InputError`` when nothing in the file is usable.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.corpus import file_formats as files
from rag.corpus.plaintext import parse_text_document
from rag.corpus.seeds import METADATA_FILE, Metadata, is_seed_list, parse_metadata, parse_seed_list
from rag.corpus.textfile import read_export_file, read_text_file
from rag.records import Paper, ProgressFn, SeedList

if TYPE_CHECKING:
    from rag.corpus.exports.bib_database import BibDatabase
    from rag.corpus.pdf.cache import PdfCache


@dataclass
class ReadOptions:
    mapping: Mapping[str, str] = field(default_factory=dict)  # --field NAME=COLUMN for record exports
    full_text: bool = True  # a PDF's body as passages
    zotero_collections: tuple[str, ...] = ()  # --zotero-collection: only these (and their sub-collections)
    pdf_cache: Path | None = None  # where parsed PDFs are kept between ingests (None: parse every time)
    progress: ProgressFn | None = None  # files read, and within a Zotero library its items
    # The .bib files of this read: read together, as BibTeX reads a \bibliography of several (their @string
    # macros and abstract-only entries shared: rag.corpus.exports.bib_database).
    bib_files: tuple[Path, ...] = ()
    _metadata: dict[Path, Metadata] = field(default_factory=dict)
    _pdfs: PdfCache | None = None
    _bib_database: BibDatabase | None = None

    def bib_database(self) -> BibDatabase | None:
        """The .bib files of this read as one database, read once; None for a single .bib file."""
        if len(self.bib_files) < 2:
            return None
        if self._bib_database is None:
            from rag.corpus.exports.bib_database import BibDatabase

            self._bib_database = BibDatabase.read(self.bib_files)
        return self._bib_database

    @property
    def pdfs(self) -> PdfCache:
        """The PDF parser through the cache, one per read, counting what it parsed and reused."""
        if self._pdfs is None:
            from rag.corpus.pdf.cache import PdfCache

            self._pdfs = PdfCache(self.pdf_cache)
        return self._pdfs

    def pdf_counts(self) -> tuple[int, int]:
        """PDFs parsed and reused by this read (none read: the PDF reader was never loaded)."""
        return (0, 0) if self._pdfs is None else (self._pdfs.parsed, self._pdfs.reused)

    def metadata_for(self, folder: Path) -> Metadata:
        """The papers.tsv beside seed lists, read once per folder."""
        if folder not in self._metadata:
            tsv = folder / METADATA_FILE
            self._metadata[folder] = parse_metadata(read_text_file(tsv), str(tsv)) if tsv.is_file() else {}
        return self._metadata[folder]


@dataclass
class FileRead:
    seed_list: SeedList
    papers: list[Paper]
    warnings: list[str] = field(default_factory=list)
    # Ids of papers read from rag's own export records: copies of a library's papers (rag.corpus.exports.own_records).
    copies: frozenset[str] = frozenset()


Reader = Callable[[Path, ReadOptions], FileRead]
# A parser of one export format: (text, file name) -> (papers, warnings).
ExportParser = Callable[[str, str], tuple[list[Paper], list[str]]]
# A text format recognised by what the text holds: (looks like it, read it).
TextSniffer = tuple[Callable[[str], bool], Callable[[str, Path, ReadOptions], FileRead]]


@dataclass(frozen=True)
class TaggedFormat:
    """A tag-per-line export (rag.corpus.exports): its module is imported only when a file of it is met, or when
    a .txt file is sniffed, so that reading the seeds or a BibTeX file loads none of them."""

    module: str
    looks_like: str
    parse: str

    def _function(self, name: str) -> Callable[..., Any]:
        function: Callable[..., Any] = getattr(importlib.import_module(f"rag.corpus.exports.{self.module}"), name)
        return function

    def recognises(self, text: str) -> bool:
        return bool(self._function(self.looks_like)(text))

    def read(self, text: str, name: str) -> tuple[list[Paper], list[str]]:
        papers, warnings = self._function(self.parse)(text, name)
        return list(papers), list(warnings)


_RIS = TaggedFormat("ris", "looks_like_ris", "parse_ris")
_WOS_PLAIN = TaggedFormat("wos", "looks_like_wos_plain", "parse_wos_plain")
_WOS_TAB = TaggedFormat("wos", "looks_like_wos_tab", "parse_wos_tab")
_MEDLINE = TaggedFormat("medline", "looks_like_medline", "parse_medline")


def _own_list(file: Path, papers: list[Paper], warnings: list[str], copies: frozenset[str] = frozenset()) -> FileRead:
    """Most files are their own list: papers.tsv-style subjects belong to seed lists only."""
    return FileRead(SeedList(file.name, file.name), papers, warnings, copies)


def _pdf(file: Path, options: ReadOptions) -> FileRead:
    return _own_list(file, [options.pdfs.parse(file, file.name, options.full_text)], [])


def _zotero(file: Path, options: ReadOptions) -> FileRead:
    """A Zotero database: the whole library is one file, each item one entry."""
    from rag.corpus.zotero.library import read_zotero

    read = read_zotero(file, options.zotero_collections, options.full_text, options.pdfs, options.progress)
    return _own_list(file, *read)


def _bibtex(file: Path, options: ReadOptions) -> FileRead:
    from rag.corpus.exports.bibtex import parse_bibtex

    return _own_list(file, *parse_bibtex(read_text_file(file), file.name, options.bib_database(), file))


def _records(file: Path, options: ReadOptions) -> FileRead:
    from rag.corpus.exports.tabular import parse_records

    text, warnings = read_export_file(file)
    if file.suffix.lower() == ".tsv" and _WOS_TAB.recognises(text):
        papers, more = _WOS_TAB.read(text, file.name)
        return _own_list(file, papers, warnings + more)
    papers, more, copies = parse_records(text, file.name, file.suffix.lower(), options.mapping)
    return _own_list(file, papers, warnings + more, copies)


def _export(parse: ExportParser) -> Reader:
    """A reader for a file of one export format (read as Windows-1252, with a warning, when not UTF-8)."""

    def read(file: Path, options: ReadOptions) -> FileRead:
        text, warnings = read_export_file(file)
        papers, more = parse(text, file.name)
        return _own_list(file, papers, warnings + more)

    return read


def _sniffed(parse: ExportParser) -> Callable[[str, Path, ReadOptions], FileRead]:
    """A reader for an export found in a .txt file."""
    return lambda text, file, options: _own_list(file, *parse(text, file.name))


def _json(file: Path, options: ReadOptions) -> FileRead:
    """A list of CSL items (Zotero, Pandoc) is read for its ids as citekeys; other JSON is an export."""
    from rag.corpus.exports.csljson import read_csl_json
    from rag.corpus.exports.tabular import parse_records

    text = read_text_file(file)
    if (csl := read_csl_json(text, file.name)) is not None:
        return _own_list(file, *csl)
    return _own_list(file, *parse_records(text, file.name, ".json", options.mapping))


def _seed_list(text: str, file: Path, options: ReadOptions) -> FileRead:
    seed_list, papers = parse_seed_list(text, file.name, options.metadata_for(file.parent))
    return FileRead(seed_list, papers)


def _plain_text(text: str, file: Path, options: ReadOptions) -> FileRead:
    return _own_list(file, [parse_text_document(text, file.name)], [])


# Tried in order on a text file; plain text (one paper per file) when none recognises it.
TEXT_SNIFFERS: list[TextSniffer] = [
    (is_seed_list, _seed_list),
    (_RIS.recognises, _sniffed(_RIS.read)),
    (_WOS_PLAIN.recognises, _sniffed(_WOS_PLAIN.read)),
    (_WOS_TAB.recognises, _sniffed(_WOS_TAB.read)),
    (_MEDLINE.recognises, _sniffed(_MEDLINE.read)),
]


def _text(file: Path, options: ReadOptions) -> FileRead:
    text = read_text_file(file)
    read = next((reader for looks_like, reader in TEXT_SNIFFERS if looks_like(text)), _plain_text)
    return read(text, file, options)


def _markdown(file: Path, options: ReadOptions) -> FileRead:
    return _plain_text(read_text_file(file), file, options)


# Each format of rag.corpus.file_formats and its reader; every ending of the format dispatches to it.
_READER_OF: tuple[tuple[files.FileFormat, Reader], ...] = (
    (files.TEXT, _text),
    (files.MARKDOWN, _markdown),
    (files.BIBTEX, _bibtex),
    (files.PDF, _pdf),
    (files.RECORDS, _records),
    (files.JSON, _json),
    (files.RIS, _export(_RIS.read)),
    (files.WOS, _export(_WOS_PLAIN.read)),
    (files.MEDLINE, _export(_MEDLINE.read)),
    (files.ZOTERO, _zotero),
)
READERS: dict[str, Reader] = {ending: reader for file_format, reader in _READER_OF for ending in file_format.endings}
