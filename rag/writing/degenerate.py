"""What small models do when they lose the thread: say one sentence over and over, and name things
(institutions, funders, numbers) that no source mentions. Caught here, in code.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag.llm.types import StreamWatch
from rag.text import split_sentences
from rag.writing.citations import CITATION_GROUP

# A sentence seen this many times means the model is looping: stop reading it.
MAX_REPEATS = 3
# Shorter pieces ("Yes.", "[1].") repeat legitimately.
MIN_REPEAT_CHARS = 24
# A run of this many characters seen MAX_REPEATS times at the end of the text is a loop without full stops.
LOOP_RUN_CHARS = 60
# Every "text" value of a JSON reply, the last one possibly still open.
_JSON_TEXT = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)')
_NOT_WORD = re.compile(r"[^a-z0-9]+")
# Names: runs of capitalised words, allowing the small words inside institution names.
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|for|the|de|di|van|von)?\s*[A-Z][\w'’-]*)+|\b[A-Z]{2,}[a-z]?s?\b")
_LEADING_WORDS = frozenset({"the", "a", "an", "this", "these", "those", "our", "their", "in", "on", "at", "by"})
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s*%?")


def normalized(sentence: str) -> str:
    """A sentence reduced to its words, citations removed: how repeats are recognised."""
    return _NOT_WORD.sub(" ", CITATION_GROUP.sub("", sentence).lower()).strip()


def _pieces(text: str) -> list[str]:
    """The sentences written so far, in a JSON reply (inside its "text" values) or in plain text."""
    found = _JSON_TEXT.findall(text)
    return [s for value in found for s in split_sentences(value)] if found else split_sentences(text)


def repetition_watch(max_repeats: int = MAX_REPEATS) -> StreamWatch:
    """Stops a stream once the model has written the same sentence ``max_repeats`` times, or loops."""

    def watch(text: str) -> str | None:
        counts = Counter(n for n in map(normalized, _pieces(text)) if len(n) >= MIN_REPEAT_CHARS)
        if counts and counts.most_common(1)[0][1] >= max_repeats:
            return "repetition"
        tail = text[-LOOP_RUN_CHARS:]
        long_enough = len(text) >= LOOP_RUN_CHARS * max_repeats and len(tail.strip()) >= MIN_REPEAT_CHARS
        return "repetition" if long_enough and text.count(tail) >= max_repeats else None

    return watch


def first_occurrences(sentences: Sequence[str]) -> tuple[list[int], list[int]]:
    """(indexes to keep, indexes that repeat an earlier sentence)."""
    seen: set[str] = set()
    keep, repeats = [], []
    for i, sentence in enumerate(sentences):
        key = normalized(sentence)
        if key and key in seen:
            repeats.append(i)
        else:
            seen.add(key)
            keep.append(i)
    return keep, repeats


def ungrounded_terms(sentence: str, sources: Sequence[str]) -> list[str]:
    """Names and numbers in ``sentence`` that appear in none of the ``sources`` (titles, authors, abstracts)."""
    haystack = " ".join(sources).lower()
    claim = CITATION_GROUP.sub("", sentence)
    found: list[str] = []
    for match in _NAME.finditer(claim):
        words = match.group(0).split()
        while words and words[0].lower() in _LEADING_WORDS:
            words = words[1:]  # "The University of Tokyo" is named "University of Tokyo"
        if not words or (len(words) == 1 and match.start() == 0):
            continue  # a capitalised first word is just the start of the sentence
        name = " ".join(words)
        if name.lower() not in haystack and name.lower().removesuffix("s") not in haystack:  # "NICs": "NIC"
            found.append(name)
    for match in _NUMBER.finditer(claim):
        number = match.group(0).rstrip("% ").strip()
        if number not in haystack:
            found.append(match.group(0).strip())
    return list(dict.fromkeys(found))
