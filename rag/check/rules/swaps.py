"""A number, population, organism or design of the restated source put in place of another: "type 5 diabetes"
for "type 2 diabetes", "rats" for "mice" (aligned word by word, a substitution of a few words)."""

from __future__ import annotations

from collections.abc import Sequence

from rag.check.rules.facts import NumberTable, kind_of
from rag.check.rules.finding import Finding
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "swapped"


def _swapped(said: Sequence[str], replaced: Sequence[str]) -> Finding | None:
    evidence_numbers = NumberTable.of(" ".join(w for w in replaced if w[0].isdigit()))
    for word in said:
        if word[0].isdigit() and evidence_numbers.values and not evidence_numbers.has(word):
            return Finding(CODE, word, next(w for w in replaced if w[0].isdigit()))
    replaced_kinds = {k for w in replaced if (k := kind_of(w)) is not None}
    for word in said:
        kind = kind_of(word)
        if kind is not None and replaced_kinds and kind not in replaced_kinds:
            return Finding(CODE, word, next(w for w in replaced if kind_of(w) is not None))
    return None


def find(c: Comparison) -> list[Finding]:
    return [f for e in c.edits if e.substituted and (f := _swapped(e.said, e.replaced)) is not None]


def describe(finding: Finding, cited: str, other: str | None) -> str:
    return f"says {finding.said} where {cited} says {finding.source_says}"


SOURCE = "Treatment reduced weight gain in mice with type 2 diabetes."
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.ALIGNED,
    find=find,
    describe=describe,
    must_find=(
        Example("Treatment reduced weight gain in rats with type 2 diabetes.", SOURCE),
        Example("Treatment reduced weight gain in mice with type 5 diabetes.", SOURCE),
    ),
    must_pass=(
        Example("Treatment reduced weight gain in murine models with type 2 diabetes.", SOURCE),
        Example("In mice with type 2 diabetes, treatment reduced weight gain.", SOURCE),
    ),
)
