"""Where the bundled seeds and prompts live, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def bundled_dir(name: str) -> Path:
    """A top-level data folder of the project (``seeds`` or ``prompts``).

    A wheel carries it inside the package (see pyproject's force-include); a
    checkout or editable install has it beside the package.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled folder '{name}' is missing from this installation")


def seeds_dir() -> Path:
    return bundled_dir("seeds")
