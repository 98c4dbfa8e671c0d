"""A word of direction turned to its opposite where the sentence restates its source: "increased" for
"decreased", "slower" for "faster", "higher" for "lower"; or a part or state turned into the other one:
"anterior" for "posterior", "unstable" for "stable". The word may stand elsewhere in a sentence worded in
another order ("Warming increased microbial biomass" for "Microbial biomass declined with warming"): what
it moves is then read from the words around it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.check.rules.alignment import MIN_ALIGNED_SHARE, aligned_share
from rag.check.rules.finding import Finding, says_instead
from rag.check.rules.polarity import DOWN, UP, agree, direction, negated, opposed, words
from rag.check.rules.rule import MAX_SWAPPED_WORDS, Comparison, Edit, Example, Rule, Stage
from rag.text import stem, stopwords

CODE = "reversed-direction"


def _turned(edit: Edit) -> tuple[str, str] | None:
    """A word of direction of a substitution turned; or one of a word or two put in place of a few more, where it
    stands for the last of them ("delayed the" for "resulted in an accelerated"; not "inhibited" for "caused a
    global inhibition of"), or for the first, its objects dropped ("encourages" for "inhibits prostate cancer
    growth, metastasis and"), where no word after it goes the sentence's way."""
    if edit.substituted:
        return opposed(edit.said, edit.replaced)
    if edit.op == "replace" and len(edit.said) <= 2 and len(edit.replaced) <= 2 * MAX_SWAPPED_WORDS:
        last = opposed(edit.said, edit.replaced[-1:])
        if last is not None or agree(edit.said, edit.replaced[1:]):
            return last
        return opposed(edit.said, edit.replaced[:1])
    return None


# What a word of direction moves: the nearest content words to it, this many either side... On SciFact's
# labelled pairs, 2 reads a reversal in 5 more contradicted claims ("Birth-weight is negatively associated with
# breast cancer" for "Birth weight was positively associated with breast cancer risk") and in no supported or
# neither-nor one; 3 reads 11 more, and 2 supported claims ("reduced the incidence of type II diabetes" for
# "could mitigate rising obesity and type 2 diabetes").
MOVED_WITHIN = 2
# ...of which a sentence and its source share at least this many around opposite words ("microbial biomass").
SHARED_MOVED = 2
# Words of direction whose sense is not an amount moved: a comparison ("more than"), a test result or a sign
# ("positive"), a name ("induced pluripotent stem cells"), a mechanism whose step another word may undo.
_NOT_MOVING = frozenset(
    {"more", "less", "positive", "negative", "induced", "inducing", "induce", "induces"}
    | {"protect", "protects", "protected", "protecting", "protection", "protective"}
    | {"block", "prevent", "loss", "gain"}
)
# A denial this close before a word of direction (or right after it) turns it: such words are left to the
# denial rule.
_DENIED_WITHIN = 3


@lru_cache(maxsize=8_192)
def moves(text: str) -> tuple[tuple[str, int, frozenset[str]], ...]:
    """Each word of direction of ``text`` that no denial turns: the word, its direction (+1 up, -1 down), and
    the stems of the content words around it (what it moves). Read once per text: a source's sentences are read
    for every sentence citing it, by this rule and the no-change rule."""
    tokens = words(text)
    found = []
    for i, token in enumerate(tokens):
        sign = direction([token])
        if not sign or token in _NOT_MOVING:
            continue
        if negated(tokens[max(0, i - _DENIED_WITHIN) : i] + tokens[i + 1 : i + 2]):
            continue
        # What a word moves stops at the next word of direction either side: in "reducing pain and improving
        # function", "reducing" moves pain, not function.
        start = next((j + 1 for j in range(i - 1, -1, -1) if direction(tokens[j : j + 1])), 0)
        end = next((j for j in range(i + 1, len(tokens)) if direction(tokens[j : j + 1])), len(tokens))
        found.append((token, sign, nearest_moved(tokens[start:i], tokens[i + 1 : end])))
    return tuple(found)


def nearest_moved(before: Sequence[str], after: Sequence[str]) -> frozenset[str]:
    """The stems of the words a word between ``before`` and ``after`` moves (or denies): the MOVED_WITHIN content
    words nearest it either side (``may_be_moved``)."""
    near = [w for w in before if may_be_moved(w)][-MOVED_WITHIN:] + [w for w in after if may_be_moved(w)][:MOVED_WITHIN]
    return frozenset(stem(w) for w in near)


def may_be_moved(word: str) -> bool:
    """Whether a word may be what a word of direction moves: a content word, itself no word of direction; a name
    with digits or hyphens ("IME1", "in-hospital") as well, not a number. (Words only, before: "Mutations in RIM1
    raise levels of IME1 RNA" shared one word moved, "mutations", with "rim1 mutations cause reduced expression
    of IME1"; with the names, one more contradicted SciFact claim read, no other verdict changed.)"""
    return (
        word.replace("-", "").isalnum()
        and not word.replace("-", "").isdigit()
        and any(c.isalpha() for c in word)
        and len(word) > 2
        and word not in stopwords()
        and not (UP.fullmatch(word) or DOWN.fullmatch(word))
    )


def _compared(sentence: str) -> set[str]:
    """The words of direction of a comparison ("higher than"): which way they go depends on what stands either
    side of "than", the comparisons rule's to read ("A is higher than B" for "B was lower than A"); not a bound
    ("after more than 500 hours", which no sides turn)."""
    tokens = [*words(sentence), ""]
    triples = zip(tokens, tokens[1:], tokens[2:], strict=False)
    return {word for word, than, then in triples if than == "than" and not then[:1].isdigit()}


def _moved_the_other_way(c: Comparison, compared: set[str]) -> list[Finding]:
    """A word of direction of the sentence moving what the source's opposite word moves (SHARED_MOVED of the
    words around each), where the source moves none of them the sentence's way (SHARED_MOVED of them too): a
    source going both ways on them ("rose in the first year and fell thereafter") is not read so; one moving
    something else the sentence's way ("nerve activity is increased ... while pressure is maintained or reduced",
    "attenuated cell growth ... increased cell death" for "decreasing cell death") is."""
    said_moves = [m for m in moves(c.sentence) if m[0] not in compared]
    source = [m for stretch in c.restated_loosely for m in moves(stretch)] if said_moves else []
    if not source:
        return []  # the sentence moves nothing, or restates nothing of the source closely enough
    # One word of direction each, in a sentence restating its source closely (MIN_ALIGNED_SHARE, as the
    # word-for-word rules need): one word moved in common suffices, the rest being the same thing in other words
    # ("increases rates of tuberculosis" for "a reduction in the incidence of tuberculosis"). On SciFact's pairs
    # this reads 1 more contradicted claim, no other; at MOVED_ALIGNED_SHARE, 2 more and 1 neither-nor claim.
    one_each = len(said_moves) == len(source) == 1 and aligned_share(c.sentence, c.restates) >= MIN_ALIGNED_SHARE
    for said, sign, moved in said_moves:
        if any(other == sign and len(moved & its) >= SHARED_MOVED for _, other, its in source):
            continue
        shared = 1 if one_each else SHARED_MOVED
        turned = next((word for word, other, its in source if other == -sign and len(moved & its) >= shared), None)
        if turned is not None:
            return [Finding(CODE, said, turned)]
    return []


def _compound_turned(c: Comparison) -> list[Finding]:
    """A compound of the sentence whose first parts a loosely restated stretch of the source uses with the
    opposite last part, the source never using the sentence's ("a UCP1-dependent thermogenic mechanism" for "a robust
    UCP1-independent thermogenic mechanism ... involves Ca2+ cycling"): what it qualifies is its first part."""
    compounds = [w for w in words(c.sentence) if "-" in w.strip("-")]
    if not compounds:
        return []
    stretches = [words(stretch) for stretch in c.restated_loosely]
    anywhere = {w for facts in c.cited for sentence in facts.sentences for w in words(sentence)}
    for said in compounds:
        if said in anywhere:
            continue  # the source says it too: of something else, or both ways
        for tokens in stretches:
            if (pair := opposed([said], [t for t in tokens if "-" in t])) is not None:
                return [Finding(CODE, *pair)]
    return []


def find(c: Comparison) -> list[Finding]:
    compared = _compared(c.sentence)
    swapped = [Finding(CODE, p[0], p[1]) for e in c.edits if (p := _turned(e)) and p[0] not in compared]
    return swapped or _moved_the_other_way(c, compared) or _compound_turned(c)


_GOITRE = (
    "Radioiodine treatment of nontoxic multinodular goitre: a randomised trial. We randomised 64 patients with a "
    "nontoxic multinodular goitre to radioiodine or to levothyroxine. Patients were followed for two years with "
    "ultrasound. One year after radioiodine treatment, thyroid volume had fallen by 40%."
)
SOURCE = "Caffeine intake was associated with shorter sleep duration and significantly faster reaction times."
RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.ALIGNED,
    find=find,
    describe=says_instead,
    must_find=(
        Example("Caffeine intake was associated with longer sleep duration.", SOURCE),
        Example("Caffeine intake was associated with significantly slower reaction times.", SOURCE),
        Example("Soil CO2 flux declined with time since fire.", "Soil CO2 flux increased with time since fire."),
        Example(  # an amount, in other words than the source's
            "Phage DNA concentrations rose during periods of high flow.",
            "Phage DNA concentrations were significantly lower during periods of high flow.",
        ),
        Example(  # impeding for promoting, worsening for rescuing, deactivating for activating
            "IFI16 impedes STING phosphorylation and translocation.",
            "IFI16 interacts with STING to promote STING phosphorylation and translocation.",
        ),
        Example(
            "Increasing microtubule acetylation worsens the axonal transport deficits of mutant LRRK2.",
            "Increasing microtubule acetylation rescues the axonal transport deficits of mutant LRRK2.",
        ),
        Example("DUSP4 loss deactivates the Ras-ERK pathway.", "DUSP4 loss activates the Ras-ERK pathway."),
        Example(  # which part: the opposite end, the other subunit
            "High levels of Nos protein at the anterior pole of the embryo inhibit Hunchback translation.",
            "High levels of Nos protein at the posterior pole of the embryo inhibit Hunchback translation.",
        ),
        Example(
            "Forecasts at 0-h lead time got the lowest skill scores.",
            "Forecasts at 0-h lead time got the highest skill scores.",
        ),
        Example(
            "The Barents Sea is a net importer of carbon to the Arctic Ocean.",
            "The Barents Sea is a net exporter of carbon to the Arctic Ocean.",
        ),
        Example(
            "In the symmetric configuration the vortex dipole was unstable.",
            "In the symmetric configuration the vortex dipole was stable.",
        ),
        Example(
            "Rett syndrome is an X-linked recessive disorder caused by mutations in MeCP2.",
            "Rett syndrome is an X-linked dominant disorder caused by mutations in MeCP2.",
        ),
        Example(  # a word for a few
            "Giving an arginase inhibitor to recipient mice delayed the rejection of corneal grafts.",
            "Giving an arginase inhibitor to recipient mice resulted in an accelerated rejection of corneal grafts.",
        ),
        Example(  # a word for the first of a few, its objects dropped
            "Monoclonal antibody targeting of N-cadherin encourages castration resistance.",
            "Monoclonal antibody targeting of N-cadherin inhibits prostate cancer growth, metastasis and castration "
            "resistance.",
        ),
        Example(  # which side
            "Word-retrieval deficits were tied to neural sites in the right temporal lobe.",
            "Word-retrieval deficits were tied to neural sites in the left temporal lobe.",
        ),
        Example(  # in another order
            "Warming increased microbial biomass in the plots.",
            "Microbial biomass in the plots declined with warming.",
        ),
        Example(  # the source moves something else the sentence's way
            "Sympathetic nerve activity is reduced throughout normal pregnancy.",
            "Muscle sympathetic nerve activity is increased during normotensive pregnancy while mean arterial pressure "
            "is maintained or reduced.",
        ),
        Example(
            "Pyridostatin encourages proliferation of homologous recombination-defective cells.",
            "Pyridostatin reduces proliferation of homologous recombination-defective cells.",
        ),
        Example("Ca2+ cycling is a UCP1-dependent mechanism.", "Ca2+ cycling is a UCP1-independent mechanism."),
        Example(  # one word of direction each, closely restated: what is moved in other words
            "Antiviral therapy increases rates of pneumonia across all age strata.",
            "Antiviral therapy is strongly associated with a reduction in the incidence of pneumonia across all age "
            "strata.",
        ),
        Example(  # a bound is no comparison: "more than 500 hours"
            "The catalyst showed no degradation after less than 500 hours of operation.",
            "The catalyst showed no degradation after more than 500 hours of operation.",
        ),
        Example(  # a compound turned in a sentence restated loosely
            "Lactate shuttling is a MCT1-dependent thermogenic mechanism.",
            "Here we report a robust MCT1-independent thermogenic mechanism in beige fat that involves enhanced "
            "lactate shuttling between cells.",
        ),
        Example(
            "Treatment with the compound decreased telomere fragility in BRCA2-deficient cells.",
            "In BRCA2-deficient cells, telomere fragility was raised by treatment with the compound.",
        ),
        Example(  # restated loosely (MOVED_ALIGNED_SHARE), what is moved shared
            "Taking regular daily aspirin for years increases the incidence of colorectal adenomas.",
            "In this trial of 1,121 patients, daily aspirin lowered the incidence of colorectal adenomas by a third.",
        ),
        Example(  # the source moves a word of it the sentence's way, but not what the sentence moves
            "The compound blunts antitumour responses by decreasing cell death and oxidative stress.",
            "Pharmacological blockade of the transporter with the compound resulted in attenuated cancer cell growth "
            "and proliferation, increased cell death, and increased oxidative stress.",
        ),
        Example(
            "Consumption of whole grains increases the risk of heart disease.",
            "Greater consumption of specific whole grains, particularly oats and barley, is significantly associated "
            "with a lower risk of heart disease, whereas greater consumption of white bread is associated with a "
            "higher risk.",
        ),
        Example(  # what is moved named with a digit: genes ("SPO11"), not only words
            "Mutations in RIM4 raise levels of SPO11 RNA.",
            "In budding yeast, rim4 mutations cause reduced expression of SPO11, a regulator of meiosis.",
        ),
        Example(  # the result in another sentence than the one sharing most words (here the title)
            "Radioiodine treatment of multinodular goitre increases thyroid volume.",
            _GOITRE,
        ),
    ),
    must_pass=(
        Example("Caffeine intake was associated with shorter sleep duration.", SOURCE),
        Example(
            "Word-retrieval deficits were tied to sites in the left temporal lobe.",
            "Word-retrieval deficits were tied to neural sites in the left temporal lobe.",
        ),
        Example("Caffeine went with faster reactions and less sleep.", SOURCE),
        Example(  # a source going both ways: not read in another order
            "Soil respiration decreased after the first year of warming.",
            "Warming increased soil respiration in the first year and decreased it thereafter.",
        ),
        Example(
            "Drug A lowered blood pressure but raised heart rate.",
            "Drug A raised heart rate and lowered blood pressure.",
        ),
        Example("Microbial biomass declined under warming.", "Warming reduced microbial biomass in the plots."),
        Example(  # the first of a few words turned, but a later one goes the sentence's way
            "Glucose deprivation inhibited protein synthesis in the cells.",
            "Glucose deprivation caused a global inhibition of protein synthesis in the cells.",
        ),
        Example(  # "protection" is what is induced, not a word of direction against "induces"
            "Vaccinating the gut induces protection of rectal and vaginal mucosa.",
            "Mucosal vaccination of the colon in mice conferred protection of rectal and vaginal mucosa against viral "
            "challenge.",
        ),
        Example("Radioiodine treatment of multinodular goitre reduces thyroid volume.", _GOITRE),
        Example(  # two words of direction in a row, each moving its own words
            "Eccentric exercises are effective in reducing pain and improving function of the shoulder.",
            "A specific exercise strategy, focusing on eccentric exercises, is effective in reducing pain and "
            "improving shoulder function in patients with impingement.",
        ),
        Example(  # a comparison said the other way round: the comparisons rule's to read
            "The incidence of dementia by the new criteria is higher than the incidence by DSM-IV criteria.",
            "The incidence of dementia by DSM-IV criteria was lower than the incidence by the new criteria.",
        ),
        Example(  # a compound the source uses both ways
            "Lactate shuttling is a MCT1-dependent thermogenic mechanism.",
            "We report a robust MCT1-independent thermogenic mechanism in beige fat that involves enhanced lactate "
            "shuttling. Brown fat relies on an MCT1-dependent one.",
        ),
        Example(  # a denial turns the word: the denial rule's to read
            "Warming did not increase microbial biomass.", "Microbial biomass declined with warming."
        ),
    ),
)
