"""Vague subjects: "The paper also explores ..." names no paper. In a sentence citing one source the subject is
shown with that source's author and year ("The paper (Hazra, 2021) also explores ..."); LaTeX and Pandoc put
the citation itself there instead (``cited_subjects``), so no reader meets a bare "The paper".
"""

from __future__ import annotations

import re

from rag.check.sentences import Answer
from rag.check.sources import author_year
from rag.corpus.identity import surname
from rag.records import Paper

# "The paper", "this work", "the authors", "the study", ... as the subject a reader cannot place.
VAGUE_SUBJECT = re.compile(
    r"\b(?:the|this|that|these|its|their)\s+(?:paper|work|study|article|authors?|researchers)"
    r"\b(?!\s*\()",
    re.IGNORECASE,
)


# A quotation: the source's words as it wrote them, never edited.
_QUOTATION = re.compile(r"“[^”]*”")


def name_vague_subject(text: str, paper: Paper) -> tuple[str, str | None]:
    """``text`` with its first vague subject followed by " (Author, Year)" of ``paper``, and what was inserted
    (None when the sentence has no vague subject outside a quotation, already names the paper by its first
    author and year, or the paper has neither author nor year)."""
    quoted = [m.span() for m in _QUOTATION.finditer(text)]
    found = (m for m in VAGUE_SUBJECT.finditer(text) if not any(a <= m.start() < b for a, b in quoted))
    match = next(found, None)
    label = author_year(paper) or (paper.title or "")
    if match is None or not label or _names(text, paper):
        return text, None
    inserted = f" ({label})"
    return text[: match.end()] + inserted + text[match.end() :], inserted


def _names(text: str, paper: Paper) -> bool:
    """The sentence names ``paper`` itself ("Hazra et al. (2021) ... their work"): nothing vague to name."""
    who = surname(paper.first_author) if paper.first_author else ""
    return bool(who) and re.search(rf"\b{re.escape(who)}\b", text) is not None and str(paper.year or "") in text


def cited_subjects(answer: Answer) -> str:
    """The answer's text with each named vague subject citing its source instead: "The paper [1] also ..."
    (what LaTeX and Pandoc turn into their own citations)."""
    text = answer.text
    for sentence in answer.sentences:
        if sentence.subject is not None and sentence.subject_source is not None:
            text = text.replace(sentence.subject, f" [{sentence.subject_source}]", 1)
    return text
