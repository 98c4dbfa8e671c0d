"""What every reader does to an entry it has read (``finish``): one cleaning of text, DOIs, pages,
years and URLs, and the rule that an entry needs a title or an abstract.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

from rag.corpus.cleaning import clean_prose, clean_title
from rag.corpus.identity import content_id, normalize_text
from rag.corpus.latex import stray_latex_to_text
from rag.records import Paper
from rag.text import letter_words

# What exports write where there is no abstract (Scopus: "[No abstract available]").
PLACEHOLDER_ABSTRACTS = frozenset(
    {"[no abstract available]", "no abstract available", "[abstract not available]", "abstract not available"}
)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_URL = re.compile(r"https?://\S+")
# An abstract field holding where the paper appeared instead of what it says ("Oncogene 29, 4253 (2010).
# doi:10.1038/onc.2010.189", "DOI:https://doi.org/..."): with its DOI or address, numbers, single letters and
# these taken out, fewer than MIN_ABSTRACT_WORDS words are left.
MIN_ABSTRACT_WORDS = 4
_REFERENCE_WORDS = frozenset({"doi", "url", "http", "https", "www", "pp", "vol", "no", "org"})
_PAGE_DASH = re.compile(r"\s*(?:--|[-‐‑‒–—−])\s*")  # the dashes exports put between pages
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d{2}|20\d{2})(?!\d)")
# Markup abstracts carry from publishers (JATS, MathML) and Zotero/CSL rich text: the words stay, tags go.
_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?)\]])")
_MARKUP = re.compile(r"</?(?:p|i|b|em|strong|sup|sub|span|br|sc|scp|u|jats:[a-z-]+|mml:[a-z-]+)\b[^<>]*>", re.I)


def clean_text(value: str) -> str:
    """Markup tags and HTML entities out, single spaces."""
    if "<" in value and _MARKUP.search(value):  # a tag stands between words, never before punctuation
        value = _BEFORE_PUNCTUATION.sub(r"\1", _MARKUP.sub(" ", value))
    if "&" in value:
        value = html.unescape(value)
    return normalize_text(value)


def clean_doi(value: str) -> str | None:
    """'https://doi.org/10.1000/X', 'doi:10.1000/X', '10.1000/X [doi]' -> '10.1000/X'."""
    found = _DOI.search(unquote(value))
    return found.group(0).rstrip(".,;") if found else None


def clean_url(value: str) -> str | None:
    found = _URL.search(value)
    return found.group(0).rstrip(".,;") if found else None


def clean_pages(value: str) -> str | None:
    """'1--10', '1 – 10', '765‐778' -> '1-10'."""
    pages = _PAGE_DASH.sub("-", normalize_text(value)).strip("-")
    return pages or None


def page_range(start: str, end: str) -> str:
    """'12', '20' -> '12-20' (just the start when the end is missing or the same)."""
    start, end = start.strip(), end.strip()
    return f"{start}-{end}" if start and end and end != start else start or end


def year_in(value: object) -> int | None:
    """The first plausible year in a date ('2016/09//', '1 Feb 2024', 2020)."""
    found = _YEAR.search(str(value)) if value is not None else None
    return int(found.group(1)) if found else None


def _kept(value: str | None) -> str | None:
    return (clean_text(value) or None) if value else None


def saying_something(abstract: str) -> bool:
    """Whether an abstract field says what the paper is about: not a placeholder ("[No abstract available]") nor
    only where it appeared (a journal, volume, pages and DOI, or an address)."""
    if abstract.lower() in PLACEHOLDER_ABSTRACTS:
        return False
    if not (_DOI.search(abstract) or _URL.search(abstract)):
        return True
    rest = _URL.sub(" ", _DOI.sub(" ", abstract))
    return sum(len(word) > 1 and word not in _REFERENCE_WORDS for word in letter_words(rest)) >= MIN_ABSTRACT_WORDS


def finish(paper: Paper, source: str, list_name: str) -> Paper | None:
    """``paper`` as a reader filled it (abstract in ``text``), cleaned and given its id and source;
    None when it has neither title nor abstract."""
    title = clean_title(clean_text(stray_latex_to_text(paper.title or "")))
    abstract = clean_prose(clean_text(stray_latex_to_text(paper.text)))
    if not saying_something(abstract):
        abstract = ""
    if not title and not abstract:
        return None
    paper.id = content_id(abstract or f"{title}\n{'; '.join(paper.authors)}")
    paper.title, paper.text, paper.no_abstract = title or None, abstract or title, not abstract
    paper.doi = clean_doi(paper.doi) if paper.doi else None
    paper.url = clean_url(paper.url) if paper.url else None
    paper.pages = clean_pages(paper.pages) if paper.pages else None
    for name in ("venue", "volume", "issue", "publisher"):
        setattr(paper, name, _kept(getattr(paper, name)))
    paper.sources, paper.lists = [source], [list_name]
    return paper
