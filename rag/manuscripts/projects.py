"""Folders -> manuscripts."""

from __future__ import annotations

from pathlib import Path

from rag.manuscripts.citing import Manuscript
from rag.manuscripts.files import read_file


def read_folder(folder: Path, build_dir: Path | None = None) -> Manuscript:
    manuscript = Manuscript()
    for path in sorted(folder.rglob("*.tex")):
        manuscript.extend(read_file(path, build_dir))
    return manuscript
