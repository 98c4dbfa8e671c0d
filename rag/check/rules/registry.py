"""Every rule of the citation check, and the one loop that runs them.

Adding a finding is one module (its code, how it finds, how it tells, its examples) and one line in ``RULES``;
tests/test_rules.py runs every rule's examples, and fails for a rule without them.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.check.rules import (
    bindings,
    causation,
    certainty,
    comparisons,
    denials,
    directions,
    kinds,
    names,
    numbers,
    prefixes,
    ratios,
    sides,
    steady,
    strength,
    swaps,
)
from rag.check.rules.facts import SourceFacts, fold
from rag.check.rules.finding import Finding
from rag.check.rules.rule import Comparison, Rule, Stage

RULES: tuple[Rule, ...] = (
    numbers.RULE,
    names.RULE,
    kinds.RULE,
    certainty.RULE,
    causation.RULE,
    prefixes.RULE,
    sides.RULE,
    swaps.RULE,
    directions.RULE,
    ratios.RULE,
    denials.RULE,
    steady.RULE,
    strength.RULE,
    comparisons.RULE,
    bindings.RULE,
)
BY_CODE = {rule.code: rule for rule in RULES}


def rule_of(finding: Finding) -> Rule:
    return BY_CODE[finding.code]


def run_rules(comparison: Comparison, rules: Sequence[Rule] = RULES) -> list[Finding]:
    """What the sentence adds to or changes in its cited sources, in the order a reader meets it: the facts it
    names that they lack, then what it changes in the stretch it restates. A swap ("rats" where the source says
    "mice") is told as a swap, not also as a name the source lacks; a direction turned and a denial added in
    the same sentence ("did not increase" for "decreased") cancel out."""
    presence = [f for rule in rules if rule.stage is Stage.PRESENCE for f in rule.find(comparison)]
    unique = {f.said: f for f in presence}.values()
    folded = fold(comparison.sentence)
    stated = sorted(unique, key=lambda f: folded.find(fold(f.said)))
    changed = [f for rule in rules if rule.stage is Stage.ALIGNED for f in rule.find(comparison)]
    changed = _cancel_double_flips(changed)
    if any(f.code in (directions.CODE, denials.CODE) for f in changed):  # the words say it: the ratio need not
        changed = [f for f in changed if f.code != ratios.CODE]
    if any(f.code == denials.CODE for f in changed):  # a denial dropped word for word: "no change" said twice
        changed = [f for f in changed if f.code != steady.CODE]
    swapped = {f.said for f in changed}
    return [f for f in stated if f.said not in swapped] + changed


def _cancel_double_flips(findings: list[Finding]) -> list[Finding]:
    turned = [f for f in findings if f.code == directions.CODE]
    denied = [f for f in findings if f.code == denials.CODE]
    cancelled = min(len(turned), len(denied))
    if not cancelled:
        return findings
    dropped = {id(f) for f in turned[:cancelled] + denied[:cancelled]}
    return [f for f in findings if id(f) not in dropped]


def missing_facts(sentence: str, cited: Sequence[SourceFacts], others: Sequence[SourceFacts] = ()) -> list[Finding]:
    """What the presence rules find alone: the numbers, names and kinds of ``sentence`` that none of its
    ``cited`` sources states (``found_in``: the first of ``others`` that does)."""
    presence = [rule for rule in RULES if rule.stage is Stage.PRESENCE]
    return run_rules(Comparison.of(sentence, cited, others), presence)


def changes(sentence: str, evidence: str) -> list[Finding]:
    """What the aligned rules find alone: where ``sentence``, aligned word by word with ``evidence`` (what it
    restates), says something else. Empty when the two are not aligned."""
    aligned = [rule for rule in RULES if rule.stage is Stage.ALIGNED]
    return run_rules(Comparison.of(sentence, [], restates=evidence), aligned)
