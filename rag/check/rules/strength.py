"""A claim made stronger than the source it restates: a hedge dropped ("may reduce" -> "reduces"), an
association turned into a cause ("was associated with" -> "causes"), some turned into all."""

from __future__ import annotations

import re

from rag.check.rules.finding import Finding
from rag.check.rules.rule import Comparison, Edit, Example, Rule, Stage

CODE = "overclaim"
# Words left out around a hedge that still make it a hedge dropped ("may well reduce" -> "reduces").
MAX_DROPPED_WORDS = 2
HEDGE = re.compile(
    r"may|might|could|possibly|possible|potentially|potential|likely|probably|suggests?|suggested|suggesting|"
    r"appears?|appeared|seems?|seemed|preliminary|partially|partly|tend|tends|trend"
)
_SEEMING = re.compile(r"appears?|appeared|seems?|seemed")
ASSOCIATION = re.compile(r"associat\w*|correlat\w*|linked|link|relationship|related")
CAUSE = re.compile(
    r"causes?|caused|causing|causal|causally|leads?|led|results?|resulted|drives?|drove|driven|determines?|"
    r"determined|produces?|produced|triggers?|triggered"
)
SOME = re.compile(r"some|several|many|most|subset|certain|few|majority")
ALL = re.compile(r"all|every|always|universally|each")


def _any(pattern: re.Pattern[str], words: tuple[str, ...] | list[str]) -> str | None:
    return next((w for w in words if pattern.fullmatch(w)), None)


def _hedge_in(edit: Edit, source_words: list[str]) -> str | None:
    """The hedge among the words ``edit`` replaces: "appeared" or "seems" only before "to" or "that" (articles
    "appeared in" a journal; "it seems that")."""
    for at, word in enumerate(edit.replaced, start=edit.source_at):
        if not HEDGE.fullmatch(word):
            continue
        following = source_words[at + 1] if at + 1 < len(source_words) else ""
        if not _SEEMING.fullmatch(word) or following in ("to", "that"):
            return word
    return None


def _stronger(edit: Edit, sentence_words: list[str], source_words: list[str]) -> Finding | None:
    if edit.op == "equal":
        return None
    # A hedge left out where the rest is kept ("may reduce" -> "reduces"); one inside a clause rewritten or
    # left out whole is not a claim made stronger.
    dropped = edit.substituted or (edit.op == "delete" and len(edit.replaced) <= MAX_DROPPED_WORDS)
    hedge = _hedge_in(edit, source_words)
    if hedge and dropped and not _any(HEDGE, edit.said) and not _any(HEDGE, sentence_words):
        return Finding(CODE, " ".join(edit.said), hedge)
    association, cause = _any(ASSOCIATION, edit.replaced), _any(CAUSE, edit.said)
    if association and cause and not _any(CAUSE, edit.replaced):
        return Finding(CODE, cause, association)
    some, every = _any(SOME, edit.replaced), _any(ALL, edit.said)
    if some and every and edit.substituted:
        return Finding(CODE, every, some)
    return None


def find(c: Comparison) -> list[Finding]:
    return [f for e in c.edits if (f := _stronger(e, c.sentence_words, c.source_words)) is not None]


def describe(finding: Finding, cited: str, other: str | None) -> str:
    if finding.source_says and HEDGE.fullmatch(finding.source_says):
        return f"drops the '{finding.source_says}' of {cited}: states as certain what it hedges"
    return f"says '{finding.said}' where {cited} says '{finding.source_says}': claims more than it"


SOURCE = (
    "Daily coffee intake may reduce the risk of type 2 diabetes. "
    "Shift work was associated with obesity in nurses. "
    "Some patients responded to the treatment within a week."
)
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.ALIGNED,
    find=find,
    describe=describe,
    must_find=(
        Example("Daily coffee intake reduces the risk of type 2 diabetes.", SOURCE),
        Example("Shift work causes obesity in nurses.", SOURCE),
        Example("All patients responded to the treatment within a week.", SOURCE),
    ),
    must_pass=(
        Example("Daily coffee intake may lower the risk of type 2 diabetes.", SOURCE),
        Example("Shift work was linked to obesity in nurses.", SOURCE),
        Example("Some patients responded to the treatment within a week.", SOURCE),
        Example("Coffee might reduce the risk of type 2 diabetes, the authors suggest.", SOURCE),
        Example(  # "appeared in" a journal hedges nothing
            "Of the Ocean Engineering articles indexed in the Science Citation Index in 2000, the USA and the UK "
            "produced 62%.",
            "The articles appeared in Science Citation Index (SCI) database under Ocean Engineering category in the "
            "year 2000 were analyzed. USA and UK are the major producers - 62% of the total output.",
        ),
    ),
)
