"""Readers: input files (seed lists, BibTeX, exports, PDF, Markdown/text, Zotero) -> ``Paper`` records, with
stable ids, citekeys and the merging of papers met twice. Nothing here touches an index.

At the top, what every reader shares and the way in: ``loader`` (files and folders -> merged papers),
``readers`` (which reader reads a file; ``file_formats`` names them), ``seeds`` and ``plaintext``, ``entries``
(what every reader does to an entry it read), ``identity``, ``names``, ``cleaning``/``recleaning``, ``latex``,
``types`` (every format's kinds of work -> CSL types), ``merging``, ``textfile``. Three wings, each imported only
when a file of its kind is read:

- ``exports/``: files other programs export (BibTeX, CSL JSON, RIS, Web of Science, MEDLINE, tables, rag's own);
- ``pdf/``: PDFs (their first pages, page furniture, passages, the parse cache);
- ``zotero/``: a Zotero library read from its database, with its PDFs and Better BibTeX keys.

May import: rag.records, rag.errors, rag.text.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "CLEANER_VERSION": "rag.corpus.cleaning",
    "clean_prose": "rag.corpus.cleaning",
    "clean_title": "rag.corpus.cleaning",
    "join_broken_words": "rag.corpus.cleaning",
    "strip_copyright": "rag.corpus.cleaning",
    "parse_bibtex": "rag.corpus.exports.bibtex",
    "parse_csl_json": "rag.corpus.exports.csljson",
    "FORMATS": "rag.corpus.file_formats",
    "MAX_CITEKEY_CHARS": "rag.corpus.identity",
    "assign_citekeys": "rag.corpus.identity",
    "content_id": "rag.corpus.identity",
    "surname": "rag.corpus.identity",
    "latex_to_text": "rag.corpus.latex",
    "MAX_ABSTRACT_CHARS": "rag.corpus.loader",
    "load_paths": "rag.corpus.loader",
    "read_text_file": "rag.corpus.loader",
    "split_names": "rag.corpus.names",
    "split_run_together": "rag.corpus.names",
    "parse_pdf": "rag.corpus.pdf.document",
    "is_heading_line": "rag.corpus.pdf.page_cleaning",
    "strip_furniture": "rag.corpus.pdf.page_cleaning",
    "MIN_PASSAGE_WORDS": "rag.corpus.pdf.passages",
    "split_passages": "rag.corpus.pdf.passages",
    "from_file_name": "rag.corpus.pdf.titles",
    "is_junk_title": "rag.corpus.pdf.titles",
    "READERS": "rag.corpus.readers",
    "ReadOptions": "rag.corpus.readers",
    "clean_again": "rag.corpus.recleaning",
    "METADATA_COLUMNS": "rag.corpus.seeds",
    "METADATA_FILE": "rag.corpus.seeds",
    "parse_metadata": "rag.corpus.seeds",
    "parse_seed_list": "rag.corpus.seeds",
    "split_paragraphs": "rag.corpus.seeds",
    "better_bibtex_keys": "rag.corpus.zotero.betterbibtex",
    "READ_COLUMNS": "rag.corpus.zotero.schema",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
