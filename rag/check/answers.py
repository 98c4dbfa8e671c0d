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

from rag.check.claims import Claim, keep_given, with_citations
from rag.check.model_judge import judge_with_model
from rag.check.policy import ANSWER, conflict_of
from rag.check.reading import CitedText, Reading, describe, prepare, read_against
from rag.check.replies import read_claims
from rag.check.scoring import NO_EVIDENCE, SourceScore, score_against_group, score_against_sources
from rag.check.screen import screen_claims, title_only_unsupported
from rag.check.sentences import Answer, AnswerMode, Citation, CitedSentence, DroppedSentence, Evidence, Support
from rag.check.subjects import name_vague_subject
from rag.llm.types import ChatModel, Completion, Usage
from rag.records import Paper

CUT_OFF = "cut off when rag stopped the looping model"
UNSUPPORTED = "no given source supports it"
UNSTATED = "states a number or name its sources do not"
REVERSED = "says the opposite of its source"
SHOWN = (Support.SUPPORTED, Support.EVIDENCE, Support.WEAK, Support.CONTRADICTED)


@dataclass
class Checked:
    sentence: CitedSentence
    paragraph: int
    papers: list[Paper]  # what sentence.citations will point at once renumbered


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
    conflict = judge is None and conflict_of(best, reading, claim.text)
    support = ANSWER.label(support, reading, conflict)  # the answer policy: what the sentence states decides
    if ANSWER.reversals(reading):  # it says the opposite of what it cites: never shown, even marked
        return DroppedSentence(with_citations(claim.text, cited), REVERSED, why)
    attributed = False
    if support in (Support.UNCITED, Support.UNSUPPORTED, Support.WEAK):
        # The model cited nothing, or a source that does not back the sentence: find the one that does.
        top = max(range(len(given)), key=lambda j: scores[j].score)
        candidate = scores[top].support.is_top and top + 1 not in cited
        there, findings = _read(claim.text, [top + 1], prepared) if candidate else (None, "")
        if there is not None and not findings:
            confirmed = scores[top].support
            if judge is not None:  # --verify llm: the judge has the last word on the new citation too
                confirmed = judge_with_model(claim.text, [(top + 1, given[top])], judge, usage)
            if confirmed.is_top:
                cited, support, best, best_n, attributed = [top + 1], confirmed, scores[top], top + 1, True
                why, conflict = "", judge is None and conflict_of(best, there, claim.text)
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
        conflict=conflict,
        subject=subject,
        subject_source=named_n if subject else None,
    )
    return Checked(sentence, claim.paragraph, [given[n - 1] for n in cited])


@dataclass
class ClaimChecks:
    """Each claim's result, in order (shown, or dropped with why), and the screen's drops by claim (``id``), in
    the order it made them."""

    results: list[Checked | DroppedSentence]
    screened: dict[int, DroppedSentence]


def check_claims(
    claims: Sequence[Claim],
    given: Sequence[Paper],
    *,
    shown: Sequence[Claim] = (),
    prepared: Sequence[CitedText] | None = None,
    judge: ChatModel | None = None,
    usage: Usage | None = None,
    attribute: bool = True,
) -> ClaimChecks:
    """The check's order, written once for a model's reply, the streamed preview and the sentences rag writes
    itself: the screen (fragments, titles, repeats of ``shown`` or of each other), the support scores, then each
    claim labelled under the answer policy.

    ``attribute``: each claim is scored against every given source, so one its citation does not back may be
    attributed to the source that does; else against the sources it cites only (rag's own sentences are built
    from the papers they cite: such a sentence is replaced, never attributed to another paper). ``prepared``:
    ``prepare(given)``, when the caller checks several batches."""
    kept, screened = screen_claims([*shown, *claims], given)
    mine = {id(c) for c in claims}
    kept = [c for c in kept if id(c) in mine]
    prepared = prepare(given) if prepared is None else prepared
    usage = Usage() if usage is None else usage
    table = _scores(kept, given, attribute)
    verdicts = {id(c): check_claim(c, row, given, prepared, usage, judge) for c, row in zip(kept, table, strict=True)}
    return ClaimChecks([verdicts.get(id(c)) or screened[id(c)] for c in claims], screened)


def _scores(claims: Sequence[Claim], given: Sequence[Paper], attribute: bool) -> list[list[SourceScore]]:
    """Each claim against every given source, or (not ``attribute``) against those it cites (the rest: no
    evidence); a source known by its title alone backs nothing."""
    if attribute:
        return title_only_unsupported(score_against_sources([c.text for c in claims], given), given)
    table = []
    for claim in claims:
        cited = [n for n in dict.fromkeys(claim.numbers) if 1 <= n <= len(given)]
        row = [NO_EVIDENCE] * len(given)
        for n, score in zip(cited, score_against_sources([claim.text], [given[n - 1] for n in cited])[0], strict=True):
            row[n - 1] = NO_EVIDENCE if given[n - 1].no_abstract else score
        table.append(row)
    return table


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
    checks = check_claims(claims, given, judge=judge, usage=usage)
    dropped += checks.screened.values()
    dropped += [
        r
        for c, r in zip(claims, checks.results, strict=True)
        if id(c) not in checks.screened and isinstance(r, DroppedSentence)
    ]
    checked = [r for r in checks.results if isinstance(r, Checked)]
    return _assemble(topic, checked, dropped, removed, reply, usage)


def check_each(
    claims: Sequence[Claim],
    given: Sequence[Paper],
    prepared: Sequence[CitedText] | None = None,
    shown: Sequence[Claim] = (),
) -> list[Checked | DroppedSentence]:
    """Each claim's verdict, in order, under the screen and the answer policy a model's reply goes through: the
    sentences rag writes itself (rag.writing.extractive_draft) are held to the same check, each scored against
    the papers it cites only. ``shown``: sentences already accepted, which a claim must not repeat."""
    return check_claims(claims, given, shown=shown, prepared=prepared, attribute=False).results


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
