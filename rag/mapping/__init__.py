"""`rag map`: a library as a 2D picture. The vector maths (rag.mapping.layout), the picture as plain
records (rag.mapping.picture) and its renderers (rag.mapping.png, rag.mapping.html).

May import: rag.writing (the outline's themes), rag.records and below. Never the index: it is given
papers and their vectors.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "SCRIPT": "rag.mapping.html",
    "render_html": "rag.mapping.html",
    "LABEL_ALL_MAX": "rag.mapping.layout",
    "project": "rag.mapping.layout",
    "LibraryMap": "rag.mapping.picture",
    "box_of": "rag.mapping.png",
    "figure": "rag.mapping.png",
    "render_png": "rag.mapping.png",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
