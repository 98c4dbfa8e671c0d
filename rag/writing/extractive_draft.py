"""Related-work paragraphs without a model: a paragraph per theme, every sentence from its paper's own words.

The papers are grouped into themes as the outline groups them (rag.writing.outline), the themes ordered by
how well their papers answer the topic. Each paragraph opens with a sentence naming what its papers share in
their own words (rag.writing.theme_sentence), then gives one sentence per paper: the sentence of its abstract
that best answers the topic (the evidence selector of rag.writing.evidence_sentences), turned into the citing voice
(rag.writing.voice: "We show X" -> "Hazra et al. (2021) show X"), kept as written, or quoted and attributed.
Nothing else is added but fixed connectives that assert nothing ("Similarly,").

Every sentence goes through the answer-policy check a model's sentences go through
(rag.check.answers.check_each); one that does not get the top label is replaced by the paper's next
sentence, so what is shown restates its source. Each sentence keeps where it came from (``Provenance``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.check.answers import Checked, check_each
from rag.check.claims import Claim, with_citations
from rag.check.reading import CitedText, prepare
from rag.check.sentences import Answer, AnswerMode, Citation, CitedSentence, Provenance
from rag.embed.cached import CachedEmbedder
from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import plural, term_coverage
from rag.writing.evidence_sentences import HitSentences, defuse_citations, sentence_table
from rag.writing.outline import OUTLINE_LABEL, group_papers, outline, theme_count, themes_of
from rag.writing.theme_sentence import ThemeSentence, theme_sentences
from rag.writing.voice import SECTION_NAMES, Turned, Voice, quoted, turn

PROSE_LABEL = "Drafted without a language model from the papers' own sentences (set RAG_LLM_MODEL for a model's prose)"
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
# A sentence the library holds cut short ("... in modern…"): the last resort.
CUT_SENTENCE_COST = 3.0
# Connectives that assert nothing, by a sentence's place among the paper sentences of its paragraph; a sentence
# that passes the check only without its connective goes without it.
CONNECTIVES = {2: "Similarly,", 4: "In a related line of work,"}
WITHOUT_CONNECTIVE_COST = 0.05
# Sentences an export ran together are offered one by one, the one sharing most of the topic's terms first.
PIECE_COST = 0.1


@dataclass
class Candidate:
    """One way of writing a paper's sentence, with its cost (lower is better)."""

    source: str  # the sentence as the abstract writes it
    turned: Turned
    text: str  # as the draft writes it: the turned sentence, with a connective where its place has one
    cost: float


@dataclass
class Accepted:
    """A paper's sentence that passed the check."""

    paper: int  # index into the papers given
    candidate: Candidate
    checked: Checked


def _candidates(topic: str, row: HitSentences, place: int) -> list[Candidate]:
    """Ways of writing the paper's best sentences for the topic (its abstract's, not a full-text passage's),
    the cheapest first. Each sentence is offered as turned (with the connective of its ``place``, then
    without), and a sentence in the citing voice also quoted: the check reads the words a sentence adds (the
    paper's name, a connective) as words its source does not have, so a turned sentence may fall short where
    the paper's own words pass."""
    paper = row.hit.paper
    found = []
    ranked = [i for i in row.ranked if i < row.abstract_sentences][:CANDIDATES_PER_PAPER]
    for rank, index in enumerate(ranked):
        pieces = _unglued(defuse_citations(row.sentences[index]))
        for piece, source in enumerate(sorted(pieces, key=lambda p: -term_coverage(topic, p))):
            found += _ways(source, paper, place, RANK_COST * rank + PIECE_COST * piece, first=index == 0)
    return sorted(found, key=lambda c: c.cost)


def _ways(source: str, paper: Paper, place: int, rank: float, first: bool) -> list[Candidate]:
    """One sentence as turned (with and without the connective of its place) and, in the citing voice, quoted."""
    found = []
    long = LONG_SENTENCE_COST if len(source.split()) > LONG_SENTENCE_WORDS else 0.0
    cut = CUT_SENTENCE_COST if source.rstrip().endswith(("…", "...")) else 0.0
    turned = turn(source, paper)
    for way in [turned, quoted(source, paper)] if turned.voice is Voice.CITING else [turned]:
        background = BACKGROUND_COST if first and way.voice is Voice.VERBATIM else 0.0
        cost = rank + VOICE_COST[way.voice] + long + cut + background
        joined = _with_connective(way, place)
        if joined != way.text:
            found.append(Candidate(source, way, joined, cost))
        found.append(Candidate(source, way, way.text, cost + WITHOUT_CONNECTIVE_COST))
    return found


# Sentences run together where an export lost the space, often with a section heading ("...12 to 72
# months.ConclusionsThe present review ..."): the selector sees one sentence, the draft wants each.
_GLUED = re.compile(r"(?<=[a-z0-9%)\]])\.(?=[A-Z][a-z])")
_GLUED_HEADING = re.compile(rf"^{SECTION_NAMES}(?=[A-Z][a-z])")


def _unglued(sentence: str) -> list[str]:
    """``sentence`` cut where sentences run together, each piece without the heading glued to its start."""
    pieces = [p.strip() for p in _GLUED.split(sentence) if p.strip()]
    return [_GLUED_HEADING.sub("", p) + ("" if p.endswith((".", "!", "?", "…")) else ".") for p in pieces]


def _with_connective(turned: Turned, place: int) -> str:
    """The sentence with the connective of its place, where it opens with the paper's name."""
    connective = CONNECTIVES.get(place)
    if connective is None or turned.label is None or not turned.text.startswith(turned.label):
        return turned.text
    return f"{connective} {turned.text}"


def _passes(result: Checked | object, cited: list[int]) -> bool:
    """Shown with the top label, citing what it was built from (never re-attributed by the check)."""
    if not isinstance(result, Checked):
        return False
    sentence = result.sentence
    return sentence.support is not None and sentence.support.is_top and sentence.citations == cited


def _paper_sentences(
    topic: str,
    order: list[list[int]],
    rows: dict[int, HitSentences],
    papers: Sequence[Paper],
    prepared: list[CitedText],
) -> tuple[dict[int, Accepted], int]:
    """Each paper's cheapest sentence that passes the check (checked in batches: all papers' first choices,
    then the next choice of those that failed); how many candidates failed."""
    candidates = {i: _candidates(topic, rows[i], place) for theme in order for place, i in enumerate(theme)}
    tried = dict.fromkeys(candidates, 0)
    accepted: dict[int, Accepted] = {}
    failed = 0  # candidates that did not pass, told in a note
    while pending := [i for i in candidates if i not in accepted and tried[i] < len(candidates[i])]:
        offered = [candidates[i][tried[i]] for i in pending]
        claims = [Claim(c.text, [i + 1]) for c, i in zip(offered, pending, strict=True)]
        for i, candidate, result in zip(pending, offered, check_each(claims, papers, prepared), strict=True):
            if _passes(result, [i + 1]) and isinstance(result, Checked):
                accepted[i] = Accepted(i, candidate, result)
            else:
                failed += 1
            tried[i] += 1
    return accepted, failed


def _theme_sentences(
    order: list[list[int]], accepted: dict[int, Accepted], papers: Sequence[Paper], prepared: list[CitedText]
) -> dict[int, tuple[ThemeSentence, list[int], Checked]]:
    """Each theme's opening sentence that passes the check, checked after its papers' sentences (so a theme
    sentence that would repeat one of them is the one dropped)."""
    options: dict[int, list[tuple[ThemeSentence, list[int]]]] = {}
    for number, theme in enumerate(order):
        members = [i for i in theme if i in accepted]
        others = [papers[i] for i in accepted if i not in members]
        found = theme_sentences([papers[i] for i in members], others)
        options[number] = [(t, [members[k] for k in t.cited]) for t in found]
    chosen: dict[int, tuple[ThemeSentence, list[int], Checked]] = {}
    shown = [Claim(a.candidate.text, [i + 1]) for i, a in accepted.items()]
    tried = dict.fromkeys(options, 0)
    while pending := [n for n in options if n not in chosen and tried[n] < len(options[n])]:
        offered = [options[n][tried[n]] for n in pending]
        claims = [Claim(t.text, [i + 1 for i in cited]) for t, cited in offered]
        results = check_each(claims, papers, prepared, shown)
        for n, (opener, cited), result in zip(pending, offered, results, strict=True):
            if _passes(result, [i + 1 for i in cited]) and isinstance(result, Checked):
                chosen[n] = (opener, cited, result)
            tried[n] += 1
    return chosen


def _themes(rows: list[HitSentences], embedder: Embedder | None) -> list[list[int]]:
    """The papers grouped as the outline groups them, each paper's vector the mean of its abstract sentences'
    (which the selector embedded already: the whole abstract, where one embedding of it reads its first 256
    tokens); by TF-IDF without an embedding model."""
    papers = [row.hit.paper for row in rows]
    if embedder is None:
        return themes_of(papers, None)
    vectors = []
    for row in rows:
        mean = np.asarray(embedder.embed(row.sentences[: row.abstract_sentences]), dtype=np.float32).mean(axis=0)
        vectors.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
    return group_papers(np.stack(vectors), theme_count(len(papers)))


def _relevance(row: HitSentences) -> float:
    return max(row.match) if row.match else 0.0


def extractive_prose(topic: str, papers: Sequence[Paper], embedder: Embedder | None) -> Answer | None:
    """Paragraphs on ``topic`` from ``papers`` (every one with an abstract gets a sentence if one of its own
    passes the check), themes and papers in order of relevance; None when no sentence passes."""
    # Each sentence embedded once: the themes are grouped by the vectors the evidence selector made.
    embedder = CachedEmbedder(embedder) if embedder is not None else None
    hits = [Hit(paper, rank, 0.0) for rank, paper in enumerate(papers, start=1)]
    table = sentence_table(topic, [h for h in hits if not h.paper.no_abstract], embedder)
    rows = {row.hit.rank - 1: row for row in table}
    usable = sorted(rows)
    if not usable:
        return None
    groups = _themes([rows[i] for i in usable], embedder)
    themes = [sorted((usable[k] for k in group), key=lambda i: -_relevance(rows[i])) for group in groups]
    themes.sort(key=lambda theme: -sum(_relevance(rows[i]) for i in theme) / len(theme))
    prepared = prepare(papers)
    accepted, failed = _paper_sentences(topic, themes, rows, papers, prepared)
    if not accepted:
        return None
    openers = _theme_sentences(themes, accepted, papers, prepared)
    return _assemble(topic, papers, themes, accepted, openers, failed)


def _assemble(
    topic: str,
    papers: Sequence[Paper],
    themes: list[list[int]],
    accepted: dict[int, Accepted],
    openers: dict[int, tuple[ThemeSentence, list[int], Checked]],
    failed: int,
) -> Answer:
    """Number the papers in the order their sentences come, and write the paragraphs."""
    numbers: dict[int, int] = {}
    for theme in themes:
        for i in theme:
            if i in accepted:
                numbers[i] = len(numbers) + 1
    sentences: list[CitedSentence] = []
    paragraphs: list[str] = []
    for number, theme in enumerate(themes):
        written: list[CitedSentence] = []
        if number in openers:
            opener, cited, checked = openers[number]
            provenance = Provenance("theme", "; ".join(opener.phrases))
            written.append(_cited(checked, [numbers[i] for i in cited], cited, provenance, None))
        for i in theme:
            if i in accepted:
                item = accepted[i]
                turned = item.candidate.turned
                changes = list(turned.changes)
                if item.candidate.text != turned.text:  # the connective before it
                    changes.append(("", item.candidate.text.removesuffix(turned.text).strip()))
                provenance = Provenance(turned.voice.value, item.candidate.source, changes)
                written.append(_cited(item.checked, [numbers[i]], [i], provenance, turned.label))
        if written:
            sentences += written
            paragraphs.append(" ".join(s.text for s in written))
    order = sorted(numbers, key=numbers.__getitem__)
    uncited = [p for i, p in enumerate(papers) if i not in numbers and not p.no_abstract]
    note = f"{PROSE_LABEL}: {plural(len(order), 'paper')} in {plural(len(paragraphs), 'paragraph')}"
    if failed:
        note += f"; {plural(failed, 'sentence')} that did not pass the citation check replaced"
    return Answer(
        topic,
        "\n\n".join(paragraphs),
        AnswerMode.PROSE,
        [Citation(numbers[i], papers[i]) for i in order],
        sentences=sentences,
        uncited=uncited,
        notes=[note + "."],
    )


def _cited(
    checked: Checked, numbers: list[int], given: list[int], provenance: Provenance, label: str | None
) -> CitedSentence:
    """The checked sentence renumbered (its citations, evidence and named subject), with its provenance."""
    sentence = checked.sentence
    renumber = {i + 1: n for i, n in zip(given, numbers, strict=True)}
    if sentence.evidence is not None:
        sentence.evidence.source = renumber.get(sentence.evidence.source, sentence.evidence.source)
    if sentence.subject_source is not None:
        sentence.subject_source = renumber.get(sentence.subject_source, sentence.subject_source)
    sentence.citations = numbers
    sentence.text = with_citations(sentence.text, numbers)
    if label is not None and label in sentence.text:
        sentence.in_text, sentence.in_text_source = label, numbers[0]
    sentence.provenance = provenance
    return sentence


def prose_or_outline(
    topic: str, papers: Sequence[Paper], embedder: Embedder | None, label: str = OUTLINE_LABEL
) -> Answer:
    """The paragraphs, or the outline (with ``label``) when no sentence of any paper passes the check."""
    return extractive_prose(topic, papers, embedder) or outline(topic, papers, embedder, label)
