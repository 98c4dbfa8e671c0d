"""Everything a model wrote passes through here before anyone sees it.

The promise: every sentence shown is cited and checked, or visibly marked,
whatever the model does. So, in order: sentences and their source numbers are
read (JSON or [n] text); numbers the model was not given are removed; pieces that
are not sentences (fragments, junk), a source's title restated as a claim, and
sentences repeating an earlier one (word for word or nearly) are dropped before
any label; each sentence is checked against its sources (a title-only source
backs nothing); a vague subject ("The paper") is named; a sentence
with no citation, or one its citation does not back, is attributed to the given
source that does back it (marked as attributed by rag) or dropped; names and
numbers no source mentions are flagged. What is left is renumbered. If no shown
sentence is supported, the caller falls back to quotes (``Answer`` with a note).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.llm.types import ChatModel, Completion, Usage
from rag.records import Paper
from rag.text import split_prose
from rag.writing.answer import Answer, AnswerMode, Citation, CitedSentence, DroppedSentence, Evidence, Support
from rag.writing.citation_check import CitedText, Reading, answer_support, describe, prepare, read_against
from rag.writing.citations import Claim, claims_from_text, keep_given, with_citations
from rag.writing.degenerate import first_occurrences, fragment_reason, restates_title
from rag.writing.structured import ModelSentence, parse_structured
from rag.writing.subjects import name_vague_subject
from rag.writing.verification import SourceScore, judge_with_model, score_against_group, score_against_sources

REPEATED = "repeated an earlier sentence"
CUT_OFF = "cut off when rag stopped the looping model"
UNSUPPORTED = "no given source supports it"
UNSTATED = "states a number or name its sources do not"
REVERSED = "says the opposite of its source"
FRAGMENT = "not a whole sentence"
TITLE = "restates a source's title"
SHOWN = (Support.SUPPORTED, Support.EVIDENCE, Support.WEAK, Support.CONTRADICTED)
# A source a sentence is not scored against, or one known by its title alone: it backs nothing.
_NO_EVIDENCE = SourceScore(0.0, Support.UNSUPPORTED, 0, "")


@dataclass
class Checked:
    sentence: CitedSentence
    paragraph: int
    papers: list[Paper]  # what sentence.citations will point at once renumbered


def read_claims(reply: Completion) -> list[Claim]:
    """The model's sentences: from its JSON when it was asked for JSON (and wrote it), else from [n] text."""
    if reply.structured and (sentences := parse_structured(reply.text)) is not None:
        return structured_claims(sentences)
    return claims_from_text(reply.text)


def structured_claims(sentences: Sequence[ModelSentence]) -> list[Claim]:
    # A "text" value may hold several sentences: each is checked (and deduplicated) on its own.
    return [Claim(part, s.sources) for s in sentences for part in split_prose(" ".join(s.text.split()))]


def _evidence(score: SourceScore, n: int) -> Evidence:
    return Evidence(source=n, position=score.position, text=score.sentence)


def _label_cited(
    claim: str,
    cited: list[int],
    scores: list[SourceScore],
    given: Sequence[Paper],
    judge: ChatModel | None,
    usage: Usage,
) -> tuple[Support, SourceScore | None, int | None]:
    """The sentence's label from the sources it cites, with the best of them."""
    if not cited:
        return Support.UNCITED, None, None
    best_n = max(cited, key=lambda n: scores[n - 1].score)
    best = scores[best_n - 1]
    if len(cited) > 1:  # "A does X [1] and B does Y [2]": neither source alone backs the whole sentence
        together, owner = score_against_group(claim, [given[n - 1] for n in cited])
        if together.score > best.score:
            best, best_n = together, cited[owner]
    if judge is not None:
        return judge_with_model(claim, [(n, given[n - 1]) for n in cited], judge, usage), best, best_n
    return best.support, best, best_n


def screen_claims(claims: Sequence[Claim], given: Sequence[Paper]) -> tuple[list[Claim], list[DroppedSentence]]:
    """The claims that are whole sentences saying something new: fragments, titles restated as claims and
    repeats (word for word or nearly) are dropped, before any support label."""
    titles = [p.title for p in given if p.title]
    dropped: list[DroppedSentence] = []
    whole: list[Claim] = []
    for claim in claims:
        if fragment_reason(claim.text):
            dropped.append(DroppedSentence(with_citations(claim.text, claim.numbers), FRAGMENT))
        elif restates_title(claim.text, titles):
            dropped.append(DroppedSentence(with_citations(claim.text, claim.numbers), TITLE))
        else:
            whole.append(claim)
    keep, repeats = first_occurrences([c.text for c in whole])
    dropped += [DroppedSentence(with_citations(whole[i].text, whole[i].numbers), REPEATED) for i in repeats]
    return [whole[i] for i in keep], dropped


def title_only_unsupported(table: list[list[SourceScore]], given: Sequence[Paper]) -> list[list[SourceScore]]:
    """A paper known by its title alone backs no sentence: its scores become "no evidence"."""
    for row in table:
        for j, paper in enumerate(given):
            if paper.no_abstract:
                row[j] = _NO_EVIDENCE
    return table


def _read(claim: str, cited: Sequence[int], prepared: Sequence[CitedText]) -> tuple[Reading, str]:
    """The claim read against the sources it cites (numbered from 1), and what it finds, told as a reader
    would ("1.76 is not in [1]; 1.46-1.98 is from [2], not [1]")."""
    others = [n for n in range(1, len(prepared) + 1) if n not in cited]
    reading = read_against(claim, [prepared[n - 1] for n in cited], [prepared[n - 1] for n in others])
    named = {i: f"[{n}]" for i, n in enumerate(others)}
    return reading, describe(reading.findings, "".join(f"[{n}]" for n in cited), named)


def check_claim(
    claim: Claim,
    scores: list[SourceScore],
    given: Sequence[Paper],
    prepared: Sequence[CitedText],
    usage: Usage,
    judge: ChatModel | None = None,
) -> Checked | DroppedSentence:
    """One screened claim, labelled against its sources under the answer policy (attributed to the one that
    backs it if need be): a number, name or finding its sources do not state is never shown as backed."""
    cited, _ = keep_given(claim.numbers, len(given))
    cited = [n for n in cited if not given[n - 1].no_abstract]  # a title backs nothing: never cited as evidence
    support, best, best_n = _label_cited(claim.text, cited, scores, given, judge, usage)
    reading, why = _read(claim.text, cited, prepared)
    conflict = bool(best and best.conflict and judge is None)
    support = answer_support(support, reading, conflict)  # the answer policy: what the sentence states decides
    if reading.contradicts:  # it says the opposite of what it cites: never shown, even marked
        return DroppedSentence(with_citations(claim.text, cited), REVERSED, why)
    attributed = False
    if support in (Support.UNCITED, Support.UNSUPPORTED, Support.WEAK):
        # The model cited nothing, or a source that does not back the sentence: find the one that does.
        top = max(range(len(given)), key=lambda j: scores[j].score)
        if scores[top].support.is_top and top + 1 not in cited and not _read(claim.text, [top + 1], prepared)[1]:
            confirmed = scores[top].support
            if judge is not None:  # --verify llm: the judge has the last word on the new citation too
                confirmed = judge_with_model(claim.text, [(top + 1, given[top])], judge, usage)
            if confirmed.is_top:
                cited, support, best, best_n, attributed = [top + 1], confirmed, scores[top], top + 1, True
                why = ""
    if support not in SHOWN:
        return DroppedSentence(with_citations(claim.text, cited), UNSTATED if why else UNSUPPORTED, why)
    # "The paper also ..." citing one source (or, citing several, the one holding the evidence) is named.
    named_n = cited[0] if len(cited) == 1 else best_n
    text, subject = name_vague_subject(claim.text, given[named_n - 1]) if named_n else (claim.text, None)
    sentence = CitedSentence(
        text,
        cited,
        support,
        best.score if best else None,
        attributed,
        _evidence(best, best_n) if best and best_n else None,
        conflict=bool(best and best.conflict and judge is None),
        subject=subject,
        subject_source=named_n if subject else None,
    )
    return Checked(sentence, claim.paragraph, [given[n - 1] for n in cited])


def check_reply(
    topic: str,
    reply: Completion,
    given: Sequence[Paper],
    usage: Usage,
    judge: ChatModel | None = None,
) -> Answer:
    """The model's reply as an answer whose every shown sentence is cited and checked (``judge``: --verify llm)."""
    claims = read_claims(reply)
    dropped: list[DroppedSentence] = []
    if reply.stopped and claims:  # the stream was closed mid-sentence: its last sentence is unfinished
        dropped.append(DroppedSentence(claims.pop().text, CUT_OFF))
    removed: list[int] = []
    for claim in claims:
        removed += [n for n in keep_given(claim.numbers, len(given))[1] if n not in removed]
    claims, screened = screen_claims(claims, given)
    dropped += screened
    table = title_only_unsupported(score_against_sources([c.text for c in claims], given), given)
    prepared = prepare(given)
    checked: list[Checked] = []
    for claim, scores in zip(claims, table, strict=True):
        result = check_claim(claim, scores, given, prepared, usage, judge)
        if isinstance(result, DroppedSentence):
            dropped.append(result)
        else:
            checked.append(result)
    return _assemble(topic, checked, dropped, removed, reply, usage)


def check_each(
    claims: Sequence[Claim],
    given: Sequence[Paper],
    prepared: Sequence[CitedText] | None = None,
    shown: Sequence[Claim] = (),
) -> list[Checked | DroppedSentence]:
    """Each claim's verdict, in order, under the screen and the answer policy a model's reply goes through: the
    sentences rag writes itself (rag.writing.extractive_draft) are held to the same check.

    They are built from the papers they cite, so each is scored against those papers only: the label is the
    one a model's sentence citing them would get, but such a sentence is never attributed to another paper (it
    is replaced instead). ``shown``: sentences already accepted, which a claim must not repeat; ``prepared``:
    ``prepare(given)``, when the caller checks several batches."""
    kept, screened = screen_claims([*shown, *claims], given)
    kept = [c for c in kept if any(c is claim for claim in claims)]
    reasons = {d.text: d for d in screened}
    prepared = prepare(given) if prepared is None else prepared
    usage = Usage()
    verdicts: dict[int, Checked | DroppedSentence] = {}
    for claim in kept:
        cited = [n for n in dict.fromkeys(claim.numbers) if 1 <= n <= len(given)]
        scores = [_NO_EVIDENCE] * len(given)
        for n, score in zip(cited, score_against_sources([claim.text], [given[n - 1] for n in cited])[0], strict=True):
            scores[n - 1] = _NO_EVIDENCE if given[n - 1].no_abstract else score
        verdicts[id(claim)] = check_claim(claim, scores, given, prepared, usage)
    return [verdicts[id(c)] if id(c) in verdicts else reasons[with_citations(c.text, c.numbers)] for c in claims]


def _assemble(
    topic: str,
    checked: list[Checked],
    dropped: list[DroppedSentence],
    removed: list[int],
    reply: Completion,
    usage: Usage,
) -> Answer:
    """Renumber by first appearance and write the text: sentences in their paragraphs, citations at their ends."""
    order: dict[str, int] = {}
    papers: list[Paper] = []
    for item in checked:
        for paper in item.papers:
            if paper.id not in order:
                order[paper.id] = len(papers) + 1
                papers.append(paper)
    paragraphs: dict[int, list[str]] = {}
    for item in checked:
        numbers = [order[p.id] for p in item.papers]
        old_to_new = dict(zip(item.sentence.citations, numbers, strict=True))
        if item.sentence.evidence is not None:
            item.sentence.evidence.source = old_to_new[item.sentence.evidence.source]
        if item.sentence.subject_source is not None:
            item.sentence.subject_source = old_to_new[item.sentence.subject_source]
        item.sentence.citations = numbers
        item.sentence.text = with_citations(item.sentence.text, numbers)
        paragraphs.setdefault(item.paragraph, []).append(item.sentence.text)
    text = "\n\n".join(" ".join(sentences) for _, sentences in sorted(paragraphs.items()))
    notes = []
    if reply.stopped:
        notes.append(f"stopped reading the model's answer early ({reply.stopped}: it wrote the same sentence again)")
    return Answer(
        topic,
        text,
        AnswerMode.LLM,
        [Citation(n, paper) for n, paper in enumerate(papers, start=1)],
        sentences=[item.sentence for item in checked],
        removed_citations=removed,
        usage=usage,
        dropped=dropped,
        notes=notes,
        model_text=reply.text,
    )


def has_supported_sentence(answer: Answer) -> bool:
    """At least one shown sentence carries the top label: the answer may be shown as a cited answer."""
    return any(s.support is not None and s.support.is_top for s in answer.sentences)
