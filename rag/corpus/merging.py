"""Papers met more than once become one: the same content from two files (``merge_paper``), and
one paper read from two kinds of file, its PDF and an entry in a .bib or an export (twins).

Ids are hashes of the abstract, and a PDF's extracted abstract never hashes like
the one in a Zotero or Semantic Scholar export, so without this the same paper
would be listed, searched and cited twice. A PDF and an entry from another kind
of file are twins when their titles match (and their first authors and years,
where both are known). The entry gives the metadata and the abstract, the PDF
its full text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.corpus.identity import ascii_fold, surname
from rag.records import Paper

# Shorter titles ("Introduction", "Editorial") are too common to say two files are one paper.
MIN_TITLE_KEY_CHARS = 20
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def read_from_pdf(paper: Paper) -> bool:
    return any(source.rpartition("#")[0].lower().endswith(".pdf") for source in paper.sources)


def title_key(paper: Paper) -> str | None:
    key = _NOT_ALNUM.sub("", ascii_fold(paper.title or "").lower())
    return key if len(key) >= MIN_TITLE_KEY_CHARS else None


def _agree(a: Paper, b: Paper) -> bool:
    if a.year is not None and b.year is not None and a.year != b.year:
        return False
    if a.first_author and b.first_author:
        return _NOT_ALNUM.sub("", ascii_fold(surname(a.first_author)).lower()) == _NOT_ALNUM.sub(
            "", ascii_fold(surname(b.first_author)).lower()
        )
    return True


class TwinFinder:
    """Finds twins among a library's papers, by title, without comparing every pair."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self._papers = list(papers)
        self._by_title: dict[bool, dict[str, list[Paper]]] | None = None  # from a PDF? -> title key -> papers

    def find(self, incoming: Paper) -> Paper | None:
        """The known paper that ``incoming`` is the other file of, if any."""
        key = title_key(incoming)
        if key is None:
            return None
        other_kind = self._index()[not read_from_pdf(incoming)]
        return next((paper for paper in other_kind.get(key, []) if _agree(paper, incoming)), None)

    def add(self, paper: Paper) -> None:
        if self._by_title is None:
            self._papers.append(paper)
        elif (key := title_key(paper)) is not None:
            self._by_title[read_from_pdf(paper)].setdefault(key, []).append(paper)

    def _index(self) -> dict[bool, dict[str, list[Paper]]]:
        if self._by_title is None:  # built on first use: most ingests never ask
            self._by_title = {True: {}, False: {}}
            papers, self._papers = self._papers, []
            for paper in papers:
                self.add(paper)
        return self._by_title


def merge_twin(known: Paper, incoming: Paper) -> None:
    """Fold ``incoming`` into its twin ``known`` (which keeps its id): metadata and abstract from the
    entry, full text from the PDF, sources and lists from both."""
    pdf, entry = (incoming, known) if read_from_pdf(incoming) else (known, incoming)
    # Sorted: the same two files read in either order give the same record (no spurious update).
    known.sources = sorted({*known.sources, *incoming.sources})
    known.lists = sorted({*known.lists, *incoming.lists})
    known.passages = pdf.passages
    known.adopt_metadata(entry, pdf)
    if entry.citekey and entry.bibtex:  # the user's own key wins, as for any BibTeX entry
        known.citekey = entry.citekey
    if not entry.no_abstract or pdf.no_abstract:
        known.text, known.truncated, known.no_abstract = entry.text, entry.truncated, entry.no_abstract
    else:  # a title-only entry: the PDF's abstract is the better text
        known.text, known.truncated, known.no_abstract = pdf.text, pdf.truncated, pdf.no_abstract


def merge_paper(papers: dict[str, Paper], incoming: Paper) -> None:
    """Add ``incoming``; the same content seen again adds its sources, not a new paper."""
    known = papers.get(incoming.id)
    if known is None:
        papers[incoming.id] = incoming
        return
    known.sources.extend(s for s in incoming.sources if s not in known.sources)
    known.lists.extend(name for name in incoming.lists if name not in known.lists)
    # What was just read wins over what was known (an edited papers.tsv updates the paper).
    known.adopt_metadata(incoming, known)
    if read_from_pdf(incoming):  # a PDF read again says what its full text is now (maybe none)
        known.passages = incoming.passages
    known.citekey = incoming.citekey or known.citekey  # a key the user chose (BibTeX) wins
