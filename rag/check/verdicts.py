"""What `rag check` says of each citation: the verdict (a problem or a note), its reason, the support check's
label of the abstract, and the linter line a reader sees. Cheap to import: renderers and JSON writers take
these types without loading the checker."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from rag.check.citing_forms import leads_in, tells_a_gap
from rag.check.rules.polarity import denies, first_person
from rag.check.sentences import Support
from rag.check.titles import names_only_its_topic
from rag.manuscripts.citing import Cite, Context
from rag.records import Paper
from rag.text import printable

if TYPE_CHECKING:
    from rag.check.paper_fit import FitModel
    from rag.check.scoring import SourceScore

NOT_IN_LIBRARY = "not in the library"
TITLE_ONLY = "known by its title only: no abstract to check against"
OTHER_LANGUAGE = "its abstract is in another language than the sentence: nothing to check it against"
NO_SENTENCE = "no sentence around the citation"
UNREADABLE_ENTRY = "in the bibliography, but with no title or abstract to check against"
STATED = "the abstract states it"
NOT_STATED = "the abstract does not state it (fine: the paper may)"
STATED_TOGETHER = "stated by the sentence's citations together"
STATES_OPPOSITE = "the abstract states the opposite"
SAYS_OTHERWISE = "the abstract says otherwise"
# The judge reads "otherwise" into passages that share little with a sentence (a thesis's "However it was not
# used for a long time before breakthroughs ... permitted its use in large-scale neural networks" against the
# abstract of Bayes by Backprop): its reading stands where the passage holds at least this share of the
# sentence's terms, weighed by IDF. The widest share that keeps 95% of its readings of contradicted SciFact
# claims it trained on (41 of 43 at contradicted >= 0.7); of its 13 such readings of real thesis citations (six
# theses), it keeps 7.
SAID_OF_IT = 0.2
# Two or more papers of one sentence that all fit it poorly: the sentence says more, or other, than its sources'
# abstracts (a field's background, a lab's own step), not a mistyped key: a key typed wrong is one key.
NONE_FIT = "fits the sentence poorly, as do the other papers it cites: not stated in their abstracts"
# The cited paper fits its sentence worse than nearly any paper of the library, and none is clearly meant instead.
UNRELATED = "no paper of the library states it either: the right one may be known by its title only, or missing"


class Verdict(StrEnum):
    """What a manuscript's author should do about a citation: a problem to fix, or a note."""

    WRONG_PAPER = "wrong_paper"
    CONTRADICTS = "contradicts"
    RETRACTED = "retracted"
    MISSING_KEY = "missing_key"
    FITS_STATED = "fits_stated"
    FITS_NOT_STATED = "fits_not_stated"
    CANNOT_CHECK = "cannot_check"

    @property
    def flagged(self) -> bool:
        """A problem (exit 1), as opposed to a note."""
        return VERDICTS[self].problem

    @property
    def shown(self) -> str:
        return VERDICTS[self].words

    @property
    def code(self) -> str:
        """The linter code: 'wrong-paper', 'not-stated' ..."""
        return VERDICTS[self].code

    @property
    def style(self) -> str:
        """How a terminal shows the code (a rich style name; the CLI draws it)."""
        return VERDICTS[self].style


class FailOn(StrEnum):
    """Which findings fail a run (exit 1), as linters let a CI job choose."""

    PROBLEMS = "problems"  # any problem: wrong paper, contradicts, retracted, a key missing from the bibliography
    MISSING = "missing"  # only keys missing from the bibliography (what breaks the build)
    NONE = "none"  # never: report only

    def fails(self, verdict: Verdict) -> bool:
        if self is FailOn.NONE:
            return False
        return verdict is Verdict.MISSING_KEY if self is FailOn.MISSING else verdict.flagged


@dataclass(frozen=True)
class VerdictInfo:
    code: str  # the linter code
    words: str  # what a reader is told
    problem: bool  # a problem (exit 1), else a note
    style: str  # the terminal's style for the code


# Every verdict's code, words, severity and style, in one table (tests/test_check.py holds each to all four).
VERDICTS = {
    Verdict.WRONG_PAPER: VerdictInfo("wrong-paper", "likely the wrong paper", problem=True, style="bold red"),
    Verdict.CONTRADICTS: VerdictInfo("contradicts", "contradicts", problem=True, style="bold magenta"),
    Verdict.RETRACTED: VerdictInfo("retracted", "retracted", problem=True, style="bold red"),
    Verdict.MISSING_KEY: VerdictInfo("missing-key", "missing from the bibliography", problem=True, style="bold red"),
    Verdict.FITS_STATED: VerdictInfo("stated", "stated in the abstract", problem=False, style="green"),
    Verdict.FITS_NOT_STATED: VerdictInfo("not-stated", "not stated in the abstract", problem=False, style="cyan"),
    Verdict.CANNOT_CHECK: VerdictInfo("cannot-check", "cannot check", problem=False, style="yellow"),
}


@dataclass
class Suggestion:
    paper: Paper
    label: Support
    score: float  # how well it fits the sentence against the library (0..1)
    evidence: str
    stated: float = 0.0  # the judge: P(its abstract states the sentence); the fitted check's 0/1 without a judge


@dataclass
class CitationCheck:
    cite: Cite
    sentence: str
    verdict: Verdict
    reason: str
    label: Support = Support.CANNOT_CHECK
    score: float | None = None  # the support check's score, also under --verify llm (the judge gives none)
    evidence: str | None = None  # the cited paper's sentence that best matches the citing sentence
    paper: Paper | None = None
    suggestions: list[Suggestion] = field(default_factory=list)
    fit: float | None = None  # how well the paper fits the sentence against the library (0..1)
    context: Context = Context.PROSE

    @property
    def flagged(self) -> bool:
        return self.verdict.flagged


def finding(check: CitationCheck) -> str:
    """One linter line, whole (the terminal wraps it; nothing is cut): ``paper.tex:42:17: wrong-paper
    \\cite{k} in "sentence": 12 other papers of the library fit the sentence better (rank 13 of 200); better:
    jones2021, lee2020``."""
    cite = check.cite
    line = f"{cite.file}:{cite.line}:{cite.column}: {check.verdict.code} {printable(cite.written)}"
    if check.sentence:
        line += f' in "{printable(check.sentence)}"'
    line += f": {printable(check.reason)}"
    if check.verdict in (Verdict.CONTRADICTS, Verdict.FITS_STATED) and check.evidence:
        line += f'{":" if check.reason == STATED else "; the abstract:"} "{printable(check.evidence)}"'
    if check.suggestions:
        line += "; better: " + ", ".join(printable(s.paper.citekey) for s in check.suggestions)
    return line


def judged_reversal(text: str, score: SourceScore, model: FitModel | None, title: str | None = None) -> str:
    """What the judge reads as reversed: the abstract stating the sentence's opposite (rag.check.rules.opposites),
    or saying otherwise surely enough (the model's ``contradicted_at``, calibrated on real theses; no model:
    never), where the sentence is stated best or in another passage restating it (SourceScore.said_otherwise),
    in a passage where it may (``may_say_otherwise``, the paper's ``title`` given); empty when neither. A title
    that only names what its paper is about states no opposite either ("Translational Control in Germline Stem Cell
    Development" read as stating that scRNA-seq does indicate which mRNAs are translated)."""
    if score.opposite:
        return STATES_OPPOSITE if stating_opposite(score, title) else ""
    if model is None:
        return ""
    return SAYS_OTHERWISE if standing_otherwise(text, score, title, at_least=model.contradicted_at) else ""


def stating_opposite(score: SourceScore, title: str | None = None) -> str:
    """The surest passage the judge read as stating the sentence's opposite that is more than the paper's
    ``title`` naming its topic; empty when none is."""
    return next((p for p in score.opposites if not names_only_its_topic(p, title)), "")


def standing_otherwise(text: str, score: SourceScore, title: str | None = None, at_least: float = 0.0) -> list[float]:
    """The judge's P(the abstract says otherwise) of ``text``, surest first, in each passage it read (where the
    sentence is stated best and each other passage restating it: SourceScore.said_otherwise) whose reading can
    stand (``may_say_otherwise``), of those at ``at_least`` or more (read first: the rest are not weighed)."""
    sure = [(p, passage) for p, passage in score.said_otherwise() if p >= at_least]
    return [p for p, passage in sure if may_say_otherwise(text, passage, title)]


def may_say_otherwise(text: str, passage: str, title: str | None = None) -> bool:
    """Whether the judge's reading that the abstract says otherwise can stand: the ``passage`` it read is more than
    the paper's ``title`` naming what the paper is about (the judge reads "otherwise" into such a title for a
    sentence saying more: "Vortex Photography in Liquid Helium" for "The imaging of tracer particles to track
    vortex motion has previously proved successful in superfluid helium"), unless the title asserts something
    ("Rok1p Is a Putative RNA Helicase Required for rRNA Processing", "Brax – A Differentiable Physics Engine"),
    and speaks of what the sentence does (SAID_OF_IT of its terms), the sentence states
    something (not a lead-in: "The loss is defined by"; not what research has yet to do: "There is comparatively
    less work comparing ...", a claim about the literature), and it is not a denial in the first person ("We were
    not able to outperform [x]": it tells of the author's own work, into whose "not" the judge reads
    "otherwise")."""
    if leads_in(text) or tells_a_gap(text) or (denies(text) and first_person(text)):
        return False
    if names_only_its_topic(passage, title):
        return False
    from rag.check.support_model import covered_by  # numpy: not on every command's start-up

    return covered_by(text, passage) >= SAID_OF_IT
