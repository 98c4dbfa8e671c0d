"""A denial added to, or dropped from, what the sentence restates: "was not associated" for "was associated",
"a significant" for "no significant". It counts only where the denied words are the source's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rag.check.rules.alignment import content_tokens
from rag.check.rules.finding import Finding
from rag.check.rules.polarity import DENIAL, NEGATION, opposed
from rag.check.rules.rule import MAX_SWAPPED_WORDS, Comparison, Edit, Example, Rule, Stage

CODE = "reversed-denial"
# A denial applies to the first content word within this many words after it ("not significantly different").
DENIED_WORD_REACH = 4
# "A but not B": the denial of a contrast, which a restatement may leave out whole with what it denies.
_CONTRAST = frozenset({"but", "and", "yet"})


def _denies(tokens: Sequence[str], at: int, other: set[str]) -> bool:
    """``tokens[at]`` is a denial and the word it applies to (the next content word) is one ``other`` has."""
    if not DENIAL.fullmatch(tokens[at]):
        return False
    following = content_tokens(tokens[at + 1 : at + 1 + DENIED_WORD_REACH])
    return bool(following) and following[0] in other


def _denied_words(tokens: Sequence[str]) -> Counter[str]:
    """How often a text denies each word (the first content word after a denial)."""
    found: Counter[str] = Counter()
    for at, token in enumerate(tokens):
        if DENIAL.fullmatch(token) and (following := content_tokens(tokens[at + 1 : at + 1 + DENIED_WORD_REACH])):
            found[following[0]] += 1
    return found


def _restates_denial(tokens: Sequence[str], at: int, other: Sequence[str]) -> bool:
    """The denial at ``at`` is one ``other`` makes too: "nor" after an earlier denial continues it ("neither ...
    nor" for "do not ... or"), and a denial of a word ``other`` denies as often is moved, not added ("showed no
    significant change" for "there were no significant changes")."""
    if tokens[at] == "nor" and any(DENIAL.fullmatch(t) for t in tokens[:at]):
        return True
    following = content_tokens(tokens[at + 1 : at + 1 + DENIED_WORD_REACH])
    return bool(following) and _denied_words(tokens)[following[0]] <= _denied_words(other)[following[0]]


def _whole_contrast(tokens: Sequence[str], at: int, span: range) -> bool:
    """The denial at ``at`` is a contrast ("but not category-specific") that ``span`` (the words a restatement
    adds or leaves out) holds whole, with the word it denies: nothing the other side says is denied."""
    if at == 0 or tokens[at - 1] not in _CONTRAST or at - 1 not in span:
        return False
    following = [k for k in range(at + 1, min(at + 1 + DENIED_WORD_REACH, len(tokens))) if content_tokens([tokens[k]])]
    return bool(following) and following[0] in span


def _denials_in(tokens: Sequence[str], span: range, other: Sequence[str]) -> list[int]:
    """The denials of ``tokens`` within ``span`` that deny a word of ``other`` and that ``other`` does not make
    too (a contrast the span holds whole, "nor" continuing a denial, a denial moved)."""
    return [
        k
        for k in span
        if _denies(tokens, k, set(other))
        and not _whole_contrast(tokens, k, span)
        and not _restates_denial(tokens, k, other)
    ]


def _denial(c: Comparison, edit: Edit, first: int, last: int) -> Finding | None:
    if edit.op == "equal" or (edit.substituted and opposed(edit.said, edit.replaced)):
        return None  # nothing changed, or a direction turned (the directions rule's)
    mine, theirs = c.sentence_words, c.source_words
    # A denial counts where what it denies is restated: the sentence keeps the words around a denial it leaves
    # out (or puts a word or two in its place: "no significant" -> "a significant"), and the word a denial it
    # adds applies to is the source's; a clause left out or reworded is not a denial.
    kept_around = first < edit.source_at < last or edit.substituted
    added = _denials_in(mine, range(edit.sentence_at, edit.sentence_at + len(edit.said)), theirs)
    if len(edit.replaced) > MAX_SWAPPED_WORDS and not any(DENIAL.fullmatch(w) for w in edit.replaced):
        added = []  # in place of a clause without a denial: reworded, not denied
    dropped = []
    if kept_around:
        dropped = _denials_in(theirs, range(edit.source_at, edit.source_at + len(edit.replaced)), mine)
    if len(added) > len(dropped) and not any(NEGATION.fullmatch(w) for w in edit.replaced):
        # ("could neither block" for "failed to block": the source's own denial, in other words)
        return Finding(CODE, mine[added[0]])
    if len(dropped) > len(added):
        return Finding(CODE, "", theirs[dropped[0]])
    return None


def find(c: Comparison) -> list[Finding]:
    first, last = c.restated_span
    return [f for e in c.edits if (f := _denial(c, e, first, last)) is not None]


def describe(finding: Finding, cited: str, other: str | None) -> str:
    if finding.source_says:
        return f"drops the '{finding.source_says}' of {cited}: says the opposite"
    return f"adds '{finding.said}' to what {cited} says: says the opposite"


SOURCE = (
    "Coffee consumption was not associated with mortality. "
    "Blood pressure showed no significant difference between groups."
)
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.ALIGNED,
    find=find,
    describe=describe,
    must_find=(
        Example("Coffee consumption was associated with mortality.", SOURCE),
        Example("Blood pressure showed a significant difference between groups.", SOURCE),
        Example(  # a word the source denies once, denied twice
            "The allele, despite not being associated with susceptibility, is not associated with a milder course.",
            "The allele, despite not being associated with susceptibility, is associated with a milder course.",
        ),
        Example(  # the contrast kept, its denial dropped
            "Priming was found for words and also for pictures.",
            "Priming was found for words but not for pictures.",
        ),
    ),
    must_pass=(
        Example("Coffee consumption was not associated with mortality.", SOURCE),
        Example("Coffee drinking showed no association with mortality.", SOURCE),
        Example("The mutants could neither block rRNA synthesis.", "The mutants failed to block rRNA synthesis."),
        Example(  # a clause reworded: "but not" stands where the source said something else
            "In reclaimed wetlands of the Yangtze estuary, species richness recovered in vegetated and gravel habitats "
            "without freshwater inflow but not in habitats that received it.",
            "The Yangtze estuary is considered as an important eco-region of China, but it has been heavily disturbed "
            "by reclamation projects. We evaluated the effect of freshwater inflow on the self-restoration of "
            "macrobenthic diversity in 3-year-old vegetated, gravel, and mudflat habitats of reclaimed wetlands.",
        ),
        Example(  # "neither ... nor" for "do not ... or"
            "Arf mutants could neither block rRNA synthesis nor inhibit proliferation.",
            "Arf mutants do not block rRNA synthesis or inhibit cell proliferation.",
        ),
        Example(  # the same denial, moved
            "Methane fluxes showed no significant change over the study period.",
            "There were no significant changes in methane fluxes during the study period.",
        ),
        Example(  # a contrast left out whole
            "A category-specific agnosia can arise from a modality-specific impairment in visual representation.",
            "A category-specific agnosia can arise from a modality-specific but not category-specific impairment in "
            "visual representation.",
        ),
    ),
)
