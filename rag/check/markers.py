"""Numbered citation markers in generated text: "[3]", "[1, 2]", "[1-3]", read back to the sources they
number."""

from __future__ import annotations

import re

# [3], [1, 2], [1-3], [1–3]; the model's way of grouping does not matter.
CITATION_GROUP = re.compile(r"\[(\s*\d{1,6}(?:\s*(?:[,;]|[-–])\s*\d{1,6})*\s*)\]")
MAX_RANGE = 20


def expand(group: str) -> list[int]:
    """The numbers a marker's inside names: "1, 3-5" -> [1, 3, 4, 5]; a range longer than MAX_RANGE is read as
    its two ends (a typo, not twenty sources)."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", group):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= MAX_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return numbers
