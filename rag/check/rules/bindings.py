"""Two things the source names, each put in the other's place: "Wav2Vec 2.0 for spatial features and
EfficientNet for audio" where the source has EfficientNet for spatial features and Wav2Vec 2.0 for audio. Every
name is the source's and every word is too, so neither presence nor alignment sees it; what is wrong is which
goes with which. A name goes with the words of the clause it stands in alone; a swap is two names whose words
the sentence gives each other, words the source gives only to the other one."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from rag.check.rules.facts import fold
from rag.check.rules.finding import Finding
from rag.check.rules.name_facts import name_mentions
from rag.check.rules.rule import Comparison, Example, Rule, Stage
from rag.text import tokenize

CODE = "swapped-roles"
# Where a clause of a sentence ends, or another begins ("X for A and Y for B", "X does A, while Y does B").
_CLAUSE = re.compile(r"[,;:]|\b(?:and|while|whereas|but|than)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _pattern(folded_name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(folded_name)}(?![\w-])")


def _words_with(text: str, names: Iterable[str]) -> dict[str, set[str]]:
    """For each name, the words of the clauses of ``text`` (folded) it stands in without another of ``names``; a
    clause naming none leads into the next ("For currency, the authors trained X")."""
    patterns = {name: _pattern(name) for name in names}
    own = {word for name in names for word in tokenize(name)} | set(names)
    found: dict[str, set[str]] = {name: set() for name in names}
    for sentence in _SENTENCE.split(text):
        leading: set[str] = set()
        for clause in _CLAUSE.split(sentence):
            words = {w for w in tokenize(clause or "") if w not in own}
            present = [name for name, pattern in patterns.items() if pattern.search(clause or "")]
            if len(present) == 1:
                found[present[0]] |= words | leading
            leading = words if not present else set()
    return found


def find(c: Comparison) -> list[Finding]:
    if not c.cited:
        return []
    source = " ".join(s.folded for s in c.cited)
    mentioned = {fold(forms[0]) for forms in name_mentions(c.sentence)}
    names = sorted(n for n in mentioned if _a_thing(n) and _pattern(n).search(source))
    if len(names) < 2:
        return []
    said, stated = _words_with(fold(c.sentence), names), _words_with(source, names)
    for a, b in itertools.combinations(names, 2):
        only_a, only_b = stated[a] - stated[b], stated[b] - stated[a]
        # Each is said with words only the other goes with in the source, and with none of its own.
        if said[a] & only_b and said[b] & only_a and not said[a] & only_a and not said[b] & only_b:
            return [Finding(CODE, a, b)]
    return []


def _a_thing(folded_name: str) -> bool:
    """A name of something, not a unit or a letter ("Pg C", "R"): a word of three letters, or digits."""
    return any(len(w) > 2 or any(ch.isdigit() for ch in w) for w in re.split(r"[\s-]+", folded_name))


def describe(finding: Finding, cited: str, other: str | None) -> str:
    return f"gives {finding.said} what {cited} says of {finding.source_says}, and the other way round"


SOURCE = (
    "DAF-Net combines a Transformer encoder for temporal inconsistencies, a Convolutional Neural Network "
    "(EfficientNet) for spatial features, and Wav2Vec 2.0 for audio-based manipulation detection."
)
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe,
    must_find=(
        Example("The model uses Wav2Vec 2.0 for spatial features and EfficientNet for audio manipulation.", SOURCE),
        Example(
            "The CNN-LSTM checks counterfeit currency, while HSV is used for deepfake videos.",
            "For deepfakes, a CNN-LSTM pipeline analyses video. For counterfeit currency, a rule-based system "
            "combines HSV segmentation and geometric validation.",
        ),
    ),
    must_pass=(
        Example("The model uses EfficientNet for spatial features and Wav2Vec 2.0 for audio manipulation.", SOURCE),
        Example("Beside a Transformer encoder, it uses EfficientNet and Wav2Vec 2.0.", SOURCE),
        Example("EfficientNet reads spatial features, Wav2Vec 2.0 detects audio-based manipulation.", SOURCE),
        Example(  # the words of both in one clause: merged, not swapped
            "Wav2Vec 2.0 and EfficientNet handle audio and spatial features.",
            SOURCE,
        ),
    ),
)
