"""Manuscripts as their authors wrote them: LaTeX and Pandoc/Quarto Markdown read into citing sentences.

Pure functions over text (no library, no model): each sentence that cites something, with every key it
cites and where (file, line, column). ``rag.writing.manuscript_check`` checks them against the library.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "Context": "rag.manuscripts.citing",
    "Manuscript": "rag.manuscripts.citing",
    "read_latex": "rag.manuscripts.latex",
    "read_pandoc": "rag.manuscripts.pandoc",
    "ManuscriptFormat": "rag.manuscripts.reading",
    "guess_format": "rag.manuscripts.reading",
    "read_file": "rag.manuscripts.reading",
    "read_path": "rag.manuscripts.reading",
    "read_text": "rag.manuscripts.reading",
    "split_sentences": "rag.manuscripts.sentences",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
