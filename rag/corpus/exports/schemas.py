"""Which column (or tag) of an export holds which field, and one way from a record to a ``Paper``.

Every record-per-entry format is read through a ``Schema``: the CSV/TSV and JSON exports
(rag.corpus.exports.tabular), RIS, Web of Science and MEDLINE. A record is a lookup from a column name to its
value, which may be text, a list of lines or names (tagged formats, JSON) or a JSON object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rag.corpus.entries import finish, page_range, year_in
from rag.corpus.identity import arxiv_in, arxiv_value
from rag.corpus.names import normalize_name, split_names
from rag.corpus.types import csl_type
from rag.records import Paper

# The fields a schema (or --field NAME=COLUMN) can point at a column.
FIELDS = (
    "title",
    "abstract",
    "authors",
    "year",
    "arxiv",
    "doi",
    "key",
    "venue",
    "volume",
    "issue",
    "pages",
    "publisher",
    "url",
    "type",
)
# Schemas also name 'page_start'/'page_end' (a range in two columns), 'citation' (a citation string to
# take venue, volume, issue and pages from) and 'url_id' (what ``url_template`` is filled with).
Lookup = Callable[[str], Any]


def column_key(name: str) -> str:
    """How column names are compared: case, spaces and punctuation aside ('Abstract Note' = 'abstract_note')."""
    return re.sub(r"[\W_]+", "", name.casefold())


@dataclass(frozen=True)
class Schema:
    name: str
    types: str | None  # the scheme of its type names (rag.corpus.types); None: any
    fields: Mapping[str, tuple[str, ...]]  # field -> columns, first found wins
    signature: frozenset[str] = frozenset()  # columns (as column_key gives them) that identify a CSV of it
    names: Callable[[str], list[str]] = split_names  # how an author cell is split
    # Details (venue, volume, issue, pages, year) from a citation string, for exports that give no columns.
    citation: Callable[[str], dict[str, str]] | None = None
    url_template: str | None = None  # an address made from the 'url_id' column (PubMed's PMID)
    default_type: str | None = None  # the CSL type of every record without a type column (arXiv: preprints)


def _inverted_abstract(index: Mapping[str, Any]) -> str:
    """OpenAlex stores abstracts as word -> positions."""
    positions = {pos: word for word, places in index.items() if isinstance(places, list) for pos in places}
    return " ".join(str(positions[i]) for i in sorted(p for p in positions if isinstance(p, int)))


def text_of(value: Any) -> str:
    """A cell, lines of a tag, or an OpenAlex inverted abstract (also when a CSV cell holds it as JSON)."""
    if isinstance(value, str) and value.startswith("{") and '":[' in value.replace(" ", ""):
        text = value
        try:
            value = json.loads(text)
        except ValueError:
            return text
    if isinstance(value, Mapping):
        return _inverted_abstract(value)
    if isinstance(value, list):
        return " ".join(text for text in map(text_of, value) if text)
    return "" if value is None else str(value)


def _names(value: Any, split: Callable[[str], list[str]]) -> list[str]:
    if isinstance(value, str):
        return split(value)
    names: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, Mapping):  # OpenAlex authorships, Semantic Scholar authors
            item = item.get("name") or item.get("display_name") or (item.get("author") or {}).get("display_name")
        if isinstance(item, list):  # arXiv's authors_parsed: [last, first, suffix]
            item = normalize_name(", ".join(str(part) for part in item[:2] if part))
            names.extend([item] if item else [])
        elif isinstance(item, str):
            names.extend(split(item))
    return names


def _present(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list):
        return any(map(_present, value))
    return value is not None and value != {}


def _value(lookup: Lookup, columns: tuple[str, ...]) -> Any:
    return next((value for value in map(lookup, columns) if _present(value)), None)


def to_paper(
    lookup: Lookup, schema: Schema, source: str, list_name: str, mapping: Mapping[str, str] | None = None
) -> Paper | None:
    """The paper a record describes (``lookup`` gives a column's value), None without title or abstract.
    ``mapping`` (--field NAME=COLUMN) points fields at other columns than the schema's."""
    columns = {**schema.fields, **{name: (column,) for name, column in (mapping or {}).items()}}

    def get(name: str) -> Any:
        return _value(lookup, columns.get(name, ()))

    def text(name: str) -> str:
        return text_of(get(name)).strip()

    found = schema.citation(text("citation")) if schema.citation and text("citation") else {}
    url_id = text("url_id")
    paper = Paper(
        id="",
        text=text("abstract"),
        title=text("title"),
        authors=_names(get("authors"), schema.names),
        year=year_in(text("year") or found.get("year")),
        doi=text("doi") or None,
        citekey=text("key"),
        venue=text("venue") or found.get("venue"),
        volume=text("volume") or found.get("volume"),
        issue=text("issue") or found.get("issue"),
        pages=page_range(text("page_start"), text("page_end")) or text("pages") or found.get("pages"),
        publisher=text("publisher") or None,
        url=text("url") or (schema.url_template.format(url_id) if schema.url_template and url_id else None),
        item_type=csl_type(schema.types, get("type")) or schema.default_type,
    )
    paper.arxiv = arxiv_value(text("arxiv")) or arxiv_in(f"{paper.doi or ''} {paper.url or ''}")
    return finish(paper, source, list_name)


def record_papers(
    records: Iterable[tuple[int, int, Lookup]], schema: Schema, file_name: str
) -> tuple[list[Paper], list[str]]:
    """Each record (its number, the line it starts on, how to read its fields) as a paper; one with neither
    title nor abstract is a ``file:line`` warning, skipped."""
    papers, warnings = [], []
    for number, line, lookup in records:
        paper = to_paper(lookup, schema, f"{file_name}#{number}", file_name)
        if paper is None:
            warnings.append(f"{file_name}:{line}: record has neither title nor abstract, skipped")
        else:
            papers.append(paper)
    return papers, warnings
