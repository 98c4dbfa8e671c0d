"""PDFs with pypdf: title, authors and abstract from the first pages, the rest of the text as passages;
the layout's debris (rag.corpus.pdf.page_cleaning) removed from both."""

from __future__ import annotations

import logging
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.corpus.cleaning import clean_prose, clean_title
from rag.corpus.identity import content_id, normalize_text
from rag.corpus.names import split_names
from rag.corpus.pdf.page_cleaning import document_words, joined_lines, page_prose, running_lines, strip_furniture
from rag.corpus.pdf.passages import split_passages, without_references
from rag.corpus.pdf.titles import TitleBlock, identify, title_block
from rag.errors import InputError
from rag.records import Paper

FIRST_PAGES = 2
# An abstract longer than this has run into the body text.
MAX_ABSTRACT_CHARS = 3000
_ABSTRACT_START = re.compile(r"\babstract\b[\s.:—-]*", re.IGNORECASE)
# The heading after the abstract. A bare "Introduction" must be alone on its line: an abstract's
# own sentence may start with the word ("Introduction of wild-type lamin A ...").
_ABSTRACT_END = re.compile(
    r"\n\s*(?:(?:1|I)\.?\s+introduction\b|introduction\s*(?:\n|$)|(?:keywords|index terms|ccs concepts)\b)",
    re.IGNORECASE,
)


@dataclass
class _Pages:
    texts: list[str]  # the first pages', and with full_text every page's
    meta_title: str
    meta_author: str
    block: TitleBlock  # the first page's title block


def _read_pages(path: Path, file_name: str, full_text: bool) -> _Pages:
    """The pages' text (only the first ones unless ``full_text``), the metadata and the first page's title block."""
    # pypdf logs its own complaints ("invalid pdf header", "EOF marker not found") straight to stderr;
    # what matters reaches the user as one line of ours (InputError) instead.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _read_pages_quietly(path, file_name, full_text)


def _read_pages_quietly(path: Path, file_name: str, full_text: bool) -> _Pages:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise InputError(f"{file_name}: encrypted PDF; decrypt it first (e.g. qpdf --decrypt in.pdf out.pdf)")
        texts = [page.extract_text() or "" for page in reader.pages[:FIRST_PAGES]]
        if full_text:
            texts += [_body_text(page) for page in reader.pages[FIRST_PAGES:]]
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
        meta_author = (reader.metadata.author if reader.metadata else None) or ""
        block = title_block(reader.pages[0]) if reader.pages else TitleBlock()
    except InputError:
        raise
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{file_name}: unreadable PDF ({type(exc).__name__}: {exc})") from None
    if not any(text.strip() for text in texts[:FIRST_PAGES]):
        raise InputError(f"{file_name}: no text layer (a scanned, image-only PDF); run OCR first (e.g. ocrmypdf)")
    return _Pages(texts, str(meta_title), str(meta_author), block)


def _body_text(page: Any) -> str:
    """A later page's text; one broken page loses its passages, not the paper."""
    try:
        return str(page.extract_text() or "")
    except Exception:  # pypdf raises many kinds on malformed content streams
        return ""


def parse_pdf(path: Path, file_name: str, full_text: bool = True) -> Paper:
    """One paper from a PDF: its title (rag.corpus.pdf.titles), the text after 'Abstract', and (with
    ``full_text``) the body after the abstract in passages that cite their page."""
    read = _read_pages(path, file_name, full_text)
    raw_first = "\n".join(read.texts[:FIRST_PAGES])
    pages = strip_furniture(read.texts)
    vocabulary = document_words(pages)
    first = "\n".join(pages[:FIRST_PAGES])
    lines = [line.strip() for line in raw_first.splitlines() if line.strip()]
    found = identify(
        read.meta_title, split_names(read.meta_author), read.block, lines, file_name, running_lines(read.texts)
    )
    abstract = ""
    body_from = 0  # offset in ``first`` where the body starts
    if start := _ABSTRACT_START.search(first):
        rest = first[start.end() :]
        end = _ABSTRACT_END.search(rest)
        extent = end.start() if end else min(len(rest), MAX_ABSTRACT_CHARS)  # in the raw text, not the cleaned
        abstract = clean_prose(joined_lines(rest[:extent], vocabulary))[:MAX_ABSTRACT_CHARS]
        body_from = start.end() + extent
    body = [(n, page_prose(text, vocabulary)) for n, text in _body_pages(pages, body_from)] if full_text else []
    return Paper(
        id=content_id(abstract or f"{found.title}\n{first[:500]}"),
        # A first page of nothing but debris (a copyright page) is still the paper's only text.
        text=(abstract or clean_prose(joined_lines(first, vocabulary)) or normalize_text(raw_first))[
            :MAX_ABSTRACT_CHARS
        ],
        title=clean_title(found.title) if found.title else None,
        authors=found.authors,
        year=found.year,
        sources=[f"{file_name}#1"],
        lists=[file_name],
        no_abstract=not abstract,
        passages=split_passages(body),
    )


def _body_pages(pages: list[str], body_from: int) -> list[tuple[int, str]]:
    """(page number, text) of everything after the abstract and before the references."""
    body: list[tuple[int, str]] = []
    offset = 0  # where each of the first pages starts in their "\n"-joined text
    for number, text in enumerate(without_references(pages), start=1):
        if number <= FIRST_PAGES:
            skip = min(max(body_from - offset, 0), len(text))
            offset += len(pages[number - 1]) + 1
            text = text[skip:]
        body.append((number, text))
    return body
