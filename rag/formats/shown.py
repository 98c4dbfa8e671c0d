"""An answer, summary or draft as the terminal shows it: the text with each checked sentence's marks ("(weak
support)", "†", "(contradicted by [2])"), the quotes under it, the references, what the check did, the usage.

Lines of styled pieces, the style named, not applied: the CLI colours them (rag.cli.render) and `rag log`
keeps their text, so `rag log show N` prints what the reader saw. Untrusted text is made printable here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rag.check.sentences import Answer, AnswerMode, CitedSentence, Support
from rag.check.sources import author_year
from rag.formats.markdown import reference
from rag.records import Paper
from rag.text import printable

ATTRIBUTED_MARK = "†"
# Style names the CLI maps to colours.
DIM, BOLD, WARN, ALERT, MARK = "dim", "bold", "warn", "alert", "mark"
_SENTENCE_STYLE = {Support.WEAK: WARN, Support.CONTRADICTED: ALERT}
# Papers found but not cited, named under the text: why, as each kind of text leaves them out.
_UNCITED_NOTE = {
    AnswerMode.LLM: "relevant but not cited",
    AnswerMode.PROSE: "also found, not in the paragraphs (no sentence of theirs fits the topic and passes the check)",
}
ALSO_FOUND = "also found (no quote of theirs answers this)"
ATTRIBUTED_NOTE = "citation added by rag: the model cited no source that backs it"
EXTRACTIVE_NOTE = "(extractive answer: quoted from the papers found, no language model)"
# Texts whose sentences were each checked (and marked as the check found them): a model's, or the extractive
# paragraphs; and texts whose notes only describe them (an outline's, the paragraphs'), never warnings.
_CHECKED = (AnswerMode.LLM, AnswerMode.PROSE)
_DESCRIBED = (AnswerMode.OUTLINE, AnswerMode.PROSE)


@dataclass(frozen=True)
class Piece:
    text: str
    style: str = ""


Line = list[Piece]


def plain(lines: list[Line]) -> str:
    """The lines as the reader read them, without colour."""
    return "\n".join("".join(piece.text for piece in line) for line in lines)


def reference_pieces(paper: Paper) -> Line:
    return [Piece(printable(reference(paper))), Piece(f"  [{printable(paper.citekey)}]", DIM)]


def related_line(papers: list[Paper]) -> str:
    """Title-only papers, named but never quoted: 'Title (Author, Year); ...'."""
    return "; ".join(
        printable(f"{p.display_title} ({author_year(p)})" if author_year(p) else p.display_title) for p in papers
    )


def _sentence(sentence: CitedSentence) -> Line:
    """One checked sentence, with what the check found written beside it."""
    pieces = [Piece(printable(sentence.text), _SENTENCE_STYLE.get(sentence.support or Support.SUPPORTED, ""))]
    if sentence.attributed:
        pieces.append(Piece(ATTRIBUTED_MARK, MARK))
    if sentence.support is Support.WEAK:
        pieces.append(Piece(" (weak support)", WARN))
    if sentence.support is Support.CONTRADICTED:
        cited = "".join(f"[{n}]" for n in sentence.citations)
        pieces.append(Piece(f" (contradicted by {cited})", ALERT))
    if sentence.conflict:
        pieces.append(Piece(" (its source may say otherwise)", WARN))
    return pieces


def marked_text(answer: Answer) -> list[Line]:
    """The answer's paragraphs (a blank line between them), each checked sentence written with its marks."""
    lines: list[Line] = []
    pending = list(answer.sentences)
    for number, paragraph in enumerate(answer.text.split("\n\n")):
        if number:
            lines.append([])
        line: Line = []
        cursor = 0
        while pending and (at := paragraph.find(pending[0].text, cursor)) >= 0:
            line.append(Piece(printable(paragraph[cursor:at])))
            line += _sentence(pending[0])
            cursor = at + len(pending.pop(0).text)
        line.append(Piece(printable(paragraph[cursor:])))
        lines.append(line)
    return lines


def evidence_lines(answer: Answer) -> list[Line]:
    """For each cited sentence, the source sentence that backs it best: a claim checked in one glance."""
    shown = [s for s in answer.sentences if s.evidence is not None]
    if not shown:
        return []
    lines: list[Line] = [[], [Piece("Evidence", BOLD)]]
    for sentence in shown:
        assert sentence.evidence is not None
        lines.append([Piece(f"- {printable(sentence.text)}", DIM)])
        lines.append([Piece(f"  [{sentence.evidence.source}] “{printable(sentence.evidence.text)}”")])
    return lines


def check_lines(answer: Answer, notes: bool = True) -> list[Line]:
    """What the citation check did: removed citations, dropped and marked sentences, uncited papers."""
    lines: list[Line] = []
    if answer.removed_citations:
        numbers = ", ".join(f"[{n}]" for n in answer.removed_citations)
        lines.append([Piece(f"removed citations to sources that were not given: {numbers}", WARN)])
    for note in answer.notes if notes else []:
        lines.append([Piece(printable(note), DIM if answer.mode in _DESCRIBED else WARN)])
    if answer.mode in _CHECKED and answer.sentences:
        labels = (Support.SUPPORTED, Support.EVIDENCE, Support.WEAK, Support.CONTRADICTED)
        counts = {label: sum(1 for s in answer.sentences if s.support is label) for label in labels}
        summary = ", ".join(f"{count} {label.value.replace('_', ' ')}" for label, count in counts.items() if count)
        lines.append([Piece(f"citation check: {len(answer.sentences)} sentences shown: {summary}", DIM)])
        if any(s.attributed for s in answer.sentences):
            lines.append([Piece(f"{ATTRIBUTED_MARK} {ATTRIBUTED_NOTE}", DIM)])
    if answer.dropped:
        reasons = Counter(d.reason for d in answer.dropped)
        detail = "; ".join(f"{count} {reason}" for reason, count in reasons.items())
        lines.append([Piece(f"dropped {len(answer.dropped)} sentences the reader should not see ({detail})", WARN)])
    if answer.uncited:
        titles = "; ".join(printable(p.display_title) for p in answer.uncited)
        found = _UNCITED_NOTE.get(answer.mode, ALSO_FOUND)
        lines.append([Piece(f"{found}: {titles}", DIM)])
    if answer.related:
        lines.append([Piece(f"related, no abstract: {related_line(answer.related)}", DIM)])
    return lines


def usage_lines(answer: Answer) -> list[Line]:
    usage = answer.usage
    if usage is None:
        return []
    tokens = f"{usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens"
    if usage.estimated:
        tokens += " (estimated)"
    price = "cost unknown (set RAG_LLM_PRICES)" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    cached = f", {usage.cached_calls} of {usage.calls} calls from cache" if usage.cached_calls else ""
    return [[Piece(f"{answer.model}: {tokens}, {price}{cached}", DIM)]]


def answer_lines(answer: Answer, evidence: bool = False) -> list[Line]:
    """The whole answer as shown: notes of an outline, the text, quotes, references, evidence, checks, usage."""
    outline = answer.mode is AnswerMode.OUTLINE
    lines: list[Line] = [[Piece(printable(note), DIM)] for note in (answer.notes if outline else [])]
    if answer.mode in _CHECKED:
        lines += marked_text(answer)
    else:
        style = WARN if answer.mode is AnswerMode.INSUFFICIENT else ""
        lines += [[Piece(printable(line), style)] for line in answer.text.split("\n")]
    if answer.more_from_papers:
        lines += [[], [Piece("More from the papers", BOLD)]]
        lines += [[Piece(printable(line))] for line in answer.more_from_papers]
    cited = [*answer.citations, *answer.more_citations]
    if cited:
        lines += [[], [Piece("References", BOLD)]]
        lines += [[Piece(f"[{c.n}] "), *reference_pieces(c.paper)] for c in cited]
    if evidence:
        lines += evidence_lines(answer)
    lines += check_lines(answer, notes=not outline)
    if answer.mode is AnswerMode.EXTRACTIVE and answer.model_text is None:
        lines.append([Piece(EXTRACTIVE_NOTE, DIM)])
    return lines + usage_lines(answer)
