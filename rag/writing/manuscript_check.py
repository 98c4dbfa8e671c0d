"""A manuscript's citations checked like a linter: does each cited paper back the sentence that cites it?

Each (sentence, cited paper) pair goes through the support check answers use (rag.writing.verification:
the offline classifier, or the model as judge with --verify llm), and its label is named the way
rag.writing.checking names it: the offline check's top label is "evidence found" (it finds matching
evidence, it does not prove support) and its contradiction flag is a "conflict". A sentence citing
several papers is also read against all of them together (each may carry one half of it). A key the
library does not have, or a paper known by its title only, "cannot be checked": it is never called
supported or unsupported. Weak, unsupported and conflicting citations get up to three papers of the
library that the same check says back the sentence (never one the sentence already cites).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rag.llm.types import ChatModel, Usage
from rag.manuscripts.citing import Cite, CitingSentence
from rag.records import Paper, ProgressFn
from rag.text import printable
from rag.writing.answer import Support
from rag.writing.verification import SourceScore, judge_with_model, score_against_group, score_against_sources

MAX_SUGGESTIONS = 3
# Retrieved papers each flagged sentence's suggestions are chosen from.
SUGGESTION_POOL = 10
# With --verify llm, the judge confirms at most this many of the offline check's candidates per sentence.
MAX_JUDGED_SUGGESTIONS = 5
NOT_IN_LIBRARY = "not in the library"
TITLE_ONLY = "title only: the library has no abstract for it"
NO_SENTENCE = "no sentence around the citation"
# Sentences and evidence quoted in a finding are cut here (the JSON has them whole).
QUOTE_CHARS = 160


class CheckLabel(StrEnum):
    EVIDENCE = "evidence_found"
    WEAK = "weak"
    UNSUPPORTED = "unsupported"
    CONFLICT = "conflict"
    CANNOT_CHECK = "cannot_check"

    @property
    def shown(self) -> str:
        return self.value.replace("_", " ")


# Best first; "cannot check" is no verdict, so it has no rank.
RANK = {CheckLabel.EVIDENCE: 3, CheckLabel.WEAK: 2, CheckLabel.UNSUPPORTED: 1, CheckLabel.CONFLICT: 0}
FLAGGED = (CheckLabel.WEAK, CheckLabel.UNSUPPORTED, CheckLabel.CONFLICT)
_FROM_SUPPORT = {
    Support.SUPPORTED: CheckLabel.EVIDENCE,
    Support.EVIDENCE: CheckLabel.EVIDENCE,
    Support.WEAK: CheckLabel.WEAK,
    Support.UNSUPPORTED: CheckLabel.UNSUPPORTED,
    Support.UNCITED: CheckLabel.UNSUPPORTED,
    Support.CONTRADICTED: CheckLabel.CONFLICT,
}


def offline_label(score: SourceScore) -> CheckLabel:
    """The offline check's verdict: its contradiction flag first (it is only raised on on-topic evidence)."""
    return CheckLabel.CONFLICT if score.conflict else _FROM_SUPPORT[score.support]


@dataclass
class Suggestion:
    paper: Paper
    label: CheckLabel
    score: float
    evidence: str


@dataclass
class CitationCheck:
    cite: Cite
    sentence: str
    label: CheckLabel
    score: float | None = None  # the offline check's score, also under --verify llm (the judge gives none)
    evidence: str | None = None  # the cited paper's sentence that best matches the citing sentence
    paper: Paper | None = None
    suggestions: list[Suggestion] = field(default_factory=list)
    # The sentence against everything it cites: the best of each paper alone and of all of them together.
    sentence_label: CheckLabel | None = None
    note: str | None = None  # why it cannot be checked


Resolve = Callable[[str], Paper | None]
# Sentences -> for each, papers that may back it, best first (retrieval), asked once for all of them.
Candidates = Callable[[Sequence[str]], Mapping[str, Sequence[Paper]]]


@dataclass
class ManuscriptChecker:
    """``resolve``: a key -> its paper (None: not in the library); ``candidates``: retrieval for the
    sentences that need suggestions; ``judge``: the model for --verify llm, else the offline check."""

    resolve: Resolve
    candidates: Candidates
    judge: ChatModel | None = None
    usage: Usage = field(default_factory=Usage)
    progress: ProgressFn | None = None
    _pairs: dict[tuple[str, str], tuple[CheckLabel, SourceScore]] = field(default_factory=dict, init=False)

    def check(self, sentences: Sequence[CitingSentence]) -> list[CitationCheck]:
        """One check per citation, in document order: every pair first, then suggestions for those flagged."""
        total, results = sum(len(s.cites) for s in sentences), []
        flagged: list[tuple[CitationCheck, frozenset[str]]] = []  # with the papers their sentence cites
        if self.progress is not None and total:
            self.progress("checking citations", 0, total)  # the clock for "show a bar past 2 s" starts now
        for sentence in sentences:
            checks = self._sentence(sentence)
            cited = frozenset(c.paper.id for c in checks if c.paper is not None)
            flagged += [(c, cited) for c in checks if c.label in FLAGGED]
            results += checks
            if self.progress is not None:
                self.progress("checking citations", len(results), total)
        pool = self.candidates(list(dict.fromkeys(c.sentence for c, _ in flagged))) if flagged else {}
        suggested: dict[tuple[str, frozenset[str]], list[Suggestion]] = {}
        for done, (check, cited) in enumerate(flagged, start=1):
            if (check.sentence, cited) not in suggested:
                suggested[(check.sentence, cited)] = self._suggestions(
                    check.sentence, pool.get(check.sentence, ()), cited
                )
            check.suggestions = suggested[(check.sentence, cited)]
            if self.progress is not None:  # the model as judge takes seconds per candidate here too
                self.progress("finding papers that back the flagged sentences", done, len(flagged))
        return results

    def _sentence(self, sentence: CitingSentence) -> list[CitationCheck]:
        checks = [self._citation(sentence.text, cite) for cite in sentence.cites]
        checked = [c for c in checks if c.paper is not None and c.label is not CheckLabel.CANNOT_CHECK]
        if not checked:
            return checks
        best = max((c.label for c in checked), key=RANK.__getitem__)
        papers = list({c.paper.id: c.paper for c in checked if c.paper is not None}.values())
        if len(papers) > 1 and RANK[(together := self._together(sentence.text, papers))] > RANK[best]:
            best = together
        for check in checked:
            check.sentence_label = best
        return checks

    def _citation(self, text: str, cite: Cite) -> CitationCheck:
        if not text:
            return CitationCheck(cite, text, CheckLabel.CANNOT_CHECK, note=NO_SENTENCE)
        paper = self.resolve(cite.key)
        if paper is None or paper.no_abstract:
            note = NOT_IN_LIBRARY if paper is None else TITLE_ONLY
            return CitationCheck(cite, text, CheckLabel.CANNOT_CHECK, paper=paper, note=note)
        label, score = self._pair(text, paper)
        return CitationCheck(cite, text, label, score.score, score.sentence or None, paper)

    def _pair(self, text: str, paper: Paper) -> tuple[CheckLabel, SourceScore]:
        """The label of one (sentence, paper) pair, worked out once however often the pair recurs."""
        if (text, paper.id) not in self._pairs:
            score = score_against_sources([text], [paper])[0][0]
            label = offline_label(score)
            if self.judge is not None:
                label = _FROM_SUPPORT[judge_with_model(text, [(1, paper)], self.judge, self.usage)]
            self._pairs[(text, paper.id)] = (label, score)
        return self._pairs[(text, paper.id)]

    def _together(self, text: str, papers: Sequence[Paper]) -> CheckLabel:
        if self.judge is not None:
            return _FROM_SUPPORT[judge_with_model(text, list(enumerate(papers, start=1)), self.judge, self.usage)]
        return offline_label(score_against_group(text, papers)[0])

    def _suggestions(self, text: str, found: Sequence[Paper], cited: frozenset[str]) -> list[Suggestion]:
        """Papers of the library the check says back ``text``, best first, none of those it cites."""
        pool = [p for p in found if p.id not in cited and not p.no_abstract][:SUGGESTION_POOL]
        scored = zip(score_against_sources([text], pool)[0], pool, strict=True) if pool else iter(())
        backing = sorted(
            ((s, p) for s, p in scored if s.support.is_top and not s.conflict), key=lambda pair: -pair[0].score
        )
        chosen: list[Suggestion] = []
        for score, paper in backing[: MAX_JUDGED_SUGGESTIONS if self.judge is not None else MAX_SUGGESTIONS]:
            if self.judge is not None and not judge_with_model(text, [(1, paper)], self.judge, self.usage).is_top:
                continue
            chosen.append(Suggestion(paper, CheckLabel.EVIDENCE, score.score, score.sentence))
            if len(chosen) == MAX_SUGGESTIONS:
                break
        return chosen


def _quote(text: str) -> str:
    text = printable(text)
    return '"' + (text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1].rstrip() + "…") + '"'


def finding(check: CitationCheck) -> str:
    """One linter line: ``paper.tex:42:17: unsupported \\cite{k}: "..." best evidence: "..."; better supported
    by: jones2021 (evidence found)``; the label starts right after ``file:line:column: ``."""
    cite = check.cite
    line = f"{cite.file}:{cite.line}:{cite.column}: {check.label.shown} {printable(cite.written)}: "
    line += _quote(check.sentence) if check.sentence else ""
    if check.note:
        return line + f" ({check.note})"
    if check.evidence:
        line += f" best evidence: {_quote(check.evidence)}"
    if check.suggestions:
        line += "; better supported by: " + ", ".join(
            f"{printable(s.paper.citekey)} ({s.label.shown})" for s in check.suggestions
        )
    elif check.sentence_label is not None and RANK[check.sentence_label] > RANK[check.label]:
        line += f"; with the sentence's other citations: {check.sentence_label.shown}"
    return line
