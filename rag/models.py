"""Plain records passed between the core modules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Paper:
    """One paper in the library: its abstract (possibly cut short) and what we know of it.

    ``id`` is derived from the content (see ``rag.corpus.identity``), so the same
    abstract ingested from two lists is one paper with two ``sources``.
    """

    id: str
    text: str
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    arxiv: str | None = None
    citekey: str = ""
    truncated: bool = False
    sources: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    doi: str | None = None
    # No abstract was given: the paper is indexed by its title alone.
    no_abstract: bool = False
    # The user's own BibTeX entry, written back verbatim by `draft --bib` and `export`.
    bibtex: str | None = None

    @property
    def first_author(self) -> str | None:
        return self.authors[0] if self.authors else None

    @property
    def display_title(self) -> str:
        return self.title or "(untitled)"

    def searchable_text(self) -> str:
        """What retrieval matches: the title (when known) followed by the abstract."""
        return f"{self.title}. {self.text}" if self.title else self.text

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass
class SeedList:
    """A list of related papers: the file it came from and the paper it is about."""

    file: str
    subject: str
    subject_arxiv: str | None = None
    subject_year: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Hit:
    """One retrieved paper with its fused score and the parts it came from."""

    paper: Paper
    rank: int
    score: float
    dense: float | None = None
    lexical: float | None = None


# Progress callback the core calls and the CLI renders: (what, done, total).
ProgressFn = Callable[[str, int, int], None]
