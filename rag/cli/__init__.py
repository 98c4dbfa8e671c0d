"""The command line: a thin typer adapter over rag.services (parse, call one service, render).

May import: everything below it; the only layer that imports typer and rich.
"""

from __future__ import annotations

from rag.cli.app import app, ask_main, main
from rag.faces import face_attribute

__all__ = ["app", "ask_main", "main"]


# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "hoist_global_options": "rag.cli.argv",
    "ProgressBar": "rag.cli.progress",
    "clean": "rag.cli.render",
    "render_answer": "rag.cli.render",
    "render_paper": "rag.cli.render",
    "render_search": "rag.cli.render",
    "LiveText": "rag.cli.writing",
}
__all__ += sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
