"""A word made its opposite with a prefix: "in non-native listeners" where the cited sources speak of native
listeners and never of non-native ones, "non-significant" where they say "significant" (and never "not
significant"), "asymmetrical" where they say "symmetrical" (a prefix other than "non" only where the two words
are known opposites: rag.check.rules.polarity); or the prefix dropped: "reliable" where the sources say only
"unreliable". Presence, not alignment: the word it turns may stand anywhere in the source."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding, says_instead
from rag.check.rules.polarity import opposed, words
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "negated-prefix"
_NON = re.compile(r"non-?(?P<base>[a-z][a-z-]{2,})")
# The prefixes that make a word its opposite ("asymmetric", "unstable", "inconsistent", "irreversible").
NEGATIVE_PREFIXES = ("a", "an", "un", "in", "im", "ir", "il", "dis")
_PREFIXED = re.compile(rf"(?:{'|'.join(NEGATIVE_PREFIXES)})(?P<base>[a-z][a-z-]{{3,}})")
# Words "non" makes into a name of their own rather than the opposite of what the source says: a "non-human
# primate" is a monkey whether or not its source names humans.
_ANY_NON = re.compile(r"\bnon[- ]")
_FIXED = frozenset({"human", "humans", "profit", "governmental"})
MIN_BASE_LETTERS = 4  # "able", "like": a shorter word is too often part of another


def _states_opposite(base: str, source: SourceFacts) -> bool:
    """The source names ``base`` and denies nothing with "non" ("non-action video game players" may be the
    sentence's "non-players"), nor ``base`` with a prefix or in other words ("asymmetric", "not significant")."""
    text = source.folded
    if _ANY_NON.search(text) or re.search(rf"\b\w+-?{re.escape(base)}", text):
        return False
    denied = re.search(rf"(?:\bnot |\bno |n't )(?:\w+ )?{re.escape(base)}(?![\w-])", text)
    return denied is None and re.search(rf"(?<![\w-]){re.escape(base)}(?![\w-])", text) is not None


def _turned(word: str) -> str | None:
    """The word ``word`` turns with its prefix ("native" of "non-native", "symmetrical" of "asymmetrical")."""
    if (match := _NON.fullmatch(word)) is not None:
        return None if match.group("base") in _FIXED else match.group("base")
    if (match := _PREFIXED.fullmatch(word)) is not None and opposed([word], [match.group("base")]):
        return match.group("base")
    return None


def find(c: Comparison) -> list[Finding]:
    if not c.cited:
        return []
    found = []
    said = words(c.sentence)
    for at, word in enumerate(said):
        if (base := _turned(word)) is None or said[at + 1 : at + 2] == ["of"]:
            continue  # "independent of other factors", "unaware of": how the sentence puts it, not a finding
        if any(w == base or w.startswith(f"{base}-") for w in said):
            continue  # the sentence contrasts the two itself: "video games and non-video game activity"
        if all(_states_opposite(base, source) for source in c.cited):
            found.append(Finding(CODE, word, base))
    found += _prefix_dropped(said, c.cited)
    return list({f.said: f for f in found}.values())


def _prefix_dropped(said: list[str], cited: Sequence[SourceFacts]) -> list[Finding]:
    """A word whose known opposite with a prefix is all the sources say: "reliable" where they call the methods
    "unreliable" and never "reliable" ("stable" for "unstable", "likely" for "unlikely")."""
    found = []
    for word in dict.fromkeys(said):
        if len(word) < MIN_BASE_LETTERS or not word.isalpha():
            continue
        # Only a prefix that makes a known opposite of the word is looked for in the sources.
        prefixes = [p for p in NEGATIVE_PREFIXES if opposed([p + word], [word])]
        if not prefixes:
            continue
        turned = re.compile(rf"\b(?:{'|'.join(prefixes)})-?{re.escape(word)}\b")
        opposites = [m.group(0).replace("-", "") for source in cited for m in turned.finditer(source.folded)]
        plain = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
        if opposites and not any(w in said for w in opposites) and not any(plain.search(s.folded) for s in cited):
            found.append(Finding(CODE, word, opposites[0]))
    return found


SOURCE = "Native listeners make use of semantic context when they perceive speech in noise."
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.PRESENCE,
    find=find,
    describe=says_instead,
    must_find=(
        Example("Non-native listeners make use of semantic context in noise.", SOURCE),
        Example(
            "The difference between groups was non-significant.",
            "The difference between the groups was significant.",
        ),
        Example(  # the prefix dropped
            "Genetic screens give a reliable way to find true kinase substrates.",
            "Traditionally used techniques to identify true kinase substrates, such as genetics, yeast two-hybrid "
            "screens, and biochemical purification, are often laborious and unreliable.",
        ),
        Example(
            "Response-shape parcellations across the whole brain gave asymmetrical clusters.",
            "Parcellations based on response shape produce distributed clusters that are anatomically and "
            "functionally meaningful, symmetrical across hemispheres, and reproducible across subjects.",
        ),
    ),
    must_pass=(
        Example("Native listeners use semantic context in noise.", SOURCE),
        Example(
            "Non-native listeners benefited less from context than native ones.",
            "Native listeners benefited more from context than non-native listeners.",
        ),
        Example(
            "The difference between groups was non-significant.",
            "The difference between the groups was not statistically significant.",
        ),
        Example("Face patches were found in non-human primates.", "Face patches were found in monkeys and humans."),
        Example("An unrelated word slowed naming.", "Related and unrelated words were named."),
        Example("Symptoms were unchanged.", "Symptoms changed little, though some were unchanged."),
        Example("Independent of other factors, Pum binds mRNA.", "Pum binding is dependent on Nanos."),
        Example("The dipole was stable.", "The dipole was stable; the other one was unstable."),
        Example(
            "Native and non-native listeners both use semantic context in noise.",
            "Native listeners make use of semantic context when they perceive speech in noise.",
        ),
    ),
)
