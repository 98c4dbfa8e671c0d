"""What each MCP tool returns: the ``--json`` contracts of DESIGN.md as plain dicts, and a short text for people.

The dict shapes are the CLI's (rag/cli/json_output.py), field for field, so a client
that reads ``rag search --json`` reads the ``search`` tool the same way. They are
built here again rather than imported because the layers forbid mcp_server to
import rag.cli; tests/test_mcp.py compares the two so they cannot drift apart.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict
from typing import Any

from rag.records import Hit, Paper
from rag.services.results import Collections, PaperView, SearchResult
from rag.writing.answer import Answer, AnswerMode, CitedSentence

# A search hit's text in the readable rendering; the structured result has all of it.
SNIPPET_CHARS = 240


# --- structured results: the same fields as `rag ... --json` ---


def hit_payload(hit: Hit) -> dict[str, Any]:
    paper = hit.paper
    return {
        "id": paper.id,
        "rank": hit.rank,
        "score": hit.score,
        # Cosine similarity of query and paper: comparable across queries, unlike the per-query fused score.
        "relevance": hit.dense,
        "title": paper.title,
        "year": paper.year,
        "citekey": paper.citekey,
        "text": paper.text,
        "sources": paper.sources,
        # The full-text passage that matched best, when it beat the abstract (PDFs ingested with full text).
        "passage": asdict(hit.passage) if hit.passage else None,
    }


def search_payload(result: SearchResult) -> dict[str, Any]:
    return {"query": result.query, "hits": [hit_payload(h) for h in result.hits]}


def _sentence_payload(answer: Answer, sentence: CitedSentence) -> dict[str, Any]:
    evidence = sentence.evidence
    papers = {c.n: c.paper for c in answer.citations}
    return {
        "text": sentence.text,
        "citations": sentence.citations,
        "support": sentence.support.value if sentence.support else None,
        "score": sentence.score,
        # rag added the citation: the model gave none, or one that does not back the sentence.
        "attributed": sentence.attributed,
        "evidence": None
        if evidence is None
        else {
            "n": evidence.source,
            "id": papers[evidence.source].id if evidence.source in papers else None,
            "position": evidence.position,
            "text": evidence.text,
        },
        "ungrounded": sentence.ungrounded,
        "conflict": sentence.conflict,
    }


def answer_payload(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "answer": answer.text,
        "mode": answer.mode.value,
        "citations": [
            {
                "n": c.n,
                "id": c.paper.id,
                "title": c.paper.title,
                "citekey": c.paper.citekey,
                "first_author": c.paper.first_author,
                "year": c.paper.year,
                "arxiv": c.paper.arxiv,
                "sources": c.paper.sources,
            }
            for c in answer.citations
        ],
        "hits": [hit_payload(h) for h in answer.hits],
        "sentences": [_sentence_payload(answer, s) for s in answer.sentences],
        "removed_citations": answer.removed_citations,
        "dropped_sentences": [{"text": d.text, "reason": d.reason} for d in answer.dropped],
        "notes": answer.notes,
        "uncited": [{"id": p.id, "title": p.title, "citekey": p.citekey} for p in answer.uncited],
        "model": answer.model,
        "model_text": answer.model_text,
        "usage": asdict(answer.usage) if answer.usage else None,
    }


def show_payload(view: PaperView) -> dict[str, Any]:
    return {**view.paper.to_dict(), "list_subjects": {s.file: s.subject for s in view.lists}}


def collections_payload(found: Collections) -> dict[str, Any]:
    return {"collections": [asdict(info) for info in found.collections]}


def bibtex_payload(entries: list[tuple[Paper, str]]) -> dict[str, Any]:
    """No CLI counterpart (``rag export`` prints the whole library): one entry per paper, and all of them joined."""
    return {
        "entries": [{"citekey": p.citekey, "id": p.id, "bibtex": entry} for p, entry in entries],
        "bibtex": "\n\n".join(entry for _, entry in entries) + "\n",
    }


# --- readable renderings: what a client shows a person, and what a model reads first ---


def clean(text: str) -> str:
    """Control and format characters dropped (an abstract is data, not terminal codes), newlines kept."""
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf"))


def _short(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def reference_line(paper: Paper) -> str:
    parts = [paper.display_title]
    if paper.first_author:
        parts.append(paper.first_author)
    if paper.year:
        parts.append(str(paper.year))
    if paper.arxiv:
        parts.append(f"arXiv:{paper.arxiv}")
    return clean(f"{', '.join(parts)}  [{paper.citekey}]")


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
        f"id: {paper.id}",
        f"citekey: {paper.citekey}",
        f"authors: {'; '.join(paper.authors) or 'unknown'}",
        f"year: {paper.year or 'unknown'}",
        f"arXiv: {paper.arxiv or 'unknown'}",
        f"sources: {', '.join(paper.sources)}",
        *(f"related to: {s.subject}" for s in view.lists),
        "",
        paper.text,
    ]
    if paper.truncated:
        lines.append("(abstract cut short in the source)")
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
