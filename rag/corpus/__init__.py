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
