"""What a sentence adds to, or changes in, the source it cites: the part of the citation check that reads
facts, not topics.

Similarity says a sentence and its source are about the same thing; it cannot see a changed number, an
invented place or a flipped finding (measured: such sentences kept the top label 97%, 98% and 49% of the
time). So, against the *cited* source:

- every number of the sentence must be one the source gives (rounding, thousands separators, ranges and
  number words tolerated); one that only another given source has is named as coming from there;
- every name (places, institutions, datasets, methods, acronyms, gene and model identifiers, drugs: read in
  rag.check.rules.name_facts) and every population, organism or study design the sentence names must be in the
  source;
- aligned word by word with its evidence sentence, the sentence must not say the opposite: a word of
  direction replaced by its opposite (increased/decreased), or a denial added or dropped ("was not
  associated"), is a contradiction. A faithful copy or close rewording has neither (rag.check.rules.alignment).

The findings are facts for a policy to weigh (rag.check.policy): an answer's sentence was
written from the sources shown, so any finding makes it unsupported or contradicted; a manuscript's author
read the whole paper, so only a contradiction on strong alignment counts there.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

from rag.check.rules.kind_words import (
    ELEMENTS,
    HUMANS,
    KIND_WORDS,
    ORGANISMS,
    SUBJECTS,
)
from rag.check.rules.polarity import words
from rag.check.rules.units import Measured, number_value, units_in
from rag.text import split_sentences, tokenize

_RAISED_DOT = re.compile(r"(?<=\d)·(?=\d)")
_OTHER_THOUSANDS = re.compile(r"(?<=\d)['’\u2009\u202f](?=\d{3}(?!\d))")
# A number: thousands separators, decimals, a decimal written without its 0 (P = .004).
_NUMBER = re.compile(r"(?<![\w.,])(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?<![\w.])\.\d+)(?P<suffix>[A-Za-zμ°]*)")
# A range of two numbers: "1.46-1.98", "1.46 to 1.98" (each end a number as _NUMBER reads it).
_RANGE = re.compile(
    r"(?<![\w.,-])(?P<low>\d+(?:[.,]\d+)*|\.\d+)\s*(?:-|to)\s*(?P<high>\d+(?:[.,]\d+)*|\.\d+)(?![\w.,]\d|\w)"
)


# A number glued to a unit in lower case ("200μs", "2.49psu", "0.5mm"): a source's value all the same.
_GLUED_UNIT = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)(?=[a-zμ°‰]{1,4}\b)")
# Thousands written with spaces, as some journals do ("19 999").
_SPACED_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?: \d{3})+(?![\w.,]\d)")
# A number the sentence rounds from its source keeps at least this many significant digits (1.8 or 33).
MIN_ROUNDED_DIGITS = 2
# A number followed by one of these is still a number (a unit or a fold), not an identifier.
_UNIT_WORDS = (
    "x fold mg g kg ml l mm cm m km nm um μm mmol mol h hr hrs min s ms d y yr yrs wk wks mo kb mb gb tb k m b "
    "bp kda hz khz mhz ghz w kw v mv ma °c c f"
)


_UNITS = frozenset(_UNIT_WORDS.split())
_SMALL_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
)


NUMBER_WORDS = {w: str(n) for n, w in enumerate(_SMALL_NUMBERS.split())} | {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
}
# "ninety-six", "twenty-one": the tens and a unit, hyphenated as written out.
NUMBER_WORDS |= {
    f"{tens}-{unit}": str(int(NUMBER_WORDS[tens]) + int(NUMBER_WORDS[unit]))
    for tens in ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    for unit in _SMALL_NUMBERS.split()[1:10]
}


GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon "
    "phi chi psi omega"
)


_GREEK = dict(zip("αβγδεζηθικλμνξοπρστυφχψω", GREEK_NAMES.split(), strict=True))
# Combining marks (accents once NFKD has taken them off their letters).
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
# Minus, en dash and Unicode hyphens are one hyphen ("meta‐analyses" as some publishers write it); IFN-γ is IFN-gamma.
_FOLDED = str.maketrans(
    {"−": "-", "–": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-", "ø": "o", "æ": "ae", "ß": "ss", "ł": "l",
     "đ": "d", **_GREEK}
)  # fmt: skip


@lru_cache(maxsize=65_536)
def fold(text: str) -> str:
    """Lower case without accents or ligatures: "Dünner" in a source is "Dunner" in a model's sentence; a
    decimal point written as a raised dot (the Lancet's 1·75) is a full stop."""
    text = _COMBINING.sub("", unicodedata.normalize("NFKD", text.lower())).translate(_FOLDED)
    return _RAISED_DOT.sub(".", text)


def is_unit(suffix: str) -> bool:
    """Letters after digits that keep them a number: a unit or a fold ("10 mg", "4.8x"), not a name ("2D")."""
    return not suffix or suffix in _UNITS or (len(suffix) > 1 and suffix.lower() in _UNITS) or suffix == "X"


def _plain_digits(text: str) -> str:
    """Decimal points and thousands separators as the number patterns read them: the Lancet's 1·75 is 1.75,
    Swiss 250'000 and a thin-spaced 250 000 are 250,000."""
    return _OTHER_THOUSANDS.sub(",", _RAISED_DOT.sub(".", text))


def numbers_in(text: str) -> list[str]:
    """The numbers a text states, as written without their unit (identifiers such as 'IL-18', '3T3' or '2D'
    are names, not numbers)."""
    text = _plain_digits(text)
    found = []
    for match in _NUMBER.finditer(text):
        start, suffix = match.start(), match.group("suffix")
        before = text[max(start - 2, 0) : start]
        if before[-1:].isalpha() or (before[-1:] == "-" and before[:1].isalpha()):
            continue  # BCL-2, GPT-3: the digits belong to a name
        if not is_unit(suffix):
            continue
        if re.fullmatch(r"\(\d\)", text[max(start - 1, 0) : match.end() + 1]):
            continue  # an enumeration: (1), (2)
        found.append(match.group(0)[: len(match.group(0)) - len(suffix)])
    return found


@dataclass(frozen=True)
class NumberTable:
    """The numbers a source gives, as values, and the ranges it gives (a confidence interval is a pair), for
    lookups with rounding tolerated."""

    values: frozenset[str]
    ranges: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def of(cls, text: str) -> NumberTable:
        values = {number_value(n) for n in numbers_in(text)}
        values |= {number_value(m.group(0)) for m in _SPACED_THOUSANDS.finditer(text)}
        values |= {NUMBER_WORDS[w] for w in words(text) if w in NUMBER_WORDS}
        values |= {number_value(m.group(1)) for m in _GLUED_UNIT.finditer(_plain_digits(text))}
        ranges = {(number_value(low), number_value(high)) for _, low, high in ranges_in(text)}
        return cls(frozenset(values), frozenset(ranges | {span for r in ranges if (span := _year_span(*r))}))

    def has(self, raw: str) -> bool:
        return any(_same_number(raw, known) for known in self.values)

    def has_scaled(self, raw: str, scale: float) -> bool:
        """``raw`` times ``scale`` ("3.1" million) is a value of the source, rounded ("3,140,413")."""
        return any(_same_number(raw, number_value(f"{float(known) / scale:.6f}")) for known in self.values)

    def has_range(self, low: str, high: str) -> bool:
        return any(_same_number(low, a) and _same_number(high, b) for a, b in self.ranges)


def _year_span(low: str, high: str) -> tuple[str, str] | None:
    """ "2000-16" is 2000-2016: a span of years whose end is written with its last two digits."""
    if len(low) == 4 and low.isdigit() and len(high) == 2 and high.isdigit() and high > low[2:]:
        return low, low[:2] + high
    return None


def _same_number(raw: str, known: str) -> bool:
    """``raw`` (as a sentence writes it) is ``known`` (a source's value), or ``known`` rounded: the sentence may
    round the source's number (1.461 -> 1.46, 32.7 -> 33), never the other way."""
    value = number_value(raw)
    if value == known:
        return True
    decimals = len(value.split(".")[1]) if "." in value else 0
    if len(value.replace(".", "").lstrip("0")) < MIN_ROUNDED_DIGITS:
        return False  # "2" is not 1.783 rounded: too short to tell a rounding from another number
    if "." not in known or len(known.split(".")[1]) <= decimals:
        return False
    return abs(round(float(known), decimals) - float(value)) < 0.5 * 10.0 ** (-decimals)


def ranges_in(text: str) -> list[tuple[str, str, str]]:
    """Ranges a text states ("1.46-1.98", "19 to 28"): (as written, low, high), numbers as numbers_in reads them."""
    text = _plain_digits(text).replace("–", "-").replace("−", "-")
    found = []
    for match in _RANGE.finditer(text):
        low, high = match.group("low"), match.group("high")
        if numbers_in(low) == [low] and numbers_in(high) == [high]:
            found.append((match.group(0), low, high))
    return found


@lru_cache(maxsize=1)
def kind_patterns() -> tuple[re.Pattern[str], ...]:
    """One pattern per group of kind words: any member that names it, whole words (plural "s" allowed), in
    folded text."""
    return (*(_members(line.split(" = ")[0]) for line in KIND_WORDS), *map(_element_pattern, ELEMENTS))


@lru_cache(maxsize=1)
def _stated_patterns() -> tuple[re.Pattern[str], ...]:
    """One pattern per group of kind words: any member that states it in a source (those that name it, and
    those after " = ")."""
    return (*(_members(line.replace(" = ", "|")) for line in KIND_WORDS), *map(_element_pattern, ELEMENTS))


_HUMAN_GROUP = KIND_WORDS.index(HUMANS)


def _members(alternatives: str) -> re.Pattern[str]:
    return whole_words("|".join(re.escape(m) for m in alternatives.split("|")), plural="s?")


def whole_words(alternatives: str, plural: str = "") -> re.Pattern[str]:
    """A pattern of ``alternatives`` (a regular expression) as whole words, a hyphenated word whole: "proof" is
    not found in "proof-of-concept"."""
    return re.compile(rf"(?<![\w-])(?:{alternatives}){plural}(?![\w-])")


def _element_pattern(line: str) -> re.Pattern[str]:
    names, symbol, *bare = line.split(":")
    forms = [
        *names.split("|"),
        rf"\d{{1,3}}{symbol}",
        rf"{symbol}\d?\+",
        rf"{symbol}\(\d?\+\)",
        *([symbol] if bare else []),
    ]
    return whole_words("|".join(forms))


def kinds_in(folded: str) -> dict[int, str]:
    """The kind groups a folded text names: group -> the member as written first."""
    found = {}
    for group, pattern in enumerate(kind_patterns()):
        if (match := pattern.search(folded)) is not None:
            found[group] = match.group(0)
    return found


def subjects_in(folded: str) -> dict[int, re.Match[str]]:
    """The kind groups of who or what was studied (a population, organism, setting or condition: not a design or
    an element) a folded text names: group -> where it first names it."""
    found = {}
    for group, pattern in enumerate(kind_patterns()[: len(SUBJECTS)]):
        if (match := pattern.search(folded)) is not None:
            found[group] = match
    return found


def names_kind(group: int, folded: str) -> bool:
    """Whether a folded text states kind ``group`` (any of its words, or of the words that state it). Humans are
    left unstated only by a text on another organism (mice, yeast): a game's "human players" are no finding
    moved from animals."""
    if _stated_patterns()[group].search(folded) is not None:
        return True
    patterns = kind_patterns()
    return group == _HUMAN_GROUP and not any(patterns[g].search(folded) for g in range(len(ORGANISMS)))


def kind_of(token: str) -> int | None:
    """The kind group a single word names (its index in ``kind_patterns()``), or None."""
    return next((group for group, pattern in enumerate(kind_patterns()) if pattern.fullmatch(token)), None)


@dataclass(frozen=True)
class SourceFacts:
    """What one source states, prepared once however many sentences are checked against it."""

    folded: str
    numbers: NumberTable
    terms: frozenset[str]
    units: frozenset[Measured] = frozenset()
    text: str = ""  # as written (a ratio's "OR" is no "or")

    @classmethod
    def of(cls, text: str) -> SourceFacts:
        return cls(fold(text), NumberTable.of(text), frozenset(tokenize(text)), units_in(text), text)

    @cached_property
    def sentences(self) -> list[str]:
        """The text's sentences, as written: split once, however many sentences are read against them."""
        return split_sentences(self.text)
