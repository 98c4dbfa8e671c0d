"""Which reader reads a file: one table by ending, and for text files that many formats share (.txt),
sniffers that look at what the file holds. Adding a format is one reader and one table entry.

A reader returns the file's papers and a warning (``file:line``) per entry it could not use, or raises
``InputError`` when nothing in the file is usable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.bibtex import parse_bibtex
from rag.corpus.csljson import read_csl_json
from rag.corpus.exports import parse_records
from rag.corpus.medline import looks_like_medline, parse_medline
from rag.corpus.pdf_cache import PdfCache
from rag.corpus.plaintext import parse_text_document
from rag.corpus.ris import looks_like_ris, parse_ris
from rag.corpus.seeds import METADATA_FILE, Metadata, is_seed_list, parse_metadata, parse_seed_list
from rag.corpus.textfile import read_export_file, read_text_file
from rag.corpus.wos import looks_like_wos_plain, looks_like_wos_tab, parse_wos_plain, parse_wos_tab
from rag.corpus.zotero import read_zotero
from rag.records import Paper, ProgressFn, SeedList


@dataclass
class ReadOptions:
    mapping: Mapping[str, str] = field(default_factory=dict)  # --field NAME=COLUMN for record exports
    full_text: bool = True  # a PDF's body as passages
    zotero_collections: tuple[str, ...] = ()  # --zotero-collection: only these (and their sub-collections)
    pdf_cache: Path | None = None  # where parsed PDFs are kept between ingests (None: parse every time)
    progress: ProgressFn | None = None  # files read, and within a Zotero library its items
    _metadata: dict[Path, Metadata] = field(default_factory=dict)
    _pdfs: PdfCache | None = None

    @property
    def pdfs(self) -> PdfCache:
        """The PDF parser through the cache, one per read, counting what it parsed and reused."""
        if self._pdfs is None:
            self._pdfs = PdfCache(self.pdf_cache)
        return self._pdfs

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
    # Ids of papers read from rag's own export records: copies of a library's papers (rag.corpus.own_records).
    copies: frozenset[str] = frozenset()


Reader = Callable[[Path, ReadOptions], FileRead]
# A parser of one export format: (text, file name) -> (papers, warnings).
ExportParser = Callable[[str, str], tuple[list[Paper], list[str]]]
# A text format recognised by what the text holds: (looks like it, read it).
TextSniffer = tuple[Callable[[str], bool], Callable[[str, Path, ReadOptions], FileRead]]


def _own_list(file: Path, papers: list[Paper], warnings: list[str], copies: frozenset[str] = frozenset()) -> FileRead:
    """Most files are their own list: papers.tsv-style subjects belong to seed lists only."""
    return FileRead(SeedList(file.name, file.name), papers, warnings, copies)


def _pdf(file: Path, options: ReadOptions) -> FileRead:
    return _own_list(file, [options.pdfs.parse(file, file.name, options.full_text)], [])


def _zotero(file: Path, options: ReadOptions) -> FileRead:
    """A Zotero database: the whole library is one file, each item one entry."""
    read = read_zotero(file, options.zotero_collections, options.full_text, options.pdfs, options.progress)
    return _own_list(file, *read)


def _bibtex(file: Path, options: ReadOptions) -> FileRead:
    return _own_list(file, *parse_bibtex(read_text_file(file), file.name))


def _records(file: Path, options: ReadOptions) -> FileRead:
    text, warnings = read_export_file(file)
    if file.suffix.lower() == ".tsv" and looks_like_wos_tab(text):
        papers, more = parse_wos_tab(text, file.name)
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
    (looks_like_ris, _sniffed(parse_ris)),
    (looks_like_wos_plain, _sniffed(parse_wos_plain)),
    (looks_like_wos_tab, _sniffed(parse_wos_tab)),
    (looks_like_medline, _sniffed(parse_medline)),
]


def _text(file: Path, options: ReadOptions) -> FileRead:
    text = read_text_file(file)
    read = next((reader for looks_like, reader in TEXT_SNIFFERS if looks_like(text)), _plain_text)
    return read(text, file, options)


def _markdown(file: Path, options: ReadOptions) -> FileRead:
    return _plain_text(read_text_file(file), file, options)


READERS: dict[str, Reader] = {
    ".txt": _text,
    ".md": _markdown,
    ".markdown": _markdown,
    ".bib": _bibtex,
    ".pdf": _pdf,
    ".jsonl": _records,
    ".json": _json,
    ".csv": _records,
    ".tsv": _records,
    ".ris": _export(parse_ris),
    ".ciw": _export(parse_wos_plain),
    ".nbib": _export(parse_medline),
    ".sqlite": _zotero,
}
