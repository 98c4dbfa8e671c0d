"""What the commands return: typed result records, one per command that is not a writing command
(those return ``rag.check.sentences.Answer``).

Cheap to import, so renderers and JSON writers take these types without loading
the index or the models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from rag.check.sentences import Answer
from rag.check.verdicts import CitationCheck, Verdict
from rag.evaluation.metrics import EvalReport
from rag.evaluation.support import SupportReport
from rag.llm.types import Usage
from rag.records import Hit, LibraryInfo, Paper, SeedList
from rag.text import plural


@dataclass
class Draft:
    """A related-work draft: the checked answer, and the document in the format asked for."""

    answer: Answer
    format: str
    document: str
    # The terminal shows the checked answer itself rather than the bare document (Markdown).
    shown_as_answer: bool
    bibliography: Path | None = None  # the file written by --bib, if one was


@dataclass
class SearchResult:
    query: str
    hits: list[Hit]
    mode: str


@dataclass
class Listing:
    papers: list[Paper]
    lists: list[SeedList]


@dataclass
class PaperView:
    """One paper in full, with the seed lists it came from."""

    paper: Paper
    lists: list[SeedList]


@dataclass
class IngestResult:
    files_read: int
    papers_found: int  # distinct papers: records of one work (in the files or with the library's) count once
    added: int
    updated: int
    unchanged: int
    removed: int
    warnings: list[str]
    total_papers: int
    # Full-text passages in the papers read (PDF bodies), each indexed beside its paper.
    passages_found: int = 0
    # Entries read: more than the papers found when some were the same work (merged into one paper).
    entries_read: int = 0
    # Records of a work already read (another file, format or duplicate entry), merged: alias -> key kept.
    merged: dict[str, str] = field(default_factory=dict)
    # PDFs parsed by this ingest, and those unchanged since an earlier one (not parsed again).
    pdfs_parsed: int = 0
    pdfs_reused: int = 0


@dataclass
class ReindexResult:
    papers: int


@dataclass
class RemoveResult:
    removed: list[Paper]
    dry_run: bool = False  # nothing was removed: these are the papers that would be


@dataclass
class EvalRun:
    dataset: str
    collection: str
    documents: int
    reports: dict[str, EvalReport]


@dataclass
class SupportEvalRun:
    dataset: str
    checker: str
    report: SupportReport
    skipped: int  # bad lines of the pairs file
    usage: Usage | None = None


@dataclass
class CheckReport:
    """`rag check`: every citation checked, in document order, and what could not be read as written."""

    checks: list[CitationCheck]
    warnings: list[str]
    checker: str  # "offline", or the model that judged
    files: list[str]
    usage: Usage | None = None

    def summary(self) -> dict[str, int]:
        """Citations, problems, and each verdict's count."""
        counts = {verdict.value: 0 for verdict in Verdict}
        for check in self.checks:
            counts[check.verdict.value] += 1
        return {"citations": len(self.checks), "problems": len(self.problems), **counts}

    @property
    def problems(self) -> list[CitationCheck]:
        """The citations to act on (exit 1): likely the wrong paper, contradicted, retracted."""
        return [c for c in self.checks if c.flagged]

    def summary_line(self) -> str:
        """'236 citations checked (offline): 3 problems (2 likely the wrong paper, 1 contradicts). Notes: 120
        stated in the abstract, 90 not stated in the abstract, 21 cannot check.'"""
        summary = self.summary()
        if not summary["citations"]:
            return f"no citations found in {', '.join(self.files) or 'the text'}"
        kinds = ", ".join(f"{summary[v.value]} {v.shown}" for v in Verdict if v.flagged and summary[v.value])
        notes = ", ".join(f"{summary[v.value]} {v.shown}" for v in Verdict if not v.flagged and summary[v.value])
        line = f"{plural(summary['citations'], 'citation')} checked ({self.checker}): "
        line += plural(summary["problems"], "problem") + (f" ({kinds})" if kinds else "") + "."
        return line + (f" Notes: {notes}." if notes else "")


@dataclass
class Collections:
    collections: list[LibraryInfo]


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    INFO = "info"


@dataclass
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""


@dataclass
class DoctorReport:
    checks: list[Check] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return all(c.status is not Status.FAIL for c in self.checks)

    def add(self, name: str, status: Status, detail: str, fix: str = "") -> None:
        self.checks.append(Check(name, status, detail, fix))
