"""BibTeX and biblatex files (Zotero, Better BibTeX, JabRef, Google Scholar, Scopus, ...) with
bibtexparser: the entry key is the citekey, the entry as written is kept for writing it back.

The file is parsed once, without bibtexparser's decoding middleware: only the fields rag uses are
decoded (rag.corpus.latex), which both reads what that middleware misses and is what makes a
3 MB Zotero library read in seconds rather than tens of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rag.corpus.entries import finish, year_in
from rag.corpus.exports.bib_database import (
    BARE,
    REMOVED_ENCLOSING,
    BibDatabase,
    field_values,
    interpolate,
    parse_library,
)
from rag.corpus.exports.own_records import ADDED_FIELDS, ENTRY_KEY, Parsed, bibtex_record, restore
from rag.corpus.identity import arxiv_in, arxiv_value
from rag.corpus.latex import latex_to_text
from rag.corpus.names import normalize_name
from rag.corpus.types import csl_type
from rag.errors import InputError
from rag.records import Paper
from rag.text import plural

ARXIV_FIELDS = ("eprint", "arxiv", "arxivid")
_BLOCK_KEY = re.compile(r"@\w+\s*[{(]\s*([^,\s{}()]+)\s*,")
_PARSER_REASON = re.compile(r"^Unexpected block start: `@\w+`\.\s*")  # the next entry's start: said by the line
# Where each field is, BibTeX's name or biblatex's (journaltitle, date), first found wins.
_VENUE = ("journaltitle", "journal", "booktitle", "maintitle", "eventtitle", "series")
_PUBLISHER = ("publisher", "school", "institution", "organization")
# JabRef 2 wrote authors as @string macros defined in another file: "Acosta-CabroneroJ # { and } # PattersonK".
_MACRO_JOIN = re.compile(r"\s*#\s*\{\s*and\s*\}\s*#\s*")
_MACRO_NAME = re.compile(r"^(?P<surname>.*[a-z])(?P<initials>[A-Z]+(?:-[A-Z]+)*)$")
_NAME_FIELDS = frozenset({"author", "editor"})


def _macro_person(macro: str) -> str:
    """An author macro no file defines, read the JabRef way: its name is a surname and initials ("SiegelJM" ->
    "Siegel, JM")."""
    return _MACRO_NAME.sub(r"\g<surname>, \g<initials>", macro)


def _names(value: str) -> list[str]:
    """An author field -> 'Surname, Given' names, split the BibTeX way (braces protect 'and')."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    if " # " in value:  # unresolved @string macros, joined
        value = " and ".join(_macro_person(n) for n in _MACRO_JOIN.split(value))
    names = []
    for raw in split_multiple_persons_names(value):
        parts = parse_single_name_into_parts(raw, strict=False)
        last = latex_to_text(" ".join(parts.von + parts.last))
        first = latex_to_text(" ".join(parts.first + parts.jr))
        names.append(f"{last}, {first}" if last and first else normalize_name(last or first))
    return [name for name in names if name.strip()]


def _arxiv(fields: dict[str, str]) -> str | None:
    for name in ARXIV_FIELDS:
        if found := arxiv_value(fields.get(name, "")) or arxiv_in(fields.get(name, "")):
            return found
    return arxiv_in(fields.get("url", "")) or arxiv_in(fields.get("doi", ""))


def _first(fields: dict[str, str], names: tuple[str, ...]) -> str:
    return latex_to_text(next((fields[name] for name in names if fields.get(name, "").strip()), ""))


def _aliases(value: str) -> list[str]:
    """biblatex's ``ids``: the other keys an entry is cited by."""
    return [key for key in (part.strip() for part in value.split(",")) if key]


def _without_added(entry: Any, record: Mapping[str, Any] | None) -> Any:
    """The entry as its owner wrote it: the fields rag's export added to it (its record lists them) taken off."""
    from bibtexparser.model import Entry

    added = record.get(ADDED_FIELDS) if record is not None else None
    if not isinstance(added, list):
        return entry
    names = {str(name).lower() for name in added}
    return Entry(entry.entry_type, entry.key, [field for field in entry.fields if field.key.lower() not in names])


def _resolved(entry: Any, strings: Mapping[str, str], abstract: str | None) -> Any:
    """The entry with its bare macros and '#' concatenations resolved where every macro is known (in any .bib
    file of the ingest), and the abstract another file gives it; the entry itself when nothing changes."""
    from bibtexparser.model import Entry, Field

    enclosing = entry.parser_metadata.get(REMOVED_ENCLOSING, {})
    fields, changed = [], abstract is not None
    for old in entry.fields:
        value = str(old.value)
        bare = enclosing.get(old.key) == BARE and not value.isdigit()
        if bare and (resolved := interpolate(value, strings)) is not None and resolved != value:
            old, changed = Field(old.key, resolved), True
        elif bare and resolved is None and old.key.lower() in _NAME_FIELDS and _MACRO_NAME.match(value.strip()):
            # One author's macro no file defines ("SiegelJM"), read as each of a '#' concatenation of them is.
            old, changed = Field(old.key, _macro_person(value.strip())), True
        fields.append(old)
    if abstract is not None:
        fields.append(Field("abstract", abstract))
    return Entry(entry.entry_type, entry.key, fields) if changed else entry


def _paper(entry: Any, file_name: str, record: Mapping[str, Any] | None = None) -> Paper | None:
    fields = field_values(entry)
    kind = entry.entry_type.lower()
    arxiv = _arxiv(fields)
    paper = Paper(
        id="",
        text=latex_to_text(fields.get("abstract", "")),
        title=latex_to_text(fields.get("title", "")),
        authors=_names(fields.get("author", "")),
        arxiv=arxiv,
        doi=fields.get("doi") or None,
        citekey=entry.key,
        aliases=[key for key in _aliases(fields.get("ids", "")) if key != entry.key],
        bibtex=_entry_text(_without_added(entry, record)),
        venue=_first(fields, _VENUE),
        volume=fields.get("volume"),
        issue=fields.get("issue") or (fields.get("number") if kind == "article" else None),
        pages=fields.get("pages"),
        publisher=_first(fields, _PUBLISHER),
        url=fields.get("url"),
        year=year_in(fields.get("year") or fields.get("date")),
        # A preprint: Zotero and Better BibTeX write them as @misc/@online/@article with an arXiv id.
        item_type="article" if arxiv and kind in ("misc", "online", "unpublished") else csl_type("bibtex", kind),
    )
    return finish(paper, f"{file_name}#{entry.key}", file_name)


def parse_bibtex(text: str, file_name: str, database: BibDatabase | None = None, path: Path | None = None) -> Parsed:
    """Papers from a .bib file, and a warning (file:line) per entry that could not be used; an entry of rag's
    own export is the paper its record carries (rag.corpus.exports.own_records). With the ``database`` of the
    .bib files ingested with it, their @string macros resolve here too, and an entry holding only an abstract
    that the entry of its key in another file takes is not a paper of its own."""
    library = database.library(path, text) if database is not None and path is not None else parse_library(text)
    from bibtexparser.model import DuplicateFieldKeyBlock, Entry

    strings = {**(database.strings if database is not None else {})}
    strings.update({key.lower(): str(s.value) for key, s in library.strings_dict.items()})

    warnings = []
    entries = list(library.entries)
    for block in library.failed_blocks:
        where = f"{file_name}:{(block.start_line or 0) + 1}"
        if isinstance(block, DuplicateFieldKeyBlock) and isinstance(block.ignore_error_block, Entry):
            # One field written twice (Scopus exports do this): the entry is good, one of the two values is kept.
            fields = ", ".join(sorted(block.duplicate_keys))
            warnings.append(f"{where}: field {fields} given twice in '{block.ignore_error_block.key}', one kept")
            entries.append(block.ignore_error_block)
            continue
        key = _BLOCK_KEY.match(block.raw or "")
        named = f" '{key.group(1)}'" if key else ""
        if "Duplicate" in type(block).__name__:
            warnings.append(f"{where}: duplicate key{named}, kept the first")
        else:  # bibtexparser's reason, e.g. "Was still looking for field-value closing `}`": a brace left open
            reason = _PARSER_REASON.sub("", str(getattr(block.error, "abort_reason", ""))).strip()
            warnings.append(f"{where}: syntax error in entry{named}{f' ({reason})' if reason else ''}, skipped")
    records = {record[ENTRY_KEY]: record for record in map(bibtex_record, _comments(library)) if record}
    papers, copies, given = [], set(), 0
    for entry in entries:
        where = f"{file_name}:{(entry.start_line or 0) + 1}"
        record = records.get(entry.key)
        own = field_values(entry)
        if database is not None and not own.get("title", "").strip() and database.completes(entry.key):
            given += 1
            continue
        given_abstract = None
        if database is not None and not own.get("abstract", "").strip():
            given_abstract = database.abstracts.get(entry.key)
        paper = _paper(_resolved(entry, strings, given_abstract), file_name, record)
        if paper is None:
            warnings.append(f"{where}: entry '{entry.key}' has neither title nor abstract")
            continue
        if record is not None and restore(paper, record, where, warnings):
            copies.add(paper.id)
        papers.append(paper)
    if not papers and database is not None and library.strings_dict:
        # A file of @string macros only (JabRef's "AuthorIDs.bib"): the other .bib files use them.
        return Parsed(
            [], [f"{file_name}: {plural(len(library.strings_dict), '@string macro')} for the other .bib files"]
        )
    warnings += _split_file_notes(file_name, given, papers)
    if not papers and warnings and not given:
        raise InputError(f"{file_name}: no usable BibTeX entry ({'; '.join(warnings[:3])})")
    return Parsed(papers, warnings, frozenset(copies))


def _split_file_notes(file_name: str, given: int, papers: Sequence[Paper]) -> list[str]:
    """What a file of a database split over several makes of its entries: the abstracts it gave the entries of
    their keys in another file, and the entries left with an abstract but no title (JabRef's Abstracts.bib read
    alone: the titles are in another file, under the same keys)."""
    notes = []
    if given:
        notes.append(f"{file_name}: {plural(given, 'abstract')} given to the entries of their keys in another file")
    if untitled := sum(not p.title for p in papers):
        notes.append(
            f"{file_name}: {plural(untitled, 'entry', 'entries')} with an abstract but no title, listed as "
            '"(untitled)"; if another .bib file holds their titles under the same keys, ingest the files together'
        )
    return notes


def _comments(library: Any) -> list[str]:
    from bibtexparser.model import ExplicitComment

    return [block.comment for block in library.blocks if isinstance(block, ExplicitComment)]


def _entry_text(entry: object) -> str | None:
    from bibtexparser.entrypoint import write_string
    from bibtexparser.library import Library

    return str(write_string(Library([entry]))).strip()  # type: ignore[list-item]
