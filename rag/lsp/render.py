"""Checks in the protocol's terms: diagnostics (problems as warnings, or errors for what ``--fail-on`` names;
notes as hints), the hover over a key, and the code actions (a suggested paper in a flagged key's place; the
library's entry for a key the .bib lacks)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from rag.check.verdicts import CitationCheck, FailOn, Verdict
from rag.formats.bibtex import bibtex_entry
from rag.records import Paper
from rag.text import printable

SOURCE = "rag"
# The code of the hint on a key the library knows but the document's .bib lacks (its code action adds it).
BIB_LACKS = "bib-lacks"
# Abstract text shown in a hover when no sentence of it fits better (the whole abstract is long).
HOVER_ABSTRACT_CHARS = 400
_ENTRY_KEY = re.compile(r"^(@\w+\s*[{(])[^,]*,")
_WARNING_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?: (?P<what>.*)$", re.DOTALL)


def severity(verdict: Verdict, fail_on: FailOn) -> types.DiagnosticSeverity:
    if fail_on.fails(verdict):
        return types.DiagnosticSeverity.Error
    return types.DiagnosticSeverity.Warning if verdict.flagged else types.DiagnosticSeverity.Hint


def message(check: CitationCheck) -> str:
    text = f"{check.verdict.shown}: {printable(check.reason)}"
    if check.verdict in (Verdict.CONTRADICTS, Verdict.FITS_STATED) and check.evidence:
        text += f'; the abstract: "{printable(check.evidence)}"'
    if check.suggestions:
        text += "; better: " + ", ".join(s.paper.citekey for s in check.suggestions)
    return text


def diagnostic(check: CitationCheck, where: types.Range, fail_on: FailOn) -> types.Diagnostic:
    return types.Diagnostic(
        range=where,
        message=message(check),
        severity=severity(check.verdict, fail_on),
        code=check.verdict.code,
        source=SOURCE,
    )


def lacks_diagnostic(key: str, bib: Path, where: types.Range) -> types.Diagnostic:
    return types.Diagnostic(
        range=where,
        message=f"{key} is in the library but not in {bib.name}: the build prints '?' (a code action adds it)",
        severity=types.DiagnosticSeverity.Warning,
        code=BIB_LACKS,
        source=SOURCE,
    )


def note_at(warning: str, file: str) -> tuple[int, str] | None:
    """A reader's warning ``file:line: what`` about ``file``: (0-based line, what); None for another file."""
    found = _WARNING_AT.match(warning)
    if found is None or found["file"] != file:
        return None
    return int(found["line"]) - 1, found["what"]


def line_diagnostic(line: int, text: str, what: str, level: types.DiagnosticSeverity) -> types.Diagnostic:
    start, end = types.Position(line=line, character=0), types.Position(line=line, character=len(text))
    return types.Diagnostic(range=types.Range(start=start, end=end), message=what, severity=level, source=SOURCE)


def describe(paper: Paper) -> str:
    """Title, authors, year and venue, one line each."""
    authors = ", ".join(paper.authors) if paper.authors else "authors unknown"
    parts = [f"**{printable(paper.title or paper.citekey)}**", printable(authors)]
    parts.append(" · ".join(str(x) for x in (paper.year, paper.venue) if x) or "year unknown")
    return "  \n".join(parts)


def hover_text(check: CitationCheck | None, paper: Paper | None) -> str:
    """What a hover over a key shows: the paper, the verdict, and the abstract's sentence that best fits."""
    if paper is None:
        return f"`{check.cite.key}`: not in the library" if check is not None else "not in the library"
    lines = [describe(paper)]
    if check is not None:
        lines.append(f"*{check.verdict.shown}*: {printable(check.reason)}")
    if paper.no_abstract:
        lines.append("Known by its title only.")
    elif check is not None and check.evidence:
        lines.append(f"> {printable(check.evidence)}")
    else:
        lines.append(f"> {printable(paper.text[:HOVER_ABSTRACT_CHARS])}")
    if check is not None and check.suggestions:
        lines.append("Better: " + ", ".join(f"`{s.paper.citekey}` ({printable(s.paper.title or '')})"
                                            for s in check.suggestions))  # fmt: skip
    return "\n\n".join(lines)


def replace_action(uri: str, where: types.Range, check: CitationCheck) -> list[types.CodeAction]:
    """One action per suggested paper: its key in the flagged key's place."""
    actions = []
    for suggestion in check.suggestions:
        paper = suggestion.paper
        title = f"Cite {paper.citekey} instead ({printable(paper.title or '')}, {paper.year or 'n.d.'})"
        edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(range=where, new_text=paper.citekey)]})
        actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, edit=edit))
    return actions


def entry_for(paper: Paper, key: str) -> str:
    """The library's BibTeX entry for ``paper`` under the key the document cites (maybe an alias)."""
    return _ENTRY_KEY.sub(lambda m: f"{m.group(1)}{key},", bibtex_entry(paper), count=1)


def add_entry_action(key: str, paper: Paper, bib: Path, bib_text: str, units: Callable[[str], int]) -> types.CodeAction:
    """The library's entry appended to the .bib file (``units``: a text's length in the client's code units)."""
    lines = bib_text.split("\n")
    end = types.Position(line=len(lines) - 1, character=units(lines[-1]))
    joint = "" if not bib_text or bib_text.endswith("\n\n") else ("\n" if bib_text.endswith("\n") else "\n\n")
    insert = types.TextEdit(range=types.Range(start=end, end=end), new_text=f"{joint}{entry_for(paper, key)}\n")
    edit = types.WorkspaceEdit(changes={bib.as_uri(): [insert]})
    title = f"Add {key} to {bib.name} from the library"
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, edit=edit)
