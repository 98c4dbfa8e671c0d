"""A paper's full text cut into passages the embedding model can read whole.

Passages never cross a page, so each one can be cited with its page. Cutting
is done by llama-index's ``SentenceSplitter`` (sentence-aware, with overlap),
counting words so no tokenizer has to be downloaded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rag.records import Passage

# MiniLM reads 256 word pieces; ~150 words of scientific English plus the title stay under that.
PASSAGE_WORDS = 150
PASSAGE_OVERLAP_WORDS = 20
# Shorter leftovers are running heads, page numbers and captions, not prose worth citing.
MIN_PASSAGE_WORDS = 12
# Where the reference list starts: a line that is only this heading (numbered or not).
_REFERENCES_HEADING = re.compile(r"^\s*(?:\d+\.?\s*)?(?:references|bibliography|works cited)\s*$", re.I | re.M)
_HYPHENATED_BREAK = re.compile(r"(\w)-\n(\w)")
_WHITESPACE = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _splitter() -> Any:
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(chunk_size=PASSAGE_WORDS, chunk_overlap=PASSAGE_OVERLAP_WORDS, tokenizer=str.split)


def without_references(pages: Sequence[str]) -> list[str]:
    """The pages up to the last 'References' heading: a reference list matches every query and answers none."""
    for index in range(len(pages) - 1, -1, -1):
        headings = list(_REFERENCES_HEADING.finditer(pages[index]))
        if headings:
            return [*pages[:index], pages[index][: headings[-1].start()]]
    return list(pages)


def clean_page(text: str) -> str:
    """One page's extracted text as running prose: words split by a line-end hyphen joined again."""
    return _WHITESPACE.sub(" ", _HYPHENATED_BREAK.sub(r"\1\2", text)).strip()


def split_passages(pages: Sequence[tuple[int, str]]) -> list[Passage]:
    """``(page number, text)`` pairs -> numbered passages, each within one page."""
    passages: list[Passage] = []
    for page, text in pages:
        prose = clean_page(text)
        if len(prose.split()) < MIN_PASSAGE_WORDS:
            continue
        for chunk in _splitter().split_text(prose):
            if len(chunk.split()) >= MIN_PASSAGE_WORDS:
                passages.append(Passage(n=len(passages) + 1, text=chunk.strip(), page=page))
    return passages
