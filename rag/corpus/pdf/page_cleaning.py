"""What a PDF's layout adds to its text, removed while its lines are still lines: running headers and
footers (a line that comes back at the top or bottom of page after page, its page number aside), page
numbers, arXiv's margin stamp, a review manuscript's line-number column, copyright lines, and numbered
section headings; words hyphenated at a line end are joined against the document's own vocabulary.

rag.corpus.pdf.document calls ``strip_furniture`` on every page before it looks for the abstract, and
``page_prose`` on each body page before cutting it into passages (headings are kept until then: the
abstract ends at "1 Introduction").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag.corpus.cleaning import SECTION_NAMES, clean_prose, join_broken_words, words_of
from rag.corpus.identity import normalize_text

# Lines at each end of a page where running headers, footers and page numbers sit.
EDGE_LINES = 3
# A line is a running header or footer when it comes back on this share of the pages (and at least twice).
RUNNING_SHARE = 0.4
MIN_RUNNING_PAGES = 2
# Running lines are short (a title, authors, a journal and its volume); a line of prose never counts as one.
MAX_RUNNING_WORDS = 15
# Lines numbered n, n+1, n+2 ... down a page: the margin numbers of a manuscript under review.
MIN_NUMBERED_LINES = 5
MAX_HEADING_WORDS = 8

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?", re.IGNORECASE)
_ARXIV_STAMP = re.compile(r"^arXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?\s+\[[\w.-]+\]\s+\d{1,2}\s+\w{3}\s+\d{4}$")
_LINE_NUMBER = re.compile(r"^(\d{1,4})(?:\s+(.*))?$")
_COPYRIGHT_LINE = re.compile(r"©|\bcopyright\b\s*(?:©|\(c\)|\d{4})|\([cC]\)\s*(?:19|20)\d\d|all rights reserved", re.I)
_HEADING_LINE = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,4}\.)\s+([A-Z][^.!?:;]*)$")
_HYPHEN_BREAK = re.compile(r"(\w)-\n(\w)")


def _lines(page: str) -> list[str]:
    return [line.strip() for line in page.splitlines() if line.strip()]


def _masked(line: str) -> str:
    """A line as it repeats from page to page: its numbers (the page's own) masked, its case folded."""
    return _DIGITS.sub("#", line.casefold())


def running_lines(pages: Sequence[str]) -> set[str]:
    """The running headers and footers of these pages (masked as ``_masked`` does)."""
    return _running_lines([_lines(page) for page in pages])


def _running_lines(pages: Sequence[list[str]]) -> set[str]:
    """Masked lines at the edges of enough pages to be the running header or footer."""
    if len(pages) < MIN_RUNNING_PAGES + 1:
        return set()
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_masked(line) for line in _edges(lines)})
    needed = max(MIN_RUNNING_PAGES, round(len(pages) * RUNNING_SHARE))
    return {
        line
        for line, count in seen.items()
        if count >= needed and len(line.split()) <= MAX_RUNNING_WORDS and not _PAGE_NUMBER.fullmatch(line)
    }


def _edges(lines: list[str]) -> list[str]:
    """Where a page's running lines sit: its first and last few lines (one each on a page of few lines)."""
    edge = EDGE_LINES if len(lines) > 2 * EDGE_LINES else 1
    return [*lines[:edge], *lines[-edge:]]


def _without_line_numbers(lines: list[str]) -> list[str]:
    """The page's lines without a margin number column: five or more lines whose leading numbers count up
    by one lose them (a bare number line counts too); any other leading number stays."""
    numbered = {i: m for i, line in enumerate(lines) if (m := _LINE_NUMBER.match(line))}
    drop: set[int] = set()
    run: list[int] = []
    for i, match in numbered.items():
        if run and int(match.group(1)) == int(numbered[run[-1]].group(1)) + 1:
            run.append(i)
            continue
        if len(run) >= MIN_NUMBERED_LINES:
            drop.update(run)
        run = [i]
    if len(run) >= MIN_NUMBERED_LINES:
        drop.update(run)
    kept = []
    for i, line in enumerate(lines):
        if i not in drop:
            kept.append(line)
        elif rest := numbered[i].group(2):
            kept.append(rest)
    return kept


def strip_furniture(pages: Sequence[str]) -> list[str]:
    """Each page's text (lines kept) without what the layout put around it."""
    split = [_lines(page) for page in pages]
    running = _running_lines(split)
    cleaned = []
    for lines in split:
        lines = _without_line_numbers(lines)
        last = len(lines) - 1
        edge = EDGE_LINES if len(lines) > 2 * EDGE_LINES else 1
        kept = [
            line
            for n, line in enumerate(lines)
            if not (
                (min(n, last - n) < edge and (_masked(line) in running or _PAGE_NUMBER.fullmatch(line)))
                or _ARXIV_STAMP.match(line)
                or _COPYRIGHT_LINE.search(line)
            )
        ]
        cleaned.append("\n".join(kept))
    return cleaned


def is_heading_line(line: str) -> bool:
    """'3.3 Fault Tolerance', '2. Preliminaries and notation', 'II. RELATED WORK', or a section's name alone."""
    if line.casefold().rstrip(".:") in SECTION_NAMES:
        return True
    match = _HEADING_LINE.match(line)
    if match is None:
        return False
    words = match.group(1).split()
    if len(words) > MAX_HEADING_WORDS or not all(re.fullmatch(r"[\w'&/()-]+", w) for w in words):
        return False
    return words[0].casefold() in SECTION_NAMES or sum(w[0].isupper() for w in words) * 2 >= len(words)


def joined_lines(text: str, vocabulary: frozenset[str]) -> str:
    """Lines run into one: a word hyphenated at a line end joined as ``vocabulary`` says it is written."""
    return normalize_text(join_broken_words(text, vocabulary, at_line_ends=True))


def page_prose(page: str, vocabulary: frozenset[str]) -> str:
    """A body page as running prose for passages: headings dropped, lines joined, prose debris removed.
    Copyright notices were dropped as lines: cutting "to the end" would lose the rest of a page."""
    kept = "\n".join(line for line in page.splitlines() if not is_heading_line(line.strip()))
    return clean_prose(joined_lines(kept, vocabulary), notices=False)


def document_words(pages: Sequence[str]) -> frozenset[str]:
    """The document's vocabulary, line ends counted as spaces (a hyphenated break is not evidence)."""
    return words_of(_HYPHEN_BREAK.sub(r"\1 \2", "\n".join(pages)))
