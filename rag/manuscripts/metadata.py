"""YAML a Pandoc manuscript carries: its front matter and its project's configuration (``_quarto.yml``,
``_bookdown.yml``), read with PyYAML's safe loader; what cannot be read is a warning, never an error."""

from __future__ import annotations

import re
from typing import Any

import yaml

FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n(?P<yaml>.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def load(text: str, file: str) -> tuple[dict[str, Any], list[str]]:
    """The mapping a YAML text holds ({} and a warning naming the line when it is not one)."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = getattr(exc, "problem", None) or "not YAML"
        return {}, [f"{file}{line}: {reason}; its settings are not read"]
    return (value, []) if isinstance(value, dict) else ({}, [])


def front_matter(text: str, file: str) -> tuple[dict[str, Any], list[str]]:
    found = FRONT_MATTER.match(text)
    return load(found.group("yaml"), file) if found else ({}, [])


def names(value: Any) -> list[str]:
    """A setting that is a name or a list of names (``bibliography: refs.bib`` or ``- a.bib``)."""
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [item.strip() for item in value if isinstance(item, str) and item.strip()]
    return []
