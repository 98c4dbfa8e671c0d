"""The other side of the body or brain: "the right angular gyrus" where the cited sources place it on the left
and never name the right side (nor both: "bilateral"). Presence, not alignment: sources often give the side
apart from the region ("the angular gyrus of the left inferior parietal cortex")."""

from __future__ import annotations

import re

from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding, says_instead
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "other-side"
OTHER_SIDE = {"left": "right", "right": "left"}
# "left" or "right" as a side: before a word it qualifies ("the left hemisphere", "right-handed"), not "left
# out", "left untreated", "the right to counsel", "right after".
_SIDE = re.compile(
    r"\b(?P<side>left|right)(?=[- ](?!(?:to|of|now|away|after|before|here|there|out|behind|over|unchanged|untreated"
    r"|open|alone|with|in|on|at|for|and|or|by|from|is|was|are|were|that|as)\b)[a-z])",
    re.IGNORECASE,
)
_BOTH_SIDES = re.compile(r"\bbilateral\w*|\bboth (?:sides|hemispheres)\b")


def _sides_named(text: str) -> set[str]:
    return {m.group("side").lower() for m in _SIDE.finditer(text)}


def _places_on_other_side(side: str, source: SourceFacts) -> bool:
    """The source names the other side and never this one, in any sense of the word, nor both sides."""
    text = source.folded
    return (
        OTHER_SIDE[side] in _sides_named(text)
        and re.search(rf"\b{side}\b", text) is None
        and _BOTH_SIDES.search(text) is None
    )


def find(c: Comparison) -> list[Finding]:
    if not c.cited:
        return []
    said = _sides_named(c.sentence)
    return [
        Finding(CODE, side, OTHER_SIDE[side])
        for side in sorted(said)
        if OTHER_SIDE[side] not in said and all(_places_on_other_side(side, source) for source in c.cited)
    ]


SOURCE = "Activation in the angular gyrus of the left inferior parietal cortex was modulated by semantic context."
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.PRESENCE,
    find=find,
    describe=says_instead,
    must_find=(
        Example("Activation in the right angular gyrus was modulated by semantic context.", SOURCE),
        Example(
            "Lesions of the left hemisphere impaired naming.", "Patients with right-hemisphere lesions named poorly."
        ),
    ),
    must_pass=(
        Example("Activation in the left angular gyrus was modulated by semantic context.", SOURCE),
        Example("Activation in the angular gyrus was modulated by semantic context.", SOURCE),
        Example(
            "Both the left and the right angular gyrus responded to context.",
            "Context modulated the left and right angular gyri.",
        ),
        Example("Defendants have the right to counsel.", "Counsel was left out of the proceedings in most states."),
        Example(
            "Activation in the right angular gyrus was modulated by semantic context.",
            "Semantic context modulated activity in the left and the bilateral angular gyri.",
        ),
    ),
)
