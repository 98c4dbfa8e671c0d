"""Web of Science exports: field-tagged plain text (.ciw, .txt starting 'FN '/'PT ') and tab-delimited
(.txt/.tsv with a 'PT<tab>AU<tab>...' header; UTF-8 or UTF-16 with a byte-order mark). Both use WoS's
two-letter field tags, read through one schema.
"""

from __future__ import annotations

import csv
import io
import re

from rag.corpus.exports.schemas import Schema, record_papers
from rag.corpus.exports.tagged import WOS, read_records
from rag.errors import InputError
from rag.records import Paper

# AF is the full names ("Alvarez-Manzaneda, Ines"), AU the short ones ("Alvarez-Manzaneda, I"); CA a
# group author; SO the source (journal or proceedings); BP/EP the pages, AR an article number; DT the
# document type, PT the publication type (J, C, B, S, P).
WOS_SCHEMA = Schema(
    "Web of Science",
    "wos",
    {
        "title": ("TI",),
        "abstract": ("AB",),
        "authors": ("AF", "AU", "CA"),
        "year": ("PY", "EA", "PD"),
        "venue": ("SO", "SE"),
        "volume": ("VL",),
        "issue": ("IS",),
        "page_start": ("BP",),
        "page_end": ("EP",),
        "pages": ("AR",),
        "publisher": ("PU",),
        "doi": ("DI", "D2"),
        "type": ("DT", "PT"),
    },
    signature=frozenset({"pt", "au", "ti", "so"}),
)
_PLAIN_START = re.compile(r"^\ufeff?(?:FN |PT [A-Z]\s*$)", re.M)
_TAB_HEADER = re.compile(r"^\ufeff?PT\tAU\t")


def looks_like_wos_plain(text: str) -> bool:
    return _PLAIN_START.match(text) is not None


def looks_like_wos_tab(text: str) -> bool:
    return _TAB_HEADER.match(text) is not None


def _papers(rows: list[tuple[int, int, dict[str, object]]], file_name: str) -> tuple[list[Paper], list[str]]:
    papers, warnings = record_papers(
        ((number, line, fields.get) for number, line, fields in rows), WOS_SCHEMA, file_name
    )
    if not papers:
        raise InputError(f"{file_name}: no Web of Science record with a title or abstract")
    return papers, warnings


def parse_wos_plain(text: str, file_name: str) -> tuple[list[Paper], list[str]]:
    records, warnings = read_records(text, file_name, WOS)
    papers, skipped = _papers([(r.number, r.line, dict(r.fields)) for r in records], file_name)
    return papers, warnings + skipped


def parse_wos_tab(text: str, file_name: str) -> tuple[list[Paper], list[str]]:
    """Tab-delimited: WoS writes no quoting, so quote characters in titles are text (QUOTE_NONE)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader, [])
    rows: list[tuple[int, int, dict[str, object]]] = []
    for row in reader:
        if any(cell.strip() for cell in row):
            rows.append((len(rows) + 1, reader.line_num, dict(zip(header, row, strict=False))))
    return _papers(rows, file_name)
