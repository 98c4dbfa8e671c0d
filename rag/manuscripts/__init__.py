"""Manuscripts as their authors wrote them: LaTeX and Pandoc/Quarto Markdown read into citing sentences.

Pure functions over text (no library, no model): each sentence that cites something, with every key it
cites and where (file, line, column). ``rag.writing.manuscript_check`` checks them against the library.
"""
