"""What small models do when they lose the thread: say one sentence over and over (or nearly), write pieces
that are not sentences, and restate a source's title as a finding. Caught here, in code (names and numbers
no source states are the citation check's: rag.check.rules.facts).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from rag.check.claims import Claim, with_citations
from rag.check.markers import CITATION_GROUP
from rag.check.scoring import NO_EVIDENCE, SourceScore
from rag.check.sentences import DroppedSentence
from rag.llm.types import StreamWatch
from rag.records import Paper
from rag.text import split_sentences, tokenize

# A sentence seen this many times means the model is looping: stop reading it.
MAX_REPEATS = 3
# Shorter pieces ("Yes.", "[1].") repeat legitimately.
MIN_REPEAT_CHARS = 24
# A run of this many characters seen MAX_REPEATS times at the end of the text is a loop without full stops.
LOOP_RUN_CHARS = 60
# Every "text" value of a JSON reply, the last one possibly still open.
_JSON_TEXT = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)')
_NOT_WORD = re.compile(r"[^a-z0-9]+")
# Fewer words than this is a piece of a sentence ("in a 2"), whatever its punctuation.
MIN_SENTENCE_WORDS = 4
# A sentence ends on a content word: one ending on these was cut mid-phrase ("the role of capacity in a").
_DANGLING_WORDS = (
    "a an the of in on at to for from with by and or but nor as that which whose than its their our his her "
    "is are was were be been this these such via into onto over under between among"
)


_DANGLING_END = frozenset(_DANGLING_WORDS.split())
# Less than this share of letters among the visible characters is junk ("2022-01-20 20:30:30.142.142").
MIN_LETTER_SHARE = 0.5
# A key or a brace of the JSON a model was asked for, left in a sentence ('"text": "The study ...').
_JSON_SYNTAX = re.compile(r'"\w+"\s*:|[{}]')
# The same short group three times over, separated by punctuation: ".142.142.142".
_REPEATED_GROUP = re.compile(r"([^\w\s]\w{1,6})\1{2,}")
# Two sentences sharing this share of the shorter one's terms say the same thing (one repeats the other).
NEAR_DUPLICATE_OVERLAP = 0.8
MIN_DUPLICATE_TERMS = 3
# A sentence must add this many terms to a source's title to say something beyond it...
MIN_TERMS_BEYOND_TITLE = 2
# ...words that say a paper exists, not what it finds, do not count ("The paper explores <title>").
_NO_NEWS = (
    "paper work study author article research propose present introduce explore investigate examine discuss "
    "describe address focus also approach method new novel et al aim goal purpose application use usage context "
    "field area topic overview detail"
)


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
    """(indexes to keep, indexes that repeat an earlier kept sentence, word for word or nearly)."""
    seen: set[str] = set()
    kept_terms: list[set[str]] = []
    keep, repeats = [], []
    for i, sentence in enumerate(sentences):
        key = normalized(sentence)
        # "Yuan et al. propose X" and "Liang et al. propose Y" share their frame, not their news.
        terms = set(tokenize(CITATION_GROUP.sub("", sentence))) - no_news_terms()
        if (key and key in seen) or any(_near_duplicate(terms, earlier) for earlier in kept_terms):
            repeats.append(i)
        else:
            seen.add(key)
            kept_terms.append(terms)
            keep.append(i)
    return keep, repeats


def _near_duplicate(a: set[str], b: set[str]) -> bool:
    """Token overlap, not only exact repeats: "capacity in a 2" after "capacity in a 3" says nothing new."""
    smaller = min(len(a), len(b))
    return smaller >= MIN_DUPLICATE_TERMS and len(a & b) / smaller >= NEAR_DUPLICATE_OVERLAP


def fragment_reason(sentence: str) -> str | None:
    """Why ``sentence`` (citations removed) is not a whole sentence, or None when it is one."""
    bare = CITATION_GROUP.sub("", sentence).strip()
    words = re.findall(r"[\w'’-]+", bare)
    if len(words) < MIN_SENTENCE_WORDS:
        return "too short"
    if bare.count("(") != bare.count(")") or bare.count("[") != bare.count("]"):
        return "unbalanced brackets"
    if _JSON_SYNTAX.search(bare):
        return "JSON, not prose"
    if words[-1].lower() in _DANGLING_END:
        return "ends mid-phrase"
    visible = [ch for ch in bare if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in visible)
    if letters < MIN_LETTER_SHARE * len(visible) or _REPEATED_GROUP.search(bare.replace(" ", "")):
        return "not words"
    return None


@lru_cache(maxsize=1)
def no_news_terms() -> frozenset[str]:
    """Terms that say a paper exists rather than what it is about ("paper", "work", "propose", ...)."""
    return frozenset(tokenize(_NO_NEWS))


def restates_title(sentence: str, titles: Sequence[str]) -> bool:
    """Whether ``sentence`` only restates one of the ``titles``: it adds fewer than MIN_TERMS_BEYOND_TITLE terms
    to it, not counting words that only say a paper exists ("This work studies <title>")."""
    terms = set(tokenize(CITATION_GROUP.sub("", sentence))) - no_news_terms()
    for title in titles:
        title_terms = set(tokenize(title))
        if title_terms and terms & title_terms and len(terms - title_terms) < MIN_TERMS_BEYOND_TITLE:
            return True
    return False


REPEATED = "repeated an earlier sentence"
FRAGMENT = "not a whole sentence"
TITLE = "restates a source's title"


def screen_claims(claims: Sequence[Claim], given: Sequence[Paper]) -> tuple[list[Claim], dict[int, DroppedSentence]]:
    """The claims that are whole sentences saying something new: fragments, titles restated as claims and
    repeats (word for word or nearly) are dropped, before any support label; each drop by its claim's ``id``,
    fragments and titles first, then repeats."""
    titles = [p.title for p in given if p.title]
    dropped: dict[int, DroppedSentence] = {}
    whole: list[Claim] = []
    for claim in claims:
        if fragment_reason(claim.text):
            dropped[id(claim)] = DroppedSentence(with_citations(claim.text, claim.numbers), FRAGMENT)
        elif restates_title(claim.text, titles):
            dropped[id(claim)] = DroppedSentence(with_citations(claim.text, claim.numbers), TITLE)
        else:
            whole.append(claim)
    keep, repeats = first_occurrences([c.text for c in whole])
    dropped |= {
        id(whole[i]): DroppedSentence(with_citations(whole[i].text, whole[i].numbers), REPEATED) for i in repeats
    }
    return [whole[i] for i in keep], dropped


def title_only_unsupported(table: list[list[SourceScore]], given: Sequence[Paper]) -> list[list[SourceScore]]:
    """A paper known by its title alone backs no sentence: its scores become "no evidence"."""
    for row in table:
        for j, paper in enumerate(given):
            if paper.no_abstract:
                row[j] = NO_EVIDENCE
    return table
