"""One work, one paper: the same work met again is merged into the paper already known, and every
citekey it was given stays an alias of it (a ``\\cite`` that once resolved must keep resolving).

A work is met again when the same abstract comes from another file (same content id, or the same letters
and digits: curly quotes, dashes and spacing aside), and when another record of it arrives: the same DOI or
arXiv id, or the same normalised title (case,
punctuation, Unicode quotes, accents) with years and first authors agreeing where both are known.
That covers a Zotero library exported twice (BibTeX and CSL JSON, abstracts differing in ’ vs '),
Zotero's own duplicate items, and a PDF beside its entry in a .bib or an export (the entry gives the
metadata and the abstract, the PDF its full text).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from rag.corpus.identity import ascii_fold, content_id, surname
from rag.records import DESCRIPTIVE_FIELDS, VENUE_FIELDS, Paper

# Shorter titles ("Introduction", "Editorial") are too common to say two records are one work.
MIN_TITLE_KEY_CHARS = 20
# An abstract this long (letters and digits) is one work's own: two records holding it are that work, whatever
# their keys, titles or years (a preprint and its journal version, an export with curly quotes).
MIN_ABSTRACT_KEY_CHARS = 200
ABSTRACT_KEY_HEX = 20
# Years between a preprint and its published version: records of one abstract this close are one work, further
# apart another edition.
PUBLICATION_LAG_YEARS = 3
# Two titles of one DOI or arXiv id this alike (difflib's ratio over their letters and digits) are one work's,
# written with a symbol spelled out, folded away or dropped ("Wnt/β-catenin", "Wnt/beta-catenin", "Wnt/-catenin";
# "ℓ0TV" read as "TV"; "a Speed-Up" and "a 100× speed-up"): 0.98 for each such pair met in the real exports,
# 0.2-0.3 for the different works a bogus identifier is copied onto.
SAME_TITLE_RATIO = 0.95
_NOT_ALNUM = re.compile(r"[^a-z0-9]")
# Where preprints are listed: a record naming one as its venue or publisher is not the published version.
_PREPRINT = re.compile(r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|ssrn|corr|preprints?|research square)\b", re.I)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Merge:
    """A record folded into a paper already known: the keys it brought, and the key of the record whose venue,
    volume, issue, pages and publisher the paper now cites (empty: nothing was chosen), for the one-line report."""

    kept: Paper
    new_keys: tuple[str, ...]
    lead: str = ""


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
    """Two titles that cannot name one work: one is not the other with a subtitle, nor the other but for a
    symbol (SAME_TITLE_RATIO)."""
    first, second = _folded(a.title or ""), _folded(b.title or "")
    if not first or not second or first.startswith(second) or second.startswith(first):
        return False
    return SequenceMatcher(None, first, second, autojunk=False).ratio() < SAME_TITLE_RATIO


def abstract_key(paper: Paper) -> str | None:
    if paper.no_abstract:
        return None
    folded = _folded(paper.text)
    return (
        hashlib.sha256(folded.encode()).hexdigest()[:ABSTRACT_KEY_HEX]
        if len(folded) >= MIN_ABSTRACT_KEY_CHARS
        else None
    )


def _work_keys(paper: Paper) -> list[str]:
    keys = []
    if abstract := abstract_key(paper):
        keys.append(f"abstract:{abstract}")
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
        # Same identifier, different works (a bogus id shared by several entries): kept apart; by identifier,
        # the titles sharing it, each once.
        self._clashes: dict[str, list[str]] = {}

    def find(self, incoming: Paper) -> Paper | None:
        for key in _work_keys(incoming):
            for known in self._indexed().get(key, []):
                if known is incoming:
                    continue
                if key.startswith("abstract:"):
                    if not _another_edition(known, incoming):
                        return known
                    continue
                if key.startswith("title:"):
                    if _agree(known, incoming):
                        return known
                elif _titles_conflict(known, incoming):
                    titles = self._clashes.setdefault(key, [])
                    titles += [t for t in (known.display_title, incoming.display_title) if t not in titles]
                else:
                    return known
        return None

    @property
    def conflicts(self) -> list[str]:
        """One line per identifier that several works share: "3 papers share arxiv 1234.5678 but their titles
        differ, kept apart: 'A', 'B', 'C'"."""
        return [
            f"{len(titles)} papers share {key.replace(':', ' ', 1)} but their titles differ, kept apart: "
            + ", ".join(f"'{t}'" for t in titles)
            for key, titles in self._clashes.items()
        ]

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


def _venue_rank(paper: Paper) -> tuple[bool, bool, int]:
    """How well a record says where the work appeared: saying anything, as a published version (not a preprint
    server), then with more of venue, volume, issue, pages and publisher."""
    filled = sum(1 for name in VENUE_FIELDS if getattr(paper, name) and name != "item_type")
    preprint = any(_PREPRINT.search(value) for value in (paper.venue, paper.publisher) if value)
    return filled > 0, not preprint, filled


def published_version(preferred: Paper, other: Paper) -> Paper:
    """The record whose venue fields a merged paper takes, all together: the richer published version
    (NeurIPS' proceedings with pages and publisher, not the arXiv listing); ``preferred`` on a tie."""
    return other if _venue_rank(other) > _venue_rank(preferred) else preferred


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
    details = published_version(preferred, other)
    # Named before the keys are settled: the record that leads, by its key (else where it was read).
    lead = details.citekey or next(iter(details.sources), "")
    known.adopt_metadata(preferred, other, details)
    pdf = incoming if read_from_pdf(incoming) else known
    known.passages = pdf.passages or known.passages or incoming.passages
    # Sorted: the same records read in either order give the same paper (no spurious update).
    known.sources = sorted({*known.sources, *incoming.sources})
    known.lists = sorted({*known.lists, *incoming.lists})
    known.collections = _union(known.collections, incoming.collections)
    known.retracted = known.retracted or incoming.retracted  # any record that knows of a retraction tells it
    user_key = from_pdf and bool(preferred.bibtex) and preferred is incoming  # the user's own .bib key wins
    new_keys = _keep_keys(known, incoming, user_key_wins=user_key or not known.citekey)
    return Merge(known, new_keys, lead or known.citekey)


def _another_edition(known: Paper, incoming: Paper) -> bool:
    """Records of one content id (the same abstract; for entries without one, the same title and authors) that
    are not one work: another record, not the same one read again (whose year may have been edited), both dated,
    years apart, and no DOI or arXiv id in common (a 1997 reprint of a 1959 book)."""
    if known.year is None or incoming.year is None or known.year == incoming.year:
        return False
    if not known.no_abstract and abs(known.year - incoming.year) <= PUBLICATION_LAG_YEARS:
        return False  # a preprint and its published version: one abstract, one work
    if not known.sources or set(incoming.sources) <= set(known.sources):
        return False
    shared = {*_work_keys(known)} & {*_work_keys(incoming)}
    return not any(key.startswith(("doi:", "arxiv:")) for key in shared)


def separate_edition(papers: Mapping[str, Paper], incoming: Paper) -> None:
    """Give ``incoming`` an id of its own (from its text and year) when the paper holding its id is another
    edition: editions and reprints of other years stay apart, as one work's records of other years do."""
    known = papers.get(incoming.id)
    if known is not None and known is not incoming and _another_edition(known, incoming):
        incoming.id = content_id(f"{incoming.text}\n{incoming.year}")


def merge_paper(papers: dict[str, Paper], incoming: Paper) -> Merge | None:
    """Add ``incoming``; the same content seen again adds its sources and keys, not a new paper."""
    separate_edition(papers, incoming)
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
    """'3 duplicate entries merged: a-1 -> a, ...' for the merges that gave a paper another key. A key merged twice
    (into a duplicate of its file, then with it into the library's paper) is named once, with where it ended."""
    ended = {
        key: f"{key} -> {m.kept.citekey}{f' (details from {m.lead})' if m.lead else ''}"
        for m in merges
        for key in m.new_keys
        if key != m.kept.citekey
    }
    pairs = list(dict.fromkeys(ended.values()))
    if not pairs:
        return None
    more = f", and {len(pairs) - shown} more" if len(pairs) > shown else ""
    entries = "1 duplicate entry" if len(pairs) == 1 else f"{len(pairs)} duplicate entries"
    return f"{entries} merged: {', '.join(pairs[:shown])}{more} (each key still finds its paper)"
