"""The tables of formats: every command, the Python API and the MCP server choose from these.

Adding a format is one converter and one entry here; `draft --format`, `draft --bib`
and `export --format` take their choices, help and errors from the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.check.sentences import Answer
from rag.config import LatexCitations
from rag.errors import InputError
from rag.formats.bibtex import bibtex
from rag.formats.csl import csl_json
from rag.formats.jsonl import jsonl
from rag.formats.latex import to_latex
from rag.formats.markdown import to_markdown
from rag.formats.pandoc import to_pandoc
from rag.records import Paper


@dataclass(frozen=True)
class DocumentFormat:
    name: str
    render: Callable[[Answer, LatexCitations], str]  # the answer, the LaTeX citation commands (LaTeX only)
    description: str
    # A terminal shows the checked answer itself (marks, references, notes) rather than the bare document.
    shown_as_answer: bool = False


@dataclass(frozen=True)
class BibliographyFormat:
    name: str
    label: str
    write: Callable[[Sequence[Paper]], str]
    description: str
    # The file ending `draft --bib FILE` recognises it by; None: `export` only.
    suffix: str | None = None


DOCUMENTS = {
    f.name: f
    for f in (
        DocumentFormat("markdown", lambda a, _: to_markdown(a), "[n] + references", shown_as_answer=True),
        DocumentFormat("latex", to_latex, "\\cite{key} (RAG_LATEX_CITATIONS: natbib, biblatex)"),
        DocumentFormat("pandoc", lambda a, _: to_pandoc(a), "[@key], for pandoc --citeproc"),
    )
}
BIBLIOGRAPHIES = {
    f.name: f
    for f in (
        BibliographyFormat("bibtex", "BibTeX", bibtex, "your own entries where papers came from a .bib", ".bib"),
        BibliographyFormat("csljson", "CSL JSON", csl_json, "for Pandoc, Quarto and Zotero", ".json"),
        BibliographyFormat("jsonl", "JSONL", jsonl, "one record per paper, as `rag ingest` reads it"),
    )
}


def document_format(name: str) -> DocumentFormat:
    found = DOCUMENTS.get(name.strip().lower())
    if found is None:
        raise InputError(f"unknown format '{name}'; use {_either(DOCUMENTS)}")
    return found


def bibliography_format(name: str) -> BibliographyFormat:
    found = BIBLIOGRAPHIES.get(name.strip().lower())
    if found is None:
        raise InputError(f"unknown export format '{name}'; use {_either(BIBLIOGRAPHIES)}")
    return found


def bibliography_for(path: Path) -> BibliographyFormat:
    """The bibliography format a file name asks for, by its ending."""
    suffix = path.suffix.lower()
    for found in BIBLIOGRAPHIES.values():
        if found.suffix is not None and found.suffix == suffix:
            return found
    endings = " or ".join(f"FILE{f.suffix} ({f.label})" for f in BIBLIOGRAPHIES.values() if f.suffix)
    raise InputError(f"{path}: unknown bibliography format '{path.suffix or path.name}'; name it {endings}")


def _either(table: Iterable[str]) -> str:
    names = list(table)
    return ", ".join(names[:-1]) + f" or {names[-1]}"
