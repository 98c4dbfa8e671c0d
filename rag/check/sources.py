"""Retrieved text shown to a model: numbered sources fenced as data ("spotlighting").

Tags inside any field are defused so an abstract cannot open or close a fence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.identity import surname
from rag.records import Paper

_SOURCE_TAG = re.compile(r"<\s*/?\s*source", re.IGNORECASE)


def defuse_tags(text: str) -> str:
    """A '<source' or '</source' (any case or spacing) inside retrieved text cannot open or close a fence."""
    return _SOURCE_TAG.sub(lambda m: "‹" + m.group(0)[1:], text)


def source_block(n: int, paper: Paper, max_authors: int | None = None) -> str:
    """One numbered source, fenced as data; tags inside any field are defused. ``max_authors``: the first few
    authors and "et al." (a short prompt), else all of them."""
    shown = paper.authors if max_authors is None else paper.authors[:max_authors]
    more = "; et al." if len(shown) < len(paper.authors) else ""
    authors = defuse_tags("; ".join(shown) + more or "unknown")
    title = defuse_tags(paper.title or "untitled")
    year = paper.year or "unknown"
    return f'<source n="{n}">\nTitle: {title}\nAuthors: {authors}\nYear: {year}\n{defuse_tags(paper.text)}\n</source>'


def sources_text(papers: Sequence[Paper], first: int = 1, max_authors: int | None = None) -> str:
    return "\n\n".join(source_block(first + i, p, max_authors) for i, p in enumerate(papers))


def author_year(paper: Paper) -> str:
    """'Hazra, 2021': how a reader tells which paper is meant (first author's surname, year; what is known)."""
    who = surname(paper.first_author) if paper.first_author else None
    return ", ".join(str(part) for part in (who, paper.year) if part)
