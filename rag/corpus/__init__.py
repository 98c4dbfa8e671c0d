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

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.corpus.cleaning import CLEANER_VERSION as CLEANER_VERSION
    from rag.corpus.cleaning import clean_prose as clean_prose
    from rag.corpus.cleaning import clean_title as clean_title
    from rag.corpus.cleaning import join_broken_words as join_broken_words
    from rag.corpus.cleaning import strip_copyright as strip_copyright
    from rag.corpus.cleaning import strip_glued_headings as strip_glued_headings
    from rag.corpus.cleaning import strip_line_numbers as strip_line_numbers
    from rag.corpus.exports.bibtex import parse_bibtex as parse_bibtex
    from rag.corpus.exports.csljson import parse_csl_json as parse_csl_json
    from rag.corpus.exports.own_records import ADDED_FIELDS as ADDED_FIELDS
    from rag.corpus.exports.own_records import CARRIED as CARRIED
    from rag.corpus.exports.own_records import CSL_CUSTOM as CSL_CUSTOM
    from rag.corpus.exports.own_records import ENTRY_KEY as ENTRY_KEY
    from rag.corpus.exports.own_records import OWN_RECORD as OWN_RECORD
    from rag.corpus.exports.own_records import bibtex_comment as bibtex_comment
    from rag.corpus.exports.tabular import parse_mapping as parse_mapping
    from rag.corpus.file_formats import FORMATS as FORMATS
    from rag.corpus.file_formats import described_formats as described_formats
    from rag.corpus.identity import MAX_CITEKEY_CHARS as MAX_CITEKEY_CHARS
    from rag.corpus.identity import TRUNCATION_MARK as TRUNCATION_MARK
    from rag.corpus.identity import assign_citekeys as assign_citekeys
    from rag.corpus.identity import citekey_stem as citekey_stem
    from rag.corpus.identity import content_id as content_id
    from rag.corpus.identity import free_key as free_key
    from rag.corpus.identity import normalize_text as normalize_text
    from rag.corpus.identity import resolve_key_clashes as resolve_key_clashes
    from rag.corpus.identity import surname as surname
    from rag.corpus.latex import latex_to_text as latex_to_text
    from rag.corpus.loader import MAX_ABSTRACT_CHARS as MAX_ABSTRACT_CHARS
    from rag.corpus.loader import load_paths as load_paths
    from rag.corpus.merging import Merge as Merge
    from rag.corpus.merging import WorkFinder as WorkFinder
    from rag.corpus.merging import merge_paper as merge_paper
    from rag.corpus.merging import merge_work as merge_work
    from rag.corpus.merging import merged_line as merged_line
    from rag.corpus.merging import read_from_pdf as read_from_pdf
    from rag.corpus.merging import separate_edition as separate_edition
    from rag.corpus.names import split_names as split_names
    from rag.corpus.names import split_run_together as split_run_together
    from rag.corpus.pdf.document import FIRST_PAGES as FIRST_PAGES
    from rag.corpus.pdf.document import parse_pdf as parse_pdf
    from rag.corpus.pdf.page_cleaning import is_heading_line as is_heading_line
    from rag.corpus.pdf.page_cleaning import strip_furniture as strip_furniture
    from rag.corpus.pdf.passages import MIN_PASSAGE_WORDS as MIN_PASSAGE_WORDS
    from rag.corpus.pdf.passages import split_passages as split_passages
    from rag.corpus.pdf.titles import from_file_name as from_file_name
    from rag.corpus.pdf.titles import is_junk_title as is_junk_title
    from rag.corpus.readers import READERS as READERS
    from rag.corpus.readers import ReadOptions as ReadOptions
    from rag.corpus.recleaning import clean_again as clean_again
    from rag.corpus.seeds import METADATA_COLUMNS as METADATA_COLUMNS
    from rag.corpus.seeds import METADATA_FILE as METADATA_FILE
    from rag.corpus.seeds import parse_metadata as parse_metadata
    from rag.corpus.seeds import parse_seed_list as parse_seed_list
    from rag.corpus.seeds import split_paragraphs as split_paragraphs
    from rag.corpus.textfile import read_text_file as read_text_file
    from rag.corpus.zotero.betterbibtex import better_bibtex_keys as better_bibtex_keys
    from rag.corpus.zotero.schema import READ_COLUMNS as READ_COLUMNS

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
