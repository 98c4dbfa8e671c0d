"""What each sentence of an abstract does: background, aim, method, result or conclusion.

A structured abstract says so itself ("BACKGROUND:", "Materials and methods:", "Results:"): its labels decide,
and are what ``strip_label`` takes off a sentence before it is shown. Other abstracts are read by a small
multinomial logistic regression (``roles.json``, fitted by ``training/roles.py`` on the labelled sentences of
the real libraries, scored on libraries it never saw) over hashed words and word pairs, the sentence's place in
its abstract, cue phrases ("we aimed", "p <", "95% CI", "suggest") and numbers. numpy only: no model runtime.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

MODEL_FILE = Path(__file__).with_name("roles.json")
FloatArray = npt.NDArray[np.float64]


class Role(StrEnum):
    BACKGROUND = "background"
    AIM = "aim"
    METHOD = "method"
    RESULT = "result"
    CONCLUSION = "conclusion"


# The order of the model's classes (the JSON's rows follow it).
ROLES = tuple(Role)
# Roles that report what a paper found: what a question about what is known, how much or whether wants quoted.
FINDINGS = frozenset({Role.RESULT, Role.CONCLUSION})

# Words a section label is made of ("BACKGROUND AND PURPOSE", "Design, setting, and participants", "Main
# outcome measures"): a sentence opening with a run of these and a colon is labelled; "Note: ..." is not.
_LABEL_WORDS = frozenset(
    "abstract aim aims aims/hypothesis analysis analyses and approach area areas authors authors' background "
    "clinical collection conclusion conclusions context criteria data design discussion eligibility evidence "
    "extraction findings goal goals hypothesis implications importance interpretation intervention interventions "
    "introduction key main materials measure measures measurements method methodology methods motivation "
    "objective objectives of outcome outcomes participants patients population practice primary purpose purposes "
    "question questions rationale registration relevance research result results review search secondary "
    "selection setting settings significance sources statement study subjects summary synthesis trial "
    "What is known why".lower().split()
)
# A label may be numbered, as MDPI journals number theirs ("(2) Methods: ..."), or run into its sentence after the
# colon ("Significance/implications:Lorenz et al. provide ..."). Its words are parted by at least
# one mark: a pattern that may also part a word anywhere tries each way of cutting a long opening word before it
# gives up (1 ms a sentence, which made roles the slowest part of a draft).
_LABEL = re.compile(
    r"^\s*(?:\(\d\)\s*)?([A-Za-z][A-Za-z/']*(?:[ ,&-]{1,3}[A-Za-z][A-Za-z/']*){0,6}?)[ ,&-]{0,3}\s?:"
    r"(?:\s+(?=\S)|(?=[A-Z][a-z]))"
)
_METHOD_KEYS = ("method", "design", "setting", "participant", "material", "search", "selection", "data",
                "intervention", "measure", "outcome", "approach", "population", "subjects", "patients", "criteria",
                "analys", "synthesis")  # fmt: skip
# Keywords of a label that name its role, checked in this order: "Results and conclusions" reads as results.
_LABEL_ROLES = (
    (Role.RESULT, ("result", "finding")),
    (Role.CONCLUSION, ("conclusion", "interpretation", "implication", "discussion", "relevance", "significance")),
    (Role.AIM, ("objective", "aim", "purpose", "goal", "question", "hypothesis")),
    (Role.METHOD, _METHOD_KEYS),
    (Role.BACKGROUND, ("background", "introduction", "context", "rationale", "motivation", "importance")),
)
# A label naming two roles ("Background and purpose") leaves the sentence to the model.
_MIXED = 2
# A one-word label an export glued to the sentence it heads, with neither colon nor space ("MethodsThis study ...",
# "ConclusionsEndodontically treated incisors ...": 32 in the real libraries' files).
_GLUED_LABEL = re.compile(
    r"^\s*((?i:background|introduction|context|importance|objectives?|aims?|purpose|methods?|methodology|design|"
    r"materials and methods|study design|results?|main results|findings|conclusions?|discussion|summary|"
    r"significance|interpretation|clinical significance|clinical relevance|results and discussion))(?=[A-Z][a-z])"
)


def section_label(sentence: str) -> tuple[str, Role | None] | None:
    """The structured abstract's label opening ``sentence`` ("RESULTS: ") and the role it names (None when it
    names several or none); None when the sentence opens with no label."""
    match = _LABEL.match(sentence) or _GLUED_LABEL.match(sentence)
    if match is None:
        return None
    words = [w for w in re.split(r"[\s,&/-]+", match.group(1).lower()) if w]
    if not words or any(w not in _LABEL_WORDS for w in words) or words[0] in ("and", "of"):
        return None
    named = [role for role, keys in _LABEL_ROLES if any(k in w for w in words for k in keys)]
    return match.group(0), (named[0] if len(set(named)) < _MIXED and named else None)


# An aim said as such, after a label or none: "OBJECTIVE To determine whether ...", "We aimed to ...", "The
# purpose of this study was to ..." (SciFact's abstracts keep their labels without the colon).
_AIM_OPENING = re.compile(
    r"^(?:[A-Z]{3,}(?:\s+[A-Z]{2,}){0,3}\s+)?(?i:to (?:determine|assess|evaluate|examine|investigate|explore|"
    r"compare|test|estimate|quantify|describe|identify|characteri[sz]e|analy[sz]e|study|review|establish)\b|"
    r"(?:the |our )?(?:aims?|objectives?|purposes?|goals?) (?:of (?:this|the|our) \w+ )?(?:was|were|is|are) to\b|"
    r"we (?:aimed|sought|set out|wanted|intended) to\b)"
)


def is_aim(sentence: str) -> bool:
    """Whether ``sentence`` says what its paper set out to do (its label, or its opening: "To determine whether
    X is associated with Y"), which states no finding, whatever it names."""
    label = section_label(sentence)
    return (label is not None and label[1] is Role.AIM) or bool(_AIM_OPENING.match(strip_label(sentence)))


# A label in capitals that an export kept without its colon ("DESIGN, SETTING, AND PARTICIPANTS A randomized ...",
# "INTERVENTION CBT (sleep hygiene ...)": SciFact's abstracts): the opening run of capitalised words, of which the
# longest first part made of label words is the label.
_CAPITALS = re.compile(r"[A-Z]{2,}(?=[ ,&/-])")
_LABEL_GAP = re.compile(r"[ ,&/-]{1,3}")


def _capitals_label(sentence: str) -> tuple[str, Role | None] | None:
    """The label in capitals opening ``sentence`` with no colon after it, read as it would be with one
    (``section_label``)."""
    ends, at = [], len(sentence) - len(sentence.lstrip())
    while (word := _CAPITALS.match(sentence, at)) is not None:
        ends.append(word.end())
        gap = _LABEL_GAP.match(sentence, word.end())
        if gap is None:
            break
        at = gap.end()
    for end in reversed(ends):
        rest = sentence[end:].lstrip(" ,")
        if rest and (label := section_label(f"{sentence[:end]}: {rest}")) is not None:
            return label
    return None


def is_method(sentence: str) -> bool:
    """Whether ``sentence`` is labelled as its abstract's methods ("METHODS: ...", "DESIGN, SETTING, AND
    PARTICIPANTS A randomized trial of 46 adults ..."): what was done, which states no finding."""
    label = section_label(sentence) or _capitals_label(sentence)
    return label is not None and label[1] is Role.METHOD


def strip_label(sentence: str) -> str:
    """``sentence`` without the section label it opens with ("BACKGROUND AND PURPOSE: X ..." -> "X ..."): a
    label is the abstract's layout, not its words, and never reaches a reader."""
    found = section_label(sentence)
    return sentence[len(found[0]) :] if found else sentence


# --- features: the same code reads the training sentences (training/roles.py) and a library's ---------------

_WORD = re.compile(r"[a-z]+|\d+")
_CUES = {
    "aim_opening": r"^(?:to (?:\w+ ){0,2}(?:investigate|assess|evaluate|examine|determine|compare|identify|explore|"
    r"describe|estimate|review|analy[sz]e|characteri[sz]e|test|develop|quantify|summari[sz]e|synthesi[sz]e))",
    "we_aimed": r"\bwe (?:aimed|aim|sought|set out|hypothesi[sz]ed|wanted|intended)\b|\b(?:the|our) (?:aim|objective|"
    r"purpose|goal)s? (?:of|was|is|were)\b|\bthis (?:study|review|paper|work) (?:aims|aimed|sought|investigates|"
    r"examines|evaluates|explores)\b",
    "results_showed": r"\b(?:results?|findings|data|analys[ie]s) (?:showed|show|indicated|indicate|revealed|"
    r"reveal|demonstrated|suggest(?:ed)?)\b|\bwe (?:found|find|observed|show|showed)\b",
    "percent": r"\d\s?%",
    "p_value": r"\bp\s?[<=>≤]",
    "interval": r"\b(?:95|99|90)\s?% ?(?:ci|confidence|cri|ui)\b|\bconfidence interval",
    "effect_size": r"\b(?:or|rr|hr|aor|ahr|irr|smd|md|wmd)\b\s?[=:(]|\bodds ratio|\brisk ratio|\bhazard ratio",
    "significant": r"\bsignifican",
    "suggest": r"\bsuggest|\bmay\b|\bcould\b|\bimplicat|\bhighlight|\bwarrant|\bshould\b|\bneeded\b",
    "conclude": r"\bconclu|\bin summary\b|\btaken together\b|\boverall,",
    "we_method": r"\bwe (?:conducted|performed|used|searched|included|recruited|enrolled|collected|analy[sz]ed|"
    r"developed|designed|carried out|estimated|applied|fitted)\b|\bwere (?:recruited|enrolled|randomi[sz]ed|"
    r"included|searched|extracted|assessed|analy[sz]ed|collected)\b",
    "search_terms": r"\b(?:searched|databases?|medline|embase|pubmed|scopus|web of science|cochrane|inclusion|"
    r"exclusion|eligib)",
    "background_terms": r"\b(?:is|are) (?:a|an|the) (?:leading|major|common|important|growing|key)\b|\bremains? "
    r"(?:unclear|unknown|poorly)\b|\blittle is known\b|\bhowever\b|\bincreasingly\b",
    "comparative": r"\b(?:higher|lower|greater|fewer|more|less|increased|decreased|reduced|improved)\b",
}
_CUE_PATTERNS = {name: re.compile(pattern) for name, pattern in _CUES.items()}
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?")
# Where in its abstract a sentence sits, as one of this many equal bins (plus first and last).
POSITION_BINS = 5
# Numbers in a sentence count up to this many (log-scaled): a table of values reads as one.
MAX_NUMBERS = 20
DENSE_FEATURES = (
    *_CUES,
    *(f"position_{b}" for b in range(POSITION_BINS)),
    "position",
    "is_first",
    "is_last",
    "numbers",
    "log_words",
    "one_sentence",
)


def _bucket(token: str, buckets: int) -> int:
    # crc32, not hash(): Python salts str hashes per process, and the buckets must match the fitted weights.
    return zlib.crc32(token.encode("utf-8")) % buckets


def features(sentences: Sequence[str], buckets: int) -> FloatArray:
    """One row per sentence of one abstract (labels already stripped): dense features, then ``buckets`` hashed
    word and word-pair counts (log-scaled)."""
    n = len(sentences)
    rows = np.zeros((n, len(DENSE_FEATURES) + buckets), dtype=np.float64)
    dense = len(DENSE_FEATURES)
    for i, sentence in enumerate(sentences):
        lower = sentence.lower()
        where = i / max(n - 1, 1)
        words = _WORD.findall(lower)
        cues = [float(bool(p.search(lower))) for p in _CUE_PATTERNS.values()]
        bins = [0.0] * POSITION_BINS
        bins[min(int(where * POSITION_BINS), POSITION_BINS - 1)] = 1.0
        numbers = min(len(_NUMBER.findall(sentence)), MAX_NUMBERS)
        rows[i, :dense] = [*cues, *bins, where, i == 0, i == n - 1, math.log1p(numbers), math.log1p(len(words)), n == 1]
        grams = [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]
        for gram in grams:
            rows[i, dense + _bucket(gram, buckets)] += 1.0
        rows[i, dense:] = np.log1p(rows[i, dense:])
    return rows


@dataclass(frozen=True)
class RoleModel:
    """The fitted multinomial logistic regression: weights per role over the features."""

    buckets: int
    weights: FloatArray  # (len(ROLES), features)
    intercepts: FloatArray  # (len(ROLES),)

    def probabilities(self, sentences: Sequence[str]) -> FloatArray:
        """Per sentence (rows), the probability of each role of ROLES (columns)."""
        if not sentences:
            return np.zeros((0, len(ROLES)))
        logits = features(sentences, self.buckets) @ self.weights.T + self.intercepts
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return np.asarray(odds / odds.sum(axis=1, keepdims=True), dtype=np.float64)


@lru_cache(maxsize=1)
def load_role_model() -> RoleModel:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if tuple(data["roles"]) != tuple(r.value for r in ROLES) or tuple(data["dense"]) != DENSE_FEATURES:
        raise ValueError(f"{MODEL_FILE.name} was fitted on other features: refit it with training/roles.py")
    weights = np.array(data["weights"], dtype=np.float64) / data["scale"]
    return RoleModel(int(data["buckets"]), weights, np.array(data["intercepts"], dtype=np.float64))


def role_probabilities(sentences: Sequence[str]) -> FloatArray:
    """Per sentence of one abstract (in order), the probability of each role (ROLES' order). A structured
    abstract's labels decide for the sentences under them (a label naming one role); the model reads the rest,
    with the labels stripped."""
    plain = [strip_label(s) for s in sentences]
    found = load_role_model().probabilities(plain)
    current: Role | None = None
    for i, sentence in enumerate(sentences):
        label = section_label(sentence)
        if label is not None:
            current = label[1]
        if current is not None:
            found[i] = [float(role is current) for role in ROLES]
        elif _states_no_finding(plain[i]):
            found[i] = [float(role is Role.BACKGROUND) for role in ROLES]
        elif (plain_role := _plain_role(plain[i])) is not None:
            found[i] = [float(role is plain_role) for role in ROLES]
    return found


# Sentences that state no finding of the paper, wherever they sit: an open question ("However, biologists wonder
# how two brief calcium influxes can lead to this long activation": the model, reading its place near the end, took
# it for one), unless it also reports a result ("We found X, although why remains unclear") or a statistic...
_OPEN_QUESTION = re.compile(
    r"\b(?:wonder(?:s|ed)?|remains? (?:unclear|unknown|elusive|an open question|to be (?:determined|elucidated|"
    r"established|explored))|(?:is|are|was|were) (?:still )?(?:not|poorly|not well|incompletely) (?:known|"
    r"understood)|little is known|(?:unknown|unclear) (?:whether|how|why|if|what)|open questions?)\b"
)
_REPORTING_CUES = ("results_showed", "percent", "p_value", "interval", "effect_size")
# ...and what earlier work found, said as its opening ("We have previously demonstrated that this approach ...",
# "Previous studies have shown ..."): the paper's background, however it is worded.
_EARLIER_WORK = re.compile(
    r"^(?:(?:we|it|this) (?:have |has )?(?:been )?previously (?:shown|demonstrated|reported|found|described|"
    r"established|proposed)|(?:previous|prior|earlier|recent) (?:work|works|studies|research|reports|findings|"
    r"analyses) (?:has|have) (?:shown|demonstrated|reported|found|suggested|revealed)|it has (?:previously )?been "
    r"(?:shown|demonstrated|reported|suggested))\b"
)


# What a paper sets out to find or to offer, said in the present wherever it sits ("With our new model, we explore
# the current biological hypothesis for ...", "We investigate how techniques for X scale", "In this paper, we propose
# new measures of compositionality ..."): its aim. Before "propose", "present" and "introduce" were added, in
# 12,286 sentences of six real libraries' unstructured abstracts it fired on 53, 12 of which the model, reading their
# place near the end, took for findings (all aims or a review's scope); in 644 structured abstracts on 13, 12
# labelled background or aim. "We propose / present / introduce" fire on 215 sentences of seven other libraries'
# unstructured abstracts; the model took 27 for findings, every one a contribution ("In this paper, we propose a
# novel scheme to ..."); one that also reports ("... and show that ...") stays the model's to read.
_AIM_VERB = re.compile(
    r"\b(?:we (?:explore|investigate|examine|study|test|assess|evaluate|address|probe|ask|seek to|set out to|"
    r"propose|present|introduce)|this (?:paper|study|work|article|chapter) (?:explores|investigates|examines|tests|"
    r"assesses|evaluates|addresses|proposes|presents|introduces))\b(?! that)"
)
# What a paper did to find something, said as such ("We then applied both generalized linear mixed models and
# conditional inference trees to identify factors ...": the model, reading its place mid-abstract and 'identify
# factors', took it for a finding and the question "what factors ..." got it quoted): its method. In 644 structured
# abstracts it fires on 37 sentences (33 labelled method, 2 aim, 1 background, 1 conclusion); in the 12,286
# unstructured sentences on 29, all methods (2 the model read as findings).
_METHOD_VERB = re.compile(
    r"\bwe (?:then |also |further |first |next |additionally )?(?:conducted|performed|used|applied|employed|"
    r"developed|designed|carried out|fitted|built|constructed|trained|collected|analy[sz]ed|measured|compared|"
    r"calculated|estimated|modell?ed|simulated|implemented|combined|adopted|utili[sz]ed)\b.*\bto (?:identify|"
    r"assess|evaluate|determine|examine|estimate|test|compare|quantify|investigate|explore|characteri[sz]e|"
    r"analy[sz]e|predict|detect|understand|measure|capture|describe|classify|model)\b"
)
# ...and what was used, said in the passive ("Additionally, a pre-trained Multi-Task Cascaded Convolutional Network
# (MTCNN) is utilized for face detection and cropping."): in 14 labelled sentences of seven real libraries' structured
# abstracts, 12 are methods and 2 background; in their unstructured abstracts the model, reading the place, took 16
# of 83 for findings, all methods.
_PASSIVE_METHOD = re.compile(
    r"\b(?:is|are|was|were) (?:\w+ly )?(?:utili[sz]ed|used|employed|adopted|applied|demonstrated with)\b "
    r"(?:for|to|in|as|on|the)\b"
)
# Each is the model's to read when the sentence also reports ("... and demonstrate that", "we show"), or holds a
# number or a comparison.
_REPORTS = re.compile(r"\d|\b(?:demonstrat|show|found|find|reveal|observ|indicat|confirm|suggest)")
_PLAIN_ROLES = ((_AIM_VERB, Role.AIM), (_METHOD_VERB, Role.METHOD), (_PASSIVE_METHOD, Role.METHOD))
# What the paper's own analysis showed, said as such wherever it sits ("Using a large dataset drawn from publicly
# available California State Bar records, our analysis shows that bar exam score is significantly related to ...":
# the model, reading its place second in the abstract and "Using a large dataset", took it for background): a
# result. Not what earlier work showed ("Previous results showed that ...").
_SHOWS_THAT = re.compile(
    r"\b(?:(?:our|the|these|this|its|their)\s+(?:\w+\s+){0,2}(?:results?|findings?|data|analys[ie]s|experiments?|"
    r"simulations?|evaluations?|study)|we)\s+(?:\w+\s+)?(?:show|shows|showed|shown|indicate[sd]?|reveal(?:s|ed)?|"
    r"demonstrate[sd]?|confirm(?:s|ed)?|find|found|observed?)\s+that\b"
)
_EARLIER = re.compile(r"\b(?:previous|prior|earlier|past|other|recent)\b")
# What the work will do, said in the future tense ("The project will provide information about how well the
# filters are working", "A total of 120 participants will be included", "In this review, we will discuss ..."): a
# plan, whatever it holds and wherever it sits. A trial's registration or protocol is made of them, and the model,
# reading their place near the end, took some for conclusions. In 24,117 sentences of three real libraries'
# abstracts (the i-h2o Embase and Cochrane exports, a marine-chemistry Zotero export, a deepfake bibliography) it
# fires on 414; the model took 50 for findings, none of them one when read (plans, a review's scope, "this trial
# will contribute to ...").
_PLANNED = re.compile(
    r"\b(?:we|(?:the|this|our|each|both|all) (?:[\w-]+ ){0,3}?(?:study|studies|trial|trials|project|protocol|"
    r"intervention|programme|program|survey|evaluation|analys[ie]s|outcomes?|participants|households|children|"
    r"sites?|data|results?|findings|work|research))\s+(?:will|shall)\s+(?!not\b)(?:\w+ly\s+)?(?:be\s+)?\w+"
    r"|\b(?:will|shall) be (?:\w+ly )?(?:recruited|randomi[sz]ed|enrolled|measured|assessed|collected|conducted|"
    r"analy[sz]ed|compared|evaluated|tested|followed|covered|included|implemented|delivered|administered|"
    r"allocated|assigned|performed|carried out|estimated|calculated|reported|examined|explored|interviewed|"
    r"invited|selected|used|obtained|monitored|offered|provided|trained|surveyed)\b"
)
# What the field has done so far, in the present perfect passive and not of the paper itself ("Petri nets have
# been proposed as an effective formalism for Systems Biology ...", which the model, reading its place at the end,
# took for a conclusion): not a sentence to stand for its paper (tells_of_the_work).
_FIELD_SO_FAR = re.compile(
    r"^(?!.*\b(?:we|our|us|this (?:study|paper|work|article))\b)[^,;]{0,80}\b(?:has|have) been (?:\w+ly )?"
    r"(?:proposed|used|applied|studied|employed|developed|investigated|suggested|introduced)\b"
)
# What a sentence says of the work rather than what it found, wherever it sits: what it is good for ("These
# findings could facilitate priority setting ...", "The methods applied in the study could be used for reference
# ...", "This book will be of relevance to ...", "These findings shed light on ... and have implications for ...",
# what comes next ("The work ... will be further extended in the future", "Our findings suggest the need to
# collect data across seasons", "Further research is needed"), where to get it ("... can be accessed
# via http://...": a sentence with a link is one a draft never writes, rag.writing.evidence_sentences.states_nothing),
# or what else the paper holds ("All possible pathways ... are discussed.", "We conclude by
# reporting ..."). The model, reading its place at the end, takes each for a conclusion, and a quote may well
# hold one beside the finding it follows; a sentence standing for its paper alone (a draft's) should not be one.
_ABOUT_THE_WORK = re.compile(
    r"^(?:\w+,\s+)?(?:the|these|our|such|this|its)\s+(?:\w+\s+){0,2}(?:results?|findings?|methods?|study|approach|"
    r"work|framework|data|outcomes?|research|book|volume|collection)\b(?:(?!\bthat\b)[^.;:]){0,80}?\b"
    r"(?:(?:could|can|may|might|will|would)\s+(?:\w+\s+)?(?:help|facilitate|serve|be used|be applied|guide|inform|"
    r"contribute|assist|aid|be useful|be of (?:\w+\s+)?(?:relevance|interest|use|value))|shed light|"
    r"(?:have|has) (?:\w+\s+)?implications)\b"
    r"|^(?:we|this (?:paper|review|article|chapter))\s+(?:conclude|end|close)s?\s+(?:by|with)\b"
    r"|\b(?:model|method|framework|approach|tool|results?|findings?) serves? as (?:a |the )?(?:basis|reference|"
    r"foundation|starting point)\b"
    r"|\bfuture (?:work|research|studies|directions|enhancements)\b"
    r"|\b(?:suggest|indicate|highlight|underscore|underline|emphasi[sz]e|point to|reveal)s?\s+(?:(?:the|an?)\s+)?"
    r"(?:\w+\s+)?(?:need|necessity)\s+(?:for|to|of)\b"
    r"|\b(?:further|more|additional) (?:[\w-]+\s+)?(?:research|studies|work|trials|evidence) (?:is|are) (?:\w+\s+)?"
    r"(?:needed|required|warranted)\b"
    r"|\b(?:will|shall) be (?:further )?(?:extended|explored|investigated|studied|addressed)\b"
    r"|^availability\b|\b(?:can|may) be (?:freely )?(?:accessed|downloaded)\b"
    r"|\b(?:is|are) (?:also |then |further )?(?:discussed|presented|outlined)\s*\.?$"
)


def _plain_role(sentence: str) -> Role | None:
    """The role a sentence's own words give it wherever it sits (see above), if any."""
    lower = sentence.lower()
    if is_plan(lower):
        return Role.METHOD
    shows = _SHOWS_THAT.search(lower)
    if shows and not _EARLIER.search(lower[: shows.start()]):
        return Role.RESULT
    if _REPORTS.search(lower) or _CUE_PATTERNS["comparative"].search(lower):
        return None
    return next((role for says, role in _PLAIN_ROLES if says.search(lower)), None)


def is_plan(sentence: str) -> bool:
    """Whether ``sentence`` says what its work will do (_PLANNED), not what it found."""
    return _PLANNED.search(sentence.lower()) is not None


def _states_no_finding(sentence: str) -> bool:
    lower = sentence.lower().lstrip("\"'“(")
    if _EARLIER_WORK.match(lower):
        return True
    reports = any(_CUE_PATTERNS[cue].search(lower) for cue in _REPORTING_CUES)
    return bool(_OPEN_QUESTION.search(lower)) and not reports


def tells_of_the_work(sentence: str) -> bool:
    """Whether ``sentence`` says what its work is good for, what comes next, where to get it or what else the
    paper holds (see _ABOUT_THE_WORK), or what its field has done so far (_FIELD_SO_FAR), rather than what it
    found."""
    lower = sentence.lower().lstrip("\"'“(")
    return _ABOUT_THE_WORK.search(lower) is not None or _FIELD_SO_FAR.search(lower) is not None


def sentence_roles(sentences: Sequence[str]) -> list[Role]:
    """The most likely role of each sentence of one abstract (see role_probabilities)."""
    return [ROLES[int(i)] for i in np.argmax(role_probabilities(sentences), axis=1)] if sentences else []


def findings_share(sentences: Sequence[str]) -> FloatArray:
    """Per sentence, the probability that it reports a finding (a result or a conclusion)."""
    found = role_probabilities(sentences)
    columns = [ROLES.index(role) for role in FINDINGS]
    return np.asarray(found[:, columns].sum(axis=1), dtype=np.float64)
