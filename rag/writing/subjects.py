"""Vague subjects: "The paper also explores ..." names no paper. In a sentence citing one source the subject is
shown with that source's author and year ("The paper (Hazra, 2021) also explores ..."); LaTeX and Pandoc put
the citation itself there instead (``cited_subjects``), so no reader meets a bare "The paper".
"""

from __future__ import annotations

import re

from rag.records import Paper
from rag.writing.answer import Answer
from rag.writing.sources import author_year

# "The paper", "this work", "the authors", "the study", ... as the subject a reader cannot place.
VAGUE_SUBJECT = re.compile(
    r"\b(?:the|this|that|these|its|their)\s+(?:paper|work|study|article|authors?|researchers)"
    r"\b(?!\s*\()",
    re.IGNORECASE,
)


def name_vague_subject(text: str, paper: Paper) -> tuple[str, str | None]:
    """``text`` with its first vague subject followed by " (Author, Year)" of ``paper``, and what was inserted
    (None when the sentence has no vague subject or the paper has neither author nor year)."""
    match = VAGUE_SUBJECT.search(text)
    label = author_year(paper) or (paper.title or "")
    if match is None or not label:
        return text, None
    inserted = f" ({label})"
    return text[: match.end()] + inserted + text[match.end() :], inserted


def cited_subjects(answer: Answer) -> str:
    """The answer's text with each named vague subject citing its source instead: "The paper [1] also ..."
    (what LaTeX and Pandoc turn into their own citations)."""
    text = answer.text
    for sentence in answer.sentences:
        if sentence.subject is not None and sentence.subject_source is not None:
            text = text.replace(sentence.subject, f" [{sentence.subject_source}]", 1)
    return text
