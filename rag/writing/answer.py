"""The records every writing command returns: an answer with its citations and checked sentences.

Cheap to import (no model, no index), so the CLI renders them without loading either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rag.llm.types import Usage
from rag.records import Hit, Paper


class Support(StrEnum):
    """How well a sentence is backed by the sources it cites."""

    SUPPORTED = "supported"
    WEAK = "weak"
    UNSUPPORTED = "unsupported"
    UNCITED = "uncited"


@dataclass
class CitedSentence:
    text: str
    citations: list[int]
    support: Support | None = None
    score: float | None = None


@dataclass
class CitedText:
    text: str
    papers: list[Paper]  # papers[i] is cited as [i + 1]
    sentences: list[CitedSentence] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)  # numbers the model invented


class AnswerMode(StrEnum):
    LLM = "llm"
    EXTRACTIVE = "extractive"
    INSUFFICIENT = "insufficient_evidence"
    OUTLINE = "outline"


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
