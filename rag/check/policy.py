"""The two policies of the one citation check: what counts against a sentence depends on who wrote it.

- ``ANSWER``: a model wrote it from the sources it was shown, so a number, a name, a population or a design
  they do not state makes it unsupported, a reversed finding or a dropped or added denial makes it
  contradicted, whatever its similarity score, and evidence the fitted check sees negate it is at best weak;
- ``MANUSCRIPT``: its author read the whole paper, so what the abstract does not state is a note; only a
  reversal of a sentence the citing sentence restates closely counts against the citation.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.check.reading import CitedText, Reading, read_against
from rag.check.rules.alignment import MIN_ALIGNED_SHARE
from rag.check.rules.finding import Finding
from rag.check.rules.polarity import negated, words
from rag.check.rules.swaps import CODE as SWAPPED
from rag.check.scoring import SourceScore, score_against_sources
from rag.check.sentences import Support
from rag.records import Paper

# A contradiction counts for a manuscript only where the sentence restates an abstract sentence this closely
# (share of its content words): a loose paraphrase reversing a word is not strong evidence. Half, not three
# quarters: "DUSP4 decreases apoptosis" against "DUSP4 overexpression increased chemotherapy-induced apoptosis"
# restates two thirds of it (SciFact contradicted claims called so 56 -> 60 of 194, supported and neither-nor
# claims and the six real theses' flags unchanged).
MANUSCRIPT_ALIGNMENT = 0.5


@dataclass(frozen=True)
class Policy:
    name: str
    unstated_is_problem: bool  # a number, name or kind the sources do not state makes a sentence unsupported
    reversal_alignment: float  # a reversal counts where the sentence restates its source at least this closely
    # Evidence the fitted check sees negate the sentence: a contradiction (the label a reader sees), or only
    # less than top evidence (a warning, right about half the time).
    conflict_contradicts: bool
    # A number, population, list item or numbered gene of the source put in place of another where the sentence
    # restates it (rag.check.rules.swaps) says otherwise, as a reversal does: "One in two surgical trials are
    # discontinued early" restating "One in five surgical randomised controlled trials are discontinued early".
    # (The answer policy counts it already, as every fact its sources do not state.)
    swap_says_otherwise: bool = False

    def reversals(self, reading: Reading) -> list[Finding]:
        """What the sentence reverses in its source (or puts in place of what it says), where this policy counts
        it."""
        if reading.aligned < self.reversal_alignment:
            return []
        swapped = [f for f in reading.findings if f.code == SWAPPED] if self.swap_says_otherwise else []
        return [*reading.reversals, *swapped]

    def label(self, support: Support, reading: Reading, conflict: bool = False) -> Support:
        """``support`` (what the sentence's evidence says) weighed with what the rules found: findings decide,
        whatever the similarity said."""
        if self.reversals(reading):
            return Support.CONTRADICTED
        if self.unstated_is_problem and reading.findings and support is not Support.UNCITED:
            return Support.UNSUPPORTED
        if conflict and self.conflict_contradicts:
            return Support.CONTRADICTED
        if conflict and support.is_top:
            return Support.WEAK
        return support


def conflict_of(score: SourceScore | None, reading: Reading, sentence: str) -> bool:
    """Whether the evidence says otherwise: the judge read a contradiction, or the fitted check saw a negation or a
    reversal in the sentence the claim restates or the judge read as stating it. One it saw in another sentence
    of the source (a conclusion's "no difference" beside the result restated) is about something else: counted,
    it failed 22 faithful written sentences for 16 errors caught; so read, 12 for 13."""
    if score is None or not score.conflict:
        return False
    if not score.fitted_conflict_only:
        return True
    return _fitted_conflict_bears(score.sentence, score.passage, reading, sentence)


def _fitted_conflict_bears(evidence: str, passage: str, reading: Reading, sentence: str) -> bool:
    """The fitted check's evidence sentence is within what the judge read or what the claim restates, and the
    negation it sees is not one the claim shares with the stretch it restates: where both deny something, the
    rules compared the denials word by word and found them kept (6 more faithful written sentences passed, 1
    error of 351 lost)."""
    if reading.aligned >= MIN_ALIGNED_SHARE and negated(words(sentence)) and negated(words(reading.restates)):
        return False
    cited = " ".join(evidence.split())
    return bool(cited) and any(cited in " ".join(text.split()) for text in (passage, reading.restates))


ANSWER = Policy("answer", unstated_is_problem=True, reversal_alignment=0.0, conflict_contradicts=False)
MANUSCRIPT = Policy(
    "manuscript",
    unstated_is_problem=False,
    reversal_alignment=MANUSCRIPT_ALIGNMENT,
    conflict_contradicts=True,
    swap_says_otherwise=True,
)


def answer_label(claim: str, paper: Paper) -> tuple[Support, float]:
    """One sentence against the one paper it cites, offline, under the answer policy: its label and the
    support check's score (what `rag eval-support` measures)."""
    scored = score_against_sources([claim], [paper])[0][0]
    support = Support.UNSUPPORTED if paper.no_abstract else scored.support
    reading = read_against(claim, [CitedText.of(paper)])
    return ANSWER.label(support, reading, conflict_of(scored, reading, claim)), scored.score
