"""What each MCP tool returns: the ``--json`` contracts of DESIGN.md as plain dicts, and a short text for people.

The dicts are the CLI's own (rag.services.contracts), so a client that reads
``rag search --json`` reads the ``search`` tool the same way.
"""

from __future__ import annotations

from typing import Any

from rag.check.sentences import Answer, AnswerMode
from rag.check.verdicts import finding
from rag.formats.details import abstract_lines, detail_rows
from rag.formats.markdown import reference
from rag.records import Paper
from rag.services import contracts
from rag.services.results import CheckReport, Collections, PaperView, SearchResult
from rag.text import printable

# A search hit's text in the readable rendering; the structured result has all of it.
SNIPPET_CHARS = 240


# --- structured results: the same fields as `rag ... --json` (rag.services.contracts) ---

search_payload = contracts.search_json
answer_payload = contracts.answer_json
show_payload = contracts.show_json
collections_payload = contracts.collections_json
check_payload = contracts.check_json


def bibtex_payload(entries: list[tuple[Paper, str]], unknown: list[str]) -> dict[str, Any]:
    """No CLI counterpart (``rag export`` prints the whole library): one entry per paper, all of them joined,
    and the keys asked for that no paper has."""
    return {
        "entries": [{"citekey": p.citekey, "id": p.id, "bibtex": entry} for p, entry in entries],
        "bibtex": "\n\n".join(entry for _, entry in entries) + "\n",
        "unknown": unknown,
    }


def bibtex_text(payload: dict[str, Any]) -> str:
    """The entries, with a note naming the keys that have none (the search tool finds the right ones)."""
    unknown = payload["unknown"]
    if not unknown:
        return str(payload["bibtex"])
    note = f"% no paper with citekey {', '.join(unknown)}: the search tool finds papers and their citekeys\n"
    return note + str(payload["bibtex"])


# --- readable renderings: what a client shows a person, and what a model reads first ---


clean = printable


def _short(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def reference_line(paper: Paper) -> str:
    return clean(f"{reference(paper)}  [{paper.citekey}]")


def search_text(result: SearchResult) -> str:
    if not result.hits:
        return clean(f"No papers match '{result.query}'.")
    lines = []
    for hit in result.hits:
        paper = hit.paper
        lines.append(clean(f"{hit.rank}. {paper.display_title} ({paper.year or 'n.d.'}) [{paper.citekey}]"))
        body = f"{hit.passage.where}: {hit.passage.text}" if hit.passage is not None else paper.text
        lines.append(f"   {_short(body)}")
        lines.append(clean(f"   sources: {', '.join(paper.sources)}  score {hit.score:.3f}"))
    return "\n".join(lines)


def answer_text(answer: Answer) -> str:
    lines = [clean(answer.text)]
    if answer.citations:
        lines += ["", "References", *(f"[{c.n}] {reference_line(c.paper)}" for c in answer.citations)]
    lines += [clean(note) for note in answer.notes]
    if answer.removed_citations:
        lines.append("removed invented citations: " + ", ".join(f"[{n}]" for n in answer.removed_citations))
    if answer.mode is AnswerMode.EXTRACTIVE and answer.model_text is None:
        lines.append("(extractive answer: quoted from the papers found, no language model)")
    return "\n".join(lines)


def show_text(view: PaperView) -> str:
    paper = view.paper
    lines = [
        paper.display_title,
        *(f"{label}: {value}" for label, value in detail_rows(paper)),
        *(f"related to: {s.subject}" for s in view.lists),
        "",
        *abstract_lines(paper),
    ]
    if paper.passages:
        lines.append(f"full text: {len(paper.passages)} passages (in the structured result)")
    return clean("\n".join(lines))


def collections_text(found: Collections) -> str:
    if not found.collections:
        return "No libraries yet: the first search indexes the bundled corpus into 'papers'."
    lines = []
    for info in found.collections:
        papers = "?" if info.papers is None else str(info.papers)
        vectors = "?" if info.vectors is None else str(info.vectors)
        lines.append(clean(f"{info.name}: {papers} papers, {vectors} vectors, model {info.model or 'none'}"))
    return "\n".join(lines)


def check_text(report: CheckReport) -> str:
    """The problems as `rag check` prints them (notes are counted, not listed), then the summary."""
    lines = [finding(c) for c in report.problems]
    lines += [clean(warning) for warning in report.warnings]
    return "\n".join([*lines, report.summary_line()])
