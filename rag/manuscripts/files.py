"""One manuscript file, or a text, -> citing sentences: LaTeX (with the files it reads) or Pandoc/Quarto/
R Markdown, known by the file's ending, else guessed from the content. Nothing is ever written."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

from rag.errors import InputError
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.latex.reader import read_latex
from rag.manuscripts.pandoc.reader import read_pandoc
from rag.manuscripts.sources import Finder, read_source, shown


class ManuscriptFormat(StrEnum):
    LATEX = "latex"
    MARKDOWN = "markdown"  # Pandoc / Quarto / R Markdown


ENDINGS = {
    ".tex": ManuscriptFormat.LATEX,
    ".ltx": ManuscriptFormat.LATEX,
    ".latex": ManuscriptFormat.LATEX,
    ".md": ManuscriptFormat.MARKDOWN,
    ".markdown": ManuscriptFormat.MARKDOWN,
    ".qmd": ManuscriptFormat.MARKDOWN,
    ".rmd": ManuscriptFormat.MARKDOWN,
    ".rmarkdown": ManuscriptFormat.MARKDOWN,
    ".pandoc": ManuscriptFormat.MARKDOWN,
}
# Bibliographies, not manuscripts: given as FILE by mistake, they are named as such.
BIBLIOGRAPHY_ENDINGS = (".bib", ".json", ".ris", ".nbib", ".enw")
_LATEX_SIGNS = re.compile(
    r"\\(?:documentclass|begin\s*\{|section\*?\s*\{|chapter\*?\s*\{|usepackage|input\s*\{|[a-zA-Z]*cite[a-zA-Z]*\*?\s*[\[{])"
)
_PANDOC_SIGNS = re.compile(r"\[-?@[\w{]|(?:^|\s)@[\w{][^\s]*|^#{1,6}\s|^```|^:::", re.MULTILINE)


def guess_format(text: str) -> ManuscriptFormat:
    """LaTeX or Markdown by what the text holds: LaTeX commands against Pandoc citations and Markdown marks."""
    latex = len(_LATEX_SIGNS.findall(text))
    pandoc = len(_PANDOC_SIGNS.findall(text))
    return ManuscriptFormat.LATEX if latex > pandoc else ManuscriptFormat.MARKDOWN


def format_of(path: Path, text: str) -> ManuscriptFormat:
    if (known := ENDINGS.get(path.suffix.lower())) is not None:
        return known
    return guess_format(text)


def read_text(text: str, fmt: ManuscriptFormat | str | None = None, name: str = "<text>") -> Manuscript:
    """A manuscript given as text (stdin, the MCP tool): no file it names is read, not an \\input, not a
    bibliography (each is a warning), so a hostile document cannot make rag read the user's files.
    ``fmt`` None: guessed from the content."""
    chosen = guess_format(text) if fmt is None else ManuscriptFormat(fmt)
    return read_latex(text, name) if chosen is ManuscriptFormat.LATEX else read_pandoc(text, name)


def read_file(path: Path, build_dir: Path | None = None, also_in: tuple[Path, ...] = ()) -> Manuscript:
    """One manuscript file with the files it reads (LaTeX inputs and bibliographies are looked for in
    ``build_dir`` first, default the file's own folder as with ``latexmk -cd``, then beside the file that
    names them, then in ``also_in``). InputError when the file itself cannot be read."""
    name = shown(path)
    if path.suffix.lower() in BIBLIOGRAPHY_ENDINGS:
        raise InputError(f"{name} is a bibliography, not a manuscript: give it with --bib {name}")
    text, warnings = read_source(path, name)
    finder = Finder(build_dir if build_dir is not None else path.parent, path.parent, {name: text}, also_in)
    if format_of(path, text) is ManuscriptFormat.LATEX:
        manuscript = read_latex(text, name, finder)
    else:
        manuscript = read_pandoc(text, name, finder)
    manuscript.warnings[:0] = warnings
    return manuscript
