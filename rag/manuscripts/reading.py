"""Manuscripts -> citing sentences: a file (LaTeX with the files it reads, Pandoc/Quarto/R Markdown), a
folder (a Quarto or bookdown project in its chapter order, LaTeX main files, else every manuscript file
in it) or a text (stdin, the MCP tool: no file it names is ever read). Nothing is ever written.
"""

from __future__ import annotations

from pathlib import Path

from rag.manuscripts.citing import Manuscript
from rag.manuscripts.files import ManuscriptFormat, format_of, guess_format, read_file, read_text
from rag.manuscripts.projects import read_folder

__all__ = ["ManuscriptFormat", "format_of", "guess_format", "read_file", "read_path", "read_text"]


def read_path(path: Path, build_dir: Path | None = None) -> Manuscript:
    """A manuscript file (as read_file: ``build_dir`` is where its build runs, default the file's folder) or
    a folder (``build_dir`` default the folder itself): a Quarto or bookdown project in its chapter order,
    else its LaTeX main files with what they read, else every manuscript file under it."""
    if path.is_dir():
        return read_folder(path, build_dir)
    return read_file(path, build_dir)
