"""A claim of proof or of everything that the cited sources never make: "proved", "established", "always",
"every", "entirely", "fully", "conclusively", where they hedge ("suggests", "may") or speak of what they studied.
A sentence may say it only where a source says it too, in any of its forms ("confirmed" where a source
"confirms"; "every" where it says "all")."""

from __future__ import annotations

import re
from functools import partial

from rag.check.rules.facts import SourceFacts, whole_words
from rag.check.rules.finding import Finding
from rag.check.rules.polarity import words
from rag.check.rules.presence import describe_unstated, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "unstated-certainty"
# (what a sentence says, how a source says it too): the first, in the sentence's words, makes the claim; any
# of the second in a source states it. Only what a careful writer keeps for what was shown: not "all", "only",
# "complete" or "full", which faithful sentences use of what was studied ("all participants", "the full
# sample"); nor "proved" alone ("proved a suitable source": turned out to be), nor "almost every".
_NEARLY = r"(?<!almost )(?<!nearly )(?<!virtually )(?<!practically )(?<!not )"
_CLAIMS = (
    (r"prove[sd]? that|proven|proof", r"prove[sdn]?|proving|proof"),
    (r"(?:establish(?:es|ed)?|confirm(?:s|ed)?) that", r"establish\w*|confirm\w*"),
    (rf"{_NEARLY}(?:always|invariably|universally)", r"always|invariabl\w*|universal\w*|consistently"),
    (rf"{_NEARLY}(?:every|everyone|everything)", r"every\w*|all|each|any"),
    (rf"{_NEARLY}(?:entirely|solely|exclusively|sole)", r"entire\w*|sole\w*|exclusive\w*|only"),
    (rf"{_NEARLY}fully", r"fully|full|completely|complete"),
    (
        r"conclusively|definitively|unequivocally|undoubtedly|firmly",
        r"conclusive\w*|definitive\w*|unequivocal\w*|undoubted\w*|firm\w*",
    ),
    # Better than everything else, or before everyone else: claims a source makes in so many words.
    (
        r"(?:than|outperform\w*|surpass\w*|exceed\w*|beat\w*) (?:all|any|every) (?:other|previous|existing|prior)",
        r"(?:than|outperform\w*|surpass\w*|exceed\w*|beat\w*|best of) (?:all|any|every)|(?:all|any|every) other",
    ),
    (r"(?:is|was|are|were) the first|the first to|for the first time", r"first"),
)
# Whole words only, a hyphenated one whole: "proof-of-concept" claims no proof.
_PATTERNS = tuple((whole_words(said), whole_words(stated)) for said, stated in _CLAIMS)


def _states(pattern: re.Pattern[str], source: SourceFacts) -> bool:
    return pattern.search(source.folded) is not None


def find(c: Comparison) -> list[Finding]:
    sentence = " ".join(words(c.sentence))
    facts = []
    for claim, stated in _PATTERNS:
        if (found := claim.search(sentence)) is not None:
            facts.append((found.group(0), partial(_states, stated)))
    return unstated(CODE, facts, c)


def describe(finding: Finding, cited: str, other: str | None) -> str:
    if other is not None:
        return describe_unstated(finding, cited, other)
    return f"says '{finding.said}' where {cited} claims nothing so strong"


SOURCE = "These results suggest that viral infection may be a greater source of prokaryotic mortality in all samples."
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe,
    must_find=(
        Example("Ortmann and Suttle proved that viruses are a greater source of prokaryotic mortality.", SOURCE),
        Example("Viral infection is always a greater source of prokaryotic mortality.", SOURCE),
        Example("Viral infection entirely explains prokaryotic mortality.", SOURCE),
        Example(  # better than everything else, before everyone else
            "Kernel regression outperforms all other fMRI decoding methods.",
            "Our kernel regression won first place in the competition; it applies to any fMRI decoding work.",
        ),
        Example("Ortmann and Suttle were the first to show viral mortality in all samples.", SOURCE),
    ),
    must_pass=(
        Example("Viral infection may be a greater source of prokaryotic mortality in every sample.", SOURCE),
        Example("The authors confirmed it.", "Our experiments confirm that viral infection kills prokaryotes."),
        Example("Viral infection may be a greater source of prokaryotic mortality than thought.", SOURCE),
        Example("Almost every sample showed viral infection as a greater source of prokaryotic mortality.", SOURCE),
        Example("Infected cells proved a greater source of prokaryotic mortality.", SOURCE),
        Example("A proof-of-concept study suggests viral infection may be a greater source of mortality.", SOURCE),
        Example("VOS outperformed all other mapping techniques.", "VOS outperforms all other mapping techniques."),
    ),
)
