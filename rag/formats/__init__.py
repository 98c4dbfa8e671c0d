"""Output formats: cited text as a document (Markdown, LaTeX, Pandoc) and papers as a bibliography
(BibTeX, CSL JSON, JSONL), each a converter and one entry in a table (rag.formats.registry).

May import: rag.writing (the cited answer it converts), rag.records and below. Never the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.formats.bibtex import bibtex_entry as bibtex_entry
    from rag.formats.csl import csl_item as csl_item
    from rag.formats.csl import csl_json as csl_json
    from rag.formats.csl import csl_name as csl_name
    from rag.formats.csl import csl_type as csl_type
    from rag.formats.details import NO_ABSTRACT as NO_ABSTRACT
    from rag.formats.details import abstract_lines as abstract_lines
    from rag.formats.details import detail_rows as detail_rows
    from rag.formats.details import where_published as where_published
    from rag.formats.latex import latex_escape as latex_escape
    from rag.formats.latex import to_latex as to_latex
    from rag.formats.markdown import reference as reference
    from rag.formats.markdown import to_markdown as to_markdown
    from rag.formats.pandoc import to_pandoc as to_pandoc
    from rag.formats.registry import BIBLIOGRAPHIES as BIBLIOGRAPHIES
    from rag.formats.registry import DOCUMENTS as DOCUMENTS
    from rag.formats.registry import BibliographyFormat as BibliographyFormat
    from rag.formats.registry import bibliography_for as bibliography_for
    from rag.formats.registry import bibliography_format as bibliography_format
    from rag.formats.registry import document_format as document_format
    from rag.formats.shown import answer_lines as answer_lines
    from rag.formats.shown import plain as plain

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
