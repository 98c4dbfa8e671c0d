"""One work, one paper: the same work met again is merged into the paper already known, and every
citekey it was given stays an alias of it (a ``\\cite`` that once resolved must keep resolving).

A work is met again when the same abstract comes from another file (same content id), and when
another record of it arrives: the same DOI or arXiv id, or the same normalised title (case,
punctuation, Unicode quotes, accents) with years and first authors agreeing where both are known.
That covers a Zotero library exported twice (BibTeX and CSL JSON, abstracts differing in ’ vs '),
Zotero's own duplicate items, and a PDF beside its entry in a .bib or an export (the entry gives the
metadata and the abstract, the PDF its full text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rag.corpus.identity import ascii_fold, surname
from rag.records import DESCRIPTIVE_FIELDS, Paper

# Shorter titles ("Introduction", "Editorial") are too common to say two records are one work.
MIN_TITLE_KEY_CHARS = 20
_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Merge:
    """A record folded into a paper already known: the keys it brought, for the one-line report."""

    kept: Paper
    new_keys: tuple[str, ...]


def read_from_pdf(paper: Paper) -> bool:
    return any(source.rpartition("#")[0].lower().endswith(".pdf") for source in paper.sources)


def _folded(text: str) -> str:
    return _NOT_ALNUM.sub("", ascii_fold(text).lower())


def title_key(paper: Paper) -> str | None:
    key = _folded(paper.title or "")
    return key if len(key) >= MIN_TITLE_KEY_CHARS else None


def doi_key(paper: Paper) -> str | None:
    doi = _DOI_PREFIX.sub("", (paper.doi or "").strip()).lower()
    return doi or None


def _agree(a: Paper, b: Paper) -> bool:
    """Years and first authors do not contradict each other (where both records know them)."""
    if a.year is not None and b.year is not None and a.year != b.year:
        return False
    if a.first_author and b.first_author:
        return _folded(surname(a.first_author)) == _folded(surname(b.first_author))
    return True


def _titles_conflict(a: Paper, b: Paper) -> bool:
    """Two titles that cannot name one work (one is not the other, nor the other with a subtitle)."""
    first, second = _folded(a.title or ""), _folded(b.title or "")
    if not first or not second:
        return False
    return not (first.startswith(second) or second.startswith(first))


def _work_keys(paper: Paper) -> list[str]:
    keys = []
    if doi := doi_key(paper):
        keys.append(f"doi:{doi}")
    if paper.arxiv:
        keys.append(f"arxiv:{paper.arxiv.lower()}")
    if title := title_key(paper):
        keys.append(f"title:{title}")
    return keys


class WorkFinder:
    """Finds the known paper an incoming record is another record of, without comparing every pair."""

    def __init__(self, papers: Iterable[Paper]) -> None:
        self._papers = list(papers)
        self._index: dict[str, list[Paper]] | None = None
        self.conflicts: list[str] = []  # same identifier, different works: kept apart, said once each

    def find(self, incoming: Paper) -> Paper | None:
        for key in _work_keys(incoming):
            for known in self._indexed().get(key, []):
                if known is incoming:
                    continue
                if key.startswith("title:"):
                    if _agree(known, incoming):
                        return known
                elif _titles_conflict(known, incoming):
                    self.conflicts.append(
                        f"'{incoming.display_title}' and '{known.display_title}' share {key.replace(':', ' ', 1)} "
                        "but their titles differ: kept as two papers"
                    )
                else:
                    return known
        return None

    def add(self, paper: Paper) -> None:
        if self._index is None:
            self._papers.append(paper)
            return
        for key in _work_keys(paper):
            self._index.setdefault(key, []).append(paper)

    def _indexed(self) -> dict[str, list[Paper]]:
        if self._index is None:  # built on first use: most ingests never ask
            self._index = {}
            papers, self._papers = self._papers, []
            for paper in papers:
                self.add(paper)
        return self._index


def _richness(paper: Paper) -> int:
    """How much a record says: an abstract counts most, then each descriptive field it fills."""
    return (0 if paper.no_abstract else len(DESCRIPTIVE_FIELDS)) + sum(
        1 for name in DESCRIPTIVE_FIELDS if getattr(paper, name)
    )


def _union(*groups: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(item for group in groups for item in group if item))


def _keep_keys(known: Paper, incoming: Paper, user_key_wins: bool) -> tuple[str, ...]:
    """``known`` keeps its key (the first seen) unless ``user_key_wins``; every other key becomes an alias.
    Returns the keys ``known`` did not answer to before."""
    before = set(known.keys)
    if user_key_wins and incoming.citekey and incoming.citekey != known.citekey:
        known.citekey, incoming_keys = incoming.citekey, [known.citekey, *incoming.aliases]
    else:
        incoming_keys = [incoming.citekey, *incoming.aliases]
    known.aliases = [key for key in _union(known.aliases, incoming_keys) if key != known.citekey]
    return tuple(key for key in known.keys if key and key not in before)


def merge_work(known: Paper, incoming: Paper) -> Merge:
    """Fold ``incoming``, another record of the work ``known`` (which keeps its id), into it."""
    from_pdf = read_from_pdf(incoming) != read_from_pdf(known)
    if not known.sources:  # every file that gave it is being read again: what they say now replaces it
        preferred, other = incoming, known
    elif from_pdf:  # the entry gives metadata and abstract, the PDF its full text
        preferred, other = (known, incoming) if read_from_pdf(incoming) else (incoming, known)
    else:
        preferred, other = (incoming, known) if _richness(incoming) > _richness(known) else (known, incoming)
    text_from = other if preferred.no_abstract and not other.no_abstract else preferred
    known.text, known.truncated, known.no_abstract = text_from.text, text_from.truncated, text_from.no_abstract
    known.adopt_metadata(preferred, other)
    pdf = incoming if read_from_pdf(incoming) else known
    known.passages = pdf.passages or known.passages or incoming.passages
    # Sorted: the same records read in either order give the same paper (no spurious update).
    known.sources = sorted({*known.sources, *incoming.sources})
    known.lists = sorted({*known.lists, *incoming.lists})
    known.collections = _union(known.collections, incoming.collections)
    known.retracted = known.retracted or incoming.retracted  # any record that knows of a retraction tells it
    user_key = from_pdf and bool(preferred.bibtex) and preferred is incoming  # the user's own .bib key wins
    return Merge(known, _keep_keys(known, incoming, user_key_wins=user_key or not known.citekey))


def merge_paper(papers: dict[str, Paper], incoming: Paper) -> Merge | None:
    """Add ``incoming``; the same content seen again adds its sources and keys, not a new paper."""
    known = papers.get(incoming.id)
    if known is None:
        papers[incoming.id] = incoming
        return None
    if known.citekey and incoming.citekey and known.citekey != incoming.citekey:
        return merge_work(known, incoming)  # two entries of one work (Zotero's duplicates): the richer one leads
    known.sources.extend(s for s in incoming.sources if s not in known.sources)
    known.lists.extend(name for name in incoming.lists if name not in known.lists)
    known.collections = _union(known.collections, incoming.collections)
    known.retracted = known.retracted or incoming.retracted
    # What was just read wins over what was known (an edited papers.tsv updates the paper).
    known.adopt_metadata(incoming, known)
    if read_from_pdf(incoming):  # a PDF read again says what its full text is now (maybe none)
        known.passages = incoming.passages
    # The key seen first stays the paper's key; later ones become aliases.
    new_keys = _keep_keys(known, incoming, user_key_wins=not known.citekey)
    return Merge(known, new_keys) if new_keys else None


def merged_line(merges: Iterable[Merge], shown: int) -> str | None:
    """'3 duplicate entries merged: a-1 -> a, ...' for the merges that gave a paper another key."""
    pairs = list(
        dict.fromkeys(f"{key} -> {m.kept.citekey}" for m in merges for key in m.new_keys if key != m.kept.citekey)
    )
    if not pairs:
        return None
    more = f", and {len(pairs) - shown} more" if len(pairs) > shown else ""
    entries = "1 duplicate entry" if len(pairs) == 1 else f"{len(pairs)} duplicate entries"
    return f"{entries} merged: {', '.join(pairs[:shown])}{more} (each key still finds its paper)"
