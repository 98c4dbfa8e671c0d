"""Cited text: extractive answers, model-written answers, summaries and drafts, and outlines; every sentence
goes through the citation check (rag.check). Writing them out as LaTeX, Pandoc or BibTeX is rag.formats.

May import: rag.records, rag.errors, rag.config, rag.text, rag.corpus.identity, rag.llm, rag.embed, rag.check.
Never the index: it is given hits and papers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.writing.evidence_sentences import is_evidence as is_evidence
    from rag.writing.evidence_sentences import related_without_abstract as related_without_abstract
    from rag.writing.extractive import extractive_answer as extractive_answer
    from rag.writing.extractive import refusal as refusal
    from rag.writing.extractive_draft import prose_or_outline as prose_or_outline
    from rag.writing.findings import Said as Said
    from rag.writing.findings import slots as slots
    from rag.writing.generation import Composer as Composer
    from rag.writing.generation import GenerationOptions as GenerationOptions
    from rag.writing.in_text import mark_in_text as mark_in_text
    from rag.writing.in_text import split_marked as split_marked
    from rag.writing.outline import THEMES_PER_SQRT_HALF as THEMES_PER_SQRT_HALF
    from rag.writing.outline import group_papers as group_papers
    from rag.writing.outline import theme_names as theme_names
    from rag.writing.standing_alone import leans_back as leans_back
    from rag.writing.standing_alone import self_standing as self_standing
    from rag.writing.voice import Voice as Voice
    from rag.writing.voice import in_text_label as in_text_label
    from rag.writing.voice import third_person as third_person
    from rag.writing.voice import turn as turn

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
