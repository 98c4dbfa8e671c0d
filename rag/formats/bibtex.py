"""BibTeX entries of cited papers: the user's own entry when there is one, else one built from metadata.

A paper known under several citekeys (a duplicate merged) gets biblatex's ``ids`` field, so
``\\cite{old-key}`` in a document still resolves (biblatex reads ``ids``; BibTeX ignores it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.formats.latex import latex_escape
from rag.records import Paper

# CSL item types -> BibTeX entry types, and the field that names where such a work appeared.
ENTRY_TYPES = {
    "article-journal": ("article", "journal"),
    "article-magazine": ("article", "journal"),
    "article-newspaper": ("article", "journal"),
    "paper-conference": ("inproceedings", "booktitle"),
    "chapter": ("incollection", "booktitle"),
    "book": ("book", None),
    "thesis": ("phdthesis", "school"),
    "report": ("techreport", "institution"),
}
DEFAULT_ENTRY = ("misc", "howpublished")
NOTE_CHARS = 120
_ENTRY_HEAD = re.compile(r"^\s*(?P<kind>@\s*\w+\s*[{(])(?P<key>[^,\n]*),[ \t]*\n?")
_HAS_IDS = re.compile(r"^\s*ids\s*=", re.IGNORECASE | re.MULTILINE)
_PAGE_RANGE = re.compile(r"\s*[-–—]+\s*")


def _bib_value(text: str) -> str:
    """Braces balanced and LaTeX specials escaped, so any title is a valid field."""
    return latex_escape(text).replace(r"\{", "(").replace(r"\}", ")")


def _verbatim(text: str) -> str:
    """A URL or DOI as biblatex reads it (verbatim): only braces and backslashes, which would break the
    field, are percent-encoded; escaping it like text would change the address."""
    return text.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


def _ids(paper: Paper) -> str | None:
    return ", ".join(paper.aliases) or None  # keys as they are: escaping would change them


def _as_primary(entry: str, paper: Paper) -> str:
    """The user's own entry, verbatim, under the paper's key (an entry of a merged duplicate may carry another
    of its keys) and with the other keys as ``ids`` where it has none yet."""
    head = _ENTRY_HEAD.match(entry)
    if head is None:
        return entry
    ids = None if _HAS_IDS.search(entry) else _ids(paper)
    if head.group("key").strip() == paper.citekey and ids is None:
        return entry
    line = f"{head.group('kind')}{paper.citekey},"
    rest = entry[head.end() :]
    return f"{line}\n  ids = {{{ids}}},\n{rest}" if ids else f"{line}\n{rest}"


def bibtex_entry(paper: Paper) -> str:
    """The user's own entry when the paper came from their .bib file, else one built from what we know."""
    if paper.bibtex:
        return _as_primary(paper.bibtex, paper)
    entry_type, venue_field = ENTRY_TYPES.get(paper.item_type or "", DEFAULT_ENTRY)
    fields: list[tuple[str, str | None]] = [
        ("ids", _ids(paper)),
        ("title", f"{{{_bib_value(paper.title)}}}" if paper.title else None),
        ("author", " and ".join(_bib_value(a) for a in paper.authors) or None),
        ("year", str(paper.year) if paper.year else None),
        (venue_field or "note", _bib_value(paper.venue) if paper.venue else None),
        ("volume", _bib_value(paper.volume) if paper.volume else None),
        ("number", _bib_value(paper.issue) if paper.issue else None),
        ("pages", _PAGE_RANGE.sub("--", _bib_value(paper.pages)) if paper.pages else None),
        ("publisher", _bib_value(paper.publisher) if paper.publisher else None),
        ("doi", _verbatim(paper.doi) if paper.doi else None),
    ]
    url = paper.url
    if paper.arxiv:
        arxiv = _bib_value(paper.arxiv)
        fields += [("eprint", arxiv), ("archivePrefix", "arXiv")]
        url = url or f"https://arxiv.org/abs/{paper.arxiv}"
    fields.append(("url", _verbatim(url) if url else None))
    if not paper.title:
        fields.append(("note", _bib_value(paper.text[:NOTE_CHARS])))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@{entry_type}{{{paper.citekey},\n{body}\n}}"


def bibtex(papers: Sequence[Paper]) -> str:
    return "\n\n".join(bibtex_entry(p) for p in papers) + "\n"
