"""Zotero's own files, read without changing them: its database (``library``, the reader), the rows rag needs
(``database``), the schema versions it knows (``schema``), attached PDFs (``attachments``), Better BibTeX's
citation keys (``betterbibtex``) and SQLite files opened read-only (``sqlite_files``).

Imports the shared corpus modules (``identity``, ``cleaning``, ``entries``, ``types``) and ``pdf``; nothing
imports it but ``readers`` and ``loader``. Importing this package imports none of its modules: a library of
BibTeX files never loads the Zotero reader.
"""
