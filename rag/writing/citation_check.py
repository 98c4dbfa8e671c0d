"""The one citation check: a sentence read against the papers it cites, judged under one of two policies.

Answers, the streamed preview (rag.writing.checking, rag.writing.live) and manuscripts
(rag.writing.manuscript_check) all read a sentence the same way: the support score of each cited paper
(rag.writing.verification) and what the sentence adds to or changes in them (rag.writing.discrepancies).
What counts as a problem depends on who wrote the sentence:

- ``ANSWER``: a model wrote it from the sources it was shown, so a number, a name, a population or a design
  they do not state makes it unsupported, and a reversed finding or a dropped or added denial makes it
  contradicted, whatever its similarity score;
- ``MANUSCRIPT``: its author read the whole paper, so what the abstract does not state is a note; only a
  reversal of what the cited text says, on close alignment, counts against the citation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rag.records import Paper
from rag.text import split_sentences
from rag.writing.alignment import best_aligned, changes, windows
from rag.writing.answer import Support
from rag.writing.discrepancies import Finding, SourceFacts, missing_facts
from rag.writing.sources import source_block
from rag.writing.verification import score_against_sources


class Policy(StrEnum):
    ANSWER = "answer"
    MANUSCRIPT = "manuscript"


@dataclass(frozen=True)
class CitedText:
    """One source as the check reads it, prepared once however many sentences cite it: its facts (numbers,
    names, words, with its authors, year and venue) and its sentences (title, abstract, passage)."""

    paper: Paper
    facts: SourceFacts
    stretches: tuple[str, ...]  # what a sentence may restate: each sentence, each two in a row

    @classmethod
    def of(cls, paper: Paper) -> CitedText:
        described = source_block(0, paper) + (f"\n{paper.venue}" if paper.venue else "")
        return cls(paper, SourceFacts.of(described), windows(split_sentences(paper.searchable_text())))


def prepare(papers: Sequence[Paper]) -> list[CitedText]:
    return [CitedText.of(p) for p in papers]


@dataclass
class Reading:
    """What a sentence adds to or changes in the sources it cites: the findings, and the stretch of the cited
    text it restates most closely (with the share of its content words found there)."""

    findings: list[Finding] = field(default_factory=list)
    restates: str = ""
    aligned: float = 0.0
    source: int | None = None  # which of the cited texts ``restates`` comes from

    @property
    def contradicts(self) -> bool:
        return any(f.kind.contradicts for f in self.findings)


def read_against(sentence: str, cited: Sequence[CitedText], others: Sequence[CitedText] = ()) -> Reading:
    """``sentence`` against the texts it cites; a missing number or name that one of ``others`` states is
    named as coming from there (``Finding.found_in`` indexes ``others``)."""
    if not cited:
        return Reading()
    findings = missing_facts(sentence, [c.facts for c in cited], [o.facts for o in others])
    reading = Reading(findings)
    for n, text in enumerate(cited):
        restated, share = best_aligned(sentence, text.stretches)
        if share > reading.aligned:
            reading.restates, reading.aligned, reading.source = restated, share, n
    if reading.restates:
        changed = changes(sentence, reading.restates)
        swapped = {f.said for f in changed}  # "says men where [1] says women" tells more than "men is not in [1]"
        reading.findings = [f for f in findings if f.said not in swapped] + changed
    return reading


def answer_support(support: Support, reading: Reading, conflict: bool = False) -> Support:
    """The answer policy: findings decide, whatever the similarity said. A sentence that reverses its source
    is contradicted; one that states a number or name its sources do not is unsupported; one whose evidence
    the offline check sees negate or reverse it (``conflict``) is at best weak."""
    if reading.contradicts:
        return Support.CONTRADICTED
    if reading.findings and support is not Support.UNCITED:
        return Support.UNSUPPORTED
    if conflict and support.is_top:
        return Support.WEAK
    return support


def answer_label(claim: str, paper: Paper) -> tuple[Support, float]:
    """One sentence against the one paper it cites, offline, under the answer policy: its label and the
    support check's score (what `rag eval-support` measures)."""
    scored = score_against_sources([claim], [paper])[0][0]
    support = Support.UNSUPPORTED if paper.no_abstract else scored.support
    return answer_support(support, read_against(claim, [CitedText.of(paper)]), scored.conflict), scored.score


def describe(findings: Sequence[Finding], cited: str, name_other: dict[int, str] | None = None) -> str:
    """The findings for a reader, joined: "1.76 is not in [1]; 1.46 is from [2], not [1]"."""
    named = name_other or {}
    return "; ".join(f.describe(cited, named.get(f.found_in) if f.found_in is not None else None) for f in findings)
