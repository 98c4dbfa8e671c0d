"""The papers themselves, kept apart from Chroma so the index can always be rebuilt.

Chroma 1.5 can lose data after a kill mid-upsert and purges its own write log;
this file (text, metadata, content-hash id per paper) is the source of truth
for ``rag reindex`` in embedded mode.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rag.corpus.cleaning import CLEANER_VERSION
from rag.corpus.identity import assign_citekeys, resolve_key_clashes
from rag.corpus.merging import Merge, WorkFinder, merge_paper, merge_work, read_from_pdf, separate_edition
from rag.corpus.recleaning import clean_again
from rag.errors import StoreError
from rag.records import DESCRIPTIVE_FIELDS, Paper, SeedList

CATALOG_FORMAT = 1
# Where a store notes the text cleaner that made its papers (rag.corpus.cleaning.CLEANER_VERSION), as a papers
# file does in its "cleaner" field; a library saved before rag recorded it was made by cleaner 0.
CLEANER_MARK = "rag_text_cleaner"
BACKUP_SUFFIX = ".bak"
CORRUPT_SUFFIX = ".corrupt"


@dataclass
class UpsertReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Records folded into a paper already there (the same work again): their keys are the paper's aliases now.
    merges: list[Merge] = field(default_factory=list)
    # Papers read that are another record of a paper here under another id (a preprint and its article, a
    # conference abstract and its paper): folded into it, so the read holds fewer papers than it found.
    folded: list[str] = field(default_factory=list)


@dataclass
class Catalog:
    papers: dict[str, Paper] = field(default_factory=dict)
    lists: dict[str, SeedList] = field(default_factory=dict)
    # The text cleaner its papers went through: a new library's are cleaned as they are read.
    cleaner: int = CLEANER_VERSION

    def clean_again(self) -> int:
        """Every paper through today's cleaner (``rag reindex``); how many changed. A paper whose new id
        another paper holds already keeps its old one: merging works is ingest's job, not a rebuild's."""
        changed = 0
        papers: dict[str, Paper] = {}
        for old_id, paper in self.papers.items():
            changed += clean_again(paper)
            if paper.id in papers or (paper.id != old_id and paper.id in self.papers):
                paper.id = old_id
            papers[paper.id] = paper
        self.papers, self.cleaner = papers, CLEANER_VERSION
        return changed

    def upsert(
        self,
        papers: Iterable[Paper],
        lists: Iterable[SeedList] = (),
        replace_files: Iterable[str] = (),
        copies: AbstractSet[str] = frozenset(),
    ) -> UpsertReport:
        """Merge ``papers`` in. Files in ``replace_files`` are read again: what they said before is
        forgotten first, so an edited abstract replaces its old version instead of joining it. ``copies``
        are papers read from rag's own exports: one that says nothing its paper here does not is that paper
        read back, and changes nothing (its export file does not become a source)."""
        report = UpsertReport()
        before = {pid: paper.to_dict() for pid, paper in self.papers.items()}
        replaced = set(replace_files)
        if replaced:
            for paper in self.papers.values():
                paper.sources = [s for s in paper.sources if source_file(s) not in replaced]
                paper.lists = [name for name in paper.lists if name not in replaced]
        incoming = {paper.id: paper for paper in papers}
        works = WorkFinder(self.papers.values())
        read_again: set[str] = set()  # ids of the papers this read touched
        for paper in incoming.values():
            if paper.id in copies and _read_back(self.papers.get(paper.id), paper):
                read_again.add(paper.id)
                continue
            separate_edition(self.papers, paper)
            read_again.add(paper.id)
            known = self.papers.get(paper.id) or works.find(paper)
            # A paper whose sources were all just forgotten is being read again, not met in another file.
            other_kind = known is not None and bool(known.sources) and read_from_pdf(known) != read_from_pdf(paper)
            if known is not None and (known.id != paper.id or other_kind):
                report.merges.append(merge_work(known, paper))  # another record of a paper already here
                read_again.add(known.id)
                if known.id != paper.id:
                    report.folded.append(paper.id)
                continue
            if (merged := merge_paper(self.papers, paper)) is not None:
                report.merges.append(merged)
            if known is None and paper.id not in copies:  # two copies are two papers of the library they left
                works.add(paper)
        named = {name for paper in self.papers.values() for name in paper.lists}
        for seed_list in lists:  # a file whose papers were all read back names no paper: no list of its own
            if seed_list.file in named or seed_list.file in self.lists:
                self.lists[seed_list.file] = seed_list
        for pid, paper in list(self.papers.items()):
            if pid in before and not paper.sources and before[pid]["sources"]:
                del self.papers[pid]
                report.removed.append(pid)
            elif pid not in before:
                report.added.append(pid)
            elif paper.to_dict() != before[pid]:
                report.updated.append(pid)
            elif pid in read_again:
                report.unchanged.append(pid)
        report.warnings = works.conflicts + resolve_key_clashes(self.papers.values(), set(report.added))
        assign_citekeys(self.papers.values())
        return report

    def ordered(self) -> list[Paper]:
        """Papers in a stable, readable order: by first source, then id."""
        return sorted(self.papers.values(), key=_source_order)


def cleaner_of(store: Marked) -> int:
    """The text cleaner a store's papers went through, as its last writer noted it (0: written before rag noted it)."""
    mark = store.mark(CLEANER_MARK)
    return int(mark) if mark is not None and mark.isdigit() else 0


class Marked(Protocol):
    def mark(self, key: str) -> str | None: ...


def _read_back(known: Paper | None, copy: Paper) -> bool:
    """``copy`` is ``known`` as an export wrote it: kept by other files still, and saying nothing new."""
    if known is None or not known.sources:  # read from this very file: read it as any file
        return False
    return (
        all(getattr(copy, name) in (getattr(known, name), None) for name in DESCRIPTIVE_FIELDS)
        and (copy.text, copy.no_abstract, copy.truncated) == (known.text, known.no_abstract, known.truncated)
        and set(copy.keys) <= set(known.keys)
        and set(copy.collections) <= set(known.collections)
    )


def source_file(source: str) -> str:
    """'000_x.txt#7' -> '000_x.txt'."""
    return source.rpartition("#")[0]


def _source_order(paper: Paper) -> tuple[str, int, str]:
    if not paper.sources:
        return ("~", 0, paper.id)
    file, _, entry = paper.sources[0].rpartition("#")
    return (file, int(entry) if entry.isdigit() else 0, paper.id)


class CatalogFile:
    """JSON on disk, written atomically with the previous version kept as a backup."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.recovery_notice: str | None = None

    @property
    def backup(self) -> Path:
        return self.path.with_name(self.path.name + BACKUP_SUFFIX)

    def exists(self) -> bool:
        return self.path.exists()

    def load(self) -> Catalog:
        if not self.path.exists():
            return Catalog()
        try:
            return self._parse(self.path)
        except StoreError as damage:
            if not self.backup.exists():
                raise
            catalog = self._parse(self.backup)
            # Keep the damaged file for inspection; never let a later save back it up over the good copy.
            kept = self.path.with_name(self.path.name + CORRUPT_SUFFIX)
            try:
                os.replace(self.path, kept)
                shutil.copy2(self.backup, self.path)
            except OSError:
                raise damage from None
            self.recovery_notice = (
                f"{self.path} was damaged; restored the previous version ({len(catalog.papers)} papers) "
                f"and kept the damaged file as {kept.name}; re-ingest anything added since"
            )
            return catalog

    def peek(self) -> Catalog:
        """The papers as saved, without restoring a damaged file from its backup (read-only callers)."""
        return self._parse(self.path) if self.path.exists() else Catalog()

    def _parse(self, path: Path) -> Catalog:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != CATALOG_FORMAT:
                raise ValueError(f"unknown format {data.get('format')!r}")
            papers = (Paper.from_dict(p) for p in data["papers"])
            lists = (SeedList(**item) for item in data.get("lists", []))
            cleaner = int(data.get("cleaner", 0))
            return Catalog(papers={p.id: p for p in papers}, lists={s.file: s for s in lists}, cleaner=cleaner)
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{path} is corrupt ({exc}); move it away and re-run `rag ingest` on your files") from None

    def save(self, catalog: Catalog) -> None:
        payload = {
            "format": CATALOG_FORMAT,
            "cleaner": catalog.cleaner,
            "lists": [s.to_dict() for s in catalog.lists.values()],
            "papers": [p.to_dict() for p in catalog.ordered()],
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
            if self.path.exists():
                shutil.copy2(self.path, self.backup)
            os.replace(tmp, self.path)
        except OSError as exc:
            raise StoreError(f"cannot write {self.path}: {exc.strerror or exc}") from None
