"""The citation check's rules: each finds one kind of fact a sentence adds to, or changes in, the sources it
cites (a number, a name, a population, design or model, a swap, a direction turned, a comparison turned, a
word turned by its prefix, a risk its ratio turns the other way, the other side, a denial added or dropped,
two names given each other's roles), with its code, how it tells a reader, and the examples it must find and
must pass. Text in, findings out: no model, no embedding, no index.

``registry.RULES`` lists them and ``registry.run_rules`` is the one loop; ``facts``, ``name_facts``,
``alignment`` and ``polarity`` are what the rules read with (numbers, names, kinds; word-by-word alignment; negation and
direction words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.check.rules.alignment import MIN_ALIGNED_SHARE as MIN_ALIGNED_SHARE
    from rag.check.rules.alignment import aligned_share as aligned_share
    from rag.check.rules.alignment import best_aligned as best_aligned
    from rag.check.rules.alignment import content_words as content_words
    from rag.check.rules.alignment import windows as windows
    from rag.check.rules.facts import NumberTable as NumberTable
    from rag.check.rules.facts import SourceFacts as SourceFacts
    from rag.check.rules.facts import numbers_in as numbers_in
    from rag.check.rules.finding import Finding as Finding
    from rag.check.rules.name_facts import name_mentions as name_mentions
    from rag.check.rules.polarity import antonyms as antonyms
    from rag.check.rules.polarity import direction as direction
    from rag.check.rules.polarity import negated as negated
    from rag.check.rules.polarity import words as words
    from rag.check.rules.registry import RULES as RULES
    from rag.check.rules.registry import changes as changes
    from rag.check.rules.registry import missing_facts as missing_facts
    from rag.check.rules.registry import rule_of as rule_of
    from rag.check.rules.registry import run_rules as run_rules
    from rag.check.rules.rule import Comparison as Comparison
    from rag.check.rules.rule import Example as Example
    from rag.check.rules.rule import Rule as Rule

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
