"""Cited text as Markdown: the answer with its ``[n]`` as written, then a numbered reference list."""

from __future__ import annotations

from rag.records import Paper
from rag.writing.answer import Answer


def reference(paper: Paper) -> str:
    """How a cited paper is named under an answer: title, first author, year, arXiv id (what is known)."""
    parts = [paper.display_title]
    if paper.first_author:
        parts.append(paper.first_author)
    if paper.year:
        parts.append(str(paper.year))
    if paper.arxiv:
        parts.append(f"arXiv:{paper.arxiv}")
    return ", ".join(parts)


def to_markdown(answer: Answer) -> str:
    if not answer.citations:
        return answer.text
    references = (f"[{c.n}] {reference(c.paper)} [{c.paper.citekey}]" for c in answer.citations)
    return "\n".join([answer.text, "", "References", "", *(f"- {line}" for line in references)])
