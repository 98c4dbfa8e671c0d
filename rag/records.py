"""Plain records passed between the layers: papers, passages, seed lists, hits, callbacks.

The bottom of the package: imports nothing of rag.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

# A Paper field's role, in its metadata: what describes the work (as opposed to its text and where it was
# read), and of those, where it appeared (taken together from one record: see Paper.adopt_metadata).
_ROLE = "role"
_DESCRIBES = {_ROLE: "describes"}
_VENUE = {_ROLE: "venue"}


@dataclass
class Passage:
    """A stretch of a paper's full text, indexed on its own and cited as its paper."""

    n: int  # 1-based position among the paper's passages
    text: str
    page: int | None = None

    @property
    def where(self) -> str:
        return f"p. {self.page}" if self.page is not None else f"passage {self.n}"


@dataclass
class Paper:
    """One paper in the library: its abstract (possibly cut short) and what we know of it.

    ``id`` is derived from the content (see ``rag.corpus.identity``), so the same
    abstract ingested from two lists is one paper with two ``sources``.
    """

    id: str
    text: str
    title: str | None = field(default=None, metadata=_DESCRIBES)
    authors: list[str] = field(default_factory=list, metadata=_DESCRIBES)
    year: int | None = field(default=None, metadata=_DESCRIBES)
    arxiv: str | None = field(default=None, metadata=_DESCRIBES)
    citekey: str = ""
    truncated: bool = False
    sources: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    doi: str | None = field(default=None, metadata=_DESCRIBES)
    # No abstract was given: the paper is indexed by its title alone.
    no_abstract: bool = False
    # The user's own BibTeX entry, written back verbatim by `draft --bib` and `export`.
    bibtex: str | None = field(default=None, metadata=_DESCRIBES)
    # The full text (a PDF's body) in passages; empty when only the abstract is known.
    passages: list[Passage] = field(default_factory=list)
    # What a bibliography needs, as the source gave it: journal, proceedings or book it appeared in
    # (``venue``), its volume, issue, pages and publisher, a URL.
    venue: str | None = field(default=None, metadata=_VENUE)
    volume: str | None = field(default=None, metadata=_VENUE)
    issue: str | None = field(default=None, metadata=_VENUE)
    pages: str | None = field(default=None, metadata=_VENUE)
    publisher: str | None = field(default=None, metadata=_VENUE)
    url: str | None = field(default=None, metadata=_DESCRIBES)
    # The kind of work in CSL's terms ("article-journal", "paper-conference", "book", "thesis", ...).
    item_type: str | None = field(default=None, metadata=_VENUE)
    # Every other citekey a source ever gave this paper: each still resolves to it (a \cite must never break).
    aliases: list[str] = field(default_factory=list)
    # The reference manager's collections (Zotero) the paper is filed in.
    collections: list[str] = field(default_factory=list)
    # The reference manager flags the work as retracted (Zotero's Retraction Watch data): said wherever it is
    # cited or quoted.
    retracted: bool = False

    @property
    def keys(self) -> list[str]:
        """Every citekey that names this paper: the primary one first, then its aliases."""
        return [self.citekey, *(key for key in self.aliases if key != self.citekey)]

    @property
    def first_author(self) -> str | None:
        return self.authors[0] if self.authors else None

    @property
    def display_title(self) -> str:
        return self.title or "(untitled)"

    def searchable_text(self) -> str:
        """What retrieval matches: the title (when known) followed by the abstract."""
        return f"{self.title}. {self.text}" if self.title else self.text

    def adopt_metadata(self, preferred: Paper, fallback: Paper, details: Paper | None = None) -> None:
        """Each descriptive field (title, authors, year, ids, BibTeX entry) from ``preferred`` where it has one,
        else from ``fallback``; but where the paper appeared (``VENUE_FIELDS``) all from one record, never
        field by field (a preprint's venue with the proceedings' pages cites neither): from ``details``, else
        ``preferred`` when it says any of it, else ``fallback``."""
        if details is None:
            details = preferred if any(getattr(preferred, name) for name in VENUE_FIELDS) else fallback
        for name in DESCRIPTIVE_FIELDS:
            if name in VENUE_FIELDS:
                setattr(self, name, getattr(details, name))
            else:
                setattr(self, name, getattr(preferred, name) or getattr(fallback, name))

    def passage_text(self, passage: Passage) -> str:
        """What retrieval matches for a passage: the paper's title gives it context."""
        return f"{self.title}. {passage.text}" if self.title else passage.text

    def evidence_text(self, passage: Passage) -> str:
        """The abstract, followed by the passage that matched (what answers may quote)."""
        return f"{self.text}\n\nFrom the full text ({passage.where}): {passage.text}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Paper:
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        fields["passages"] = [Passage(**item) for item in fields.get("passages", [])]
        return cls(**fields)


def _paper_fields(roles: tuple[str, ...] = (), annotation: str | None = None) -> tuple[str, ...]:
    """Paper's fields of these roles, or of a type (as annotated): each list is read off the class, never
    written out again."""
    return tuple(
        f.name
        for f in fields(Paper)
        if (not roles or f.metadata.get(_ROLE) in roles) and (annotation is None or f.type == annotation)
    )


# What describes a paper, as opposed to its text and where it was read (see Paper.adopt_metadata).
DESCRIPTIVE_FIELDS = _paper_fields(roles=("describes", "venue"))
# Where a paper appeared, and as what: one record's, together (see Paper.adopt_metadata).
VENUE_FIELDS = _paper_fields(roles=("venue",))
# Optional text fields and lists of strings (how a store without nested values keeps them).
TEXT_FIELDS = _paper_fields(annotation="str | None")
STRING_LIST_FIELDS = _paper_fields(annotation="list[str]")


@dataclass
class SeedList:
    """A list of related papers: the file it came from and the paper it is about."""

    file: str
    subject: str
    subject_arxiv: str | None = None
    subject_year: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Method(StrEnum):
    """How papers are ranked: both retrievers fused, or one of them alone."""

    HYBRID = "hybrid"
    DENSE = "dense"
    LEXICAL = "lexical"


@dataclass
class Hit:
    """One retrieved paper with its fused score and the parts it came from."""

    paper: Paper
    rank: int
    score: float
    dense: float | None = None
    lexical: float | None = None
    # The passage of the full text that matched best, when that beat the abstract.
    passage: Passage | None = None

    def evidence(self) -> Paper:
        """The paper as answers see it: its abstract plus the matched passage, if any."""
        if self.passage is None:
            return self.paper
        return replace(self.paper, text=self.paper.evidence_text(self.passage))


@dataclass
class LibraryInfo:
    """One library (collection): papers in our papers file (None on a server), its vectors and model."""

    name: str
    papers: int | None
    vectors: int | None
    model: str | None


@dataclass(frozen=True)
class LogEntry:
    kind: str  # ask, summarize, draft, check
    library: str
    model: str | None
    mode: str  # llm, extractive, extractive_prose, outline, insufficient_evidence, or what a check found
    question: str  # the question, topic, or the files checked
    answer: str  # as the user read it (Markdown with references, or the check's lines)
    payload: str  # the command's --json, whole
    id: int = 0
    at: str = ""


# Progress callback the core calls and the CLI renders: (what, done, total).
ProgressFn = Callable[[str, int, int], None]
# A one-line notice for the user (the CLI prints it on stderr; scripts may collect it).
Notify = Callable[[str], None]


def silent(_: str) -> None:
    """The default ``Notify``: say nothing."""
    return None
