"""Pandoc, Quarto and R Markdown manuscripts read into citing sentences: ``reader`` (the way in:
``read_pandoc``, the prose and its citations), ``blocks`` (where code, headings, list items, table rows and
captions are, with markdown-it-py) and ``includes`` (Quarto includes and R Markdown child documents).

Imports the shared manuscripts modules (``citing``, ``metadata``, ``prose``, ``sentences``, ``sources``);
nothing imports it but ``files``. Importing this package imports none of its modules.
"""
