"""The one citation check: a sentence read against the papers it cites, judged under one of two policies.

Answers, the streamed preview (rag.check.answers, rag.check.live) and manuscripts
(rag.check.manuscript) all read a sentence the same way: the support score of each cited paper
(rag.check.scoring) and what the sentence adds to or changes in them (rag.check.rules.facts).
What counts as a problem depends on who wrote the sentence:

- ``ANSWER``: a model wrote it from the sources it was shown, so a number, a name, a population or a design
  they do not state makes it unsupported, and a reversed finding or a dropped or added denial makes it
  contradicted, whatever its similarity score;
- ``MANUSCRIPT``: its author read the whole paper, so what the abstract does not state is a note; only a
  reversal of what the cited text says, on close alignment, counts against the citation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.abbreviations import written_out
from rag.check.rules.alignment import aligned_share, best_aligned, windows
from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding
from rag.check.rules.registry import rule_of, run_rules
from rag.check.rules.rule import Comparison
from rag.check.sources import source_block
from rag.records import Paper
from rag.text import split_sentences


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
        sentences = split_sentences(paper.searchable_text())
        # A sentence may restate one that uses the abstract's short form in full ("the critical success index
        # is not ..." for "the CSI is not ..."): it is aligned with that sentence written out too.
        return cls(paper, SourceFacts.of(described), (*windows(sentences), *written_out(sentences)))


def prepare(papers: Sequence[Paper]) -> list[CitedText]:
    return [CitedText.of(p) for p in papers]


@dataclass
class Reading:
    """What a sentence adds to or changes in the sources it cites: the rules' findings, and the stretch of the
    cited text it restates most closely (with the share of its content words found there)."""

    findings: list[Finding] = field(default_factory=list)
    restates: str = ""
    aligned: float = 0.0
    source: int | None = None  # which of the cited texts ``restates`` comes from

    @property
    def reversals(self) -> list[Finding]:
        """The findings that say the opposite of the source (a direction turned, a denial added or dropped)."""
        return [f for f in self.findings if rule_of(f).reverses]


def read_against(sentence: str, cited: Sequence[CitedText], others: Sequence[CitedText] = ()) -> Reading:
    """``sentence`` against the texts it cites, by every rule; a missing number or name that one of ``others``
    states is named as coming from there (``Finding.found_in`` indexes ``others``)."""
    if not cited:
        return Reading()
    reading = Reading()
    for n, text in enumerate(cited):
        restated, share = best_aligned(sentence, text.stretches)
        if share > reading.aligned:
            reading.restates, reading.aligned, reading.source = restated, share, n
    comparison = Comparison.of(sentence, [c.facts for c in cited], [o.facts for o in others], reading.restates)
    reading.findings = run_rules(comparison)
    return reading


def reversed_in(sentence: str, findings: Sequence[Finding], cited: CitedText, reading: Reading) -> str:
    """Where the cited text says what the sentence reverses: of its sentences holding the word or number the first
    finding names the source's ("reduced", "five", "0.57 (0.40-0.82)"), the one closest to the sentence; else the
    stretch the sentence restates. Shown as the evidence, not the sentence that states most of it (for "Mutations
    in RIM1 raise levels of IME1 RNA", "rim1 mutations cause reduced expression of IME1", not "RIM1 acts ... to
    stimulate IME1 expression")."""
    says = (findings[0].source_says or "").split()[:1] if findings else []
    if says:
        word = re.compile(rf"(?<![\w.]){re.escape(says[0])}(?![\w])", re.IGNORECASE)
        holding = [s for s in split_sentences(cited.paper.searchable_text()) if word.search(s)]
        if holding:
            return max(holding, key=lambda s: aligned_share(sentence, s))
    return reading.restates


def describe(findings: Sequence[Finding], cited: str, name_other: dict[int, str] | None = None) -> str:
    """The findings for a reader, joined: "1.76 is not in [1]; 1.46 is from [2], not [1]"."""
    named = name_other or {}
    return "; ".join(
        rule_of(f).describe(f, cited, named.get(f.found_in) if f.found_in is not None else None) for f in findings
    )
