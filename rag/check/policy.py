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
from rag.check.rules.finding import Finding
from rag.check.scoring import score_against_sources
from rag.check.sentences import Support
from rag.records import Paper

# A contradiction counts for a manuscript only where the sentence restates an abstract sentence this closely
# (share of its content words): a loose paraphrase reversing a word is not strong evidence.
MANUSCRIPT_ALIGNMENT = 0.75


@dataclass(frozen=True)
class Policy:
    name: str
    unstated_is_problem: bool  # a number, name or kind the sources do not state makes a sentence unsupported
    reversal_alignment: float  # a reversal counts where the sentence restates its source at least this closely
    # Evidence the fitted check sees negate the sentence: a contradiction (the label a reader sees), or only
    # less than top evidence (a warning, right about half the time).
    conflict_contradicts: bool

    def reversals(self, reading: Reading) -> list[Finding]:
        """What the sentence reverses in its source, where this policy counts it."""
        return reading.reversals if reading.aligned >= self.reversal_alignment else []

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


ANSWER = Policy("answer", unstated_is_problem=True, reversal_alignment=0.0, conflict_contradicts=False)
MANUSCRIPT = Policy(
    "manuscript", unstated_is_problem=False, reversal_alignment=MANUSCRIPT_ALIGNMENT, conflict_contradicts=True
)


def answer_label(claim: str, paper: Paper) -> tuple[Support, float]:
    """One sentence against the one paper it cites, offline, under the answer policy: its label and the
    support check's score (what `rag eval-support` measures)."""
    scored = score_against_sources([claim], [paper])[0][0]
    support = Support.UNSUPPORTED if paper.no_abstract else scored.support
    return ANSWER.label(support, read_against(claim, [CitedText.of(paper)]), scored.conflict), scored.score
