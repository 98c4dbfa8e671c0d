"""PubMed/MEDLINE exports (.nbib, or .txt with 'PMID- ' lines): records cut by rag.corpus.exports.tagged."""

from __future__ import annotations

import re

from rag.corpus.exports.schemas import Schema, record_papers
from rag.corpus.exports.tagged import MEDLINE, read_records
from rag.errors import InputError
from rag.records import Paper

# FAU is the full names ("Wu, Dan"), AU the short ones ("Wu D"); JT the journal's full title, TA its
# abbreviation; LID/AID hold the DOI among other ids ("10.1371/... [doi]"); BTI/PB for books.
MEDLINE_SCHEMA = Schema(
    "MEDLINE",
    "medline",
    {
        "title": ("TI", "BTI"),
        "abstract": ("AB",),
        "authors": ("FAU", "AU"),
        "year": ("DP", "DEP"),
        "venue": ("JT", "TA"),
        "volume": ("VI",),
        "issue": ("IP",),
        "pages": ("PG",),
        "publisher": ("PB",),
        "doi": ("LID", "AID"),
        "type": ("PT",),
        "url_id": ("PMID",),
    },
    url_template="https://pubmed.ncbi.nlm.nih.gov/{}/",
)
_PMID_LINE = re.compile(r"^PMID- ", re.M)


def looks_like_medline(text: str) -> bool:
    return _PMID_LINE.search(text[:20_000]) is not None


def parse_medline(text: str, file_name: str) -> tuple[list[Paper], list[str]]:
    records, warnings = read_records(text, file_name, MEDLINE)
    papers, skipped = record_papers(((r.number, r.line, r.fields.get) for r in records), MEDLINE_SCHEMA, file_name)
    warnings += skipped
    if not papers:
        raise InputError(f"{file_name}: no MEDLINE record with a title or abstract")
    return papers, warnings
