"""A CSV/TSV export as records: the header's columns matched by ``column_key`` (case, spaces and
punctuation aside), duplicate columns and ragged rows said once, and Embase's newer layout (one
``"FIELD","value",...`` line per field, records separated by blank lines) read as records too.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from rag.corpus.exports.schemas import column_key

# Abstracts can be long, and a field over csv's limit (128 KiB by default) would end the read.
FIELD_LIMIT = 16 * 1024 * 1024
# The first line of Embase's field-per-line layout, and its field names: capitals.
_EMBASE_FIRST = re.compile(r'^\ufeff?"TITLE",')
_LABEL = re.compile(r"^[A-Z][A-Z0-9 /()&-]*$")


@dataclass
class Table:
    columns: list[str]  # as the file writes them, for messages
    rows: list[tuple[int, dict[str, object]]] = field(default_factory=list)  # (line, column_key -> value)
    warnings: list[str] = field(default_factory=list)


def _delimiter(text: str, suffix: str) -> str:
    """Tab for .tsv; for .csv a comma, unless the header has none but has semicolons (European Excel) or tabs."""
    header = text.split("\n", 1)[0]
    if suffix == ".tsv" or ("," not in header and "\t" in header):
        return "\t"
    return ";" if "," not in header and ";" in header else ","


def _field_per_line(rows: list[tuple[int, list[str]]]) -> Table:
    """Embase's newer CSV: each line a field name and its values, a blank line between records."""
    table = Table([])
    record: dict[str, object] = {}
    start = 0
    for line, cells in [*rows, (0, [])]:
        if not any(cell.strip() for cell in cells):
            if record:
                table.rows.append((start, record))
            record = {}
            continue
        start = start if record else line
        label, values = cells[0].strip(), [cell for cell in cells[1:] if cell.strip()]
        if label not in table.columns:
            table.columns.append(label)
        record.setdefault(column_key(label), values)
    return table


def _header(columns: list[str], file_name: str, table: Table) -> list[str]:
    """column_key of each column; a repeated column is said once, and only its first is read."""
    keys, seen, repeated = [], set(), []
    for column in columns:
        key = column_key(column)
        if key and key in seen:
            repeated.append(column.strip())
            key = ""
        seen.add(key)
        keys.append(key)
    if repeated:
        names = ", ".join(f"'{name}'" for name in dict.fromkeys(repeated))
        table.warnings.append(f"{file_name}:1: column {names} appears more than once; the first is read")
    return keys


def read_table(text: str, file_name: str, suffix: str) -> Table:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text, suffix))
    rows: list[tuple[int, list[str]]] = []
    broken = None
    limit = csv.field_size_limit(FIELD_LIMIT)  # set for this read only: other readers keep csv's default
    try:
        line = 1
        for cells in reader:
            rows.append((line, cells))
            line = reader.line_num + 1
    except csv.Error as exc:  # the csv module cannot resync after a broken row: keep what came before
        broken = f"{file_name}:{reader.line_num}: not a valid CSV row ({exc}); the rows after it were not read"
    finally:
        csv.field_size_limit(limit)
    if _EMBASE_FIRST.match(text) and len(rows) > 1 and _LABEL.match(rows[1][1][0] if rows[1][1] else ""):
        table = _field_per_line(rows)
    else:
        table = _rows(rows, file_name)
    table.warnings.extend([broken] if broken else [])
    return table


def _rows(rows: list[tuple[int, list[str]]], file_name: str) -> Table:
    if not rows:
        return Table([])
    table = Table([c.strip().lstrip("\ufeff") for c in rows[0][1]])
    keys = _header(rows[0][1], file_name, table)
    ragged = []
    for line, cells in rows[1:]:
        if not any(cell.strip() for cell in cells):
            continue
        if any(cell.strip() for cell in cells[len(keys) :]):
            ragged.append(line)
        table.rows.append((line, {key: cell for key, cell in zip(keys, cells, strict=False) if key}))
    if ragged:
        table.warnings.append(
            f"{file_name}:{ragged[0]}: {len(ragged)} rows have more cells than the header's {len(keys)} columns; "
            "cells are read by position and the extra ones ignored"
        )
    return table
