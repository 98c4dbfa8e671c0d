"""Cited text: extractive answers, model-written answers, summaries and drafts, the citation
protocol, support checks and outlines. Writing them out as LaTeX, Pandoc or BibTeX is rag.formats.

May import: rag.records, rag.errors, rag.config, rag.text, rag.corpus.identity, rag.llm, rag.embed.
Never the index: it is given hits and papers.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "best_aligned": "rag.writing.alignment",
    "changes": "rag.writing.alignment",
    "content_words": "rag.writing.alignment",
    "windows": "rag.writing.alignment",
    "Answer": "rag.writing.answer",
    "AnswerMode": "rag.writing.answer",
    "Citation": "rag.writing.answer",
    "CitedSentence": "rag.writing.answer",
    "Support": "rag.writing.answer",
    "REVERSED": "rag.writing.checking",
    "UNSTATED": "rag.writing.checking",
    "check_reply": "rag.writing.checking",
    "CITATION_GROUP": "rag.writing.citations",
    "expand": "rag.writing.citations",
    "split_cited_sentences": "rag.writing.citations",
    "first_occurrences": "rag.writing.degenerate",
    "fragment_reason": "rag.writing.degenerate",
    "restates_title": "rag.writing.degenerate",
    "FindingKind": "rag.writing.discrepancies",
    "NumberTable": "rag.writing.discrepancies",
    "SourceFacts": "rag.writing.discrepancies",
    "missing_facts": "rag.writing.discrepancies",
    "name_mentions": "rag.writing.discrepancies",
    "numbers_in": "rag.writing.discrepancies",
    "leans_back": "rag.writing.evidence_sentences",
    "self_standing": "rag.writing.evidence_sentences",
    "extractive_answer": "rag.writing.extractive",
    "Composer": "rag.writing.generation",
    "mark_in_text": "rag.writing.in_text",
    "split_marked": "rag.writing.in_text",
    "group_papers": "rag.writing.outline",
    "theme_names": "rag.writing.outline",
    "source_block": "rag.writing.sources",
    "sources_text": "rag.writing.sources",
    "parse_structured": "rag.writing.structured",
    "name_vague_subject": "rag.writing.subjects",
    "SupportLabel": "rag.writing.support_check",
    "load_support_model": "rag.writing.support_check",
    "theme_sentences": "rag.writing.theme_sentence",
    "score_against_group": "rag.writing.verification",
    "Voice": "rag.writing.voice",
    "in_text_label": "rag.writing.voice",
    "third_person": "rag.writing.voice",
    "turn": "rag.writing.voice",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
