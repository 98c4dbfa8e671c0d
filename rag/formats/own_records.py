"""Exports that lose nothing: beside what its format says, each entry carries rag's record of the paper (its id,
and every field the format alone would read back otherwise), which rag.corpus.exports.own_records reads back.

What to carry is measured, not guessed: the export is written, read back by rag's own reader of the format,
and each paper's fields that came back different are added to its record. Read again, the export gives the
papers as the library holds them, whatever the format cannot say.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from rag.corpus.exports.own_records import CARRIED
from rag.records import Paper

Record = dict[str, Any]
# Writes the papers with their records (a renderer may add its own keys to them); reads a written export back.
Render = Callable[[Sequence[Paper], Sequence[Record]], str]
ReadBack = Callable[[str], Sequence[Paper]]


def _value(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def with_own_records(
    papers: Sequence[Paper], render: Render, read_back: ReadBack, left_out: Collection[str] = ()
) -> str:
    """The export ``render`` writes, each paper's record holding what ``read_back`` would not give back as the
    library holds it (but the fields ``left_out``)."""
    records: list[Record] = [{"id": paper.id} for paper in papers]
    read = {paper.id: paper for paper in read_back(render(papers, records))}
    for paper, record in zip(papers, records, strict=True):
        back = read.get(paper.id)
        for name in (name for name in CARRIED if name not in left_out):
            if back is None or getattr(back, name) != getattr(paper, name):
                record[name] = _value(getattr(paper, name))
    return render(papers, records)
