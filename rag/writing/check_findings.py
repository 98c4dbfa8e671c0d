"""What `rag check` says of each citation: the verdict (a problem or a note), its reason, the support check's
label of the abstract, and the linter line a reader sees. Cheap to import: renderers and JSON writers take
these types without loading the checker."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rag.manuscripts.citing import Cite, Context
from rag.records import Paper
from rag.text import printable
from rag.writing.answer import Support
from rag.writing.verification import SourceScore

NOT_IN_LIBRARY = "not in the library"
TITLE_ONLY = "known by its title only: no abstract to check against"
NO_SENTENCE = "no sentence around the citation"
STATED = "the abstract states it"
NOT_STATED = "the abstract does not state it (fine: the paper may)"
STATED_TOGETHER = "stated by the sentence's citations together"


class CheckLabel(StrEnum):
    """What the abstract says about the sentence (the support check's label; ``verdict`` says what to do)."""

    EVIDENCE = "evidence_found"
    WEAK = "weak"
    UNSUPPORTED = "unsupported"
    CONFLICT = "conflict"
    CANNOT_CHECK = "cannot_check"

    @property
    def shown(self) -> str:
        return self.value.replace("_", " ")


class Verdict(StrEnum):
    WRONG_PAPER = "wrong_paper"
    CONTRADICTS = "contradicts"
    RETRACTED = "retracted"
    FITS_STATED = "fits_stated"
    FITS_NOT_STATED = "fits_not_stated"
    CANNOT_CHECK = "cannot_check"

    @property
    def flagged(self) -> bool:
        """A problem (exit 1), as opposed to a note."""
        return self in (Verdict.WRONG_PAPER, Verdict.CONTRADICTS, Verdict.RETRACTED)

    @property
    def shown(self) -> str:
        return _SHOWN[self]

    @property
    def code(self) -> str:
        """The linter code: 'wrong-paper', 'not-stated' ..."""
        return _CODES[self]


_SHOWN = {
    Verdict.WRONG_PAPER: "likely the wrong paper",
    Verdict.CONTRADICTS: "contradicts",
    Verdict.RETRACTED: "retracted",
    Verdict.FITS_STATED: "stated in the abstract",
    Verdict.FITS_NOT_STATED: "not stated in the abstract",
    Verdict.CANNOT_CHECK: "cannot check",
}
_CODES = {
    Verdict.WRONG_PAPER: "wrong-paper",
    Verdict.CONTRADICTS: "contradicts",
    Verdict.RETRACTED: "retracted",
    Verdict.FITS_STATED: "stated",
    Verdict.FITS_NOT_STATED: "not-stated",
    Verdict.CANNOT_CHECK: "cannot-check",
}
_FROM_SUPPORT = {
    Support.SUPPORTED: CheckLabel.EVIDENCE,
    Support.EVIDENCE: CheckLabel.EVIDENCE,
    Support.WEAK: CheckLabel.WEAK,
    Support.UNSUPPORTED: CheckLabel.UNSUPPORTED,
    Support.UNCITED: CheckLabel.UNSUPPORTED,
    Support.CONTRADICTED: CheckLabel.CONFLICT,
}


def offline_label(score: SourceScore) -> CheckLabel:
    """The support check's label, its contradiction flag first (it is only raised on on-topic evidence)."""
    return CheckLabel.CONFLICT if score.conflict else _FROM_SUPPORT[score.support]


@dataclass
class Suggestion:
    paper: Paper
    label: CheckLabel
    score: float  # how well it fits the sentence (0..1)
    evidence: str


@dataclass
class CitationCheck:
    cite: Cite
    sentence: str
    verdict: Verdict
    reason: str
    label: CheckLabel = CheckLabel.CANNOT_CHECK
    score: float | None = None  # the support check's score, also under --verify llm (the judge gives none)
    evidence: str | None = None  # the cited paper's sentence that best matches the citing sentence
    paper: Paper | None = None
    suggestions: list[Suggestion] = field(default_factory=list)
    fit: float | None = None  # how well the paper fits the sentence against the library (0..1)
    context: Context = Context.PROSE

    @property
    def flagged(self) -> bool:
        return self.verdict.flagged


def finding(check: CitationCheck) -> str:
    """One linter line, whole (the terminal wraps it; nothing is cut): ``paper.tex:42:17: wrong-paper
    \\cite{k} in "sentence": 12 other papers of the library fit the sentence better (rank 13 of 200); better:
    jones2021, lee2020``."""
    cite = check.cite
    line = f"{cite.file}:{cite.line}:{cite.column}: {check.verdict.code} {printable(cite.written)}"
    if check.sentence:
        line += f' in "{printable(check.sentence)}"'
    line += f": {printable(check.reason)}"
    if check.verdict in (Verdict.CONTRADICTS, Verdict.FITS_STATED) and check.evidence:
        line += f'{":" if check.reason == STATED else "; the abstract:"} "{printable(check.evidence)}"'
    if check.suggestions:
        line += "; better: " + ", ".join(printable(s.paper.citekey) for s in check.suggestions)
    return line
