"""A number, population, organism or design of the restated source put in place of another: "type 5 diabetes"
for "type 2 diabetes", "seventy seconds" for "seven seconds", "rats" for "mice" (aligned word by word, a
substitution of a few words); or one of the things a source lists put in place of another it lists: "most
active when subjects named animals" where it names "animals, tools, and unique persons" and says "... named
persons"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from rag.check.rules.facts import NUMBER_WORDS, NumberTable, fold, kind_of
from rag.check.rules.finding import Finding
from rag.check.rules.rule import MAX_SWAPPED_WORDS, Comparison, Example, Rule, Stage

CODE = "swapped"
# A list of three things or more in a (folded) source: "animals, tools, and unique persons", each of a few words.
_ITEM = r"[a-z][\w'-]*(?: [a-z][\w'-]*){0,2}"
_LIST = re.compile(rf"(?<![\w'-]){_ITEM}(?:, {_ITEM})+,? (?:and|or) {_ITEM}(?![\w'-])")
_LIST_SEPARATOR = re.compile(r",? (?:and|or) |, ")
# Letters then digits, as genes, proteins and parts are numbered: "ago1", "il-6", "cd4", "h3k9".
_PARALOG = re.compile(r"(?P<stem>[a-z]{2,}-?)(?P<number>\d+[a-z]?\d*)")


def _as_number(word: str) -> str:
    """A number word as its digits ("seven" -> "7"); "one" stays a word: it is as often a pronoun."""
    return NUMBER_WORDS[word] if word in NUMBER_WORDS and word != "one" else word


def _swapped(said: Sequence[str], replaced: Sequence[str], restated: NumberTable) -> Finding | None:
    source_numbers = [w for w in replaced if _as_number(w)[0].isdigit()]
    evidence_numbers = NumberTable.of(" ".join(map(_as_number, source_numbers)))
    for word in said:
        number = _as_number(word)
        if number[0].isdigit() and evidence_numbers.values and not evidence_numbers.has(number):
            if restated.has(number):
                continue  # aligned with the wrong one of the two sentences restated ("17 ms" of two durations)
            return Finding(CODE, word, source_numbers[0])
    replaced_kinds = {k for w in replaced if (k := kind_of(w)) is not None}
    for word in said:
        kind = kind_of(word)
        if kind is not None and replaced_kinds and kind not in replaced_kinds:
            return Finding(CODE, word, next(w for w in replaced if kind_of(w) is not None))
    return None


@lru_cache(maxsize=4_096)
def _listed_together(folded: str) -> frozenset[tuple[str, str]]:
    """Every two words of a source's lists that stand in different items of one list (both orders)."""
    pairs = set()
    for listed in _LIST.finditer(folded):
        items = [set(item.split()) for item in _LIST_SEPARATOR.split(listed.group())]
        for i, one in enumerate(items):
            for other in items[i + 1 :]:
                pairs |= {(a, b) for a in one for b in other if a != b} | {(b, a) for a in one for b in other if a != b}
    return frozenset(pairs)


def _only_listed(word: str, restated: str) -> bool:
    """Every time the restated stretch says ``word`` it is in one of its lists: a sentence naming some of the
    things listed ("including MIR22HG and SNHG15" of six) picks from the list, it swaps nothing."""
    lists = [m.span() for m in _LIST.finditer(restated)]
    said = [m.start() for m in re.finditer(rf"(?<![\w'-]){re.escape(word)}(?![\w'-])", restated)]
    return bool(said) and all(any(start <= at < end for start, end in lists) for at in said)


def _sibling_swapped(c: Comparison) -> list[Finding]:
    """One word of a source's list put in place of another of the same list, where the sentence restates what
    the source says of that one outside the list, and does not also say the source's word elsewhere (a list
    reordered is no swap)."""
    restated = fold(c.restates)
    for e in c.edits:
        if not e.substituted or len(e.said) != len(e.replaced):
            continue
        # Word for word: "while Japan" for "and China" swaps Japan for China, not "while" for anything.
        for said, replaced in zip(e.said, e.replaced, strict=True):
            if replaced in c.sentence_words or said.startswith(replaced) or replaced.startswith(said):
                continue  # the source's word said elsewhere (a list reordered), or shortened ("S. undata")
            if _only_listed(replaced, restated):
                continue
            if any((said, replaced) in _listed_together(facts.folded) for facts in c.cited):
                return [Finding(CODE, said, replaced)]
    return []


def _paralog_swapped(c: Comparison) -> list[Finding]:
    """A gene, protein or part named by the same letters with other digits in the place of the source's:
    "AGO2" for "AGO1", "IL-6" for "IL-10", "CD8" for "CD4" (the first word of a substitution, which at the end
    of a sentence runs on into the rest of the source's)."""
    for e in c.edits:
        if e.op != "replace" or not e.said or not e.replaced or len(e.said) > MAX_SWAPPED_WORDS:
            continue
        said, replaced = _PARALOG.fullmatch(e.said[0]), _PARALOG.fullmatch(e.replaced[0])
        if said is None or replaced is None or said.group("stem") != replaced.group("stem"):
            continue
        if said.group(0) != replaced.group(0) and said.group(0) not in c.source_words:
            return [Finding(CODE, said.group(0), replaced.group(0))]
    return []


def find(c: Comparison) -> list[Finding]:
    restated = NumberTable.of(" ".join(map(_as_number, c.restates.split())))
    found = [f for e in c.edits if e.substituted and (f := _swapped(e.said, e.replaced, restated)) is not None]
    return found or _paralog_swapped(c) or _sibling_swapped(c)


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
        Example(  # a number written as a word, for another one (written either way)
            "Evaporative cooling raised the phase-space density by six orders of magnitude within seventy seconds.",
            "Evaporative cooling increased the phase-space density by 6 orders of magnitude within seven seconds.",
        ),
        Example(
            "Feeding the upcoming five steps to the policy is sufficient.",
            "Feeding the upcoming 2 steps to the policy is sufficient.",
        ),
        Example("Toddlers perceive colour categorically.", "Pre-linguistic infants perceive colour categorically."),
        Example(  # one of the things a source lists for another
            "A part of the middle frontal gyrus was most active when subjects named animals.",
            "The tasks required retrieving words denoting animals, tools, and unique persons. A part of the middle "
            "frontal gyrus was most active when subjects named persons.",
        ),
        Example(  # the same letters, another number
            "Small RNAs from terminal hairpins of esiRNA precursors are loaded onto AGO2.",
            "Small RNAs derived from terminal hairpins of esiRNA precursors are loaded onto AGO1; they are a new "
            "subset of miRNAs. The complex produces AGO2-associated small RNAs.",
        ),
        Example(
            "Light-induced desorption loads a large magneto-optical trap of sodium atoms.",
            "We show that light-induced atom desorption loads a large magneto-optical trap of 87Rb atoms.",
        ),
    ),
    must_pass=(
        Example(  # some of the things a source lists, named
            "Six short-lived long ncRNAs, including MIR22HG and SNHG15, responded to chemical stressors.",
            "We identified six novel short-lived long ncRNAs (MIR22HG, GABPB-AS1, LINC00152, IDI2-AS1, SNHG15, and "
            "FLJ33630) that responded to chemical stressors.",
        ),
        Example("Treatment reduced weight gain in murine models with type 2 diabetes.", SOURCE),
        Example("In mice with type 2 diabetes, treatment reduced weight gain.", SOURCE),
        Example(
            "Feeding the upcoming two steps to the policy is sufficient.",
            "Feeding the upcoming 2 steps to the policy is sufficient.",
        ),
        Example("One of the 3 groups improved.", "Only one group of the three improved."),
        Example(  # aligned with the other of two sentences, each with its number
            "When masked fearful faces were shown for only 17 ms, emotion-specific ERP effects appeared only on "
            "trials where the fearful faces were detected.",
            "These emotion-specific effects were also triggered when masked faces were presented for only 17 ms, but "
            "only on trials where fearful faces were successfully detected. When masked faces were shown for 50 ms, a "
            "smaller but reliable frontal positivity was also elicited by undetected fearful faces.",
        ),
    ),
)
