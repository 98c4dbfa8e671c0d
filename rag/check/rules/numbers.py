"""Numbers the cited sources do not give: a value (rounding, thousands separators and number words tolerated)
or a range, which is one fact (its two ends found apart in the source do not make it the source's)."""

from __future__ import annotations

from functools import partial

from rag.check.rules.facts import SourceFacts, numbers_in, ranges_in
from rag.check.rules.finding import Finding
from rag.check.rules.presence import describe_unstated, found_elsewhere, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "unstated-number"


def _states_number(raw: str, source: SourceFacts) -> bool:
    return source.numbers.has(raw)


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
    facts = [(raw, partial(_states_number, raw)) for raw in numbers_in(c.sentence) if raw not in in_ranges]
    return found + unstated(CODE, facts, c)


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
    ),
    must_pass=(
        Example("Among 32441 adults the hazard ratio was 1.5 over 9 years.", SOURCE),
        Example("The hazard ratio was 1.46 (95% CI 1.21 to 1.98).", SOURCE),
        Example("IL-18 and GPT-3 are names, not numbers.", "IL-18 and GPT-3 were studied."),
        Example("Over 250,000 agents were trained in 2000-2016.", "We train 250'000 agents over 2000-16."),
        Example("Each 10 ug/m3 rise mattered.", "Each 10 ug/m3 rise mattered."),
        Example("In 96 extracted incisors, failures were rare.", "Ninety-six extracted incisors were restored."),
    ),
)
