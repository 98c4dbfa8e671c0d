"""Markdown and plain-text files: one paper per file (title = first heading or line)."""

from __future__ import annotations

import re

from rag.corpus.cleaning import clean_prose, clean_title
from rag.corpus.identity import content_id
from rag.corpus.seeds import split_paragraphs
from rag.errors import InputError
from rag.records import Paper

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_ABSTRACT_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s*)?abstract\s*:?\s*$", re.IGNORECASE)
# A first line this short (and with no final full stop) reads as a title.
MAX_TITLE_CHARS = 200


def parse_text_document(text: str, file_name: str) -> Paper:
    """The title is the first Markdown heading (or a short first line); the rest is the abstract."""
    paragraphs = split_paragraphs(text)
    if not paragraphs:
        raise InputError(f"{file_name}: file is empty")
    title = None
    first_line = paragraphs[0].splitlines()[0]
    if match := _HEADING.match(first_line):
        title = match.group(1).strip()
    elif len(first_line) <= MAX_TITLE_CHARS and not first_line.rstrip().endswith("."):
        title = first_line.strip()
    body_lines = paragraphs[0].splitlines()[1:] if title else paragraphs[0].splitlines()
    rest = ["\n".join(body_lines), *paragraphs[1:]]
    body = [p for p in rest if p.strip() and not _ABSTRACT_HEADING.match(p.strip())]
    abstract = clean_prose(" ".join(re.sub(r"^\s{0,3}#{1,6}\s+", "", p, flags=re.M) for p in body))
    title = clean_title(title) if title else None
    if not abstract and not title:
        raise InputError(f"{file_name}: no text to index")
    return Paper(
        id=content_id(abstract or title or ""),
        text=abstract or title or "",
        title=title,
        sources=[f"{file_name}#1"],
        lists=[file_name],
        no_abstract=not abstract,
    )
