"""A document's check as the diagnostics of each file it reads: its citations' verdicts, what its reading
warned about, the names it asked for outside the workspace, and the keys its .bib lacks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from rag.check.verdicts import CitationCheck, FailOn
from rag.corpus.bib_keys import bib_keys
from rag.lsp.documents import DocumentCheck
from rag.lsp.positions import cite_range, lines_of
from rag.lsp.reading import inside
from rag.lsp.render import diagnostic, lacks_diagnostic, line_diagnostic, note_at
from rag.manuscripts.sources import shown

OUTSIDE = "outside the workspace folder(s): not read (rag lsp never reads a file the client did not open a folder for)"


@dataclass
class Published:
    """Diagnostics by file (shown path), and the lines to log (what has no place in a file)."""

    by_file: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    logged: list[str] = field(default_factory=list)


def lacking(state: DocumentCheck) -> tuple[Path | None, dict[str, CitationCheck]]:
    """The document's first BibTeX bibliography and the citations of library papers it has no entry for."""
    keys: set[str] = set()
    first: Path | None = None
    for bib in state.bibliographies:
        found = bib_keys(bib)
        if found is not None:
            keys |= found
            first = first or bib
    if first is None:
        return None, {}
    missing = {c.cite.key: c for c in state.all_checks if c.paper is not None and c.cite.key not in keys}
    return first, missing


def _refused(published: Published, name: str, lines: list[str], refused: Sequence[str]) -> None:
    for asked in refused:
        published.logged.append(f"{name}: {asked}: {OUTSIDE}")
        # The name as written may lack the ending the build adds (\input{/etc/passwd} looks for passwd.tex).
        written = (asked, str(Path(asked).with_suffix("")))
        line = next((n for n, text in enumerate(lines) if any(w in text for w in written)), 0)
        found = line_diagnostic(
            line, lines[line] if lines else "", f"{asked}: {OUTSIDE}", types.DiagnosticSeverity.Warning
        )
        published.by_file.setdefault(name, []).append(found)


def assemble(state: DocumentCheck, roots: Sequence[Path], codec: PositionCodec, fail_on: FailOn) -> Published:
    name = shown(state.path)
    texts = state.reading.texts
    published = Published({name: []})
    lines_by_file = {file: lines_of(text) for file, text in texts.items()}
    bib, missing = lacking(state)
    for check in state.all_checks:
        file = check.cite.file
        if file != name and not inside(Path(file), roots):
            continue
        lines = lines_by_file.get(file) or lines_of("")
        where = cite_range(lines, check.cite, codec)
        published.by_file.setdefault(file, []).append(diagnostic(check, where, fail_on))
        if bib is not None and check.cite.key in missing:
            published.by_file[file].append(lacks_diagnostic(check.cite.key, bib, where))
    own = lines_by_file.get(name, [])
    for warning in [*state.reading.manuscript.warnings, *state.notes]:
        placed = note_at(warning, name)
        if placed is None or placed[0] >= len(own):
            published.logged.append(warning)
            continue
        line, what = placed
        published.by_file[name].append(line_diagnostic(line, own[line], what, types.DiagnosticSeverity.Information))
    _refused(published, name, own, state.reading.refused)
    return published
