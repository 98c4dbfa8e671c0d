"""Numbers the cited sources do not give: a value (rounding, thousands separators and number words tolerated)
or a range, which is one fact (its two ends found apart in the source do not make it the source's)."""

from __future__ import annotations

import re
from functools import partial

from rag.check.rules.facts import NUMBER_WORDS, SourceFacts, numbers_in, ranges_in
from rag.check.rules.finding import Finding
from rag.check.rules.polarity import words
from rag.check.rules.presence import describe_unstated, found_elsewhere, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage
from rag.check.rules.units import UNIT_OF, WITH_UNIT, other_unit

CODE = "unstated-number"
MIN_COUNT = 3  # a number written as a word is checked from this one up


# How a sentence may write a source's number: "3.1 million" for 3,140,413; "52% higher" for a ratio of 1.52,
# "48% lower" for 0.52.
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_SCALE_WORDS = frozenset({"hundred", *_SCALES})  # words that scale a number rather than count
_WRITTEN_AS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(%|percent\b|per cent\b|thousand\b|million\b|billion\b)")


def _states_number(raw: str, written: frozenset[str], source: SourceFacts) -> bool:
    if source.numbers.has(raw):
        return True
    if any(source.numbers.has_scaled(raw, _SCALES[w]) for w in written if w in _SCALES):
        return True
    if written & {"%", "percent", "per cent"} and "." not in raw and 0 < int(raw) < 100:
        return any(source.numbers.has(f"{1 + sign * int(raw) / 100:.2f}") for sign in (1, -1))
    return False


def _unit_swaps(c: Comparison) -> list[Finding]:
    found = []
    for match in WITH_UNIT.finditer(c.sentence):
        raw, unit = match.group(1), UNIT_OF[match.group(2)]
        if c.cited and all(other_unit(raw, unit, s.units) for s in c.cited):
            found.append(Finding(CODE, match.group(0)))
    return found


def _written_as(sentence: str) -> dict[str, frozenset[str]]:
    """Each number of the sentence, with the words that follow it: a percent sign or a scale."""
    found: dict[str, set[str]] = {}
    for match in _WRITTEN_AS.finditer(sentence):
        found.setdefault(match.group(1), set()).add(match.group(2).lower())
    return {raw: frozenset(words) for raw, words in found.items()}


def _states_range(low: str, high: str, source: SourceFacts) -> bool:
    return source.numbers.has_range(low, high)


def find(c: Comparison) -> list[Finding]:
    found: list[Finding] = []
    in_ranges: set[str] = set()
    for written, low, high in ranges_in(c.sentence):
        in_ranges |= {low, high}
        states = partial(_states_range, low, high)
        if any(states(s) for s in c.cited):
            continue
        other = found_elsewhere(c.others, states)
        if other is not None or not all(s.numbers.has(n) for n in (low, high) for s in c.cited[:1]):
            found.append(Finding(CODE, written.replace(" ", ""), found_in=other))
    followed_by = _written_as(c.sentence)
    facts = [
        (raw, partial(_states_number, raw, followed_by.get(raw, frozenset())))
        for raw in numbers_in(c.sentence)
        if raw not in in_ranges
    ]
    facts += [(word, partial(_states_number, NUMBER_WORDS[word], frozenset())) for word in _counts_in(c.sentence)]
    return found + unstated(CODE, facts, c) + _unit_swaps(c)


def _counts_in(sentence: str) -> list[str]:
    """The numbers a sentence writes as words, three and up ("nine Korean universities", "five experiments"):
    "one" and "two" are as often no count ("one of", "the two methods"), and "hundred" or "million" alone
    scales a number ("3.1 million", "several hundred hours")."""
    counts = (w for w in words(sentence) if w in NUMBER_WORDS and w not in _SCALE_WORDS)
    return list(dict.fromkeys(w for w in counts if int(NUMBER_WORDS[w]) >= MIN_COUNT))


SOURCE = "Among 32,441 adults, the hazard ratio was 1.46 (95% CI 1.21-1.98) over nine years."
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe_unstated,
    must_find=(
        Example("Among 32,441 adults, the hazard ratio was 1.76 over nine years.", SOURCE),
        Example("The hazard ratio was 1.46 (95% CI 1.10-1.98).", SOURCE),
        Example("Adults were followed for 12 years.", SOURCE),
        Example("Among 3.4 million adults, risk was 46% higher.", SOURCE),
        Example("The pressure decays within 200 ms.", "The pressure decays with a time constant as short as 200μs."),
        Example(  # a count written as a word
            "Across five experiments, readers used event knowledge.",
            "Experiment 1 used self-paced reading; Experiment 3 replicated it with eye-tracking.",
        ),
    ),
    must_pass=(
        Example("Among 32441 adults the hazard ratio was 1.5 over 9 years.", SOURCE),
        Example("The hazard ratio was 1.46 (95% CI 1.21 to 1.98).", SOURCE),
        Example("IL-18 and GPT-3 are names, not numbers.", "IL-18 and GPT-3 were studied."),
        Example("Over 250,000 agents were trained in 2000-2016.", "We train 250'000 agents over 2000-16."),
        Example("Each 10 ug/m3 rise mattered.", "Each 10 ug/m3 rise mattered."),
        Example("In 96 extracted incisors, failures were rare.", "Ninety-six extracted incisors were restored."),
        Example(  # a scale, a ratio as a percentage, a unit glued to its number
            "Among more than 3.1 million patients, obesity meant a 52% higher risk within 200 microseconds.",
            "In total, 3,140,413 patients were included; obesity raised the risk (RR=1.52) within 200μs.",
        ),
        Example("Adults were followed for nine years and 9 months.", SOURCE),
        Example(
            "Across four experiments, two groups of several hundred adults took part.", "In Experiment 4, adults..."
        ),
    ),
)
