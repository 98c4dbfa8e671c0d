"""Where a manuscript cites a paper, and how the check read the pair: what rag.check.manuscript weighs each
citation with, and the suggestions it makes from them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.scoring import SourceScore
from rag.check.sentences import Support
from rag.check.verdicts import Suggestion
from rag.manuscripts.citing import CitingSentence
from rag.records import Paper


@dataclass(frozen=True)
class Place:
    """Where a paper is cited: sentence ``index`` (its ``text``), beside ``siblings`` (the other papers that
    sentence cites), and ``same_key``: every sentence citing the paper."""

    index: int
    text: str  # as the check reads it: its abbreviations spelled out (CitingSentence.reading)
    siblings: tuple[str, ...]
    same_key: Sequence[int]
    shown: str  # as written

    @classmethod
    def of(
        cls,
        index: int,
        sentence: CitingSentence,
        papers: Sequence[Paper | None],
        paper: Paper | None,
        cited_in: dict[str, list[int]],
    ) -> Place:
        own = paper.id if paper is not None else None
        siblings = tuple(p.id for p in papers if p is not None and p.id != own)
        same_key = cited_in.get(own, []) if own is not None else []
        return cls(index, sentence.reading, siblings, same_key, sentence.text)

    def sibling_columns(self, column: dict[str, int]) -> list[int]:
        """The columns (LibraryView.column) of the other papers the sentence cites."""
        return [column[s] for s in self.siblings if s in column]


@dataclass
class Pairing:
    """One (sentence, paper) pair read once however often it recurs."""

    score: SourceScore
    label: Support
    contradiction: str = ""  # what the sentence reverses, told for a reader; empty when nothing
    passage: str | None = None  # where in the full text the evidence is ("p. 4"); None: the abstract
    reversed_in: str = ""  # where the abstract says what the sentence reverses, when the rules found it


def stated_surely(pairing: Pairing) -> float:
    """How surely the paper's abstract states the sentence: the judge's reading, or (without the judge) whether
    the fitted check gives it the top label."""
    stated = pairing.score.stated
    return stated if stated is not None else float(pairing.label.is_top)


def suggested(paper: Paper, pairing: Pairing | None, fits: float) -> Suggestion:
    """``paper`` suggested instead, with how well it ``fits`` and what the check read of it (None: known by its
    title only)."""
    if pairing is None:
        return Suggestion(paper, Support.CANNOT_CHECK, round(fits, 4), "")
    return Suggestion(paper, pairing.label, round(fits, 4), pairing.score.sentence, round(stated_surely(pairing), 4))
