"""Cited text as Markdown: the answer with its ``[n]`` as written, then a numbered reference list."""

from __future__ import annotations

from rag.check.sentences import Answer
from rag.records import Paper

# Said wherever a retracted work is named (references of answers, drafts, the MCP tools).
RETRACTED_MARK = "[RETRACTED]"


def reference(paper: Paper) -> str:
    """How a cited paper is named under an answer: title, first author, year, arXiv id (what is known)."""
    parts = [paper.display_title]
    if paper.first_author:
        parts.append(paper.first_author)
    if paper.year:
        parts.append(str(paper.year))
    if paper.arxiv:
        parts.append(f"arXiv:{paper.arxiv}")
    return ", ".join(parts) + (f" {RETRACTED_MARK}" if paper.retracted else "")


def to_markdown(answer: Answer) -> str:
    """The text, the quotes shown under it, the numbered references, then title-only papers named as related."""
    lines = [answer.text]
    if answer.more_from_papers:
        lines += ["", "More from the papers", "", *answer.more_from_papers]
    cited = [*answer.citations, *answer.more_citations]
    if cited:
        references = (f"[{c.n}] {reference(c.paper)} [{c.paper.citekey}]" for c in cited)
        lines += ["", "References", "", *(f"- {line}" for line in references)]
    if answer.related:
        lines += ["", "Related, no abstract", "", *(f"- {reference(p)} [{p.citekey}]" for p in answer.related)]
    return "\n".join(lines)
