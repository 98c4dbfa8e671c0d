"""CSL JSON files (Zotero's "Export Collection… → CSL JSON", Pandoc/Quarto bibliographies): the item id is the citekey.

A ``.json`` file is read as CSL when its top level is a list of objects that look like CSL items
(see ``is_csl_json``); any other JSON goes to the export reader (rag.corpus.exports.tabular) as before.
Items that cannot be used are warnings (``file:item N``), the good ones are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rag.corpus.entries import clean_text, finish
from rag.corpus.exports.own_records import Parsed, csl_record, restore
from rag.corpus.identity import TRUNCATION_MARK, arxiv_in, arxiv_value, normalize_text
from rag.corpus.names import normalize_name
from rag.corpus.types import CSL_TYPES
from rag.errors import InputError
from rag.records import Paper

# CSL 1.0.2's item types: a "type" outside them is some other export's (OpenAlex's "book-chapter", ...).
# Fields of the exports rag.corpus.exports.tabular recognises (OpenAlex, Semantic Scholar, arXiv): such a file
# stays there.
OTHER_EXPORT_FIELDS = frozenset(
    {
        "display_name",
        "authorships",
        "abstract_inverted_index",
        "publication_year",
        "externalIds",
        "paperId",
        "authors_parsed",
    }
)
# Where the container is: a journal or book, else the proceedings series or the event.
_VENUE = ("container-title", "collection-title", "event-title", "event")
# arXiv ids where CSL exports put them: number "arXiv:ID", URL .../abs/ID, DOI 10.48550/arXiv.ID.
_ARXIV_FIELDS = ("number", "URL", "DOI", "archive_location", "note")
# A citekey cannot hold whitespace or the characters that end a BibTeX key or a \cite{} list.
_BAD_KEY_CHARS = re.compile(r"[\s,{}()\"#%'=\\]")


def looks_like_csl_item(item: object) -> bool:
    """A CSL type plus a title or an id, and none of the fields of the exports read elsewhere."""
    return (
        isinstance(item, Mapping)
        and item.get("type") in CSL_TYPES
        and ("title" in item or "id" in item)
        and not OTHER_EXPORT_FIELDS & item.keys()
    )


def is_csl_json(data: object) -> bool:
    """A list holding CSL items (a single CSL item object counts too, read with a warning)."""
    if isinstance(data, Mapping):
        return looks_like_csl_item(data)
    if not isinstance(data, list) or not any(looks_like_csl_item(item) for item in data):
        return False
    return not any(isinstance(item, Mapping) and OTHER_EXPORT_FIELDS & item.keys() for item in data)


def _text(value: object) -> str:
    if isinstance(value, list):  # Crossref-style CSL gives titles as lists
        value = next((v for v in value if isinstance(v, str) and v.strip()), "")
    return clean_text(str(value)) if isinstance(value, str | int) and not isinstance(value, bool) else ""


def _author(name: object) -> str | None:
    """A CSL name -> 'Last, First' (BibTeX order, as the other readers give); a literal stays as it is."""
    if isinstance(name, str):
        return normalize_text(name) or None
    if not isinstance(name, Mapping):
        return None
    if literal := _text(name.get("literal")):
        return normalize_name(literal)
    family = " ".join(p for p in (_text(name.get("non-dropping-particle")), _text(name.get("family"))) if p)
    given = " ".join(
        p for p in (_text(name.get("given")), _text(name.get("dropping-particle")), _text(name.get("suffix"))) if p
    )
    return f"{family}, {given}" if family and given else normalize_name(family or given) or None


def _year(issued: object) -> int | None:
    """From date-parts ([[2020, 5]]), or the first four-digit year of a raw/literal/string date."""
    if isinstance(issued, Mapping):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            try:
                return int(parts[0][0])
            except (TypeError, ValueError):
                pass
        issued = issued.get("raw") or issued.get("literal") or issued.get("season")
    match = re.search(r"\b(1[89]|20)\d{2}\b", str(issued)) if issued is not None else None
    return int(match.group(0)) if match else None


def _arxiv(item: Mapping[str, Any]) -> str | None:
    for name in _ARXIV_FIELDS:
        if isinstance(item.get(name), str) and (found := arxiv_in(item[name])):
            return found
    repository = " ".join(str(item.get(name, "")) for name in ("publisher", "archive", "container-title"))
    for name in ("number", "archive_location", "id"):  # a bare id, where the item says it is on arXiv
        value = str(item.get(name, "")).strip()
        if (name == "id" or "arxiv" in repository.lower()) and (found := arxiv_value(value)):
            return found
    return None


def _items(data: object, file_name: str) -> tuple[Sequence[object], list[str]]:
    if isinstance(data, list):
        return data, []
    if looks_like_csl_item(data):
        return [data], [f"{file_name}: the top level is one CSL item, not a list of them; read as one item"]
    raise InputError(f"{file_name}: not CSL JSON (the top level must be a list of items, got {type(data).__name__})")


def parse_csl_json(data: object, file_name: str) -> Parsed:
    """Papers from decoded CSL JSON, and a warning (file:item N) per item that could not be used; an item of
    rag's own export is the paper its record carries (rag.corpus.exports.own_records)."""
    items, warnings = _items(data, file_name)
    papers: list[Paper] = []
    copies: set[str] = set()
    seen: set[str] = set()
    for number, item in enumerate(items, start=1):
        where = f"{file_name}:item {number}"
        if not isinstance(item, Mapping):
            warnings.append(f"{where}: not a JSON object, skipped")
            continue
        raw_id = item.get("id")
        key = str(raw_id).strip() if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else ""
        if key in seen:
            warnings.append(f"{where}: duplicate id '{key}', kept the first")
            continue
        title, abstract = _text(item.get("title")), _text(item.get("abstract"))
        if not title and not abstract:
            warnings.append(f"{where}: item '{key}' has neither title nor abstract, skipped")
            continue
        if key:
            seen.add(key)
        if _BAD_KEY_CHARS.search(key):
            warnings.append(f"{where}: id '{key}' cannot be a citekey (spaces or ,{{}}()\"#%'=\\), rag gives it one")
            key = ""
        names = item.get("author")
        paper = Paper(
            id="",
            text=abstract,
            title=title,
            authors=[a for a in map(_author, names) if a] if isinstance(names, list) else [],
            year=_year(item.get("issued")),
            arxiv=_arxiv(item),
            doi=str(item.get("DOI") or "") or None,
            citekey=key,
            # A snippet cut short (as `rag export --format csljson` writes seed snippets) stays marked so.
            truncated=abstract.endswith(TRUNCATION_MARK),
            venue=next((_text(item.get(name)) for name in _VENUE if _text(item.get(name))), None),
            volume=_text(item.get("volume")) or None,
            issue=_text(item.get("issue")) or None,
            pages=_text(item.get("page")) or None,
            publisher=_text(item.get("publisher")) or None,
            url=_text(item.get("URL")) or None,
            item_type=str(item.get("type")) if item.get("type") in CSL_TYPES else None,
        )
        finished = finish(paper, f"{file_name}#{key or number}", file_name)
        if finished is None:
            continue
        if (record := csl_record(item)) is not None and restore(finished, record, where, warnings):
            copies.add(finished.id)
        papers.append(finished)
    if not papers:
        reasons = "; ".join(warnings[:3]) or "the list is empty"
        raise InputError(f"{file_name}: no usable CSL JSON item ({reasons})")
    return Parsed(papers, warnings, frozenset(copies))


def read_csl_json(text: str, file_name: str) -> Parsed | None:
    """Papers when ``text`` is CSL JSON, None when it is some other JSON (for the export reader)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None  # the export reader reports the syntax error, with its position
    return parse_csl_json(data, file_name) if is_csl_json(data) else None
