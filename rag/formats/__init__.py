"""Output formats: cited text as a document (Markdown, LaTeX, Pandoc) and papers as a bibliography
(BibTeX, CSL JSON, JSONL), each a converter and one entry in a table (rag.formats.registry).

May import: rag.writing (the cited answer it converts), rag.records and below. Never the index.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "bibtex_entry": "rag.formats.bibtex",
    "csl_item": "rag.formats.csl",
    "csl_json": "rag.formats.csl",
    "csl_name": "rag.formats.csl",
    "csl_type": "rag.formats.csl",
    "NO_ABSTRACT": "rag.formats.details",
    "where_published": "rag.formats.details",
    "latex_escape": "rag.formats.latex",
    "to_latex": "rag.formats.latex",
    "to_markdown": "rag.formats.markdown",
    "to_pandoc": "rag.formats.pandoc",
    "BIBLIOGRAPHIES": "rag.formats.registry",
    "DOCUMENTS": "rag.formats.registry",
    "bibliography_for": "rag.formats.registry",
    "document_format": "rag.formats.registry",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
