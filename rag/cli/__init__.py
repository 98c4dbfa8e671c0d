"""The command line: a thin typer adapter over rag.services (parse, call one service, render).

May import: everything below it; the only layer that imports typer and rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.cli.app import app, ask_main, main  # the entry points: what importing rag.cli is for
from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.cli.argv import hoist_global_options as hoist_global_options
    from rag.cli.progress import ProgressBar as ProgressBar
    from rag.cli.render import clean as clean
    from rag.cli.render import render_answer as render_answer
    from rag.cli.render import render_paper as render_paper
    from rag.cli.render import render_search as render_search
    from rag.cli.writing import LiveText as LiveText

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = ["app", "ask_main", "main", *sorted(_FACE)]


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
