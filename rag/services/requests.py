"""What a caller asks of a command: the request records and their checks.

Cheap to import (nothing of the index or the models), so the CLI and the MCP
server build requests before paying for any of it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.file_formats import described_formats
from rag.errors import InputError
from rag.records import Method

DEFAULT_BEIR_SPLIT = "test"
DEFAULT_SUMMARY_PAPERS = 40
DEFAULT_DRAFT_PAPERS = 8
DEFAULT_MAP_SEED = 0
# The names of rag.formats.registry's defaults, here so that building a request loads no format.
DEFAULT_DOCUMENT = "markdown"
DEFAULT_EXPORT = "bibtex"
# What `ingest` reads, from the readers' own table.
INGEST_FORMATS = described_formats()


@dataclass
class SearchRequest:
    query: str
    k: int | None = None  # None: the configured top-k (RAG_TOP_K)
    year_min: int | None = None
    year_max: int | None = None
    lists: Sequence[str] = ()

    def validate(self) -> None:
        if not self.query.strip():
            raise InputError('the question is empty; try e.g. rag ask "which works target heterogeneous GPUs?"')
        if self.k is not None and self.k < 1:
            raise InputError(f"-k must be at least 1 (got {self.k})")
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise InputError(f"--since {self.year_min} is after --until {self.year_max}")


@dataclass(frozen=True)
class WritingOptions:
    use_llm: bool = True
    long: bool = False
    verify_llm: bool = False
    cache: bool = True
    log: bool = True  # kept in `rag log` (unless RAG_LOG=false)


@dataclass
class SummaryRequest:
    query: str | None = None
    lists: Sequence[str] = ()
    max_papers: int = DEFAULT_SUMMARY_PAPERS


@dataclass
class DraftRequest:
    topic: str
    cite: Sequence[str] = field(default_factory=list)
    max_papers: int = DEFAULT_DRAFT_PAPERS
    format: str = DEFAULT_DOCUMENT  # a name in rag.formats.registry.DOCUMENTS
    bib: Path | None = None  # also write the cited papers here, in the format its ending names


@dataclass
class EvalRequest:
    path: Path
    methods: Sequence[Method] = (Method.HYBRID,)
    split: str = DEFAULT_BEIR_SPLIT


@dataclass
class SupportEvalRequest:
    path: Path
    verify_llm: bool = False
    limit: int | None = None  # the first N pairs only (a model as judge takes seconds per pair)
    cache: bool = True


@dataclass
class CheckRequest:
    """`rag check`: manuscript files, or one manuscript given as text (the MCP tool) in ``text_format``."""

    paths: Sequence[Path] = ()
    text: str | None = None
    text_format: str | None = "latex"  # latex or markdown (Pandoc / Quarto); None: told by the content
    text_name: str | None = None  # how findings name a manuscript given as text ("-" for stdin)
    # Added to the library before the check, with the bibliographies the manuscript names.
    bibs: Sequence[Path] = ()
    verify_llm: bool = False
    cache: bool = True
    log: bool = True  # kept in `rag log`


@dataclass(frozen=True)
class MapRequest:
    output: Path
    query: str | None = None
    cite: Sequence[str] = ()
    seed: int = DEFAULT_MAP_SEED
    k: int | None = None  # hits of --query to highlight; None: the configured top-k, as `rag search`

    def validate(self) -> None:
        """Fails before any work when the map cannot be drawn in that format or written there."""
        from rag.mapping.output import RENDERERS

        if self.output.suffix.lower() not in RENDERERS:
            endings = " or ".join(RENDERERS)
            raise InputError(f"cannot draw a map as '{self.output.name}': the output must end in {endings}")
        folder = self.output.parent
        if not folder.is_dir():
            raise InputError(f"cannot write {self.output}: folder {folder} does not exist")
        if self.output.is_dir():
            raise InputError(f"cannot write {self.output}: it is a folder")
        writable = os.access(self.output, os.W_OK) if self.output.exists() else os.access(folder, os.W_OK)
        if not writable:
            raise InputError(f"cannot write {self.output}: permission denied")
        if self.query is not None:
            SearchRequest(self.query, self.k).validate()


# Model when configured, short answers, offline verification, cache on.
DEFAULT_WRITING = WritingOptions()
