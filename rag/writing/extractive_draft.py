"""Related-work paragraphs without a model: a paragraph per theme, every sentence from its paper's own words.

The papers are grouped into themes as the outline groups them (rag.writing.outline), the themes ordered by
how well their papers answer the topic; a paper that shares only one of the topic's words and is not close to
it in meaning is left out (listed as found, not cited). Each paper's sentence is the one of its abstract that
best answers the topic (the evidence selector of rag.writing.evidence_sentences), what it found before what it
set out to do or how (rag.corpus.roles), turned into the citing voice
(rag.writing.voice: "We show X" -> "Hazra et al. (2021) show X"), kept as written, or quoted and attributed
(the ways and what each costs: rag.writing.draft_candidates). Papers whose abstracts say the same in nearly the
same words (a preprint and its journal version) are one paper: one sentence, citing each. Then a theme's
papers are grouped by what they found (rag.writing.findings): papers reporting the same finding share one
sentence, opposite findings are contrasted ("whereas"), and "Similarly," / "In contrast," open a sentence only
where it and the one before it bear that out. A paragraph opens with its largest group.

Every sentence goes through the answer-policy check a model's sentences go through
(rag.check.answers.check_each); one that does not get the top label is replaced by the paper's next
sentence, so what is shown restates its source. Each sentence keeps where it came from (``Provenance``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np

from rag.check.answers import Checked, check_each
from rag.check.claims import Claim, with_citations
from rag.check.reading import CitedText, prepare
from rag.check.screen import no_news_terms
from rag.check.sentences import Answer, AnswerMode, Citation, CitedSentence, Provenance
from rag.corpus.merging import published_version
from rag.corpus.types import trial_registration
from rag.embed.cached import CachedEmbedder
from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import plural, tokenize
from rag.writing.draft_candidates import Candidate, paper_candidates
from rag.writing.evidence_sentences import (
    HitSentences,
    same_words,
    sentence_table,
)
from rag.writing.findings import Option, Said, slots
from rag.writing.outline import OUTLINE_LABEL, group_papers, outline, theme_count, themes_of

PROSE_LABEL = "Drafted without a language model from the papers' own sentences (set RAG_LLM_MODEL for a model's prose)"
# A paper holding at most this many of the topic's terms (title and abstract) matches it on a word only, and is
# left out unless one of its sentences is this close to the topic in meaning (an image-restoration paper found
# for "vegetation restoration": "restoration"); a --cite paper always stays.
ONE_WORD_TERMS = 1
OFF_TOPIC_SIMILARITY = 0.35
# ...in a topic of more terms than this: one of two terms is half the topic ("distributed training" papers for
# "decentralized training"), not a word in passing.
FEW_TOPIC_TERMS = 2
# A summary is shorter than a draft: at most this many sentences a theme (groups first, then the papers that
# answer best); the papers left out are listed as found.
SUMMARY_SENTENCES_PER_THEME = 3
# Kinds of item (CSL types) whose abstract field holds a description, not findings: a draft leaves them out (listed
# as found) unless they are all it has or the user asks for them (--cite).
DESCRIBED_TYPES = frozenset(
    {"motion_picture", "broadcast", "webpage", "post", "post-weblog", "song", "interview", "personal_communication"}
)


@dataclass
class Accepted:
    """A paper's sentence that passed the check."""

    paper: int  # index into the papers given
    candidate: Candidate
    checked: Checked


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
    candidates = {i: paper_candidates(topic, rows[i]) for theme in order for i in theme}
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


def _description(paper: Paper) -> str | None:
    """What the paper is when its "abstract" describes it rather than what it found: a video, a web page or a post
    ("Thanks for coming to the channel ...", "Follow me! https://..."), or a trial's registration (its protocol:
    "INCLUSION CRITERIA: ...", what the trial will test): not a work's findings to draft related work from."""
    if trial_registration(paper):
        return "registration"
    return "media" if paper.item_type in DESCRIBED_TYPES else None


def _relevance(row: HitSentences) -> float:
    return max(row.match) if row.match else 0.0


def _on_topic(topic: str, row: HitSentences) -> bool:
    """Whether the paper matches the topic on more than a word: it holds more than ONE_WORD_TERMS of the topic's
    terms, or one of its sentences is close to the topic in meaning (a topic of FEW_TOPIC_TERMS terms: always)."""
    terms = set(tokenize(topic)) - no_news_terms()
    held = terms & set(tokenize(row.hit.paper.searchable_text()))
    if len(terms) <= FEW_TOPIC_TERMS or len(held) > ONE_WORD_TERMS:
        return True
    return row.similarity is not None and max(row.similarity, default=0.0) >= OFF_TOPIC_SIMILARITY


def extractive_prose(
    topic: str,
    papers: Sequence[Paper],
    embedder: Embedder | None,
    keep: frozenset[str] = frozenset(),
    brief: bool = False,
) -> Answer | None:
    """Paragraphs on ``topic`` from ``papers`` (every one with an abstract that matches the topic on more than a
    word, or is in ``keep``, gets a sentence if one of its own passes the check), themes and papers in order of
    relevance; ``brief`` (a summary): at most SUMMARY_SENTENCES_PER_THEME sentences a theme. None when no
    sentence passes."""
    # Each sentence embedded once: the themes are grouped by the vectors the evidence selector made.
    embedder = CachedEmbedder(embedder) if embedder is not None else None
    hits = [Hit(paper, rank, 0.0) for rank, paper in enumerate(papers, start=1)]
    table = sentence_table(topic, [h for h in hits if not h.paper.no_abstract], embedder, findings=True)
    rows = {row.hit.rank - 1: row for row in table if row.hit.paper.id in keep or _on_topic(topic, row)}
    kinds = {i: _description(row.hit.paper) for i, row in rows.items() if row.hit.paper.id not in keep}
    works = {i: row for i, row in rows.items() if not kinds.get(i)}
    described = Counter(kinds[i] for i in rows if i not in works) if works else Counter()
    rows = works or rows  # a library of videos and web pages only is still drafted from
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
    twins = _twins([i for theme in themes for i in theme if i in accepted], papers)
    copies = {i for twin in twins.values() for i in twin}
    themes = [[i for i in theme if i not in copies] for theme in themes]
    written = [
        _with_twins(
            _grouped(topic, [i for i in theme if i in accepted], accepted, papers, prepared, embedder),
            twins,
            accepted,
            papers,
            prepared,
        )
        for theme in themes
    ]
    cut = [theme[SUMMARY_SENTENCES_PER_THEME:] for theme in written] if brief else []
    written = [theme[:SUMMARY_SENTENCES_PER_THEME] for theme in written] if brief else written
    answer = _assemble(topic, papers, [theme for theme in written if theme], accepted, failed)
    answer.notes += _left_out_notes(sum(len(option.papers) for theme in cut for option, _ in theme), described)
    return answer


def _left_out_notes(shortened: int, described: Counter[str | None]) -> list[str]:
    """What a reader is told of the papers the paragraphs leave out: cut from a summary for length, or a text
    describing them rather than findings (trial registrations, videos, web pages)."""
    notes = []
    if shortened:
        notes.append(
            f"A summary gives at most {SUMMARY_SENTENCES_PER_THEME} sentences a theme: "
            f"{plural(shortened, 'paper')} with a sentence left out for length (`rag draft` writes every one)."
        )
    left_out = [
        plural(count, noun, nouns)
        for kind, noun, nouns in (
            ("registration", "trial registration", "trial registrations"),
            ("media", "video, web page or post", "videos, web pages or posts"),
        )
        if (count := described[kind])
    ]
    if left_out:
        notes.append(f"Left out, their text describing them rather than findings: {'; '.join(left_out)}.")
    return notes


# A theme's sentence as written: the option chosen, and its check (None: a paper's own sentence as it passed).
Written = tuple[Option, Checked | None]


def _grouped(
    topic: str,
    theme: list[int],
    accepted: dict[int, Accepted],
    papers: Sequence[Paper],
    prepared: list[CitedText],
    embedder: Embedder | None,
) -> list[Written]:
    """The theme's papers grouped by what they found (rag.writing.findings), each slot written with its first
    option that passes the check; a group none of whose sentences passes is written a paper a sentence."""
    said = [
        Said(i, accepted[i].candidate.source, accepted[i].candidate.turned, accepted[i].candidate.text) for i in theme
    ]
    if embedder is None or len(said) < 2:
        return [(_alone(item), None) for item in said]
    vectors = np.asarray(embedder.embed([item.source for item in said]), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    options = slots(said, vectors, papers, topic)
    chosen: dict[int, Written] = {}
    tried = dict.fromkeys(range(len(options)), 0)
    while pending := [k for k in tried if k not in chosen and tried[k] < len(options[k])]:
        offered = {k: options[k][tried[k]] for k in pending}
        checking = {}
        for k, option in offered.items():
            if option.kind == "apart" or option.text == accepted[option.papers[0]].candidate.text:
                chosen[k] = (option, None)  # the papers' own sentences, as they passed alone
            else:
                checking[k] = option
        claims = [Claim(o.text, [i + 1 for i in o.papers]) for o in checking.values()]
        for (k, option), result in zip(checking.items(), check_each(claims, papers, prepared), strict=True):
            if _passes(result, [i + 1 for i in option.papers]) and _each_states(option, papers, prepared):
                chosen[k] = (option, result)  # type: ignore[assignment]
            tried[k] += 1
    written: list[Written] = []
    for k in sorted(chosen):
        option, checked = chosen[k]
        if option.kind == "apart":
            written += [(_alone(item), None) for item in said if item.paper in option.papers]
        else:
            written.append((option, checked))
    return written


def _twins(order: list[int], papers: Sequence[Paper]) -> dict[int, list[int]]:
    """Papers whose abstracts say the same in nearly the same words (a preprint and its journal version, one
    record under two keys), under the published version (else the first in ``order``): one paper, one sentence
    citing each."""
    terms = {i: set(tokenize(papers[i].text)) for i in order}
    twins: dict[int, list[int]] = {}
    taken: set[int] = set()
    for at, first in enumerate(order):
        if first in taken:
            continue
        same = [i for i in order[at + 1 :] if i not in taken and same_words(terms[first], terms[i])]
        if same:
            group = [first, *same]
            lead = group[[papers[i] for i in group].index(reduce(published_version, (papers[i] for i in group)))]
            twins[lead] = [i for i in group if i != lead]
            taken.update(group)
    return twins


def _with_twins(
    written: list[Written],
    twins: dict[int, list[int]],
    accepted: dict[int, Accepted],
    papers: Sequence[Paper],
    prepared: list[CitedText],
) -> list[Written]:
    """Each paper's own sentence citing its twins beside it: those that state what its source sentence says."""
    out: list[Written] = []
    for option, checked in written:
        lead = option.papers[0]
        if option.kind != "single" or lead not in twins:
            out.append((option, checked))
            continue
        # The twin states what the lead paper's own words say (the draft's sentence names the lead, its year).
        beside = [i for i in twins[lead] if _states_alone(accepted[lead].candidate.source, i, papers, prepared)]
        sources = [option.sources[0], *(accepted[i].candidate.source for i in beside if i in accepted)]
        cited = Option(option.text, [lead, *beside], "twins", sources, option.changes, label=option.label)
        out.append((cited, checked if checked is not None else accepted[lead].checked))
    return out


def _each_states(option: Option, papers: Sequence[Paper], prepared: list[CitedText]) -> bool:
    """A shared finding passes the check against each other paper of its group alone (one at a time: the
    screen would drop the same sentence twice in one batch)."""
    return all(_states_alone(text, i, papers, prepared) for text, i in option.also)


def _states_alone(text: str, i: int, papers: Sequence[Paper], prepared: list[CitedText]) -> bool:
    """Whether ``text`` passes the check citing paper ``i`` alone."""
    return _passes(check_each([Claim(text, [i + 1])], papers, prepared)[0], [i + 1])


def _alone(item: Said) -> Option:
    return Option(item.text, [item.paper], "single", [item.source], list(item.turned.changes), label=item.turned.label)


def _assemble(
    topic: str,
    papers: Sequence[Paper],
    themes: list[list[Written]],
    accepted: dict[int, Accepted],
    failed: int,
) -> Answer:
    """Number the papers in the order their sentences come, and write the paragraphs."""
    numbers: dict[int, int] = {}
    for theme in themes:
        for option, _ in theme:
            for i in option.papers:
                numbers.setdefault(i, len(numbers) + 1)
    sentences: list[CitedSentence] = []
    paragraphs: list[str] = []
    for theme in themes:
        written: list[CitedSentence] = []
        for option, checked in theme:
            cited = [numbers[i] for i in option.papers]
            if len(option.papers) > 1:
                provenance = Provenance("grouped", " ".join(option.sources), option.changes)
            else:
                item = accepted[option.papers[0]]
                provenance = Provenance(item.candidate.turned.voice.value, item.candidate.source, option.changes)
            result = checked if checked is not None else accepted[option.papers[0]].checked
            written.append(_cited(result, cited, option.papers, provenance, option.label))
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
    topic: str,
    papers: Sequence[Paper],
    embedder: Embedder | None,
    label: str = OUTLINE_LABEL,
    keep: frozenset[str] = frozenset(),
    brief: bool = False,
) -> Answer:
    """The paragraphs, or the outline (with ``label``) when no sentence of any paper passes the check."""
    return extractive_prose(topic, papers, embedder, keep, brief) or outline(topic, papers, embedder, label)
