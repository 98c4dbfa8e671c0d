"""Files and folders -> merged ``Paper`` records, with a warning per skipped file.

Nothing here touches the index: a bad file is reported before any write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.file_formats import BIBTEX
from rag.corpus.identity import MAX_USER_CITEKEY_CHARS
from rag.corpus.merging import Merge, merge_paper
from rag.corpus.readers import READERS, ReadOptions
from rag.corpus.seeds import METADATA_FILE
from rag.corpus.textfile import read_text_file
from rag.corpus.zotero.schema import ZOTERO_DATABASE
from rag.errors import InputError, OptionError
from rag.records import Paper, ProgressFn, SeedList

SUPPORTED = ", ".join(READERS)
ZOTERO_SUFFIX = Path(ZOTERO_DATABASE).suffix
# An abstract longer than this is a whole paper or a broken export: it is cut, and said so.
MAX_ABSTRACT_CHARS = 20_000

__all__ = ["MAX_ABSTRACT_CHARS", "SUPPORTED", "LoadResult", "load_paths", "read_text_file"]


@dataclass
class LoadResult:
    papers: dict[str, Paper] = field(default_factory=dict)
    lists: list[SeedList] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files_read: int = 0
    # Entries read in all (a paper met in two files, or twice in one, is two entries).
    entries_read: int = 0
    # Entries with the same abstract met twice (Zotero's duplicate items): one paper, the later keys its aliases.
    merges: list[Merge] = field(default_factory=list)
    # PDFs parsed by this read, and those unchanged since a parse the PDF cache kept.
    pdfs_parsed: int = 0
    pdfs_reused: int = 0
    # Papers read only from rag's own export records (rag.corpus.exports.own_records): copies of a library's papers.
    copies: set[str] = field(default_factory=set)


def _expand(paths: Sequence[Path]) -> list[Path]:
    """Every file named or inside a named folder, in a stable order; missing paths fail first.
    A Zotero data directory (a folder holding zotero.sqlite) is its database alone: its storage/
    PDFs are read as the items' attachments, its backups and Better BibTeX files not as libraries."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"no such file or folder: {', '.join(missing)}")
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            zotero_dirs = {p.parent for p in found if p.name == ZOTERO_DATABASE}
            files.extend(p for p in found if p.name == ZOTERO_DATABASE or not zotero_dirs & {*p.parents})
        else:
            files.append(path)
    return list(dict.fromkeys(files))


def _within_limits(paper: Paper, warnings: list[str]) -> None:
    """No record may be big enough to slow every later search: long abstracts are cut, keys bounded."""
    where = paper.sources[0] if paper.sources else paper.id
    if len(paper.text) > MAX_ABSTRACT_CHARS:
        warnings.append(f"{where}: abstract of {len(paper.text):,} characters cut to {MAX_ABSTRACT_CHARS:,}")
        paper.text = paper.text[:MAX_ABSTRACT_CHARS].rstrip() + "…"
        paper.truncated = True
    if len(paper.citekey) > MAX_USER_CITEKEY_CHARS:
        warnings.append(f"{where}: citekey of {len(paper.citekey):,} characters is not kept; rag gives it one")
        paper.citekey = ""


def _title_only(file: Path, papers: Sequence[Paper]) -> str | None:
    """One line for a file whose entries have no abstract: they are found by title, never quoted as evidence."""
    missing = sum(1 for p in papers if p.no_abstract)
    if not missing:
        return None
    if missing == len(papers) > 1:
        return f"{file.name}: none of its {len(papers)} entries has an abstract; they are searched by title only"
    entries = "1 entry has no abstract and is" if missing == 1 else f"{missing} entries have no abstract and are"
    return f"{file.name}: {entries} searched by title only"


def load_paths(
    paths: Iterable[Path],
    mapping: Mapping[str, str] | None = None,
    full_text: bool = True,
    progress: ProgressFn | None = None,
    *,
    options: ReadOptions | None = None,
) -> LoadResult:
    """Parse every supported file under ``paths``; unusable files become warnings, not failures.
    With ``full_text``, a PDF's body is kept as passages (see rag.corpus.pdf.passages). ``options``
    (the ingest service's: Zotero collections, the PDF cache) replace the other arguments.

    Raises ``InputError`` when a path is missing or when no file yielded a paper, ``OptionError``
    when an option applies to none of the files.
    """
    result = LoadResult()
    options = options or ReadOptions(mapping or {}, full_text, progress=progress)
    progress = options.progress
    files = _expand(list(paths))
    options.bib_files = tuple(file for file in files if file.suffix.lower() in BIBTEX.endings)
    copied: set[str] = set()
    originals: set[str] = set()  # a paper also met in a file that is not rag's export is no mere copy
    if options.zotero_collections and not any(file.suffix.lower() == ZOTERO_SUFFIX for file in files):
        raise OptionError("--zotero-collection applies to Zotero databases, and none of the paths is one")
    for done, file in enumerate(files):
        if progress is not None:  # a folder of long PDFs takes a while before anything is embedded
            progress("reading files", done, len(files))
        if file.name == METADATA_FILE:
            continue
        reader = READERS.get(file.suffix.lower())
        if reader is None:
            result.warnings.append(f"skipped {file}: unsupported file type (supported: {SUPPORTED})")
            continue
        try:
            read = reader(file, options)
        except OptionError:
            raise
        except InputError as exc:
            result.warnings.append(f"skipped {exc}")
            continue
        result.warnings.extend(read.warnings)
        for paper in read.papers:
            _within_limits(paper, result.warnings)
        if (title_only := _title_only(file, read.papers)) is not None:
            result.warnings.append(title_only)
        result.files_read += 1
        result.entries_read += len(read.papers)
        result.lists.append(read.seed_list)
        for paper in read.papers:
            (copied if paper.id in read.copies else originals).add(paper.id)
            if (merged := merge_paper(result.papers, paper)) is not None:
                result.merges.append(merged)
    if progress is not None:
        progress("reading files", len(files), len(files))
    result.pdfs_parsed, result.pdfs_reused = options.pdf_counts()
    result.copies = copied - originals
    if not result.papers:
        reasons = "; ".join(result.warnings) or "no files found"
        raise InputError(f"nothing to ingest: {reasons}")
    return result
