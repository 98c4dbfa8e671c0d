"""Numbers with their units: the same number in another unit of the same kind ("200 ms" where the source has "200
μs") is another value (rag.check.rules.numbers)."""

from __future__ import annotations

import re

from rag.check.rules.kind_words import UNITS


def number_value(raw: str) -> str:
    """'32,441' -> '32441', '.004' -> '0.004', '1.50' -> '1.5', '007' -> '7'."""
    whole, _, decimals = raw.replace(",", "").replace(" ", "").partition(".")
    whole, decimals = whole.lstrip("0") or "0", decimals.rstrip("0")
    return f"{whole}.{decimals}" if decimals else whole


# Each way of writing a unit -> (what it measures, the unit).
UNIT_OF = {
    form: (kind, forms.split("|")[0]) for kind, units in UNITS.items() for forms in units for form in forms.split("|")
}
_FORMS = "|".join(sorted(map(re.escape, UNIT_OF), key=len, reverse=True))
WITH_UNIT = re.compile(rf"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)\s?({_FORMS})(?![\w])")

Measured = tuple[str, str, str]  # (the number's value, what its unit measures, the unit)


def units_in(text: str) -> frozenset[Measured]:
    """The numbers of a text written with a unit."""
    return frozenset((number_value(m.group(1)), *UNIT_OF[m.group(2)]) for m in WITH_UNIT.finditer(text))


def other_unit(raw: str, unit: tuple[str, str], given: frozenset[Measured]) -> bool:
    """``given`` has ``raw`` in units of the same kind, never in ``unit`` ("200 μs" for "200 ms")."""
    value = number_value(raw)
    units = {(kind, name) for number, kind, name in given if number == value}
    return unit not in units and any(kind == unit[0] for kind, _ in units)
