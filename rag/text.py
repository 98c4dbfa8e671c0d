"""Words and sentences, shared by retrieval and writing: tokenizing, sentence splitting, term coverage,
and showing untrusted text safely.

Imports nothing of rag: the index (BM25) and the writing layer (extractive
answers, verification, outlines) must agree on what a term is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

# Bump when tokenize() changes: saved indexes with another version are rebuilt.
TOKENIZER_VERSION = "nltk179-snowball-acronym-plural-1"
# Shorter words ending in 's' ("bus", "gas") are left alone.
MIN_PLURAL_LENGTH = 3
_TOKEN = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    # NLTK's English list (179 words): unlike the 33-word Lucene list it also drops
    # question words ("which", "what", "about", "how"), which questions to a paper
    # library are full of. SciFact nDCG@10 is unchanged, the dev questions gain.
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS)


def tokenize(text: str) -> list[str]:
    """Lower-cased, stop words dropped, Snowball-stemmed word tokens."""
    stop = stopwords()
    words = [w for w in _TOKEN.findall(text.lower()) if w not in stop and len(w) > 1]
    return [_strip_acronym_plural(word, stem) for word, stem in zip(words, _stemmer().stemWords(words), strict=True)]


def _strip_acronym_plural(word: str, stem: str) -> str:
    """Snowball keeps 'gpus', 'llms', 'dnns' whole; match them to 'gpu', 'llm', 'dnn'."""
    if stem == word and len(word) > MIN_PLURAL_LENGTH and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return stem


# Where one sentence ends and the next begins: after . ! or ? and space, before a capital, a digit, a bracket
# (a citation such as "[2] shows ...") or an opening quote.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[(\"'])")


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s.strip()]


def term_coverage(question: str, text: str) -> float:
    """Share of the question's (stemmed, non-stop) terms that occur in ``text``."""
    wanted = set(tokenize(question))
    return len(wanted & set(tokenize(text))) / len(wanted) if wanted else 0.0


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def printable(text: str) -> str:
    """Untrusted text (an abstract, a title) made safe to show: ANSI sequences and control/format characters
    (zero-width included) dropped, newlines kept. Every adapter that shows papers uses it (CLI, MCP)."""
    text = _ANSI.sub("", text)
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf"))


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """'1 paper', '2 papers'; ``nouns`` for a plural that is not noun + s ('1 entry', '2 entries')."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
