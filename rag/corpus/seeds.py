"""The seed-list format: 'Related papers: <subject>' then one abstract opening per paragraph.

Snippet ``n`` (1-based, header not counted) of file ``F`` has the source
reference ``F#n``. ``papers.tsv`` beside the lists names each entry
(``file``, ``entry``; entry 0 is the list's subject paper).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from rag.corpus.cleaning import clean_prose
from rag.corpus.identity import TRUNCATION_MARK, content_id, normalize_text
from rag.errors import InputError
from rag.records import Paper, SeedList

HEADER_PREFIX = "Related papers:"
METADATA_FILE = "papers.tsv"
METADATA_COLUMNS = ("file", "entry", "title", "first_author", "year", "arxiv")
SUBJECT_ENTRY = 0


@dataclass(frozen=True)
class EntryMetadata:
    title: str | None
    first_author: str | None
    year: int | None
    arxiv: str | None


Metadata = dict[tuple[str, int], EntryMetadata]


def source_ref(file_name: str, entry: int) -> str:
    return f"{file_name}#{entry}"


def _author_as_bibtex(raw: str) -> str:
    """'Yuan (Binhang)' -> 'Yuan, Binhang'; anything else is kept as written."""
    match = re.fullmatch(r"\s*(.+?)\s*\((.+)\)\s*", raw)
    return f"{match.group(1)}, {match.group(2)}" if match else raw.strip()


def parse_metadata(text: str, origin: str) -> Metadata:
    """Read papers.tsv; a malformed row is an error naming its line."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
    try:
        return _read_metadata(reader, origin)
    except csv.Error as exc:
        raise InputError(f"{origin}:{reader.line_num}: not a valid TSV row ({exc})") from None


def _read_metadata(reader: csv.DictReader[str], origin: str) -> Metadata:
    missing = [c for c in METADATA_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{origin}: missing column(s) {', '.join(missing)}; expected {' '.join(METADATA_COLUMNS)}")
    table: Metadata = {}
    for row in reader:
        line = reader.line_num
        try:
            entry = int(row["entry"])
            year = int(row["year"]) if (row["year"] or "").strip() else None
        except (TypeError, ValueError):
            raise InputError(f"{origin}:{line}: 'entry' and 'year' must be whole numbers") from None
        table[(row["file"] or "", entry)] = EntryMetadata(
            title=(row["title"] or "").strip() or None,
            first_author=_author_as_bibtex(row["first_author"] or "") or None,
            year=year,
            arxiv=(row["arxiv"] or "").strip() or None,
        )
    return table


def split_paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def is_seed_list(text: str) -> bool:
    return text.lstrip().startswith(HEADER_PREFIX)


def parse_seed_list(text: str, file_name: str, metadata: Metadata) -> tuple[SeedList, list[Paper]]:
    """One seed list -> its subject and one ``Paper`` per snippet (not yet merged)."""
    paragraphs = split_paragraphs(text)
    if not paragraphs or not paragraphs[0].startswith(HEADER_PREFIX):
        raise InputError(f"{file_name}: not a seed list (the first paragraph must start with '{HEADER_PREFIX}')")
    header_subject = normalize_text(paragraphs[0][len(HEADER_PREFIX) :])
    subject_meta = metadata.get((file_name, SUBJECT_ENTRY))
    seed_list = SeedList(
        file=file_name,
        subject=(subject_meta.title if subject_meta and subject_meta.title else header_subject),
        subject_arxiv=subject_meta.arxiv if subject_meta else None,
        subject_year=subject_meta.year if subject_meta else None,
    )
    papers = []
    for entry, paragraph in enumerate(paragraphs[1:], start=1):
        snippet = clean_prose(paragraph)
        if not snippet:  # only invisible characters: nothing to index (the entry numbers stay the file's)
            continue
        meta = metadata.get((file_name, entry))
        papers.append(
            Paper(
                id=content_id(snippet),
                text=snippet,
                title=meta.title if meta else None,
                authors=[meta.first_author] if meta and meta.first_author else [],
                year=meta.year if meta else None,
                arxiv=meta.arxiv if meta else None,
                truncated=snippet.endswith(TRUNCATION_MARK),
                sources=[source_ref(file_name, entry)],
                lists=[file_name],
            )
        )
    if not papers:
        raise InputError(f"{file_name}: the seed list has a header but no abstracts")
    return seed_list, papers
