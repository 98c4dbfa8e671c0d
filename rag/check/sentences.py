"""The checked-sentence records: what the check says of a sentence (``Support``, the one vocabulary of a
check's outcome, for answers and manuscripts alike), its evidence, and the answer every writing command
returns with its citations and checked sentences.

Cheap to import (no model, no index), so the CLI renders them without loading either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rag.llm.types import Usage
from rag.records import Hit, Paper


class Support(StrEnum):
    """What the check says of a sentence against the sources it cites, named for what each check measures
    (one vocabulary for answers and manuscripts; ``rag.check.verdicts.Verdict`` says what a manuscript's
    author should do about it).

    The offline check finds on-point evidence well but tells support from contradiction only
    weakly (README: measured on labelled claims), so its top label is "evidence found"; only
    the model judge (--verify llm) says "supported".
    """

    SUPPORTED = "supported"  # the model judge: the sources support it
    EVIDENCE = "evidence_found"  # offline: a source sentence matches the claim closely
    WEAK = "weak"  # offline: related text only; the judge: an unreadable verdict
    UNSUPPORTED = "unsupported"  # offline: no evidence; the judge: not enough information
    CONTRADICTED = "contradicted"  # the sources say otherwise (a rule, the fitted check or the judge)
    UNCITED = "uncited"
    CANNOT_CHECK = "cannot_check"  # nothing to read it against: no abstract, no sentence, not in the library

    @property
    def shown(self) -> str:
        return self.value.replace("_", " ")

    @property
    def is_top(self) -> bool:
        """The label a reader may rely on (what eval-support counts as "supported")."""
        return self in (Support.SUPPORTED, Support.EVIDENCE)


@dataclass
class Evidence:
    """The sentence of a cited source that best backs a claim: where a reader checks it in one glance."""

    source: int  # the citation number [n] of the paper it comes from
    position: int  # 0-based index of the sentence in that paper's text (abstract, then passage)
    text: str


@dataclass
class Provenance:
    """Where a sentence rag wrote without a model comes from (rag.writing.extractive_draft): the sentence of
    its paper it was built from, how (``voice``: "citing_voice", "verbatim", "quoted" or "theme"), and each
    change, as (what the paper wrote, what the draft writes)."""

    voice: str
    source: str
    changes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class CitedSentence:
    text: str
    citations: list[int]
    support: Support | None = None
    score: float | None = None
    # rag added the citation: the model cited nothing (or a source that does not back the sentence).
    attributed: bool = False
    evidence: Evidence | None = None
    # The offline check sees the evidence negate or reverse the claim (a warning: right about half the time).
    conflict: bool = False
    # A vague subject ("The paper") named by rag: the text inserted after it (" (Hazra, 2021)") and the
    # citation number of the paper it names (rag.check.subjects).
    subject: str | None = None
    subject_source: int | None = None
    # An in-text citation: the author-year written as part of the sentence ("Hazra et al. (2021) propose ...")
    # and the citation number of the paper it names; LaTeX writes \citet{key} there, Pandoc @key.
    in_text: str | None = None
    in_text_source: int | None = None
    provenance: Provenance | None = None


@dataclass
class DroppedSentence:
    """A sentence the model wrote that the reader does not see, and why."""

    text: str
    reason: str
    # What the check found, told for a reader: "1.76 is not in [1]; 1.46-1.98 is from [2], not [1]".
    detail: str = ""


class AnswerMode(StrEnum):
    LLM = "llm"
    EXTRACTIVE = "extractive"
    INSUFFICIENT = "insufficient_evidence"
    OUTLINE = "outline"
    # Paragraphs built without a model from the papers' own sentences, each checked (rag.writing.extractive_draft).
    PROSE = "extractive_prose"


@dataclass
class Citation:
    n: int
    paper: Paper


@dataclass
class Answer:
    """Any cited text we produce: an answer, a summary, a draft or an outline."""

    question: str
    text: str
    mode: AnswerMode
    citations: list[Citation] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    sentences: list[CitedSentence] = field(default_factory=list)
    removed_citations: list[int] = field(default_factory=list)
    uncited: list[Paper] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None
    dropped: list[DroppedSentence] = field(default_factory=list)
    # One-line notes on what the checks did (a stream cut short, a fallback to quotes).
    notes: list[str] = field(default_factory=list)
    # What the model wrote, before any check (kept for --json when the answer shown is not the model's).
    model_text: str | None = None
    # Quotes from the papers shown under a model answer that kept fewer supported sentences than the
    # extractive answer has quotes: bullet lines citing [n] of ``citations`` or, for a paper the text does not
    # cite, of ``more_citations`` (numbered on from ``citations``).
    more_from_papers: list[str] = field(default_factory=list)
    more_citations: list[Citation] = field(default_factory=list)
    # Papers found that have no abstract: never quoted as evidence, listed as "related, no abstract".
    related: list[Paper] = field(default_factory=list)
