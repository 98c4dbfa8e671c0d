"""A comparison turned around: the sentence says A is more (higher, stronger, ...) than B where its source says
B is more than A ("stronger in grasslands than in forests" for "a stronger response in forest than in
grassland"; "placebo ... less likely to recur than SER-109" for "SER-109 led to less frequent recurrence than
placebo"; "B outperformed A" for "A outperforms B"; "frontal rather than temporal" for "temporal rather than
frontal"); or the same sides compared the other way ("a smaller amplitude for A than B" for "greater for A
than for B"). Said the other way round ("B is weaker than A", "B is outperformed by A") it is the same
comparison, and passes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rag.check.rules.finding import Finding
from rag.check.rules.polarity import words
from rag.check.rules.rule import Comparison, Example, Rule, Stage
from rag.text import tokenize

CODE = "reversed-comparison"
# The scales a comparison can be turned on, each (more, less): "smaller" says the opposite of "greater", not of
# "faster" ("took less time" is "faster").
_SCALE_WORDS = (
    ("more|higher|greater|larger|bigger|increased", "less|lower|fewer|smaller|reduced"),
    ("better|superior", "worse|inferior"),
    ("stronger", "weaker"),
    ("faster", "slower"),
    ("longer", "shorter"),
    ("heavier", "lighter"),
    ("older", "younger"),
    ("earlier", "later"),
)
SCALES = tuple((re.compile(more), re.compile(less)) for more, less in _SCALE_WORDS)
# Any comparative going up, or down: every scale's words.
MORE = re.compile("|".join(more for more, _ in _SCALE_WORDS))
LESS = re.compile("|".join(less for _, less in _SCALE_WORDS))
THAN = re.compile(r"\bthan\b|\b(?:as )?compared (?:with|to)\b|\brelative to\b", re.IGNORECASE)
# A comparison in a verb ("MetNet outperforms NWP"), said the other way round in the passive ("NWP was
# outperformed by MetNet").
BEATS = re.compile(
    r"\b(?P<passive>(?:is|are|was|were|be|been|being)\s+)?(?:outperform|surpass|outperformed|surpassed|outperforms|"
    r"surpasses|outperforming|surpassing)(?(passive)\s+by)\b",
    re.IGNORECASE,
)
# A preference: "temporal rather than frontal regions", "tools instead of animals": the word before and the one
# after are what is preferred and what it is preferred to (the words around are what both sides share).
RATHER = re.compile(r"\b(?:rather than|instead of|as opposed to)\b", re.IGNORECASE)
PREFERENCE = 2  # a sign of its own: a preference is only ever turned around by another preference
# "A, but not B, enhanced Dicer2 activity": what holds and what does not, each within this many content words.
BUT_NOT = re.compile(r"\bbut not\b", re.IGNORECASE)
BUT_NOT_WORDS = 2
# The comparative stands at most this many words before "than"; the first thing compared within this many words
# before the comparative, the second within this many after "than" (up to a comma or parenthesis).
COMPARATIVE_REACH = 10
SIDE_WORDS = 6
_CLAUSE_END = re.compile(r"[,;:(]")
# A multiple ("and were 1·4-2·7 times higher than B", "a 3-fold higher") is no side of a comparison: where the
# clause before the comparative holds nothing else, what is compared is the sentence's subject, its first words.
_MULTIPLE = re.compile(
    r"[\d.,·–-]+(?:-?fold)?|times|fold|and|but|were|was|is|are|be|been|being|about|nearly|up|to|a|an"
)
# Sources are read folded (lower case), so sentences end at a full stop and a space, whatever follows.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Compared:
    """One comparison of a sentence: its direction (+1 more, -1 less) and the terms on each side of it."""

    sign: int
    first: frozenset[str]
    second: frozenset[str]
    word: str = ""  # the comparative as written: "smaller", "outperforms"
    attribute: str | None = None  # what it compares, where it follows: "time" of "less time than"


def comparisons_in(sentence: str) -> list[Compared]:
    return _with_than(sentence) + _in_a_verb(sentence) + _preferred(sentence)


def _preferred(sentence: str) -> list[Compared]:
    """ "A rather than B": the content word nearest on each side; "A, but not B, ...": the two nearest, those of
    both sides aside ("huntingtin fibrils, but not α-synuclein fibrils")."""
    found = []
    for match in RATHER.finditer(sentence):
        before = tokenize(_CLAUSE_END.split(sentence[: match.start()])[-1])
        after = tokenize(_CLAUSE_END.split(sentence[match.end() :], maxsplit=1)[0])
        if before and after:
            found.append(Compared(PREFERENCE, frozenset(before[-1:]), frozenset(after[:1]), match.group().lower()))
    for match in BUT_NOT.finditer(sentence):
        held = frozenset(tokenize(_CLAUSE_END.split(sentence[: match.start()].rstrip(" ,"))[-1])[-BUT_NOT_WORDS:])
        not_held = frozenset(tokenize(_CLAUSE_END.split(sentence[match.end() :], maxsplit=1)[0])[:BUT_NOT_WORDS])
        if held - not_held and not_held - held:
            found.append(Compared(PREFERENCE, held - not_held, not_held - held, "but not"))
    return found


def _in_a_verb(sentence: str) -> list[Compared]:
    """ "A outperforms B" (A more), and "B is outperformed by A" (the same comparison)."""
    found = []
    for match in BEATS.finditer(sentence):
        head = words(_CLAUSE_END.split(sentence[: match.start()])[-1])[-SIDE_WORDS:]
        if not head:  # "..., outperforming B": what outperforms is the sentence's subject
            head = words(_CLAUSE_END.split(sentence, maxsplit=1)[0])[:SIDE_WORDS]
        tail = words(_CLAUSE_END.split(sentence[match.end() :], maxsplit=1)[0])[:SIDE_WORDS]
        first, second = (tail, head) if match.group("passive") else (head, tail)
        sides = frozenset(tokenize(" ".join(first))), frozenset(tokenize(" ".join(second)))
        found.append(Compared(1, *sides, match.group().lower()))
    return found


def _with_than(sentence: str) -> list[Compared]:
    found = []
    for match in THAN.finditer(sentence):
        if sentence[: match.start()].rstrip().lower().endswith("rather"):
            continue  # a preference (_preferred)
        head = words(sentence[: match.start()])
        at = next((i for i in range(len(head) - 1, -1, -1) if _sign(head[i])), None)
        if at is None or len(head) - at > COMPARATIVE_REACH:
            continue
        tail = _CLAUSE_END.split(sentence[match.end() :], maxsplit=1)[0]
        first = head[max(at - SIDE_WORDS, 0) : at] + head[at + 1 :]
        if _only_a_multiple(sentence[: match.start()], head[at]):
            first = words(_CLAUSE_END.split(sentence, maxsplit=1)[0])[:SIDE_WORDS] + head[at + 1 :]
        second = words(tail)[:SIDE_WORDS]
        sides = frozenset(tokenize(" ".join(first))), frozenset(tokenize(" ".join(second)))
        attribute = next(iter(tokenize(" ".join(head[at + 1 : at + 2]))), None)
        found.append(Compared(_sign(head[at]), *sides, head[at], attribute))
    return found


def _only_a_multiple(before_than: str, comparative: str) -> bool:
    """Whether the clause before "than" says only how many times more, besides its comparative ("and were
    1·4-2·7 times higher"), with a clause before it to name what is compared."""
    clauses = _CLAUSE_END.split(before_than)
    said = words(clauses[-1])
    if len(clauses) < 2 or comparative not in said:
        return False
    multiple = said[: said.index(comparative)]
    return any(w in ("times", "fold") or w.endswith("-fold") for w in multiple) and all(
        _MULTIPLE.fullmatch(w) for w in multiple
    )


def _sign(word: str) -> int:
    """+1 / -1 / 0 for a lower-cased word (polarity.words)."""
    return 1 if MORE.fullmatch(word) else -1 if LESS.fullmatch(word) else 0


@lru_cache(maxsize=4_096)
def _source_comparisons(folded: str) -> tuple[Compared, ...]:
    return tuple(
        c
        for sentence in _SENTENCE_END.split(folded)
        if THAN.search(sentence) or BEATS.search(sentence) or RATHER.search(sentence) or BUT_NOT.search(sentence)
        for c in comparisons_in(sentence)
    )


def _sides(said: Compared, source: Compared) -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """The terms each side of the sentence's comparison shares with the same side of the source's, then with its
    other side (terms on both sides of one comparison, the attribute compared, aside)."""
    mine_first, mine_second = said.first - said.second, said.second - said.first
    theirs_first, theirs_second = source.first - source.second, source.second - source.first
    return (
        mine_first & theirs_first,
        mine_second & theirs_second,
        mine_first & theirs_second,
        mine_second & theirs_first,
    )


def turned_around(said: Compared, source: Compared) -> bool:
    """The same direction with the two sides swapped: each side of the sentence's comparison holds a term of the
    source's other side, and what the sentence compares against ("than B") is not what the source compares
    against (the attribute compared, "response", "recurrence", may stand on the first side of both), or shares
    fewer of its terms than the two sides share crossed ("in precision" after both sides)."""
    straight_first, straight_second, crossed_first, crossed_second = _sides(said, source)
    straight = len(straight_second)
    outweighs = not straight or len(crossed_first) + len(crossed_second) > straight + len(straight_first)
    return said.sign == source.sign and bool(crossed_first) and bool(crossed_second) and outweighs


def opposite_way(said: Compared, source: Compared) -> bool:
    """The same two sides, each where the source has it, compared the other way ("a smaller amplitude for
    unrelated than related pairs" for "greater for unrelated than for related pairs"); never a preference."""
    if said.sign != -source.sign or not _one_scale(said, source):
        return False
    straight_first, straight_second, crossed_first, crossed_second = _sides(said, source)
    straight = len(straight_first) + len(straight_second)
    return bool(straight_first) and bool(straight_second) and straight > len(crossed_first) + len(crossed_second)


def _agrees(said: Compared, source: Compared) -> bool:
    """The source compares the same sides the same way, said as the sentence says it or turned round ("B is
    weaker than A" for "A is stronger than B")."""
    return _same_way(said, source) or _same_way(Compared(-said.sign, said.second, said.first), source)


def _one_scale(said: Compared, source: Compared) -> bool:
    """Both comparatives on one scale ("smaller", "greater"), comparing the same attribute where both name one
    ("lower error" is not the opposite of "higher accuracy")."""
    same = any(
        any(side.fullmatch(said.word) for side in scale) and any(side.fullmatch(source.word) for side in scale)
        for scale in SCALES
    )
    return same and (said.attribute is None or source.attribute is None or said.attribute == source.attribute)


def _same_way(said: Compared, source: Compared) -> bool:
    straight_first, straight_second, _, _ = _sides(said, source)
    return said.sign == source.sign and bool(straight_first) and bool(straight_second)


def _bound(said: Compared) -> bool:
    """A bound, not a comparison: "more than 50 patients" and "fewer than 100" may both hold."""
    return any(term[0].isdigit() for term in said.second)


def find(c: Comparison) -> list[Finding]:
    mine = comparisons_in(c.sentence)
    if not mine:
        return []
    sources = [source for facts in c.cited for source in _source_comparisons(facts.folded)]
    # A source that also compares the two as the sentence does (a result and its converse: "A but not B ...,
    # whereas B but not A ...") is not contradicted by it.
    unopposed = [said for said in mine if not any(_agrees(said, source) for source in sources)]
    for said in unopposed:
        if (source := next((s for s in sources if turned_around(said, s)), None)) is not None:
            return [Finding(CODE, " ".join(sorted(said.first)), " ".join(sorted(source.first)))]
    for said in unopposed:
        if not _bound(said) and (source := next((s for s in sources if opposite_way(said, s)), None)) is not None:
            return [Finding(CODE, said.word, source.word)]
    return []


def describe(finding: Finding, cited: str, other: str | None) -> str:
    if _sign(finding.said):  # the same sides compared the other way: the comparatives are what differs
        return f"says '{finding.said}' where {cited} says '{finding.source_says}', comparing the same things"
    return (
        f"compares the other way round: {cited} has '{finding.source_says}' on the side where it has '{finding.said}'"
    )


SOURCE = "Soil carbon showed a stronger response in forest than in grassland."
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe,
    must_find=(
        Example("The soil carbon response was stronger in grasslands than in forests.", SOURCE),
        Example(
            "Patients given placebo were less likely to have a recurrence than those given SER-109.",
            "SER-109 led to less frequent recurrence than placebo in every stratum.",
        ),
        Example(
            "MetNet was outperformed by numerical weather prediction at lead times of up to 8 hours.",
            "We find that MetNet outperforms numerical weather prediction at lead times of up to 8 hours.",
        ),
        Example(
            "Models based on clinical case counts alone outperformed those that added wastewater data.",
            "Models that included wastewater had higher predictive power than models that included case counts only.",
        ),
        Example(  # a participle after a comma: its subject is the sentence's
            "Baseline CNN architectures outperformed the CBAM-CNN in precision and consistency.",
            "The proposed CBAM-CNN achieves an AUC of 0.958, outperforming baseline CNN architectures in precision.",
        ),
        Example(  # the same sides, each where the source has it, compared the other way
            "In REM sleep, unrelated word pairs elicited a significantly smaller mean amplitude than related pairs.",
            "The effect showed a mean amplitude for pairs of unrelated words significantly greater than for related "
            "pairs and an increment of latency.",
        ),
        Example(  # what holds and what does not, the other way round
            "R2D2, but not Loqs-PD, enhanced Dicer2 activity.",
            "However, Loqs-PD, but not R2D2, enhanced Dicer2 activity.",
        ),
        Example(  # a multiple is no side: the subject compared is the sentence's
            "Incidence of vascular dementia is lower than the incidence of Alzheimer's disease.",
            "Incidence of vascular dementia varied between 18 and 30 per 1000 person-years, and was 1.4-2.7 times "
            "higher than that of Alzheimer's disease.",
        ),
        Example(  # a preference turned around
            "This form of dementia was attributed to pathology in frontal rather than temporal regions of the brain.",
            "It is assumed to be an atrophy with emphasis of pathology in temporal rather than frontal regions.",
        ),
    ),
    must_pass=(
        Example("The soil carbon response was stronger in forests than in grasslands.", SOURCE),
        Example(
            "The CBAM-CNN outperformed baseline CNN architectures in precision and consistency.",
            "The proposed CBAM-CNN achieves an AUC of 0.958, outperforming baseline CNN architectures in precision.",
        ),
        Example(
            "Its pathology lies in temporal rather than frontal regions of the brain.",
            "It is assumed to be an atrophy with emphasis of pathology in temporal rather than frontal regions.",
        ),
        Example(
            "Visual rather than associative knowledge engaged frontal areas.",
            "Accessing visual versus associative knowledge was associated with different activation patterns.",
        ),
        Example("The soil carbon response was weaker in grasslands than in forests.", SOURCE),
        Example(
            "Incidence of vascular dementia is higher than the incidence of Alzheimer's disease.",
            "Incidence of vascular dementia varied between 18 and 30 per 1000 person-years, and was 1.4-2.7 times "
            "higher than that of Alzheimer's disease.",
        ),
        Example("Loqs-PD, but not R2D2, enhanced Dicer2.", "However, Loqs-PD, but not R2D2, enhanced Dicer2 activity."),
        Example(  # another scale: less time is faster
            "An upright face broke through suppression faster than an upside-down face.",
            "An upright face took less time than an upside-down face to gain dominance.",
        ),
        Example(
            "Expressing Dmp53 but not DmChk2 led to loss of stem cells, whereas DmChk2 but not Dmp53 induced death.",
            "Dmp53 but not DmChk2 expression led to loss of stem cells; DmChk2 but not Dmp53 expression induced death.",
        ),
        Example("Soil carbon responded to fire in forests and grasslands.", SOURCE),
        Example(
            "Numerical weather prediction was outperformed by MetNet at lead times of up to 8 hours.",
            "We find that MetNet outperforms numerical weather prediction at lead times of up to 8 hours.",
        ),
        Example(
            "MetNet outperformed numerical weather prediction at lead times of up to 8 hours.",
            "Numerical weather prediction is surpassed by MetNet at lead times of up to 8 hours.",
        ),
    ),
)
