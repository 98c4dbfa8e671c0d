"""What the indexes hold: one unit per paper (title + abstract) and one per passage of its full text.

A passage's id is its paper's id plus ``#p<n>``, so every hit in Chroma or BM25
names its paper without a lookup, and a paper's units can be found by prefix.
The catalog keeps papers (passages inside them); only the indexes see units.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rag.records import Paper, Passage

PASSAGE_MARK = "#p"


@dataclass(slots=True)  # not frozen: a library makes one per paper and passage on every open
class Unit:
    id: str
    paper: Paper
    passage: Passage | None = None

    @property
    def text(self) -> str:
        """What is embedded and matched: the paper's title + abstract, or its title + the passage."""
        return self.paper.passage_text(self.passage) if self.passage else self.paper.searchable_text()


def passage_id(paper_id: str, n: int) -> str:
    return f"{paper_id}{PASSAGE_MARK}{n}"


def split_unit_id(unit_id: str) -> tuple[str, int]:
    """'<paper id>#p3' -> ('<paper id>', 3); a paper's own unit -> (id, 0)."""
    paper_id, mark, n = unit_id.rpartition(PASSAGE_MARK)
    if mark and n.isdigit() and paper_id:
        return paper_id, int(n)
    return unit_id, 0


def units_of(paper: Paper) -> list[Unit]:
    return [Unit(paper.id, paper), *(Unit(passage_id(paper.id, p.n), paper, p) for p in paper.passages)]


def all_units(papers: Iterable[Paper]) -> list[Unit]:
    return [unit for paper in papers for unit in units_of(paper)]


def unit_count(papers: Iterable[Paper]) -> int:
    return sum(1 + len(paper.passages) for paper in papers)
