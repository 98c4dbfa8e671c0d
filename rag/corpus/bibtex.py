"""BibTeX files (Zotero, Google Scholar, ...) with bibtexparser: the entry key is the citekey."""

from __future__ import annotations

import logging
import re

from rag.corpus.identity import arxiv_in, arxiv_value, content_id, normalize_text
from rag.errors import InputError
from rag.records import Paper

ARXIV_FIELDS = ("eprint", "arxiv", "arxivid")


def _author(name: object) -> str:
    """NameParts -> 'Last, First' (BibTeX order)."""
    last = " ".join(getattr(name, "von", []) + getattr(name, "last", []))
    first = " ".join(getattr(name, "first", []) + getattr(name, "jr", []))
    return f"{last}, {first}" if first else last or str(name)


def _arxiv(fields: dict[str, str]) -> str | None:
    for name in ARXIV_FIELDS:
        if found := arxiv_value(fields.get(name, "")) or arxiv_in(fields.get(name, "")):
            return found
    return arxiv_in(fields.get("url", ""))


def parse_bibtex(text: str, file_name: str) -> tuple[list[Paper], list[str]]:
    """Papers from a .bib file, and a warning (file:line) per entry that could not be used."""
    from bibtexparser import middlewares
    from bibtexparser.entrypoint import parse_string

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # problems are reported as warnings below
    raw_entries = parse_string(text)  # untouched, for writing the user's entries back
    library = parse_string(
        text,
        append_middleware=[
            middlewares.LatexDecodingMiddleware(),
            middlewares.SeparateCoAuthors(),
            middlewares.SplitNameParts(),
        ],
    )
    warnings = []
    for block in library.failed_blocks:
        kind = "duplicate key, kept the first" if "Duplicate" in type(block).__name__ else "syntax error, skipped"
        warnings.append(f"{file_name}:{(block.start_line or 0) + 1}: {kind}")
    originals = {entry.key: entry for entry in raw_entries.entries}
    papers = []
    for entry in library.entries:
        fields = {name: str(field.value) for name, field in entry.fields_dict.items() if name != "author"}
        title = normalize_text(fields.get("title", "")) or None
        abstract = normalize_text(fields.get("abstract", ""))
        authors_field = entry.fields_dict.get("author")
        authors = [_author(a) for a in authors_field.value] if authors_field else []
        if not title and not abstract:
            warnings.append(
                f"{file_name}:{(entry.start_line or 0) + 1}: entry '{entry.key}' has neither title nor abstract"
            )
            continue
        year_match = re.search(r"\d{4}", fields.get("year", "") or fields.get("date", ""))
        papers.append(
            Paper(
                id=content_id(abstract or f"{title}\n{'; '.join(authors)}"),
                text=abstract or title or "",
                title=title,
                authors=authors,
                year=int(year_match.group(0)) if year_match else None,
                arxiv=_arxiv(fields),
                doi=fields.get("doi") or None,
                citekey=entry.key,
                sources=[f"{file_name}#{entry.key}"],
                lists=[file_name],
                no_abstract=not abstract,
                bibtex=_entry_text(originals.get(entry.key)),
            )
        )
    if not papers and warnings:
        raise InputError(f"{file_name}: no usable BibTeX entry ({'; '.join(warnings[:3])})")
    return papers, warnings


def _entry_text(entry: object) -> str | None:
    if entry is None:
        return None
    from bibtexparser.entrypoint import write_string
    from bibtexparser.library import Library

    return str(write_string(Library([entry]))).strip()  # type: ignore[list-item]
