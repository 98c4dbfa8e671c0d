"""Output formats: cited text as a document (Markdown, LaTeX, Pandoc) and papers as a bibliography
(BibTeX, CSL JSON, JSONL), each a converter and one entry in a table (rag.formats.registry).

May import: rag.writing (the cited answer it converts), rag.records and below. Never the index.
"""
