"""Author strings as exports write them -> one name each, "Surname, Given" where the surname is known.

The forms met in real exports: "Surname, Given" (RIS, WoS, Zotero), "Given Surname" (IEEE, OpenAlex,
PDF metadata) and "Surname Initials" (Scopus, Embase, PubMed: "Liu R.", "Klionsky DJ"), separated by
";", "|", new lines, " and ", "&" or ",". "Given Surname" is kept as written: its surname is the last
word (``rag.corpus.identity.surname``), and turning it round would mean guessing particles ("van").
"Surname Initials" is turned into "Surname, Initials", else the initials would read as the surname.

nameparser was tried on the real exports and not kept: it reads "Liu R." as given name "Liu", and the
rules below already give the surname wherever the export says which it is.
"""

from __future__ import annotations

import re

from rag.corpus.identity import normalize_text

# Between names whatever the form: ";", "|", a new line, " and ", "&".
_BETWEEN_NAMES = re.compile(r"\s*(?:[;|\n]|\band\b|&)\s*", re.IGNORECASE)
# Initials, dotted or not: "R.", "D.G.", "H.-B.", "DJ", "JJM"; a generational suffix is not initials.
_CAPITAL = "A-ZÀ-ÖØ-ÞĆČĐŁŃŘŚŠŹŻŽ"
_INITIALS = re.compile(rf"(?!(?:II|III|IV)\b)(?:(?:[{_CAPITAL}]\.-?){{1,4}}|[{_CAPITAL}]{{1,3}}\.?)")
_SUFFIX = re.compile(r"^(?P<name>.+?)\s+(?P<suffix>Jr\.?|Sr\.?|II|III|IV)$")
# What exports put around a name: Scopus' author ids "(57204042290)", honorifics (SpringerLink).
_AUTHOR_ID = re.compile(r"\s*\(\d+\)\s*$")
_HONORIFICS = re.compile(r"^(?:(?:Prof|Dr|Mr|Mrs|Ms)\.?\s+)+")
# SpringerLink writes names with nothing between them ("Araz R. AlievNigar T. Ismayilova"): a lower-case
# letter followed by a capital starts a name, unless the word so far is a prefix such as Mc, Mac, De, Le.
_RUN_TOGETHER = re.compile(r"(?<=[^\W\d_A-Z])(?=[A-Z])")
_NAME_PREFIXES = frozenset({"mc", "mac", "de", "di", "da", "du", "le", "la", "van", "von", "del", "des", "o"})


def split_names(value: str) -> list[str]:
    """Every name in an author field, each as ``normalize_name`` gives it."""
    names: list[str] = []
    for piece in _BETWEEN_NAMES.split(value):
        # Scopus' id goes first: "Bou Zerdan, Maroun (57222239351)" is one name, not 'Ann Roe, Bo Li'.
        parts = [part.strip() for part in _AUTHOR_ID.sub("", piece).split(",") if part.strip()]
        spaced = sum(" " in part for part in parts)
        if _surname_then_given(parts):
            names.append(", ".join(parts))  # 'Van Dijk, Elon H. C.'
        elif len(parts) > 1 and spaced >= len(parts) - (len(parts) > 2):
            names.extend(parts)  # 'Ann Roe, Bo Li' or 'Liu R., Adler D.G.' (one may be a mononym): a list
        elif len(parts) >= 4 and len(parts) % 2 == 0 and all(_INITIALS.fullmatch(p) for p in parts[1::2]):
            names.extend(f"{last}, {first}" for last, first in zip(parts[::2], parts[1::2], strict=True))
        elif parts:
            names.append(", ".join(parts))  # 'Roe, Ann', 'Dolz Marco, R.'
    return [name for name in map(normalize_name, names) if name]


def _surname_then_given(parts: list[str]) -> bool:
    """'Van Dijk, Elon H. C.': a surname of two words, then given names ending in initials (in 'Liu R., Adler
    D.G.' both end in initials: two names)."""
    if len(parts) != 2 or " " not in parts[0]:
        return False
    return bool(_INITIALS.fullmatch(parts[1].split()[-1])) and not _INITIALS.fullmatch(parts[0].split()[-1])


def normalize_name(name: str) -> str:
    """'Liu R.' -> 'Liu, R.'; 'Gerolami, Justin (57204042290)' -> 'Gerolami, Justin'; 'Ann Roe' stays."""
    name = _HONORIFICS.sub("", _AUTHOR_ID.sub("", normalize_text(name))).strip(" ,;")
    if "," in name:
        surname, _, given = name.partition(",")
        return f"{surname.strip()}, {given.strip()}" if given.strip() else surname.strip()
    if (suffixed := _SUFFIX.match(name)) and " " in suffixed.group("name"):  # 'William B. Gould IV'
        *forenames, last = suffixed.group("name").split()
        return f"{last}, {' '.join(forenames)}, {suffixed.group('suffix')}"
    words = name.split()
    if len(words) > 1 and _INITIALS.fullmatch(words[-1]) and not all(_INITIALS.fullmatch(w) for w in words[:-1]):
        return f"{' '.join(words[:-1])}, {words[-1]}"
    return name


def split_run_together(value: str) -> list[str]:
    """Names written with nothing between them (SpringerLink's CSV), each as ``normalize_name`` gives it."""
    names: list[str] = []
    start = 0
    for boundary in _RUN_TOGETHER.finditer(value):
        word = value[start : boundary.start()].split()[-1:]
        if word and len(word[0]) > 2 and word[0].lower() not in _NAME_PREFIXES:
            names.append(value[start : boundary.start()])
            start = boundary.start()
    names.append(value[start:])
    return [name for name in map(normalize_name, names) if name]
