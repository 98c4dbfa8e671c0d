"""A sentence aligned word by word with what it restates of its source, and what it changes there: a number,
population or design put in place of the evidence's, a word of direction turned to its opposite, a denial added
or dropped (the findings of rag.check.rules.facts, for the same policies to weigh)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

from rag.check.markers import CITATION_GROUP
from rag.check.rules.facts import fold
from rag.check.rules.polarity import DENIAL
from rag.text import stopwords

# A sentence restating its evidence shares this share of its content terms with it (else it is not aligned,
# and no word-for-word comparison is made).
MIN_ALIGNED_SHARE = 0.6
# Two stretches of a source align equally well unless one shares this much more of the sentence's words.
ALIGNMENT_TIE = 1e-9
_ALIGN_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z0-9]+(?:[-'][a-z0-9]+)*")
# Words a restatement may add without changing what is said.
_FRAME_WORDS = "the a an this these that study studies paper authors work results findings data show shows"
_FRAME = frozenset(_FRAME_WORDS.split())


def content_tokens(tokens: Sequence[str]) -> list[str]:
    common = stopwords()
    return [t for t in tokens if t not in common and t not in _FRAME and not DENIAL.fullmatch(t)]


def aligned_share(sentence: str, evidence: str) -> float:
    """Share of the sentence's content words that its evidence also has."""
    mine = content_words(sentence)
    return len(mine & content_words(evidence)) / len(mine) if mine else 0.0


@lru_cache(maxsize=65_536)
def content_words(text: str) -> frozenset[str]:
    return frozenset(content_tokens(align_tokens(text)))


def align_tokens(text: str) -> list[str]:
    """Words for aligning two sentences: numbers whole (1.46, 32,441), hyphenated words whole."""
    return _ALIGN_TOKEN.findall(fold(CITATION_GROUP.sub("", text)).replace("·", "."))


def windows(sentences: Sequence[str]) -> tuple[str, ...]:
    """What a sentence may restate of a source: each of its sentences, and each two in a row."""
    return (*sentences, *(f"{a} {b}" for a, b in itertools.pairwise(sentences)))


def best_aligned(sentence: str, stretches: Sequence[str]) -> tuple[str, float]:
    """Of ``stretches`` (a source's ``windows``), the one ``sentence`` restates most closely, and the share of
    its content words found there; a sentence written from two of the source's is aligned with both."""
    mine = content_words(sentence)
    best, share = "", 0.0
    for stretch in stretches if mine else ():
        found = len(mine & content_words(stretch)) / len(mine)
        if found > share + ALIGNMENT_TIE:
            best, share = stretch, found
    return best, share
