"""A sentence's text tidied where citations were taken out of it: the brackets, spaces and stops they leave."""

from __future__ import annotations

import re

_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]")
_SPACE_BEFORE = re.compile(r"\s+([.,;:!?)\]])(?![?!])")  # not before "??", LaTeX's unresolved reference
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\s+\.(?!\.)")  # "et al. \\cite{x}." leaves "al. ."
_SPACE_AFTER = re.compile(r"([(\[])\s+")


def tidied(text: str) -> str:
    """``text`` (its citations taken out) without the empty brackets, doubled stops and stray spaces they leave."""
    text = _DOUBLE_STOP.sub(".", _EMPTY_BRACKETS.sub("", " ".join(text.split())))
    text = _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", text))
    return text.strip().lstrip(",;: ").strip()
