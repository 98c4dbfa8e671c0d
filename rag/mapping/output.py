"""A LibraryMap written as the file a user asked for: the ending names the renderer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rag.errors import InputError
from rag.mapping.picture import LibraryMap


def _png(library_map: LibraryMap) -> bytes:
    from rag.mapping.png import render_png  # matplotlib: loaded only to draw a PNG

    return render_png(library_map)


def _html(library_map: LibraryMap) -> bytes:
    from rag.mapping.html import render_html

    return render_html(library_map).encode("utf-8")


RENDERERS: dict[str, Callable[[LibraryMap], bytes]] = {".png": _png, ".html": _html}


def write_map(library_map: LibraryMap, output: Path) -> int:
    """Render and write in one go (no half-written file on a failed render); returns the bytes written."""
    data = RENDERERS[output.suffix.lower()](library_map)
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    return len(data)
