"""A change said where the source says there was none: "The incidence of sepsis has fallen" for "neither the
incidence of sepsis nor the death rate changed"; "Exercise training increased hippocampal volume" for "exercise
training did not alter hippocampal volume", "... was unchanged", "remained stable". What changed, and what did
not, are the content words around each word (shared, as the directions rule reads them), in the stretch of the
source the sentence restates; a source that also moves those words the sentence's way ("did not change at six
months but rose at twelve") is not read so."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.check.rules.directions import MOVED_WITHIN, SHARED_MOVED, may_be_moved, moves
from rag.check.rules.finding import Finding
from rag.check.rules.polarity import DENIAL, DOWN, UP, words
from rag.check.rules.rule import Comparison, Example, Rule, Stage
from rag.text import stem

CODE = "reversed-no-change"
# Words saying that something changed, which a denial turns into "no change": "did not alter", "no difference",
# "was not affected by"; and the words of direction ("did not increase").
_CHANGE = re.compile(r"chang\w*|alter\w*|affect\w*|differ\w*|vari\w*|influenc\w*|modif\w*|shift\w*|effects?")
# Words saying so without a denial: "was unchanged", "remained stable".
_STEADY = re.compile(r"unchanged|unaltered|unaffected|stable|constant|steady")
# A denial this close before a word of change denies it ("did not significantly alter")...
DENIED_WITHIN = 3
# ...or "neither" this close before it, a "nor" between ("neither the incidence of sepsis nor the death rate
# changed"): what did not change is then every content word from "neither" on.
NEITHER_WITHIN = 20
# Words that say how a result was stated or found, not what it is about: not what is moved.
_HOW_SAID = re.compile(
    r"remain\w*|significant\w*|statistic\w*|substantial\w*|marked\w*|overall|period|time|"
    r"found|find\w*|show\w*|report\w*|observ\w*|reveal\w*|demonstr\w*|suggest\w*|indicat\w*"
)


def _content(word: str) -> bool:
    return may_be_moved(word) and not (_CHANGE.fullmatch(word) or _STEADY.fullmatch(word) or _HOW_SAID.fullmatch(word))


def _stems(tokens: Sequence[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in tokens if _content(w))


def _no_change(text: str) -> list[tuple[str, frozenset[str]]]:
    """Each statement of ``text`` that something did not change: its words ("unchanged", "did not alter",
    "neither ... nor ... changed") and the stems of what did not change."""
    tokens = words(text)
    found = []
    for i, token in enumerate(tokens):
        changing = _CHANGE.fullmatch(token) or UP.fullmatch(token) or DOWN.fullmatch(token)
        if not changing and not _STEADY.fullmatch(token):
            continue
        before = tokens[max(0, i - DENIED_WITHIN) : i]
        neither = next((k for k in range(max(0, i - NEITHER_WITHIN), i) if tokens[k] == "neither"), None)
        denial = next((k for k in range(i - 1, i - 1 - len(before), -1) if DENIAL.fullmatch(tokens[k])), None)
        if neither is not None and changing and "nor" in tokens[neither:i]:
            found.append((f"neither ... nor ... {token}", _stems(tokens[neither + 1 : i])))
        elif _STEADY.fullmatch(token) or (changing and denial is not None):
            around = [w for w in tokens[:i] if _content(w)][-MOVED_WITHIN:]
            around += [w for w in tokens[i + 1 :] if _content(w)][:MOVED_WITHIN]
            found.append((token if denial is None else " ".join(tokens[denial : i + 1]), _stems(around)))
    return found


def find(c: Comparison) -> list[Finding]:
    said_moves = moves(c.sentence)
    stretches = c.restated_loosely if said_moves else ()
    steady = [found for stretch in stretches for found in _no_change(stretch)]
    if not steady:
        return []
    # What the sentence moves the source may move its way anywhere ("no difference in bone loss ... higher
    # survival rates"), not only where the sentence restates it.
    anywhere = [m for facts in c.cited for sentence in facts.sentences for m in moves(sentence)]
    source = [m for stretch in stretches for m in moves(stretch)]
    for said, sign, said_moved in said_moves:
        moved = frozenset(w for w in said_moved if not _HOW_SAID.fullmatch(w))
        if any(other == sign and moved & its for _, other, its in [*source, *anywhere]):
            continue  # the source moves it the sentence's way too
        if any(other == -sign and len(moved & its) >= SHARED_MOVED for _, other, its in source):
            continue  # the other way: the directions rule's to tell
        denied = next((word for word, its in steady if len(moved & its) >= SHARED_MOVED), None)
        if denied is not None:
            return [Finding(CODE, said, denied)]
    return []


def describe(finding: Finding, cited: str, other: str | None) -> str:
    return f"says '{finding.said}' where {cited} says it did not change: '{finding.source_says}'"


SOURCE = (
    "In clinical data from 409 hospitals, neither the incidence of sepsis nor the combined outcome of death "
    "changed significantly between 2009 and 2014."
)
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.ALIGNED,
    find=find,
    describe=describe,
    must_find=(
        Example("The incidence of sepsis has fallen substantially from 2009 to 2014.", SOURCE),
        Example(
            "Exercise training increased hippocampal volume in older adults.",
            "In older adults, six months of exercise training did not alter hippocampal volume.",
        ),
        Example(
            "Exercise training increased hippocampal volume in older adults.",
            "There was no significant change in hippocampal volume in older adults after exercise training.",
        ),
        Example(
            "Serum ferritin rose during the first year of treatment.",
            "Serum ferritin remained stable during the first year of treatment.",
        ),
        Example(
            "Serum ferritin fell during the first year of treatment.",
            "Serum ferritin was unchanged during the first year of treatment.",
        ),
    ),
    must_pass=(
        Example("The incidence of sepsis did not change from 2009 to 2014.", SOURCE),
        Example(  # the source moves it the sentence's way in a sentence the sentence does not restate
            "A meta-analysis of 19 studies with 4215 implants found higher survival for splinted than for "
            "nonsplinted restorations.",
            "A total of 4215 implants from 19 studies were analysed. The analysis found no significant differences "
            "between splinted and nonsplinted restorations for bone loss. Implants failed in 3.4% of cases. Survival "
            "was higher with splinting.",
        ),
        Example(  # the source moves it the sentence's way too
            "Serum ferritin rose during treatment.",
            "Serum ferritin was unchanged at six months of treatment but rose by twelve months.",
        ),
        Example(  # what did not change is something else
            "Exercise training increased hippocampal volume in older adults.",
            "Exercise training increased hippocampal volume in older adults but did not alter their blood pressure.",
        ),
    ),
)
