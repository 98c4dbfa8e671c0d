"""A sentence aligned word by word with what it restates of its source, and what it changes there: a number,
population or design put in place of the evidence's, a word of direction turned to its opposite, a denial added
or dropped (the findings of rag.writing.discrepancies, for the same policies to weigh)."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache

from rag.text import stopwords
from rag.writing.citations import CITATION_GROUP
from rag.writing.discrepancies import Finding, FindingKind, NumberTable, fold, kind_patterns
from rag.writing.polarity import DENIAL, opposed

# A sentence restating its evidence shares this share of its content terms with it (else it is not aligned,
# and no word-for-word comparison is made).
MIN_ALIGNED_SHARE = 0.6
# Two stretches of a source align equally well unless one shares this much more of the sentence's words.
ALIGNMENT_TIE = 1e-9
_ALIGN_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z0-9]+(?:[-'][a-z0-9]+)*")
# A stretch of at most this many words put in place of another is a substitution (a number, a word of
# direction, a denial swapped), not a clause rewritten.
MAX_SWAPPED_WORDS = 3
# A denial applies to the first content word within this many words after it ("not significantly different").
DENIED_WORD_REACH = 4
# Words a restatement may add without changing what is said.
_FRAME_WORDS = "the a an this these that study studies paper authors work results findings data show shows"
_FRAME = frozenset(_FRAME_WORDS.split())


def _content(tokens: Sequence[str]) -> list[str]:
    common = stopwords()
    return [t for t in tokens if t not in common and t not in _FRAME and not DENIAL.fullmatch(t)]


def aligned_share(sentence: str, evidence: str) -> float:
    """Share of the sentence's content words that its evidence also has."""
    mine = content_words(sentence)
    return len(mine & content_words(evidence)) / len(mine) if mine else 0.0


@lru_cache(maxsize=65_536)
def content_words(text: str) -> frozenset[str]:
    return frozenset(_content(_tokens(text)))


def _tokens(text: str) -> list[str]:
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


def _kind_of(token: str) -> int | None:
    return next((group for group, pattern in enumerate(kind_patterns()) if pattern.fullmatch(token)), None)


def _swapped(said: Sequence[str], replaced: Sequence[str]) -> Finding | None:
    """A number, population, organism or design of the evidence put in place of another: "type 5 diabetes"
    for "type 2 diabetes", "rats" for "mice"."""
    evidence_numbers = NumberTable.of(" ".join(w for w in replaced if w[0].isdigit()))
    for word in said:
        if word[0].isdigit() and evidence_numbers.values and not evidence_numbers.has(word):
            shown = next(w for w in replaced if w[0].isdigit())
            return Finding(FindingKind.NUMBER, word, shown)
    replaced_kinds = {k for w in replaced if (k := _kind_of(w)) is not None}
    for word in said:
        kind = _kind_of(word)
        if kind is not None and replaced_kinds and kind not in replaced_kinds:
            shown = next(w for w in replaced if _kind_of(w) is not None)
            return Finding(FindingKind.NAME, word, shown)
    return None


def changes(sentence: str, evidence: str) -> list[Finding]:
    """Where ``sentence``, aligned word by word with ``evidence`` (what it restates), says something else: a
    number or population put in place of the evidence's, a direction word replaced by its opposite, a denial
    added or dropped inside what both say. A direction flip and a denial cancel out ("did not increase" for
    "decreased" is left to the fitted check). Empty when the two are not aligned."""
    if aligned_share(sentence, evidence) < MIN_ALIGNED_SHARE:
        return []
    claim_words, evidence_words = _tokens(sentence), _tokens(evidence)
    matcher = difflib.SequenceMatcher(None, claim_words, evidence_words, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size]
    if not blocks:
        return []
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size  # what the sentence restates of the evidence
    claim_terms, evidence_terms = set(claim_words), set(evidence_words)
    swaps: list[Finding] = []
    turned: list[Finding] = []
    denials: list[Finding] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        said, replaced = claim_words[i1:i2], evidence_words[j1:j2]
        substituted = op == "replace" and max(len(said), len(replaced)) <= MAX_SWAPPED_WORDS
        if substituted and (swap := _swapped(said, replaced)) is not None:
            swaps.append(swap)
        if substituted and (pair := opposed(said, replaced)) is not None:
            turned.append(Finding(FindingKind.DIRECTION, pair[0], pair[1]))
            continue
        # A denial counts where what it denies is restated: the sentence keeps the words around a denial it
        # leaves out (or puts a word or two in its place: "no significant" -> "a significant"), and the word a
        # denial it adds applies to is the evidence's; a clause left out or reworded is not a denial.
        kept_around = first < j1 < last or substituted
        added = [k for k in range(i1, i2) if _denies(claim_words, k, evidence_terms)] if op != "equal" else []
        dropped = [k for k in range(j1, j2) if _denies(evidence_words, k, claim_terms)] if kept_around else []
        dropped = dropped if op != "equal" else []
        if len(added) > len(dropped):
            denials.append(Finding(FindingKind.NEGATION, claim_words[added[0]]))
        elif len(dropped) > len(added):
            denials.append(Finding(FindingKind.NEGATION, "", evidence_words[dropped[0]]))
    if turned and denials:  # "did not increase" for "decreased": two flips, left to the fitted check
        cancelled = min(len(turned), len(denials))
        turned, denials = turned[cancelled:], denials[cancelled:]
    return swaps + turned + denials


def _denies(tokens: Sequence[str], at: int, other: set[str]) -> bool:
    """``tokens[at]`` is a denial and the word it applies to (the next content word) is one ``other`` has."""
    if not DENIAL.fullmatch(tokens[at]):
        return False
    following = _content(tokens[at + 1 : at + 1 + DENIED_WORD_REACH])
    return bool(following) and following[0] in other
