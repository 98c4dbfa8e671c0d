"""Files and folders -> merged ``Paper`` records, with a warning per skipped file.

Nothing here touches the index: a bad file is reported before any write.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.seeds import METADATA_FILE, Metadata, parse_metadata, parse_seed_list
from rag.errors import InputError
from rag.models import Paper, SeedList

SUPPORTED_SUFFIXES = (".txt",)
# How much of a file is sniffed for NUL bytes to call it binary.
BINARY_SNIFF_BYTES = 8192


@dataclass
class LoadResult:
    papers: dict[str, Paper] = field(default_factory=dict)
    lists: list[SeedList] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files_read: int = 0


def merge_paper(papers: dict[str, Paper], incoming: Paper) -> None:
    """Add ``incoming``; the same content seen again adds its sources, not a new paper."""
    known = papers.get(incoming.id)
    if known is None:
        papers[incoming.id] = incoming
        return
    known.sources.extend(s for s in incoming.sources if s not in known.sources)
    known.lists.extend(name for name in incoming.lists if name not in known.lists)
    # What was just read wins over what was known (an edited papers.tsv updates the paper).
    known.title = incoming.title or known.title
    known.authors = incoming.authors or known.authors
    known.year = incoming.year or known.year
    known.arxiv = incoming.arxiv or known.arxiv


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


def load_paths(paths: Iterable[Path]) -> LoadResult:
    """Parse seed lists under ``paths``; unusable files become warnings, not failures.

    Raises ``InputError`` when a path is missing or when no file yielded a paper.
    """
    result = LoadResult()
    metadata_cache: dict[Path, Metadata] = {}
    files = _expand(list(paths))
    for file in files:
        if file.name == METADATA_FILE:
            continue
        if file.suffix.lower() not in SUPPORTED_SUFFIXES:
            result.warnings.append(f"skipped {file}: unsupported file type (supported: seed-list .txt)")
            continue
        try:
            metadata = _metadata_for(file.parent, metadata_cache)
            seed_list, papers = parse_seed_list(read_text_file(file), file.name, metadata)
        except InputError as exc:
            result.warnings.append(f"skipped {exc}")
            continue
        result.files_read += 1
        result.lists.append(seed_list)
        for paper in papers:
            merge_paper(result.papers, paper)
    if not result.papers:
        reasons = "; ".join(result.warnings) or "no files found"
        raise InputError(f"nothing to ingest: {reasons}")
    return result
