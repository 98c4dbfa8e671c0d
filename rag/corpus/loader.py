"""Files and folders -> merged ``Paper`` records, with a warning per skipped file.

Nothing here touches the index: a bad file is reported before any write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.bibtex import parse_bibtex
from rag.corpus.csljson import read_csl_json
from rag.corpus.exports import parse_records
from rag.corpus.merging import merge_paper
from rag.corpus.pdf import parse_pdf
from rag.corpus.plaintext import parse_text_document
from rag.corpus.seeds import METADATA_FILE, Metadata, is_seed_list, parse_metadata, parse_seed_list
from rag.errors import InputError
from rag.records import Paper, ProgressFn, SeedList

RECORD_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv")
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
SUPPORTED_SUFFIXES = (*TEXT_SUFFIXES, ".bib", ".pdf", *RECORD_SUFFIXES)
SUPPORTED = ", ".join(SUPPORTED_SUFFIXES)
# How much of a file is sniffed for NUL bytes to call it binary.
BINARY_SNIFF_BYTES = 8192


@dataclass
class LoadResult:
    papers: dict[str, Paper] = field(default_factory=dict)
    lists: list[SeedList] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files_read: int = 0


def read_text_file(path: Path) -> str:
    """The file as text, or an ``InputError`` saying why it is not usable text."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not data.strip():
        raise InputError(f"{path}: file is empty")
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(f"{path}: binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8"
        ) from None


def _expand(paths: Sequence[Path]) -> list[Path]:
    """Every file named or inside a named folder, in a stable order; missing paths fail first."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"no such file or folder: {', '.join(missing)}")
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
                )
            )
        else:
            files.append(path)
    return list(dict.fromkeys(files))


def _metadata_for(folder: Path, cache: dict[Path, Metadata]) -> Metadata:
    if folder not in cache:
        tsv = folder / METADATA_FILE
        cache[folder] = parse_metadata(read_text_file(tsv), str(tsv)) if tsv.is_file() else {}
    return cache[folder]


def _read_one(
    file: Path, metadata_cache: dict[Path, Metadata], mapping: Mapping[str, str], full_text: bool
) -> tuple[SeedList, list[Paper], list[str]]:
    """One file's papers, by format; raises InputError when the whole file is unusable."""
    suffix = file.suffix.lower()
    if suffix == ".pdf":
        return SeedList(file.name, file.name), [parse_pdf(file, file.name, full_text)], []
    text = read_text_file(file)
    if suffix == ".bib":
        papers, warnings = parse_bibtex(text, file.name)
        return SeedList(file.name, file.name), papers, warnings
    # A .json list of CSL items (Zotero, Pandoc) is read for its ids as citekeys; other JSON is an export.
    if suffix == ".json" and (csl := read_csl_json(text, file.name)) is not None:
        papers, warnings = csl
        return SeedList(file.name, file.name), papers, warnings
    if suffix in RECORD_SUFFIXES:
        papers, warnings = parse_records(text, file.name, suffix, mapping)
        return SeedList(file.name, file.name), papers, warnings
    if suffix == ".txt" and is_seed_list(text):
        seed_list, papers = parse_seed_list(text, file.name, _metadata_for(file.parent, metadata_cache))
        return seed_list, papers, []
    return SeedList(file.name, file.name), [parse_text_document(text, file.name)], []


def load_paths(
    paths: Iterable[Path],
    mapping: Mapping[str, str] | None = None,
    full_text: bool = True,
    progress: ProgressFn | None = None,
) -> LoadResult:
    """Parse every supported file under ``paths``; unusable files become warnings, not failures.
    With ``full_text``, a PDF's body is kept as passages (see rag.corpus.passages).

    Raises ``InputError`` when a path is missing or when no file yielded a paper.
    """
    result = LoadResult()
    metadata_cache: dict[Path, Metadata] = {}
    files = _expand(list(paths))
    for done, file in enumerate(files):
        if progress is not None:  # a folder of long PDFs takes a while before anything is embedded
            progress("reading files", done, len(files))
        if file.name == METADATA_FILE:
            continue
        if file.suffix.lower() not in SUPPORTED_SUFFIXES:
            result.warnings.append(f"skipped {file}: unsupported file type (supported: {SUPPORTED})")
            continue
        try:
            seed_list, papers, warnings = _read_one(file, metadata_cache, mapping or {}, full_text)
        except InputError as exc:
            result.warnings.append(f"skipped {exc}")
            continue
        result.warnings.extend(warnings)
        result.files_read += 1
        result.lists.append(seed_list)
        for paper in papers:
            merge_paper(result.papers, paper)
    if progress is not None:
        progress("reading files", len(files), len(files))
    if not result.papers:
        reasons = "; ".join(result.warnings) or "no files found"
        raise InputError(f"nothing to ingest: {reasons}")
    return result
