"""Manuscripts as their authors wrote them: LaTeX and Pandoc/Quarto Markdown read into citing sentences.

Pure functions over text (no library, no model): each sentence that cites something, with every key it
cites and where (file, line, column). ``rag.check.manuscript`` checks them against the library.

At the top, what both kinds share and the way in: ``reading`` (a file, a folder or a text), ``files`` (one
file or text, its kind known by its ending or guessed), ``projects`` (Quarto and bookdown projects, LaTeX main
files), ``citing`` (what is read: citations, citing sentences), ``sentences``, ``prose``, ``located``,
``sources`` (the files a manuscript names, looked for as its build looks) and ``metadata`` (YAML front
matter). Two wings, one per kind of manuscript:

- ``latex/``: LaTeX, put together as its build puts it together (inputs, the author's macros, glossaries);
- ``pandoc/``: Pandoc, Quarto and R Markdown (blocks, includes and child documents).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.manuscripts.citing import Cite as Cite
    from rag.manuscripts.citing import CitingSentence as CitingSentence
    from rag.manuscripts.citing import Context as Context
    from rag.manuscripts.citing import Manuscript as Manuscript
    from rag.manuscripts.files import guess_format as guess_format
    from rag.manuscripts.files import read_file as read_file
    from rag.manuscripts.latex.reader import read_latex as read_latex
    from rag.manuscripts.pandoc.reader import read_pandoc as read_pandoc
    from rag.manuscripts.reading import ManuscriptFormat as ManuscriptFormat
    from rag.manuscripts.reading import read_path as read_path
    from rag.manuscripts.reading import read_text as read_text
    from rag.manuscripts.sentences import split_sentences as split_sentences

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
