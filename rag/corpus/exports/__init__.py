"""Files other programs export: BibTeX (``bibtex``), CSL JSON (``csljson``), tag-per-line exports (``tagged``:
``ris``, ``wos``, ``medline``), tables and JSON records (``tabular``, ``csvfile``, ``schemas``,
``known_schemas``), and rag's own exports read back whole (``own_records``).

Imports the shared corpus modules (``identity``, ``entries``, ``names``, ``types``, ``latex``). Importing this
package imports none of its modules.
"""
