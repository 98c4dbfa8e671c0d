"""Glossary and acronym entries (glossaries, glossaries-extra, acronym, acro) and the text their uses show.

``\\gls{gpu}`` reads as the build prints it: "graphics processing unit (GPU)" the first time, "GPU" after;
``\\acrshort``/``\\acrlong``/``\\acrfull`` their forms; an entry with a name only (``\\newglossaryentry``)
its name. A key no definition in the files read names is read as the key itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pylatexenc import latex2text

from rag.manuscripts.latex.commands import CAPITALISED_USES, PLURAL_USES

_KEYVAL = re.compile(r"\s*([\w-]+)\s*=\s*")


@dataclass(frozen=True)
class Entry:
    short: str | None
    long: str | None
    name: str | None = None


@lru_cache(maxsize=1)
def _converter() -> Any:
    return latex2text.LatexNodes2Text(math_mode="text")


def plain(latex: str) -> str:
    return " ".join(str(_converter().latex_to_text(latex)).split())


def _keyvals(text: str) -> dict[str, str]:
    """``name={A, B}, description=...`` -> {"name": "A, B", ...}: commas inside braces do not split."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    values = {}
    for part in parts:
        key = _KEYVAL.match(part)
        if key:
            value = part[key.end() :].strip()
            if value.startswith("{") and value.endswith("}"):
                value = value[1:-1]
            values[key.group(1).lower()] = value
    return values


def entry_of(command: str, arguments: list[str | None]) -> tuple[str, Entry] | None:
    """The key and entry one definition command defines (its arguments as read), None when it defines none."""
    given = [a for a in arguments]
    if command in ("newacronym", "newabbreviation") and len(given) == 4:
        _, key, short, long = given
        return (key or "").strip(), Entry(plain(short or ""), plain(long or ""))
    if command in ("newdualentry",) and len(given) == 5:
        _, key, short, long, _ = given
        return (key or "").strip(), Entry(plain(short or ""), plain(long or ""))
    if command in ("acro", "newacro", "acrodef") and len(given) == 3:
        key, short, long = given
        key = (key or "").strip()
        return key, Entry(plain(short) if short is not None else key, plain(long or ""))
    if command == "DeclareAcronym" and len(given) == 2:
        values = _keyvals(given[1] or "")
        key = (given[0] or "").strip()
        return key, Entry(plain(values.get("short", key)), plain(values["long"]) if "long" in values else None)
    if command in ("newglossaryentry", "longnewglossaryentry") and len(given) >= 2:
        values = _keyvals(given[1] or "")
        name = values.get("name") or values.get("text")
        return (given[0] or "").strip(), Entry(None, None, plain(name) if name else None)
    return None


@dataclass
class Glossary:
    entries: dict[str, Entry] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def define(self, command: str, arguments: list[str | None]) -> None:
        found = entry_of(command, arguments)
        if found is not None and found[0]:
            self.entries.setdefault(found[0], found[1])

    def text(self, command: str, form: str, key: str) -> str:
        """What ``\\command{key}`` prints (``form`` from GLOSSARY_USES)."""
        entry = self.entries.get(key)
        first = key not in self.used
        self.used.add(key)
        if form == "none":
            return ""
        plural = command in PLURAL_USES

        def forms(text: str | None) -> str:
            return f"{text}s" if text and plural else text or ""

        if entry is None:
            shown = forms(key)
        else:
            short, long = forms(entry.short or entry.name), forms(entry.long or entry.name)
            both = f"{long} ({short})" if long and short and long != short else long or short
            shown = {"short": short, "long": long, "full": both, "name": forms(entry.name) or short}.get(form) or ""
            if form == "first":
                shown = both if first else short
            shown = shown or forms(key)
        if command.isupper() or command.startswith(("GLS", "ACR")):
            return shown.upper()
        if command in CAPITALISED_USES:
            return shown[:1].upper() + shown[1:]
        return shown
