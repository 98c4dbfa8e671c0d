"""The .bib files of one ingest read together, as BibTeX reads ``\\bibliography{AuthorIDs,Main,Abstracts}``.

JabRef-era libraries split one database over several files: ``@string`` author macros in one ("AuthorIDs.bib":
``@string{PattersonK = "Patterson, Karalyn"}``), the entries in another, which join the macros with ``#``
(``Author = LambonRalphMA # { and } # PattersonK``), and sometimes the abstracts in a third, under the same
keys with no other field. Read file by file, the authors stay macro names and every abstract becomes an
untitled paper of its own. Read together, a macro of any file resolves in every file, and an entry that holds
only an abstract gives it to the entry of the same key that has the title.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.corpus.textfile import read_text_file
from rag.errors import InputError

# How bibtexparser marks a field written without braces or quotes: a macro, a number or a '#' concatenation.
BARE = "no-enclosing"
REMOVED_ENCLOSING = "removed_enclosing"


def parse_library(text: str) -> Any:
    """One .bib text parsed by bibtexparser (its own @string macros resolved where a field is one macro)."""
    from bibtexparser.entrypoint import parse_string

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # problems are reported as rag's warnings
    return parse_string(text)


def field_values(entry: Any) -> dict[str, str]:
    """An entry's fields by lower-case name (JabRef writes 'Title')."""
    return {f.key.lower(): str(f.value) for f in entry.fields}


@dataclass
class BibDatabase:
    """The .bib files read in one ingest: each parsed once, their macros and their abstract-only entries."""

    files: tuple[Path, ...]
    _libraries: dict[Path, Any] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)  # macro name, lower case -> value
    abstracts: dict[str, str] = field(default_factory=dict)  # key of an entry holding only an abstract -> it
    titled: set[str] = field(default_factory=set)  # keys of entries that have a title

    @classmethod
    def read(cls, files: tuple[Path, ...]) -> BibDatabase:
        database = cls(files)
        for file in files:
            try:
                library = parse_library(read_text_file(file))
            except (InputError, ValueError):  # unreadable: the file's own reader reports it, the others go on
                continue
            database._libraries[file] = library
            database.strings.update({key.lower(): str(s.value) for key, s in library.strings_dict.items()})
            for entry in library.entries:
                fields = field_values(entry)
                if fields.get("title", "").strip():
                    database.titled.add(entry.key)
                elif fields.get("abstract", "").strip():
                    database.abstracts.setdefault(entry.key, fields["abstract"])
        return database

    def library(self, file: Path, text: str) -> Any:
        """``file`` parsed (once for the whole ingest)."""
        if file not in self._libraries:
            self._libraries[file] = parse_library(text)
        return self._libraries[file]

    def completes(self, key: str) -> bool:
        """Whether the entry ``key`` holding only an abstract gives it to a titled entry of another file."""
        return key in self.titled


def split_concatenation(value: str) -> list[str]:
    """A bare field value's parts joined by '#', outside braces and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for at, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(value[start:at])
            start = at + 1
    return [*parts, value[start:]]


def interpolate(value: str, strings: Mapping[str, str]) -> str | None:
    """A bare field value with its macros replaced and its '#' parts joined; None when a macro is unknown."""
    joined = []
    for part in (p.strip() for p in split_concatenation(value)):
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            joined.append(part[1:-1])
        elif part.isdigit():
            joined.append(part)
        elif (found := strings.get(part.lower())) is not None:
            joined.append(found)
        else:
            return None
    return "".join(joined)
