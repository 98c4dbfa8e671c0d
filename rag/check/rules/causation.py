"""A cause the cited sources only suggest, or never state: "X causes Y", "drives", "determines", "cures", "is
responsible for", "the main cause of", where the sources say that X is associated with Y, may influence it or
could lead to it. A source states a cause where one of its sentences on the same things (sharing
SHARED_WORDS content words with the sentence) says that something causes, drives, induces, mediates, requires,
promotes, prevents or explains something, with no hedge ("may", "suggests", "whether") just before it."""

from __future__ import annotations

import re
from functools import lru_cache

from rag.check.rules.alignment import content_words
from rag.check.rules.facts import SourceFacts, fold
from rag.check.rules.finding import Finding
from rag.check.rules.presence import describe_unstated, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "unstated-cause"
# Content words a source sentence shares with the sentence to be about the same things.
SHARED_WORDS = 2
# How far before a word of cause a hedge still hedges it ("may well have contributed to"), in characters.
HEDGE_REACH = 40
# What claims a cause, as a finite verb or a noun phrase: not "driven" ("goal-driven"), "determined" (measured)
# or "resulted in" (what a procedure gave), which writers use of methods.
_CLAIM = re.compile(
    r"(?<![\w-])(?:caus(?:e|es|ed)|drives|drove|determines|cur(?:e|es|ed)|(?:is|are|was|were) responsible for|"
    r"leads to|(?:the|a) (?:main|leading|primary|major|sole) cause|master regulator)(?![\w-])"
)
# How a source states a cause or a mechanism (verbs and their forms, not nouns: "inhibitor", "promoter").
_STATES = re.compile(
    r"(?<![\w-])(?:caus(?:e|es|ed|ing|al|ally|ation)|driv(?:e|es|en|ing)|drove|determin(?:e|es|ed|ing)|"
    r"cur(?:e|es|ed|ing|ative)|responsible for|leads? to|led to|leading to|result(?:s|ed|ing)? in|"
    r"induc(?:e|es|ed|ing)|trigger(?:s|ed|ing)?|mediat(?:e|es|ed|ing)|due to|because|underli(?:e|es)|"
    r"contribut(?:e|es|ed|ing|or)|promot(?:e|es|ed|ing)|control(?:s|led|ling)?|regulat(?:e|es|ed|ing)|"
    r"requir(?:e|es|ed|ing)|essential|necessary|depend(?:s|ed)? on|eliminat(?:e|es|ed|ing)|prevent(?:s|ed|ing)?|"
    r"abolish(?:es|ed)?|restor(?:e|es|ed)|rescu(?:e|es|ed)|confer(?:s|red)?|accounts? for|accounted for|"
    r"attributable|explain(?:s|ed)?|risk factor|produc(?:e|es|ed)|impair(?:s|ed)?|inhibit(?:s|ed)?|suppress(?:es|ed)?|"
    r"activat(?:e|es|ed)|increas(?:e|es|ed)|reduc(?:e|es|ed)|decreas(?:e|es|ed)|enhanc(?:e|es|ed)|improv(?:e|es|ed)|"
    r"lower(?:s|ed)|rais(?:e|es|ed))(?![\w-])"
)
HEDGE = re.compile(
    r"(?<![\w-])(?:may|might|could|suggest\w*|potential\w*|possibl\w*|likely|whether|unknown|unclear|"
    r"hypothes\w*|propos\w*|perhaps|putative\w*|speculat\w*)(?![\w-])"
)
# Before a word of effect in a source, what makes it no cause: a hedge, or an association ("was associated with
# an increased risk").
_NO_CAUSE = re.compile(rf"{HEDGE.pattern}|(?<![\w-])(?:associat\w*|correlat\w*|linked)(?![\w-])")
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+")


def _claim(folded_sentence: str) -> str | None:
    """The cause the sentence claims, unless it hedges it itself."""
    if HEDGE.search(folded_sentence):
        return None
    found = _CLAIM.search(folded_sentence)
    return found.group(0) if found else None


@lru_cache(maxsize=4_096)
def _causal_sentences(folded_source: str) -> tuple[frozenset[str], ...]:
    """The content words of each source sentence that states a cause unhedged."""
    stating = []
    for sentence in _SENTENCE_END.split(folded_source):
        if any(
            not _NO_CAUSE.search(sentence[max(m.start() - HEDGE_REACH, 0) : m.start()])
            for m in _STATES.finditer(sentence)
        ):
            stating.append(content_words(sentence))
    return tuple(stating)


def _states_cause(words: frozenset[str], source: SourceFacts) -> bool:
    return any(len(words & stated) >= SHARED_WORDS for stated in _causal_sentences(source.folded))


def find(c: Comparison) -> list[Finding]:
    claim = _claim(fold(c.sentence))
    if claim is None:
        return []
    words = content_words(c.sentence)
    return unstated(CODE, [(claim, lambda source: _states_cause(words, source))], c)


def describe(finding: Finding, cited: str, other: str | None) -> str:
    if other is not None:
        return describe_unstated(finding, cited, other)
    return f"says '{finding.said}' where {cited} states no such cause"


SOURCE = (
    "Night-shift work was associated with higher body-mass index in nurses. "
    "Melatonin suppression may contribute to weight gain. "
    "Sleep loss impairs glucose tolerance through reduced insulin secretion."
)
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe,
    must_find=(
        Example("Working night shifts causes nurses to gain weight.", SOURCE),
        Example("Melatonin suppression drives weight gain in shift workers.", SOURCE),
        Example("Night-shift work is the main cause of a high body-mass index.", SOURCE),
    ),
    must_pass=(
        Example("Night-shift work may cause weight gain in nurses.", SOURCE),
        Example("Sleep loss causes glucose intolerance by reducing insulin secretion.", SOURCE),
        Example("Nurses on night shifts had a higher body-mass index.", SOURCE),
        Example("In goal-driven tasks, nurses' body-mass index was determined twice.", SOURCE),
    ),
)
