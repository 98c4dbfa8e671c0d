"""A risk turned the other way by its ratio: a sentence saying that something raises (or lowers, or does not
change) the risk, odds, incidence or mortality of an outcome, or that the two are linked with a sign ("a positive
correlation between hip fractures and statin use"), where a cited sentence reports a ratio for it (odds, risk,
hazard or rate ratio) whose confidence interval lies wholly on the other side of 1.

"ADHD medications increase the risk of serious cardiovascular events" against "The rate ratio (RR) of serious
cardiovascular events for current use vs nonuse of ADHD medications was 0.83 (95% CI, 0.72-0.96)": no word of
direction is turned, the number says it. Read in every sentence of the cited sources that reports a ratio and
holds half of the terms of the sentence's exposure and of its outcome, and only where every ratio such a
sentence reports lies on the same side of 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.check.rules.finding import Finding
from rag.check.rules.polarity import DENIAL, DOWN, UP, words
from rag.check.rules.rule import Comparison, Example, Rule, Stage
from rag.text import tokenize

CODE = "reversed-ratio"
# What the ratio measures, as a sentence names it; a death outcome must be named as such by the source too.
_RISK = re.compile(r"risks?|odds|hazards?|likelihood|chances?|incidences?|rates?|occurrences?|prevalences?")
_DEATH = re.compile(r"mortality|deaths?")
_SOURCE_DEATH = re.compile(r"\b(?:mortalit|death|died|dying|fatal)", re.IGNORECASE)
# The word of direction stands at most this many words before the outcome ("increase the risk of", "increases
# in-hospital mortality"); a denial at most this many before it ("does not increase the risk").
DIRECTION_REACH = 3
DENIAL_REACH = 4
# The words after the word of risk that name the outcome ("risk of serious cardiovascular events").
OUTCOME_WORDS = 5
# The exposure's and the outcome's terms a sentence reporting the ratio holds at least this share of each.
HELD = 0.5
# No link at all, said outright ("is unrelated to anxiety prevalence", "was not associated with the risk").
_NO_LINK = re.compile(
    r"\b(?:unrelated to|not (?:\w+ )?(?:associated|linked|related|correlated) (?:with|to)|no (?:\w+ )?"
    r"(?:association|link|relationship|correlation|effect) (?:with|on|between)|(?:does|do|did) not "
    r"(?:affect|change|alter|influence))\b"
)
# A link said with its sign: "a positive correlation between hip fractures and statin use", "inversely associated
# with": the sign is the risk's direction, the words after the link name the outcome (and the exposure, with
# "between"), as after a word of risk.
_SIGN = {
    "positive": "up", "positively": "up", "negative": "down", "negatively": "down", "inverse": "down",
    "inversely": "down",
}  # fmt: skip
_LINK = re.compile(r"associat\w*|correlat\w*|relat(?:ed|ion|ionship)s?|link(?:ed|s)?")
# ...an outcome of risk: a link with survival or a recovery goes the other way of the ratio of death or relapse the
# source reports for it ("positively associated with survival" beside "hazard ratio of death 0.71").
_GOOD_OUTCOME = re.compile(r"surviv\w*|recover\w*|remission|quality|benefit\w*|improv\w*|well-?being")
_RATIO = re.compile(
    r"\b(?:a?ORs?|a?RRs?|a?HRs?|a?IRRs?|(?:odds|risk|hazard|rate|incidence rate)\s+ratios?|relative\s+risks?)\b"
)
# "95% CI", "95 % confidence interval(s)": dropped so that its 95 is not read as a bound.
_CONFIDENCE = re.compile(r"\b9[059]\s?%\s?(?:CI|confidence intervals?)\b", re.IGNORECASE)
# An estimate and its interval: "0.83 (CI, 0.72-0.96)", "2.77 (CI 1.04 to 7.97)", "0.73 [CI, 0.54 to 0.98]".
_ESTIMATE = re.compile(
    r"(?<![\d.])(\d*\.\d+|\d+)(?![\d.])\s*[(\[,;:]?\s*(?:\(?CI\)?\s*[:,=]?\s*)?(\d*\.\d+|\d+)(?![\d.])\s*"
    r"(?:-|–|—|‐|to|,)\s*(\d*\.\d+|\d+)(?![\d.])"
)


@dataclass(frozen=True)
class Claim:
    """What a sentence says of a risk: its direction ("up", "down", "none"), the words saying so, and the words
    naming the exposure (before them) and the outcome (after the word of risk)."""

    direction: str
    said: str
    exposure: list[str]
    outcome: list[str]
    deaths: bool  # the outcome is mortality or death


def claimed_direction(sentence: str) -> Claim | None:
    """What ``sentence`` says of the risk it speaks of; None when it names no risk, rate or mortality with a
    direction or an outright denial of a link."""
    said = words(sentence)
    for at, word in enumerate(said):
        if _LINK.fullmatch(word) and at > 0 and said[at - 1] in _SIGN:
            direction, start = _SIGN[said[at - 1]], at - 1
            outcome = said[at + 1 : at + 1 + OUTCOME_WORDS]
            if any(_GOOD_OUTCOME.fullmatch(w) for w in outcome):
                return None
            return Claim(direction, " ".join(said[start : at + 1]), said[:start], outcome, deaths=False)
        if not (_RISK.fullmatch(word) or _DEATH.fullmatch(word)):
            continue
        turns = [j for j in range(max(0, at - DIRECTION_REACH), at) if UP.fullmatch(said[j]) or DOWN.fullmatch(said[j])]
        if turns:
            turn = turns[-1]
            denials = [j for j in range(max(0, turn - DENIAL_REACH), turn) if DENIAL.fullmatch(said[j])]
            start = denials[0] if denials else turn  # "not associated with a higher risk" is said whole
            direction = "none" if denials else "up" if UP.fullmatch(said[turn]) else "down"
        elif (link := _NO_LINK.search(" ".join(said[:at]))) is not None:
            turn = start = len(" ".join(said[:at])[: link.start()].split())
            direction = "none"
        else:
            continue
        outcome = [w for w in said[turn + 1 : at + 1 + OUTCOME_WORDS] if not _RISK.fullmatch(w)]
        return Claim(direction, " ".join(said[start : at + 1]), said[:start], outcome, bool(_DEATH.fullmatch(word)))
    return None


def reported_direction(stretch: str) -> tuple[str, str] | None:
    """("up" | "down", the estimate) when ``stretch`` reports ratios with intervals all wholly above 1 (or all
    below); None otherwise: one across 1 beside them is another outcome or group, and which one a sentence speaks
    of is not for a rule to guess ("the odds of E. coli contamination were lower (OR 0.42, 0.24-0.74), but there
    was no difference in the odds of reported diarrhea (OR 1.19, 0.74-1.90)")."""
    ratio = _RATIO.search(stretch)
    if ratio is None:
        return None
    text = _CONFIDENCE.sub("CI", stretch[ratio.start() :])
    ups, downs, shown = 0, 0, ""
    for match in _ESTIMATE.finditer(text):
        estimate, low, high = (float(g) for g in match.groups())
        if not 0 < low <= estimate <= high:
            continue
        shown = shown or f"{match.group(1)} ({match.group(2)}-{match.group(3)})"
        if low <= 1 <= high:
            return None
        ups += estimate > 1
        downs += estimate < 1
    if ups and not downs:
        return "up", shown
    if downs and not ups:
        return "down", shown
    return None


def _held(words: list[str], source_terms: set[str]) -> bool:
    """Whether the source holds at least HELD of these words' terms (all of them when there are none)."""
    terms = set(tokenize(" ".join(words)))
    return not terms or len(terms & source_terms) >= HELD * len(terms)


def _against(claimed: Claim, sentence: str) -> str | None:
    """The estimate of ``sentence`` going against the claim, where it speaks of the claim's exposure and outcome;
    "" where it goes the claim's way; None where it reports no ratio on them."""
    reported = reported_direction(sentence)
    if reported is None:
        return None
    terms = set(tokenize(sentence))
    if not (_held(claimed.exposure, terms) and _held(claimed.outcome, terms)):
        return None
    if claimed.deaths and not _SOURCE_DEATH.search(sentence):
        return None
    direction, estimate = reported
    return estimate if direction != claimed.direction else ""


def find(c: Comparison) -> list[Finding]:
    claimed = claimed_direction(c.sentence)
    if claimed is None:
        return []
    readings = [
        reading
        for source in c.cited
        for sentence in source.sentences
        if (reading := _against(claimed, sentence)) is not None
    ]
    # Every ratio on them the other way; one going the claim's way leaves it to the reader.
    if readings and all(readings):
        return [Finding(CODE, claimed.said, readings[0])]
    return []


def describe(finding: Finding, cited: str, other: str | None) -> str:
    estimate = float((finding.source_says or "1").split()[0])
    side = "above" if estimate > 1 else "below"
    return f"says '{finding.said}' where {cited} reports a ratio of {finding.source_says}, wholly {side} 1"


RULE = Rule(
    CODE,
    reverses=True,
    stage=Stage.ALIGNED,
    find=find,
    describe=describe,
    must_find=(
        Example(
            "In young and middle-aged adults, current use of ADHD medications increases the risk of serious "
            "cardiovascular events.",
            "The multivariable-adjusted rate ratio (RR) of serious cardiovascular events for current use vs nonuse of "
            "ADHD medications was 0.83 (95% CI, 0.72-0.96).",
        ),
        Example(
            "Gastric infection with Helicobacter pylori decreases the risk of gastric cancer.",
            "The estimated odds ratio for the risk of gastric cancer in those with a history of infection with H "
            "pylori was 2.77 (95% confidence interval 1.04 to 7.97).",
        ),
        Example(
            "Exposure to fine particulate matter is unrelated to the odds of high anxiety symptoms.",
            "Exposure to fine particulate matter was associated with higher odds of high anxiety symptoms (odds ratio "
            "1.12, 95% CI 1.06 to 1.19).",
        ),
        Example(  # a denial written with "n't"
            "Hearing impairment doesn't raise the odds of dementia in older adults.",
            "In a cohort of older adults, the odds ratio of dementia for hearing impairment was 1.46 (95% CI "
            "1.20-1.78).",
        ),
        Example(  # a link said with its sign
            "There is a positive correlation between hip fractures and statin use in older adults.",
            "In older adults, use of statins in the prior 3 years (adjusted OR, 0.57; 95% CI, 0.40-0.82) was "
            "associated with a significant reduction in the risk of hip fracture.",
        ),
        Example(
            "Early screening for patent ductus arteriosus increases in-hospital mortality.",
            "In infants exposed to early screening for patent ductus arteriosus, the odds ratio of in-hospital death "
            "was 0.73 (95% CI, 0.54 to 0.98).",
        ),
    ),
    must_pass=(
        Example(  # the same way round
            "Current use of ADHD medications lowers the risk of serious cardiovascular events.",
            "The rate ratio (RR) of serious cardiovascular events for current use vs nonuse of ADHD medications was "
            "0.83 (95% CI, 0.72-0.96).",
        ),
        Example(  # an interval across 1 says neither way
            "Current use of ADHD medications increases the risk of serious cardiovascular events.",
            "The rate ratio (RR) of serious cardiovascular events for current use of ADHD medications was 0.93 (95% "
            "CI, 0.82-1.05).",
        ),
        Example(  # no link, and none reported
            "Exposure to fine particulate matter is unrelated to the odds of high anxiety symptoms.",
            "Exposure to fine particulate matter was not associated with the odds of high anxiety symptoms (odds "
            "ratio 1.02, 95% CI 0.96 to 1.09).",
        ),
        Example(  # one outcome's ratio beside another's across 1: which one the sentence means is not read
            "The intervention did not change the odds of reported diarrhea in infants.",
            "Compared with comparison households, the odds of E. coli contamination in stored water was lower for "
            "intervention households (odds ratio [OR]: 0.42, 95% CI: 0.24, 0.74), but there was no difference in the "
            "odds of reported diarrhea in infants (OR: 1.19, 95% CI: 0.74, 1.90).",
        ),
        Example(  # ratios both ways: which one the sentence means is not for a rule to guess
            "Statin use increases the risk of diabetes.",
            "For statin use the hazard ratio of diabetes was 1.21 (95% CI 1.10-1.33) in women and 0.82 (0.70-0.95) in "
            "men.",
        ),
        Example(  # survival is not a risk: its ratio is another measure
            "The new regimen improves survival of patients with advanced lung cancer.",
            "The hazard ratio of death for patients with advanced lung cancer on the new regimen was 0.71 (95% CI "
            "0.60-0.84), improving survival.",
        ),
        Example(  # the sign the ratio has
            "Statin use is inversely associated with hip fractures in older adults.",
            "In older adults, use of statins (adjusted OR, 0.57; 95% CI, 0.40-0.82) was associated with a "
            "reduction in the risk of hip fracture.",
        ),
        Example(  # a link with survival: the ratio is of death
            "The new regimen is positively associated with survival of patients with advanced lung cancer.",
            "The hazard ratio of death for patients with advanced lung cancer on the new regimen was 0.71 (95% CI "
            "0.60-0.84), improving survival.",
        ),
        Example(  # a mean difference is no ratio
            "Tricyclics reduce the rate of headache days.",
            "Tricyclics reduced the rate of headache days (mean difference -1.29, 95% CI -2.18 to -0.39).",
        ),
    ),
)
