"""BibTeX entries of cited papers: the user's own entry when there is one, else one built from metadata.

A paper known under several citekeys (a duplicate merged) gets biblatex's ``ids`` field, so
``\\cite{old-key}`` in a document still resolves (biblatex reads ``ids``; BibTeX ignores it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.exports.bibtex import parse_bibtex
from rag.corpus.exports.own_records import ADDED_FIELDS, ENTRY_KEY, bibtex_comment
from rag.formats.latex import latex_escape
from rag.formats.own_records import Record, with_own_records
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
_FIELD_NAME = re.compile(r"^\s*([A-Za-z][\w-]*)\s*=", re.MULTILINE)
# Field names that say the same thing: an entry having one of a group lacks none of them.
SAME_FIELD = (
    frozenset({"journal", "journaltitle", "booktitle", "maintitle", "eventtitle", "series", "howpublished"}),
    frozenset({"school", "institution", "journal", "howpublished"}),
    frozenset({"year", "date"}),
    frozenset({"number", "issue"}),
    frozenset({"author", "editor"}),
    frozenset({"eprint", "arxiv", "arxivid"}),
    frozenset({"archiveprefix", "eprinttype"}),
)
# The name an export is read back under (to learn what it loses; rag.formats.own_records).
EXPORT_NAME = "export.bib"
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


def _fields(paper: Paper) -> list[tuple[str, str]]:
    """Every field the library holds of the paper, as BibTeX names them (the venue's by the entry type)."""
    _, venue_field = ENTRY_TYPES.get(paper.item_type or "", DEFAULT_ENTRY)
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
    fields.append(("abstract", None if paper.no_abstract else _bib_value(paper.text)))
    if not paper.title:
        fields.append(("note", _bib_value(paper.text[:NOTE_CHARS])))
    return [(name, value) for name, value in fields if value]


def _present(entry: str) -> set[str]:
    """The fields an entry has, each with the names that say the same (a journaltitle is a journal)."""
    names = {match.lower() for match in _FIELD_NAME.findall(entry)}
    return names | {name for group in SAME_FIELD for name in group if names & group}


def _with_library_fields(entry: str, paper: Paper) -> tuple[str, list[str]]:
    """The user's entry, verbatim, under the paper's key (an entry of a merged duplicate may carry another
    of its keys), with the other keys as ``ids`` and every field the library holds that it lacks (an abstract
    from another record, a DOI) added at its end; and the names of the fields added."""
    head = _ENTRY_HEAD.match(entry)
    if head is None:
        return entry, []
    present = _present(entry)
    missing = [(name, value) for name, value in _fields(paper) if name.lower() not in present and name != "note"]
    ids = next((value for name, value in missing if name == "ids"), None)
    extra = [(name, value) for name, value in missing if name != "ids"]
    if head.group("key").strip() != paper.citekey or ids:
        line = f"{head.group('kind')}{paper.citekey},"
        rest = entry[head.end() :]
        entry = f"{line}\n  ids = {{{ids}}},\n{rest}" if ids else f"{line}\n{rest}"
    if extra:
        body = entry.rstrip()[:-1].rstrip()
        lines = ",\n".join(f"  {name} = {{{value}}}" for name, value in extra)
        entry = f"{body}{'' if body.endswith(',') else ','}\n{lines}\n}}"
    return entry, [name for name, _ in missing]


def _entry(paper: Paper) -> tuple[str, list[str]]:
    """The paper's entry and the fields added to the user's own one (none to an entry rag writes itself)."""
    if paper.bibtex:
        return _with_library_fields(paper.bibtex, paper)
    entry_type, _ = ENTRY_TYPES.get(paper.item_type or "", DEFAULT_ENTRY)
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in _fields(paper))
    return f"@{entry_type}{{{paper.citekey},\n{body}\n}}", []


def bibtex_entry(paper: Paper) -> str:
    """The user's own entry when the paper came from their .bib file (with what the library adds), else one
    built from everything the library holds."""
    return _entry(paper)[0]


def bibtex(papers: Sequence[Paper]) -> str:
    """Every paper's entry, each after a ``@comment`` holding rag's record of it (rag.formats.own_records):
    BibTeX, biber, JabRef and Zotero skip comments; `rag ingest` reads the paper back whole."""

    def render(papers: Sequence[Paper], records: Sequence[Record]) -> str:
        blocks = []
        for paper, record in zip(papers, records, strict=True):
            entry, added = _entry(paper)
            record.update({ENTRY_KEY: paper.citekey, **({ADDED_FIELDS: added} if added else {})})
            blocks.append(f"{bibtex_comment(record)}\n{entry}")
        return "\n\n".join(blocks) + "\n"

    return with_own_records(papers, render, lambda text: parse_bibtex(text, EXPORT_NAME).papers)
