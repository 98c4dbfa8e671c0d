"""A document as the editor holds it (unsaved text included) read into citing sentences as `rag check` reads
a file, except that no file outside the workspace folders the client opened is ever read: a document naming
``\\input{/etc/passwd}`` or ``\\bibliography{../../x}`` gets a diagnostic, not the file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import InputError
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.files import ManuscriptFormat, format_of
from rag.manuscripts.latex.reader import read_latex
from rag.manuscripts.pandoc.reader import read_pandoc
from rag.manuscripts.sources import MAX_MANUSCRIPT_BYTES, Finder, shown

# The endings `rag lsp` checks (the editor may send others; they are left alone).
CHECKED_ENDINGS = (".tex", ".md", ".qmd", ".rmd")
# Past this share of control characters a text is binary garbage, not a manuscript (tabs and newlines aside).
MAX_CONTROL_SHARE = 0.01
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path`` (symbolic links followed) lies in one of ``roots``."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    return any(real.is_relative_to(root) for root in roots)


@dataclass
class WorkspaceFinder(Finder):
    """Finds the files a document names as its build does, but answers "not found" for any outside
    ``roots`` (resolved workspace folders) and records each refusal, so the document is told."""

    roots: tuple[Path, ...] = ()
    refused: list[str] = field(default_factory=list)

    def find(self, names: Sequence[str], including: str, first: Path | None = None) -> Path | None:
        path = super().find(names, including, first)
        if path is not None and not inside(path, self.roots):
            self.refused.append(names[0])
            return None
        return path

    def read(self, path: Path) -> tuple[str, str, list[str]]:
        if shown(path) not in self.texts and not inside(path, self.roots):  # never reached through find()
            raise InputError(f"{shown(path)}: outside the workspace; not read")
        return super().read(path)


@dataclass
class Reading:
    """What reading a document gave: its citing sentences, the names it asked for outside the workspace, and
    the texts of every file read (positions in an included file are computed on its text)."""

    manuscript: Manuscript
    refused: list[str]
    texts: dict[str, str]


def refusal(text: str) -> str | None:
    """Why ``text`` is not read as a manuscript at all (too large, binary); None when it is one."""
    if len(text) > MAX_MANUSCRIPT_BYTES:
        return f"{len(text):,} characters is more than a manuscript ({MAX_MANUSCRIPT_BYTES:,} at most); not checked"
    sample = text[:MAX_MANUSCRIPT_BYTES]
    if sample and len(_CONTROL.findall(sample)) > MAX_CONTROL_SHARE * len(sample):
        return "binary data, not a manuscript; not checked"
    return None


def read_document(path: Path, text: str, roots: Sequence[Path], open_texts: dict[str, str]) -> Reading:
    """The document at ``path`` with the editor's ``text``; the files it includes are read from the editor
    when open there (``open_texts``, by shown path), else from disk, inside ``roots`` only."""
    name = shown(path)
    texts = {**open_texts, name: text}
    finder = WorkspaceFinder(path.parent, path.parent, texts, roots=tuple(r.resolve() for r in roots))
    if format_of(path, text) is ManuscriptFormat.LATEX:
        manuscript = read_latex(text, name, finder)
    else:
        manuscript = read_pandoc(text, name, finder)
    return Reading(manuscript, list(dict.fromkeys(finder.refused)), finder.texts)


def fallback_bibliographies(path: Path, roots: Sequence[Path]) -> list[Path]:
    """For a chapter that names no bibliography (its main file does): the .bib files beside it and at the top
    of its workspace folder, as a build of the main file would find them."""
    folders = dict.fromkeys([path.parent, *(r for r in roots if inside(path, [r.resolve()]))])
    found = [bib for folder in folders for bib in sorted(folder.glob("*.bib")) if bib.is_file()]
    return [bib for bib in dict.fromkeys(found) if inside(bib, [r.resolve() for r in roots])]
