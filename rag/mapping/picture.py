"""The picture of a library as plain records: what `rag map` computes and its renderers draw.

The renderers (rag.mapping.png, rag.mapping.html) read only these; rag.mapping.layout
builds them from papers and their vectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Colour-blind-friendly qualitative palette (Okabe-Ito, then Tableau's extra hues): one per theme.
# Its length caps the number of themes a map shows, so no two themes share a colour.
THEME_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#7F7F7F",
    "#8C564B",
    "#9467BD",
    "#17BECF",
    "#BCBD22",
)
HIGHLIGHT_COLOUR = "#000000"
MUST_CITE_COLOUR = "#C00000"


@dataclass(frozen=True)
class MapPoint:
    """One paper on the map; x and y are in [0, 1] (0, 0 is bottom left)."""

    id: str
    citekey: str
    title: str
    year: int | None
    first_sentence: str
    theme: int  # index into LibraryMap.themes
    x: float
    y: float
    highlighted: bool = False  # a hit of --query
    must_cite: bool = False  # named by --cite

    @property
    def marked(self) -> bool:
        return self.highlighted or self.must_cite


@dataclass(frozen=True)
class MapTheme:
    """A group of similar papers (rag.writing.outline), named by its distinctive words."""

    name: str
    size: int
    colour: str
    x: float  # where its name is shown: on its most central paper
    y: float


@dataclass
class LibraryMap:
    points: list[MapPoint]
    themes: list[MapTheme]
    # How papers were placed, for the legend: e.g. "t-SNE of all-MiniLM-L6-v2 vectors, seed 0".
    method: str
    query: str | None = None
    # Every citekey is printed only while they stay readable; beyond that, only marked papers are.
    label_all: bool = True
    notes: list[str] = field(default_factory=list)

    def labelled(self) -> list[MapPoint]:
        return [p for p in self.points if self.label_all or p.marked]

    def label_note(self) -> str:
        if self.label_all:
            return "every paper labelled by citekey"
        papers = len(self.points)
        return (
            f"{papers} papers: only highlighted and must-cite papers are labelled; "
            "each theme is named on one of its own papers"
        )
