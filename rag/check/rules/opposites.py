"""A sentence turned into its opposite: a word of direction swapped ("decreased" -> "increased"), or its denial
dropped ("does not reduce" -> "does reduce"). The judge reads the opposite against the source (rag.check.judge):
a source that states the opposite of a sentence says otherwise, however the sentence is worded, where the
rules see a reversal only in a sentence that restates its source closely.

The judge leans to "stated" for the up-going and the undenied form of nearly any sentence, so the opposite
counts only where the passage read bears it out in its own words (``borne_out``): it goes the opposite's way
and uses the opposite's word, not the sentence's ("higher" where the sentence says "lower"), or it denies
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from rag.check.rules.directions import nearest_moved
from rag.check.rules.polarity import denies, direction, first_person, words
from rag.text import stem


class Turn(Enum):
    DIRECTION = "direction"  # a word of direction swapped for its opposite
    DENIAL = "denial"  # a denial dropped


@dataclass(frozen=True)
class Opposite:
    text: str
    turn: Turn
    said: str = ""  # a direction turned, or a word denying in itself dropped: the sentence's word...
    instead: str = ""  # ...and the opposite's
    # A word denying in itself: the stems of the content words either side of it, what it denies ("Actin 5C" of
    # "the housekeeping gene Actin 5C was unaffected"), which a passage stating the opposite speaks of.
    about: frozenset[str] = frozenset()


# Words of direction and their opposites, the first found swapped (both ways). Only amounts and comparisons,
# whose opposite reads in the same place: not "promotes" -> "inhibits" (a claim of mechanism, which a passage
# on another step of it bears out), nor "positive" -> "negative" (a test result, a sign, a correlation).
SWAPS = (
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("increasing", "decreasing"),
    ("higher", "lower"),
    ("faster", "slower"),
    ("more", "less"),
    ("greater", "smaller"),
    ("larger", "smaller"),
    ("longer", "shorter"),
    ("improved", "worsened"),
    ("improves", "worsens"),
    ("better", "worse"),
    ("enhanced", "reduced"),
    ("enhances", "reduces"),
    ("reduced", "increased"),
    ("reduces", "increases"),
)
_CONTRACTED = {
    "don't": "do", "doesn't": "does", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "can't": "can", "won't": "will", "hasn't": "has", "haven't": "have", "couldn't": "could",
    "shouldn't": "should", "wouldn't": "would",
}  # fmt: skip
_NOT = re.compile(r"\b(?:not|never)\s+", re.IGNORECASE)
# A "not" that denies nothing, dropped from none: "not only ... but also", "not least", "whether or not"; and "not
# ... until", which says when a thing happens ("abscission is not completed until the following G2 phase": read
# as "is completed until", the judge found a source saying when it completes stating it).
_NOT_DENYING = re.compile(r"\s*(?:only|just|least|merely|to mention)\b|[^,;:.?!]*\buntil\b", re.IGNORECASE)
_OR_BEFORE = re.compile(r"\bor\s+$", re.IGNORECASE)
_CANNOT = re.compile(r"\bcannot\b", re.IGNORECASE)
_CONTRACTION = re.compile(r"\b\w+n[’']t\b", re.IGNORECASE)
_NO = re.compile(r"\bno\s+(?=\w)", re.IGNORECASE)
# Words that deny in themselves ("unrelated": not related), dropped as "not" is where the sentence has no denial
# of its own: "Exposure to fine particulate air pollution is unrelated to anxiety prevalence" read as "... is
# related to ..." against "Exposure to PM2.5 was associated with high symptoms of anxiety". Only words whose
# positive form reads in the same place ("unchanged", "independent of" take other words after them).
DENYING_WORDS = {
    "unrelated": "related", "ineffective": "effective", "inaccurate": "accurate", "unaffected": "affected",
    "irrelevant": "relevant", "insufficient": "sufficient", "unnecessary": "necessary", "inactive": "active",
    "unimportant": "important", "ineffectual": "effectual", "unsuccessful": "successful",
}  # fmt: skip
_CLAUSE = re.compile(r"[;:]|,\s+(?:and|but|whereas|while)\b")
_DENYING_WORD = re.compile(rf"\b(?:{'|'.join(DENYING_WORDS)})\b", re.IGNORECASE)


def _replace(text: str, start: int, end: int, new: str) -> str:
    """``text[start:end]`` replaced by ``new``, a capital kept where the sentence opened with the old word."""
    rest = text[end:]
    if text[start:end][:1].isupper():
        if new:
            new = new[:1].upper() + new[1:]
        else:
            rest = rest[:1].upper() + rest[1:]
    return text[:start] + new + rest


def _without_denial(sentence: str) -> Opposite | None:
    """The sentence with its first denial dropped ("not", "never", "cannot", "doesn't", "no"; else a word denying
    in itself, "unrelated" read "related", which the passage must then not use); None without one."""
    if found := next((m for m in _NOT.finditer(sentence) if _denies_here(sentence, m)), None):
        return Opposite(_replace(sentence, found.start(), found.end(), ""), Turn.DENIAL)
    if found := _CANNOT.search(sentence):
        return Opposite(_replace(sentence, found.start(), found.end(), "can"), Turn.DENIAL)
    found = next((m for m in _CONTRACTION.finditer(sentence) if _denies_here(sentence, m)), None)
    if found and (base := _CONTRACTED.get(found.group(0).lower().replace("’", "'"))):
        return Opposite(_replace(sentence, found.start(), found.end(), base), Turn.DENIAL)
    if found := _NO.search(sentence):
        return Opposite(_replace(sentence, found.start(), found.end(), ""), Turn.DENIAL)
    if found := _DENYING_WORD.search(sentence):
        said = found.group(0).lower()
        about = _around(sentence[: found.start()], sentence[found.end() :])
        return Opposite(
            _replace(sentence, found.start(), found.end(), DENYING_WORDS[said]), Turn.DENIAL, said, about=about
        )
    return None


def _around(before: str, after: str) -> frozenset[str]:
    """The stems of the content words nearest a word, within its clause (``nearest_moved``)."""
    return nearest_moved(words(_CLAUSE.split(before)[-1]), words(_CLAUSE.split(after)[0]))


def _denies_here(sentence: str, found: re.Match[str]) -> bool:
    """Whether the "not" (or "never", "wasn't") ``found`` denies what follows it: not "not only", "whether or
    not", "not ... until" ("It wasn't until 2010 that ...")."""
    return not (_NOT_DENYING.match(sentence, found.end()) or _OR_BEFORE.search(sentence, 0, found.start()))


def _direction_swapped(sentence: str) -> Opposite | None:
    """The sentence with its first word of direction (in SWAPS order) turned to the opposite; None without one."""
    for pair in SWAPS:
        for old, new in (pair, pair[::-1]):
            if found := re.search(rf"\b{old}\b", sentence, re.IGNORECASE):
                return Opposite(_replace(sentence, found.start(), found.end(), new), Turn.DIRECTION, old, new)
    return None


def opposites(sentence: str) -> list[Opposite]:
    """The sentence's opposites: its direction swapped, its denial dropped (each where it has one; a denial in
    the first person is kept: "We were not able to replicate [x]" tells of the author's work, set against what
    the source found, and the source stating "able to replicate" of itself says nothing against it)."""
    undenied = None if first_person(sentence) else _without_denial(sentence)
    turned = [_direction_swapped(sentence), undenied]
    return [o for o in turned if o is not None and o.text != sentence]


def _kin(word: str) -> re.Pattern[str]:
    """The word and its forms ("increase": "increased", "increases", "increasing")."""
    return re.compile(rf"{stem(word)}\w{{0,3}}")


def borne_out(opposite: Opposite, passage: str) -> bool:
    """Whether the passage's own words go the opposite's way: the same direction of effect, a form of the
    opposite's word and none of the sentence's; or (a denial dropped) no denial of its own, nor the word that
    denied in the sentence ("unrelated")."""
    said = words(passage)
    if opposite.turn is Turn.DENIAL:
        speaks_of_it = not opposite.about or bool(opposite.about & {stem(w) for w in said})
        return not denies(passage) and opposite.said not in said and speaks_of_it
    way = direction(words(opposite.text))
    instead, original = _kin(opposite.instead), _kin(opposite.said)
    uses = any(instead.fullmatch(w) for w in said) and not any(original.fullmatch(w) for w in said)
    return way != 0 and direction(said) == way and uses
