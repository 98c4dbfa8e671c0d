"""What the presence rules share: a fact of the sentence (as it is written, and how to tell that a source
states it) that none of the cited sources states is a finding, named as coming from another given source where
one states it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding
from rag.check.rules.rule import Comparison

States = Callable[[SourceFacts], bool]


def found_elsewhere(others: Sequence[SourceFacts], states: States) -> int | None:
    """The first of ``others`` (0-based) that states the fact, or None."""
    return next((i for i, source in enumerate(others) if states(source)), None)


def unstated(code: str, facts: Iterable[tuple[str, States]], c: Comparison) -> list[Finding]:
    """Each fact (as the sentence writes it, how a source states it) none of the cited sources states."""
    return [
        Finding(code, said, found_in=found_elsewhere(c.others, states))
        for said, states in facts
        if not any(states(source) for source in c.cited)
    ]


def describe_unstated(finding: Finding, cited: str, other: str | None) -> str:
    """ "1.76 is not in [1]", or "1.46 is from [2], not [1]" where another given source states it."""
    if other is not None:
        return f"{finding.said} is from {other}, not {cited}"
    return f"{finding.said} is not in {cited}"
