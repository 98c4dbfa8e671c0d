"""Parsed PDFs kept between ingests, so a library read again parses only the PDFs that changed.

``rag ingest`` reads every file again (a file read again replaces what it said before), but
parsing a PDF is the slow part of reading: pypdf's text extraction and the passage splitter
(which loads llama-index). The cache keeps what ``parse_pdf`` made of each PDF, one small JSON
file per PDF path in the folder the ingest service names (the data dir's ``pdf-cache/``), with
the file's stamp (size and modification time): a PDF whose stamp changed is parsed again and its
entry replaced. A PDF that could not be read is remembered too, with its one-line reason.

The cache only ever saves time: an entry that cannot be read or written is ignored, and the PDF is
parsed as if there were no cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.corpus.cleaning import CLEANER_VERSION
from rag.corpus.pdf.document import parse_pdf
from rag.errors import InputError
from rag.records import Paper

# Entries written by another format, or by another text cleaner, are parsed again: bump the format whenever
# parse_pdf's output changes (2: titles from the title block and file name, cleaned text).
PDF_CACHE_FORMAT = 2
# Hex digits of the path's hash that name its entry.
ENTRY_NAME_CHARS = 24


def _can_open(path: Path) -> bool:
    try:
        with path.open("rb"):
            return True
    except OSError:
        return False


def _stamp(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


@dataclass
class PdfCache:
    """``parse_pdf`` through the cache in ``folder`` (None: no cache), counting what it parsed and reused."""

    folder: Path | None = None
    parsed: int = 0
    reused: int = 0

    def parse(self, path: Path, file_name: str, full_text: bool = True) -> Paper:
        """What ``parse_pdf(path, file_name, full_text)`` gives (or the ``InputError`` it raises)."""
        entry = self._entry(path)
        stamp = _stamp(path)
        cached = self._load(entry, stamp, full_text) if entry is not None and stamp is not None else None
        if cached is not None:
            self.reused += 1
            return _as_read_from(cached, file_name, full_text)
        self.parsed += 1
        try:
            paper = parse_pdf(path, file_name, full_text)
        except InputError as exc:
            if _can_open(path):  # a file it could not open may become readable without changing (permissions)
                # The reason without the name it was met under: the next read may use another.
                self._store(entry, stamp, full_text, {"error": str(exc).removeprefix(f"{file_name}: ")})
            raise
        self._store(entry, stamp, full_text, {"paper": paper.to_dict()})
        return paper

    def _entry(self, path: Path) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / f"{digest[:ENTRY_NAME_CHARS]}.json"

    def _load(self, entry: Path, stamp: list[int], full_text: bool) -> Paper | str | None:
        """The cached paper, or the reason the PDF could not be read; None when there is no usable entry."""
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            if (data.get("format"), data.get("cleaner")) != (PDF_CACHE_FORMAT, CLEANER_VERSION):
                return None
            if data.get("stamp") != stamp:
                return None
            if full_text and not data.get("full_text"):  # read for its abstract only: the body was never parsed
                return None
            return str(data["error"]) if "error" in data else Paper.from_dict(data["paper"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):  # missing or damaged: parse again
            return None

    def _store(self, entry: Path | None, stamp: list[int] | None, full_text: bool, result: dict[str, Any]) -> None:
        if entry is None or stamp is None:
            return
        data = {"format": PDF_CACHE_FORMAT, "cleaner": CLEANER_VERSION, "stamp": stamp, "full_text": full_text}
        data.update(result)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, entry)  # a reader never sees half an entry
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)


def _as_read_from(cached: Paper | str, file_name: str, full_text: bool) -> Paper:
    """The cached parse as ``parse_pdf`` would give it for ``file_name`` now."""
    if isinstance(cached, str):
        raise InputError(f"{file_name}: {cached}")
    cached.sources, cached.lists = [f"{file_name}#1"], [file_name]
    if not full_text:
        cached.passages = []
    return cached
