"""RIS files (Scopus, Web of Science, PubMed, EndNote, Zotero, IEEE Xplore, Ovid, EBSCO, Dimensions,
Embase): records cut by rag.corpus.exports.tagged and read by rispy, tags as the RIS specification names them.
"""

from __future__ import annotations

import re

from rag.corpus.exports.schemas import Schema, record_papers
from rag.corpus.exports.tagged import RIS, read_records
from rag.errors import InputError
from rag.records import Paper

# Titles: TI, else T1 (older exporters) or CT; the container: T2, else C3 (Zotero's proceedings title),
# else the journal names, else their
# abbreviations (J2, JA); A1 is the older tag for the authors; N2 the older one for the abstract.
RIS_SCHEMA = Schema(
    "RIS",
    "ris",
    {
        "title": ("TI", "T1", "CT"),
        "abstract": ("AB", "N2"),
        "authors": ("AU", "A1"),
        "year": ("PY", "Y1", "DA"),
        "venue": ("T2", "C3", "JF", "JO", "BT", "T3", "JA", "J2"),
        "volume": ("VL", "VO"),
        "issue": ("IS",),
        "page_start": ("SP",),
        "page_end": ("EP",),
        "publisher": ("PB",),
        "doi": ("DO", "DI", "L2"),
        "url": ("UR", "L2"),
        "type": ("TY",),
    },
)
# A file is RIS when a line opens a record: "TY  - JOUR".
_RIS_START = re.compile(r"^\ufeff?TY  -", re.M)


def looks_like_ris(text: str) -> bool:
    return _RIS_START.search(text[:20_000]) is not None


def parse_ris(text: str, file_name: str) -> tuple[list[Paper], list[str]]:
    """Papers from RIS text; a broken record (no ER, no title or abstract) is a warning, the rest kept."""
    records, warnings = read_records(text, file_name, RIS)
    papers, skipped = record_papers(((r.number, r.line, r.fields.get) for r in records), RIS_SCHEMA, file_name)
    warnings += skipped
    if not papers:
        raise InputError(f"{file_name}: no RIS record with a title or abstract ({'; '.join(warnings[:3]) or 'none'})")
    return papers, warnings
