"""JSONL / JSON / CSV exports (arXiv, OpenAlex, Semantic Scholar, or any) with a field mapping.

Each row becomes a paper; fields are found under the names the common exports
use, and ``--field NAME=COLUMN`` points any field at another column.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from rag.corpus.identity import arxiv_value, content_id, normalize_text
from rag.errors import InputError
from rag.records import Paper

# Where each field is looked for, first match wins (arXiv, OpenAlex, Semantic Scholar, generic).
DEFAULT_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title", "display_name", "name"),
    "abstract": ("abstract", "summary", "text", "abstract_inverted_index"),
    "authors": ("authors_parsed", "authors", "authorships", "author", "creators"),
    "year": ("year", "publication_year", "published", "update_date", "date"),
    "arxiv": ("arxiv", "arxiv_id", "externalIds.ArXiv", "ids.arxiv", "eprint", "id"),
    "doi": ("doi", "externalIds.DOI", "ids.doi"),
    "key": ("citekey", "key", "bibtex_key"),
}
FIELDS = tuple(DEFAULT_FIELDS)


def parse_mapping(pairs: list[str]) -> dict[str, str]:
    """['abstract=summary', ...] -> {'abstract': 'summary'}."""
    mapping = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or name.strip() not in FIELDS or not column.strip():
            raise InputError(f"--field '{pair}': expected NAME=COLUMN with NAME one of {', '.join(FIELDS)}")
        mapping[name.strip()] = column.strip()
    return mapping


def _lookup(row: Mapping[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _inverted_abstract(index: Mapping[str, list[int]]) -> str:
    """OpenAlex stores abstracts as word -> positions."""
    positions = {pos: word for word, places in index.items() for pos in places if isinstance(pos, int)}
    return " ".join(positions[i] for i in sorted(positions))


def _authors(value: Any) -> list[str]:
    if isinstance(value, str):
        names = []
        for piece in (p.strip() for p in re.split(r"\s+and\s+|;|\|", value) if p.strip()):
            parts = [part.strip() for part in piece.split(",")]
            # 'Binhang Yuan, Yongjun He' is two names; 'Yuan, Binhang' is one, last name first.
            names.extend(parts if len(parts) > 1 and all(" " in part for part in parts) else [piece])
        return names
    if isinstance(value, list):
        names = []
        for item in value:
            if isinstance(item, Mapping):
                item = item.get("name") or _lookup(item, "author.display_name") or item.get("display_name")
            if isinstance(item, list):  # arXiv's authors_parsed: [last, first, suffix]
                item = ", ".join(part for part in item[:2] if part)
            if item:
                names.append(str(item))
        return names
    return []


def _year(value: Any) -> int | None:
    match = re.search(r"(1[89]|20)\d{2}", str(value)) if value is not None else None
    return int(match.group(0)) if match else None


def _value(row: Mapping[str, Any], name: str, mapping: Mapping[str, str]) -> Any:
    for path in (mapping[name],) if name in mapping else DEFAULT_FIELDS[name]:
        value = _lookup(row, path)
        if value not in (None, "", [], {}):
            return value
    return None


def row_to_paper(row: Mapping[str, Any], file_name: str, number: int, mapping: Mapping[str, str]) -> Paper | None:
    title = normalize_text(str(_value(row, "title", mapping) or "")) or None
    raw_abstract = _value(row, "abstract", mapping)
    abstract = _inverted_abstract(raw_abstract) if isinstance(raw_abstract, Mapping) else str(raw_abstract or "")
    abstract = normalize_text(abstract)
    if not title and not abstract:
        return None
    authors = _authors(_value(row, "authors", mapping))
    doi = str(_value(row, "doi", mapping) or "").removeprefix("https://doi.org/") or None
    return Paper(
        id=content_id(abstract or f"{title}\n{'; '.join(authors)}"),
        text=abstract or title or "",
        title=title,
        authors=authors,
        year=_year(_value(row, "year", mapping)),
        arxiv=arxiv_value(str(_value(row, "arxiv", mapping) or "")),
        doi=doi,
        citekey=str(_value(row, "key", mapping) or ""),
        sources=[f"{file_name}#{number}"],
        lists=[file_name],
        no_abstract=not abstract,
    )


def _rows(text: str, file_name: str, suffix: str, warnings: list[str]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The file's records with their line (or item) numbers; a bad line is a warning, the rest is kept."""
    if suffix == ".json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{file_name}: not valid JSON ({exc})") from None
        items = data if isinstance(data, list) else data.get("data") or data.get("results") or [data]
        for number, item in enumerate(items, start=1):
            if isinstance(item, Mapping):
                yield number, item
        return
    if suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    item = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    warnings.append(f"{file_name}:{number}: malformed JSON line, skipped ({exc})")
                    continue
                if isinstance(item, Mapping):
                    yield number, item
                else:
                    warnings.append(f"{file_name}:{number}: not a JSON object, skipped")
        return
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t" if suffix == ".tsv" else ",")
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as exc:  # the csv module cannot resync after a broken row: keep what came before
        warnings.append(f"{file_name}:{reader.line_num}: not a valid CSV row ({exc}); the rows after it were not read")


def parse_records(text: str, file_name: str, suffix: str, mapping: Mapping[str, str]) -> tuple[list[Paper], list[str]]:
    """Papers from a JSON/JSONL/CSV/TSV export; rows with neither title nor abstract are warnings."""
    papers: list[Paper] = []
    warnings: list[str] = []
    columns: set[str] = set()
    for number, row in _rows(text, file_name, suffix, warnings):
        columns.update(row)
        paper = row_to_paper(row, file_name, number, mapping)
        if paper is None:
            warnings.append(f"{file_name}:{number}: no title or abstract, skipped")
        else:
            papers.append(paper)
    missing = [
        f"{name}={column}" for name, column in mapping.items() if columns and column.split(".")[0] not in columns
    ]
    if missing:
        raise InputError(
            f"{file_name}: no column for --field {', '.join(missing)} (columns: {', '.join(sorted(columns)[:12])})"
        )
    found = ", ".join(sorted(columns)[:12]) or "none"
    if not papers:
        reasons = f"; {warnings[0]}" if warnings else ""
        raise InputError(
            f"{file_name}: no row with a title or abstract (columns: {found}); map them with --field title=COLUMN"
            + reasons
        )
    if all(p.no_abstract for p in papers):  # the loader says they are searched by title; this says how to fix it
        warnings.append(f"{file_name}: no abstract column (columns: {found}); map one with --field abstract=COLUMN")
    return papers, warnings
