"""The entry keys a BibTeX file holds, read as LaTeX's build reads them (whatever rag could make of each entry):
a key the file holds is never "missing from the bibliography", even when its entry has nothing to check (a
titleless "Private communication")."""

from __future__ import annotations

import re
from pathlib import Path

_BIB_KEY = re.compile(r"@\s*(\w+)\s*[{(]\s*([^,\s{}()]+)\s*,")
_NOT_ENTRIES = frozenset({"comment", "string", "preamble"})
_BIB_ENDINGS = (".bib",)


def bib_keys(path: Path) -> set[str] | None:
    """The entry keys of a BibTeX file; None for another kind of bibliography or an unreadable file."""
    if path.suffix.lower() not in _BIB_ENDINGS:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return {m.group(2) for m in _BIB_KEY.finditer(text) if m.group(1).lower() not in _NOT_ENTRIES}
