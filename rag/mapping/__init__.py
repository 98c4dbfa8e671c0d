"""`rag map`: a library as a 2D picture. The vector maths (rag.mapping.layout), the picture as plain
records (rag.mapping.picture) and its renderers (rag.mapping.png, rag.mapping.html).

May import: rag.writing (the outline's themes), rag.records and below. Never the index: it is given
papers and their vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.mapping.html import SCRIPT as SCRIPT
    from rag.mapping.html import render_html as render_html
    from rag.mapping.layout import LABEL_ALL_MAX as LABEL_ALL_MAX
    from rag.mapping.layout import Matrix as Matrix
    from rag.mapping.layout import lexical_vectors as lexical_vectors
    from rag.mapping.layout import project as project
    from rag.mapping.layout import unit_rows as unit_rows
    from rag.mapping.output import RENDERERS as RENDERERS
    from rag.mapping.output import write_map as write_map
    from rag.mapping.picture import LibraryMap as LibraryMap
    from rag.mapping.png import box_of as box_of
    from rag.mapping.png import figure as figure
    from rag.mapping.png import render_png as render_png

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
