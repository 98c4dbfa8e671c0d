"""LaTeX manuscripts read into citing sentences: ``reader`` (the way in: ``read_latex``, the prose and its
citations, parsed with pylatexenc), ``tree`` (the manuscript put together as its build puts it together: the
files it reads, the author's macros), ``source`` (what is not read blanked out), ``scan`` (TeX's arguments read
as TeX reads them), ``macros`` (the author's definitions, expanded), ``commands`` (the commands read by name),
``cites`` (biblatex's multicites) and ``glossary`` (glossary and acronym entries).

Imports the shared manuscripts modules (``citing``, ``located``, ``prose``, ``sentences``, ``sources``); nothing
imports it but ``files``. Importing this package imports none of its modules.
"""
