"""What the manuscript check weighs citations against: the library as seen from one manuscript."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rag.check.paper_fit import ManuscriptScores
from rag.records import Paper

Resolve = Callable[[str], Paper | None]
# A key the library does not have -> the keys it may have meant ("did you mean").
NearKeys = Callable[[str], list[str]]


@dataclass
class LibraryView:
    """What the checker weighs citations against: ``resolve`` a key (None: not in the library), ``near`` keys
    for one it lacks, the manuscript's sentences scored against every paper (``scores``, columns by paper id
    in ``column``), and ``papers`` in column order."""

    resolve: Resolve
    near: NearKeys = lambda _: []
    scores: ManuscriptScores | None = None
    column: dict[str, int] = field(default_factory=dict)
    papers: Sequence[Paper] = ()
    # A key one of the manuscript's bibliography files holds although the library has no paper for it (an entry
    # with no title or abstract, such as a private communication): LaTeX prints it, so it is not missing.
    listed: Callable[[str], bool] = lambda _: False
