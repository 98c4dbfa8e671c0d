"""CSL JSON items of papers: the bibliography format of Pandoc's citeproc, Quarto and Zotero.

Each item's ``id`` is the paper's citekey, so ``[@key]`` in a draft resolves against the file.
arXiv preprints follow Zotero's own CSL export: type ``article`` (CSL's preprint type), the
repository as ``publisher`` and ``arXiv:ID`` as ``number``, the abstract page as ``URL``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rag.corpus import types as corpus_types
from rag.corpus.exports.csljson import parse_csl_json
from rag.corpus.exports.own_records import CSL_CUSTOM, OWN_RECORD
from rag.formats.own_records import Record, with_own_records
from rag.records import Paper

# CSL's type for preprints and working papers; also the honest default when the venue is unknown.
DEFAULT_TYPE = "article"
ARXIV_REPOSITORY = "arXiv"
ARXIV_ABS_URL = "https://arxiv.org/abs/"
# The name an export is read back under (to learn what it loses; rag.formats.own_records).
EXPORT_NAME = "export.json"
# An untitled paper (one seed entry is) is described by the opening of its text instead.
NOTE_CHARS = 120
# Lower-case words that start a family name written last ("Jan van der Berg").
_PARTICLE = re.compile(r"^(?:van|von|der|den|de|del|della|di|da|du|la|le|ter|ten|dos|das|bin|al|el)$")
_BIBTEX_TYPE = re.compile(r"^\s*@\s*(\w+)\s*[{(]")
# BibTeX's "and others" is an et al., which CSL styles add themselves.
_ET_AL = {"others", "et al.", "et al"}


def csl_name(author: str) -> dict[str, str] | None:
    """ "Last, First" (BibTeX order), "Last, Jr., First" or "First Last" -> a CSL name; one word -> literal."""
    name = " ".join(author.split())
    if not name or name.lower() in _ET_AL:
        return None
    parts = [part.strip() for part in name.split(",")]
    if len(parts) >= 2 and parts[0]:
        family, given = parts[0], parts[-1]
        suffix = ", ".join(p for p in parts[1:-1] if p)
        csl = {"family": family, "given": given} if given else {"family": family}
        return {**csl, "suffix": suffix} if suffix else csl
    words = name.split()
    if len(words) == 1:
        return {"literal": name}
    start = len(words) - 1
    while start > 1 and _PARTICLE.match(words[start - 1]):
        start -= 1
    return {"family": " ".join(words[start:]), "given": " ".join(words[:start])}


def csl_type(paper: Paper) -> str:
    """The work's CSL type: as its source said, else from its BibTeX entry type, else a preprint."""
    if paper.item_type:
        return paper.item_type
    if paper.bibtex and (match := _BIBTEX_TYPE.match(paper.bibtex)):
        return corpus_types.csl_type("bibtex", match.group(1)) or DEFAULT_TYPE
    return DEFAULT_TYPE


def csl_item(paper: Paper) -> dict[str, Any]:
    item: dict[str, Any] = {"id": paper.citekey, "type": csl_type(paper)}
    if paper.title:
        item["title"] = paper.title
    names = [name for name in (csl_name(a) for a in paper.authors) if name]
    if names:
        item["author"] = names
    if paper.year:
        item["issued"] = {"date-parts": [[paper.year]]}
    for name, value in (
        ("container-title", paper.venue),
        ("volume", paper.volume),
        ("issue", paper.issue),
        ("page", paper.pages),
        ("publisher", paper.publisher),
        ("DOI", paper.doi),
        ("URL", paper.url),
    ):
        if value:
            item[name] = value
    if paper.arxiv:
        item.setdefault("URL", ARXIV_ABS_URL + paper.arxiv)
        item["number"] = f"arXiv:{paper.arxiv}"
        if not paper.venue:  # a preprint: the repository is its publisher (as Zotero's own export writes it)
            item.setdefault("publisher", ARXIV_REPOSITORY)
    if not paper.no_abstract and paper.text:
        item["abstract"] = paper.text
    if not paper.title:
        item["note"] = paper.text[:NOTE_CHARS]
    return item


def csl_json(papers: Sequence[Paper]) -> str:
    """A CSL JSON array (what Zotero exports and ``pandoc --bibliography refs.json`` reads); each item carries
    rag's record of its paper in ``custom.rag`` (aliases, collections, what CSL cannot say), which other
    programs ignore and `rag ingest` reads back (all but the user's own BibTeX entry)."""

    def render(papers: Sequence[Paper], records: Sequence[Record]) -> str:
        items = [{**csl_item(p), CSL_CUSTOM: {OWN_RECORD: r}} for p, r in zip(papers, records, strict=True)]
        return json.dumps(items, ensure_ascii=False, indent=2) + "\n"

    def read_back(text: str) -> list[Paper]:
        return parse_csl_json(json.loads(text), EXPORT_NAME).papers

    # A user's own BibTeX entry is not carried: it would double the file Pandoc reads, for BibTeX's sake.
    return with_own_records(papers, render, read_back, left_out={"bibtex"})
