"""How a sentence says that something is not so, or goes up or down: the words the citation check reads.

Shared by the fitted support check (its agreement features, rag.check.support_model) and the comparison of
a sentence with its evidence sentence (rag.check.rules.facts), so both read negation and direction alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# tokenize() drops "no"/"not"/"nor" as stop words, so negation is matched on raw lower-cased words.
NEGATION = re.compile(
    r"no|not|never|none|nor|neither|without|cannot|fail|fails|failed|lack|lacks|lacked|lacking|absence|absent|"
    r"unable|ineffective|insufficient|unaffected|unchanged|independent|irrelevant|unrelated|\w+n't"
)


# The words that turn a statement into its denial outright (a stricter set than NEGATION, whose "lack of" or
# "unchanged" also name things and results): what a sentence must not add to, or drop from, what it restates.
DENIAL = re.compile(r"no|not|never|none|nor|neither|cannot|\w+n't")
# Direction of effect by word prefix: the usual ways an abstract says that something goes up or down.
UP = re.compile(
    r"(increas|elevat|higher|greater|more|enhanc|promot|activat|upregulat|up-regulat|induc|improv|stimulat|augment|"
    r"rais|boost|accelerat|positive|gain|rise|rising|rose|exacerbat|worsen|amplif|facilitat|potentiat|larger|faster)"
    r"\w*"
)


DOWN = re.compile(
    r"(decreas|reduc|lower|less|fewer|inhibit|suppress|downregulat|down-regulat|impair|attenuat|declin|diminish|"
    r"block|prevent|negative|loss|lose|abolish|drop|fall|fell|slow|smaller|shorter|deplet|abrogat|repress|protect|delay)"
    r"\w*"
)


Opposites = tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]


def _opposites(*pairs: tuple[str, str]) -> Opposites:
    return tuple((re.compile(a), re.compile(b)) for a, b in pairs)


# Pairs of opposites: a sentence using one side where its evidence uses the other says the opposite.
ANTONYMS = _opposites(
    (r"increas\w*|elevat\w*|rais\w*", r"decreas\w*|reduc\w*|lower\w*"),
    (r"higher|greater|more|larger", r"lower|less|fewer|smaller"),
    (r"high", r"low"),
    (r"up", r"down"),
    (r"gain\w*", r"loss\w*|lose\w*|lost"),
    (r"activat\w*|stimulat\w*|promot\w*|induc\w*", r"inhibit\w*|suppress\w*|repress\w*|block\w*"),
    (r"enhanc\w*|improv\w*", r"reduc\w*|impair\w*|worsen\w*"),
    (r"positive\w*", r"negative\w*"),
    (r"benign", r"malignant"),
    (r"agonist\w*", r"antagonist\w*"),
    (r"susceptib\w*|sensitiv\w*", r"resist\w*"),
    (r"sufficient|effective", r"insufficient|ineffective"),
    (r"present|presence", r"absent|absence"),
    (r"upregulat\w*|up-regulat\w*", r"downregulat\w*|down-regulat\w*"),
    (r"early|earlier", r"late|later"),
)


# Opposites a reworded sentence may use that are too loose for the fitted features above (kept as they were
# fitted): each pair is read only where a sentence and its evidence sentence differ.
ALIGNED_ANTONYMS = _opposites(
    (
        r"increas\w*|ris(e|es|ing)|rose|grow(s|ing|n)?|grew|climb\w*",
        r"decreas\w*|f(a|e)ll(s|ing|en)?|drop\w*|declin\w*|diminish\w*|shrank|shrink\w*",
    ),
    (r"longer", r"shorter"),
    # An amount going one way for one said going the other, in other words ("rose" where the source has "were
    # lower", "halved" for "doubled").
    (
        r"increas\w*|ris(e|es|ing|en)|rose|grow(s|ing|n)?|grew|climb\w*|higher|greater|more|larger|elevat\w*|"
        r"rais(e|es|ed|ing)|boost\w*|doubl\w*|tripl\w*",
        r"decreas\w*|f(a|e)ll(s|ing|en)?|drop\w*|declin\w*|diminish\w*|shrank|shrink\w*|lower|lowered|lowering|"
        r"less|fewer|smaller|reduc\w*|halv\w*",
    ),
    (r"faster|accelerat\w*", r"slower|slow(s|ed|ing)?|delay\w*"),
    (r"better", r"worse"),
    (r"improv\w*", r"worsen\w*|deteriorat\w*"),
    (r"more", r"less|fewer"),
    (r"greater", r"smaller|lower|less"),
    (r"elevat\w*", r"reduc\w*|lower\w*|decreas\w*"),
    (r"enhanc\w*|strengthen\w*|encourag\w*|promot\w*", r"reduc\w*|attenuat\w*|diminish\w*|impair\w*|weaken\w*"),
    (
        r"promot\w*|induc\w*|activat\w*|stimulat\w*|caus\w*|encourag\w*|facilitat\w*",
        r"prevent\w*|inhibit\w*|suppress\w*|block\w*|imped\w*|hinder\w*|hamper\w*|deactivat\w*|inactivat\w*",
    ),
    (r"rescu\w*|restor\w*|ameliorat\w*|alleviat\w*", r"worsen\w*|exacerbat\w*|aggravat\w*"),
    (r"abundant|plentiful|expanded|enriched", r"scarce|depleted|sparse"),
    (r"maximum|maximal|most", r"minimum|minimal|least"),
    (r"strong\w*", r"weak\w*"),
    (r"success\w*", r"fail\w*"),
    (r"safe", r"unsafe|harmful|toxic"),
    (r"beneficial|benefit\w*", r"harmful|detrimental"),
    (r"protect\w*", r"harm\w*|damag\w*"),
    (r"accept\w*", r"reject\w*"),
    (r"confirm\w*|support\w*", r"refut\w*|contradict\w*"),
    (r"with", r"without"),
    # Which part, which state, which kind: a restatement that turns one into the other says what its source
    # does not ("the large ribosomal subunit" for "the small subunit", "unstable" for "stable").
    (r"large|larger|big|bigger", r"small|smaller"),
    (r"stable|stabl\w*", r"unstable|instabilit\w*|destabili[sz]\w*"),
    (r"dependent|dependen\w*|depends|requires|required", r"independent|independen\w*|dispensable"),
    (r"anterior\w*", r"posterior\w*"),
    (r"dorsal\w*", r"ventral\w*"),
    (r"proximal\w*", r"distal\w*"),
    (r"upper", r"lower"),
    (r"inner", r"outer"),
    (r"acute", r"chronic"),
    (r"direct|directly", r"indirect|indirectly"),
    (r"symmetric\w*", r"asymmetric\w*"),
    (r"homozygous", r"heterozygous"),
    (r"dominant\w*", r"recessive\w*"),
    (r"able", r"unable"),
    (r"likely", r"unlikely"),
    (r"consistent", r"inconsistent"),
    (r"reliable|reliably", r"unreliable|unreliably"),
    (r"complete|completely", r"incomplete|incompletely|partial|partially"),
    (r"northern|north", r"southern|south"),
    (r"eastern|east", r"western|west"),
    (r"export\w*", r"import\w*"),
    (r"supersaturat\w*|oversaturat\w*", r"undersaturat\w*"),
    (r"attract\w*", r"repuls\w*|repel\w*"),
    (r"overestimat\w*", r"underestimat\w*"),
    (r"excess|surplus", r"deficit|deficiency|shortage"),
    (r"influx", r"efflux"),
    (r"warm\w*", r"cool\w*|cold\w*"),
    (r"wetter|wet", r"drier|dry"),
    (r"older|old", r"younger|young"),
    (r"wider|broader", r"narrower"),
    (r"deeper", r"shallower"),
    (r"thicker", r"thinner"),
    (r"highest", r"lowest"),
    (r"best", r"worst"),
    (r"largest|biggest", r"smallest"),
    (r"fastest", r"slowest"),
    (r"strongest", r"weakest"),
    # Which side, which hemisphere, what was seen: "the right temporal lobe" for "the left temporal lobe".
    (r"left", r"right"),
    (r"ipsilateral\w*", r"contralateral\w*"),
    (r"medial\w*", r"lateral\w*"),
    (r"unilateral\w*", r"bilateral\w*"),
    (r"deep", r"shallow"),
    (r"living", r"nonliving|non-living"),
    (r"animate", r"inanimate"),
    (r"conscious\w*", r"unconscious\w*|nonconscious\w*"),
    (r"supraliminal\w*", r"subliminal\w*"),
    (r"explicit\w*", r"implicit\w*"),
    (r"visible", r"invisible"),
    (r"detected", r"undetected"),
    (r"excitatory", r"inhibitory"),
    (r"inputs?", r"outputs?"),
    (r"before", r"after"),
)


_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


def words(text: str) -> list[str]:
    """Lower-cased words, hyphenated and "n't" forms kept whole."""
    return _WORD.findall(text.lower())


def negated(tokens: Sequence[str]) -> bool:
    return any(NEGATION.fullmatch(w) for w in tokens)


def denies(text: str) -> bool:
    """Whether the text denies something outright ("not", "never", "cannot", "doesn't"...)."""
    return any(DENIAL.fullmatch(w) for w in words(text))


# "I" is left out: "type I", "phase I", "Class I"; "US" is a country. The thesis itself ("is not the focus of
# this chapter") is the author's work too; "this study" and "this work" are left out: they often mean the paper
# cited.
_FIRST_PERSON = re.compile(
    r"\b(?:[Ww]e|[Oo]urs?|us|[Mm]y)\b|\b[Tt]his (?:chapter|thesis|dissertation|section|manuscript)\b"
)


def first_person(text: str) -> bool:
    """Whether the text speaks in the first person, or of the thesis itself: of the author's own work."""
    return bool(_FIRST_PERSON.search(text))


def direction(tokens: Sequence[str]) -> int:
    """+1 / -1 / 0: the net direction of effect, flipped if the words are negated."""
    net = sum(bool(UP.fullmatch(w)) for w in tokens) - sum(bool(DOWN.fullmatch(w)) for w in tokens)
    sign = (net > 0) - (net < 0)
    return -sign if negated(tokens) else sign


@lru_cache(maxsize=65_536)
def antonym_sides(word: str) -> frozenset[tuple[int, int]]:
    """(pair, side) of every ANTONYMS pattern ``word`` matches; once per word, however often it is met."""
    return frozenset((i, side) for i, pair in enumerate(ANTONYMS) for side in (0, 1) if pair[side].fullmatch(word))


def antonyms(claim: Sequence[str], evidence: Sequence[str]) -> float:
    """Antonym pairs where the claim uses one side only and the evidence the other side only."""
    in_claim = set().union(*map(antonym_sides, claim))
    in_evidence = set().union(*map(antonym_sides, evidence))
    found = 0
    for i in range(len(ANTONYMS)):
        for x, y in ((0, 1), (1, 0)):
            found += (
                (i, x) in in_claim and (i, y) not in in_claim and (i, y) in in_evidence and (i, x) not in in_evidence
            )
    return float(found)


@lru_cache(maxsize=65_536)
def _opposite_sides(word: str) -> frozenset[tuple[int, int]]:
    both = (*ANTONYMS, *ALIGNED_ANTONYMS)
    return frozenset((i, side) for i, pair in enumerate(both) for side in (0, 1) if pair[side].fullmatch(word))


def opposed(said: Sequence[str], replaced: Sequence[str]) -> tuple[str, str] | None:
    """A word of ``said`` that is the opposite of a word of ``replaced`` (and not also said the other way), or
    compounds alike but for opposite last parts ("UCP1-dependent", "UCP1-independent"): (said word, replaced
    word), or None."""
    for a in said:
        for b in replaced:
            x, y = _last_parts(a, b)
            for pair, side in _opposite_sides(x):
                if (pair, 1 - side) in _opposite_sides(y) and (pair, side) not in _opposite_sides(y):
                    return a, b
    return None


def _last_parts(a: str, b: str) -> tuple[str, str]:
    """The last parts of two compounds with the same first ones ("ucp1-dependent", "ucp1-independent"); else
    the words."""
    head_a, _, tail_a = a.rpartition("-")
    head_b, _, tail_b = b.rpartition("-")
    return (tail_a, tail_b) if head_a and head_a == head_b else (a, b)


def agree(said: Sequence[str], replaced: Sequence[str]) -> bool:
    """Whether a word of ``replaced`` goes the way of a word of ``said`` ("inhibition" beside "inhibited")."""
    return any(_opposite_sides(a) & _opposite_sides(b) for a in said for b in replaced)
