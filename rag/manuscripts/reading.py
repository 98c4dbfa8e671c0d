"""Manuscript files -> citing sentences: the format by file ending (or by content), UTF-8 checked,
``\\input`` files read from beside the file that names them. Nothing is ever written."""

from __future__ import annotations

import os
import re
from enum import StrEnum
from pathlib import Path

from rag.errors import InputError
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.latex import CITE_COMMANDS, Loader, read_latex
from rag.manuscripts.pandoc import read_pandoc

# Past this a file is not a manuscript (a whole book is a few MB of TeX).
MAX_MANUSCRIPT_BYTES = 8_000_000


class ManuscriptFormat(StrEnum):
    LATEX = "latex"
    MARKDOWN = "markdown"  # Pandoc / Quarto Markdown


ENDINGS = {
    ".tex": ManuscriptFormat.LATEX,
    ".ltx": ManuscriptFormat.LATEX,
    ".latex": ManuscriptFormat.LATEX,
    ".md": ManuscriptFormat.MARKDOWN,
    ".markdown": ManuscriptFormat.MARKDOWN,
    ".qmd": ManuscriptFormat.MARKDOWN,
    ".rmd": ManuscriptFormat.MARKDOWN,
    ".pandoc": ManuscriptFormat.MARKDOWN,
}
# Bibliographies, not manuscripts: given as FILE by mistake, they are named as such.
BIBLIOGRAPHY_ENDINGS = (".bib", ".json", ".ris", ".nbib", ".enw")
_LOOKS_LIKE_LATEX = re.compile(r"\\(?:documentclass|begin\{|section\{|" + "|".join(CITE_COMMANDS) + r")\b")


def decode(data: bytes, file: str) -> str:
    """UTF-8 text (a byte-order mark dropped), or an InputError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{file}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); re-save it as UTF-8") from None


def _read(path: Path, shown: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_MANUSCRIPT_BYTES:
            raise InputError(f"{shown}: {size:,} bytes is more than a manuscript ({MAX_MANUSCRIPT_BYTES:,} at most)")
        return decode(path.read_bytes(), shown)
    except IsADirectoryError:
        raise InputError(f"{shown}: is a folder; give the manuscript's .tex or .md files") from None
    except FileNotFoundError:
        raise InputError(f"{shown}: no such file") from None
    except OSError as exc:
        raise InputError(f"{shown}: cannot read ({exc.strerror or exc})") from None


def _shown(path: Path) -> str:
    return os.path.normpath(str(path))


def _load_included(root: Path) -> Loader:
    """A loader for ``\\input{name}``: beside the including file first, then beside the main file (where
    LaTeX itself looks); ``.tex`` is tried first when the name has no such ending."""

    def load(name: str, including: str) -> tuple[str, str]:
        names = [name] if name.endswith(".tex") else [f"{name}.tex", name]
        folders = list(dict.fromkeys([Path(including).parent, root.parent]))
        for folder in folders:
            for candidate in names:
                path = folder / candidate
                if path.is_file():
                    shown = _shown(path)
                    return shown, _read(path, shown)
        looked = ", ".join(_shown(folder / names[0]) for folder in folders)
        raise InputError(f"no such file (looked for {looked})")

    return load


def format_of(path: Path, text: str) -> ManuscriptFormat:
    if (known := ENDINGS.get(path.suffix.lower())) is not None:
        return known
    return ManuscriptFormat.LATEX if _LOOKS_LIKE_LATEX.search(text) else ManuscriptFormat.MARKDOWN


def read_text(text: str, fmt: ManuscriptFormat, name: str) -> Manuscript:
    """A manuscript given as text (no folder: LaTeX's \\input is not followed)."""
    return read_latex(text, name) if fmt is ManuscriptFormat.LATEX else read_pandoc(text, name)


def read_file(path: Path) -> Manuscript:
    """One manuscript file, the files it \\inputs with it; InputError when the file itself cannot be read."""
    shown = _shown(path)
    if path.suffix.lower() in BIBLIOGRAPHY_ENDINGS:
        raise InputError(f"{shown} is a bibliography, not a manuscript: give it with --bib {shown}")
    text = _read(path, shown)
    if format_of(path, text) is ManuscriptFormat.LATEX:
        return read_latex(text, shown, _load_included(path))
    return read_pandoc(text, shown)
