"""JSONL / JSON / CSV / TSV exports (Scopus, Web of Science, Embase, PubMed, OpenAlex, Cochrane, IEEE
Xplore, SpringerLink, Zotero, arXiv, Semantic Scholar, or any) -> papers.

Each row becomes a paper. Known exports are recognised by their columns (rag.corpus.exports.known_schemas);
column names are matched case-, space- and punctuation-insensitively, and ``--field NAME=COLUMN``
points any field at another column.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from rag.corpus.exports.csvfile import read_table
from rag.corpus.exports.known_schemas import schema_for
from rag.corpus.exports.own_records import Parsed, is_own_jsonl, restore
from rag.corpus.exports.schemas import FIELDS, Lookup, Schema, column_key, to_paper
from rag.errors import InputError
from rag.records import Paper

__all__ = ["FIELDS", "parse_mapping", "parse_records"]


def parse_mapping(pairs: list[str]) -> dict[str, str]:
    """['abstract=summary', ...] -> {'abstract': 'summary'}."""
    mapping = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or name.strip() not in FIELDS or not column.strip():
            raise InputError(f"--field '{pair}': expected NAME=COLUMN with NAME one of {', '.join(FIELDS)}")
        mapping[name.strip()] = column.strip()
    return mapping


def _json_lookup(item: Mapping[str, Any]) -> Lookup:
    """A JSON record's value at a dotted path ('externalIds.DOI'), each key matched as ``column_key`` says."""

    def lookup(path: str) -> Any:
        value: Any = item
        for part in path.split("."):
            if not isinstance(value, Mapping):
                return None
            if part not in value:
                part = next((key for key in value if column_key(key) == column_key(part)), part)
            value = value.get(part)
        return value

    return lookup


def _json_rows(text: str, file_name: str, suffix: str, warnings: list[str]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The file's records with their line (or item) numbers; a bad line is a warning, the rest is kept."""
    if suffix == ".json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{file_name}: not valid JSON ({exc})") from None
        items = data if isinstance(data, list) else data.get("data") or data.get("results") or [data]
        yield from ((n, item) for n, item in enumerate(items, start=1) if isinstance(item, Mapping))
        return
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


def _check_mapping(mapping: Mapping[str, str], columns: list[str], file_name: str) -> None:
    keys = {column_key(column) for column in columns}
    missing = [f"{name}={column}" for name, column in mapping.items() if columns and column_key(column) not in keys]
    if missing:
        shown = ", ".join(sorted(columns)[:12])
        raise InputError(f"{file_name}: no column for --field {', '.join(missing)} (columns: {shown})")


def parse_records(text: str, file_name: str, suffix: str, mapping: Mapping[str, str]) -> Parsed:
    """Papers from a JSON/JSONL/CSV/TSV export; rows with neither title nor abstract are warnings. A line of
    rag's own JSONL export is the paper it records (rag.corpus.exports.own_records)."""
    papers: list[Paper] = []
    warnings: list[str] = []
    columns: list[str] = []
    copies: set[str] = set()

    def add(number: int, lookup: Lookup, schema: Schema) -> Paper | None:
        paper = to_paper(lookup, schema, f"{file_name}#{number}", file_name, mapping)
        if paper is None:
            warnings.append(f"{file_name}:{number}: no title or abstract, skipped")
        else:
            papers.append(paper)
        return paper

    if suffix in (".json", ".jsonl"):
        for number, item in _json_rows(text, file_name, suffix, warnings):
            columns.extend(key for key in item if key not in columns)
            paper = add(number, _json_lookup(item), schema_for(item))  # JSONL rows may come from several sources
            if paper is not None and is_own_jsonl(item) and restore(paper, item, f"{file_name}:{number}", warnings):
                copies.add(paper.id)
        _check_mapping({k: v.split(".")[0] for k, v in mapping.items()}, columns, file_name)
    else:
        table = read_table(text, file_name, suffix)
        warnings.extend(table.warnings)
        columns = table.columns
        _check_mapping(mapping, columns, file_name)
        schema = schema_for(columns)
        for line, row in table.rows:
            add(line, lambda column, row=row: row.get(column_key(column)), schema)  # type: ignore[misc]
    return Parsed(*_checked(papers, warnings, columns, file_name), frozenset(copies))


def _checked(
    papers: list[Paper], warnings: list[str], columns: list[str], file_name: str
) -> tuple[list[Paper], list[str]]:
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
