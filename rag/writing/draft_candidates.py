"""Ways of writing a paper's sentence in a related-work paragraph, each with its cost: the draft
(rag.writing.extractive_draft) offers a paper's cheapest to the check first. What a sentence costs: its place in
the evidence selector's ranking, whether it reports a finding, its voice (the citing voice reads best, a quotation
last), its length, whether it is an abstract's opening background, cut short, or points back to a sentence the
draft does not hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.corpus.roles import strip_label, tells_of_the_work
from rag.records import Paper
from rag.text import term_coverage, unglue
from rag.writing.evidence_sentences import FINDING_AT, HitSentences, defuse_citations, states_nothing
from rag.writing.standing_alone import leans_back
from rag.writing.voice import Turned, Voice, aim_fragment, quoted, turn

# Sentences of a paper offered to the check, best first: the selector's top ones for the topic, each place
# down the selector's ranking costing this much...
CANDIDATES_PER_PAPER = 4
RANK_COST = 0.6
# What a sentence costs beyond its rank among the paper's sentences: a sentence naming its paper reads best (it
# beats a sentence kept as written that the selector ranks one or two places higher), a quotation last; a very long
# sentence is hard to read in a paragraph, and an abstract's first sentence kept as written is most often its
# background ("Large language models have ..."), not what the paper did.
BACKGROUND_COST = 0.5
VOICE_COST = {Voice.CITING: 0.0, Voice.VERBATIM: 1.1, Voice.QUOTED: 1.6}
LONG_SENTENCE_WORDS = 50
LONG_SENTENCE_COST = 1.0
# A sentence the library holds cut short ("... in modern…"), or an aim with no clause of its own that cannot be
# given its paper as subject (no authors, or only as a quotation): the last resort.
CUT_SENTENCE_COST = 3.0
# A sentence whose subject or connective points back to one the draft does not hold ("This approach ...", "They
# ...", "These results ...") reads as a loose end: it costs this much more, as a long sentence does.
LEANING_COST = 1.0
# Sentences an export ran together are offered one by one, the one sharing most of the topic's terms first.
PIECE_COST = 0.1
# A related-work sentence says what a paper found: a sentence that reports no finding (its background, aim or
# method, by rag.corpus.roles) costs up to this much more (times 1 - its probability of reporting one)...
NOT_FINDING_COST = 0.6
# ...and, of a paper whose abstract states a finding (at FINDING_AT), one that does not report one costs this much
# more: a finding the selector ranks below the paper's aim or method is still the sentence (on three real
# libraries, 21 of 93 draft sentences were an aim, a method or a background although their paper stated what it
# found: "For fracture resistance test 90 sound maxillary premolar teeth were randomly assigned ..." where the
# abstract's result was "packable composite resins had significantly higher scores ...").
BESIDE_FINDINGS_COST = 1.9
# The paper's findings the selector ranks below CANDIDATES_PER_PAPER are offered too, the best ranked first, at
# most this many, each costing as the last place of the top ones.
FINDINGS_OFFERED = 2


@dataclass
class Candidate:
    """One way of writing a paper's sentence, with its cost (lower is better)."""

    source: str  # the sentence as the abstract writes it
    turned: Turned
    text: str  # as the draft writes it: the turned sentence, with a connective where its place has one
    cost: float


def paper_candidates(topic: str, row: HitSentences) -> list[Candidate]:
    """Ways of writing the paper's best sentences for the topic (its abstract's, not a full-text passage's),
    the cheapest first. Each sentence is offered as turned, and a sentence in the citing voice also quoted: the
    check reads the words a sentence adds (the paper's name) as words its source does not have, so a turned
    sentence may fall short where the paper's own words pass."""
    paper = row.hit.paper
    found = []
    ranked = [i for i in row.ranked if i < row.abstract_sentences and not states_nothing(row.sentences[i])]
    reports = _reports(row)
    states = [i for i in ranked if reports[i] >= FINDING_AT]
    offered = ranked[:CANDIDATES_PER_PAPER]
    offered += [i for i in states if i not in offered][:FINDINGS_OFFERED]
    for rank, index in enumerate(offered):
        pieces = _unglued(defuse_citations(row.sentences[index]))
        aside = BESIDE_FINDINGS_COST if states and reports[index] < FINDING_AT else 0.0
        cost = RANK_COST * min(rank, CANDIDATES_PER_PAPER - 1) + NOT_FINDING_COST * (1.0 - reports[index]) + aside
        for piece, source in enumerate(sorted(pieces, key=lambda p: -term_coverage(topic, p))):
            found += _ways(source, paper, cost + PIECE_COST * piece, first=index == 0)
    return sorted(found, key=lambda c: c.cost)


def _reports(row: HitSentences) -> list[float]:
    """Per abstract sentence of the row (the only ones a draft writes), the probability that it reports a finding
    (rag.corpus.roles; 1 where the roles were not read); none for one telling what the work is good for, what
    comes next or where to get it: it does not stand for its paper in a paragraph."""
    finding = row.finding or []
    return [
        0.0 if tells_of_the_work(sentence) else finding[i] if i < len(finding) else 1.0
        for i, sentence in enumerate(row.sentences[: row.abstract_sentences])
    ]


def _ways(source: str, paper: Paper, rank: float, first: bool) -> list[Candidate]:
    """One sentence as turned and, in the citing voice, quoted."""
    found = []
    long = LONG_SENTENCE_COST if len(source.split()) > LONG_SENTENCE_WORDS else 0.0
    cut = CUT_SENTENCE_COST if source.rstrip().endswith(("…", "...")) else 0.0
    fragment = aim_fragment(source)
    turned = turn(source, paper)
    for way in [turned, quoted(source, paper)] if turned.voice is Voice.CITING else [turned]:
        background = BACKGROUND_COST if first and way.voice is Voice.VERBATIM else 0.0
        unturned = CUT_SENTENCE_COST if fragment and way.voice is not Voice.CITING else 0.0
        leaning = LEANING_COST if _loose_end(way.text) or (way.voice is Voice.QUOTED and _loose_end(source)) else 0.0
        cost = rank + VOICE_COST[way.voice] + long + cut + background + unturned + leaning
        found.append(Candidate(source, way, way.text, cost))
    return found


# "It" that points nowhere: "It can be concluded that ...", "It is known that ...".
_EXPLETIVE_IT = re.compile(
    r"^it (?:is|was|can be|could be|may be|might be|should be|will be|has been|had been|seems|appears|remains)\b",
    re.IGNORECASE,
)


def _loose_end(sentence: str) -> bool:
    """Whether the sentence points back to one the draft does not hold (not an "it" that points nowhere)."""
    return leans_back(sentence) and not _EXPLETIVE_IT.match(sentence.lstrip("\"'“("))


def _unglued(sentence: str) -> list[str]:
    """``sentence`` cut where sentences run together (rag.text.unglue: the selector's sentences are, but a
    citation marker taken out can leave "results.The"), each piece without a section label."""
    pieces = [strip_label(p) for p in unglue(sentence)]
    return [p if p.endswith((".", "!", "?", "…")) else p + "." for p in pieces]
