"""Tag-per-line exports (RIS, Web of Science plain text, MEDLINE) -> records of tag -> values.

rispy reads the lines of each record; this module first cuts the file into records, so that a record
without its end tag never swallows the next one (rispy alone takes the next ``TY`` for a repeated tag
and silently merges the two records, or drops the last one) and each record knows its line, for
warnings (``file:line``). Line ends are normalised first: IEEE Xplore writes CRLF plus a stray CR
before every ``TY``, and rispy then finds 1 record of 25.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rispy import RisParser, WokParser

# What a closed record ends with when the file did not say so: rispy only keeps records it saw end.
_END_LINE = "ER  - "


class _SameName(dict[str, str]):
    """rispy maps tags to field names; rag reads the tags themselves."""

    def __missing__(self, tag: str) -> str:
        return tag


class _Every(list[str]):
    """Every tag a list: repeated tags (AU) keep each value, and text tags are joined by the reader."""

    def __contains__(self, tag: object) -> bool:
        return True


class MedlineParser(RisParser):  # type: ignore[misc]
    """MEDLINE (PubMed's .nbib): 'TAG - value' with tags of up to four letters, continuations indented."""

    START_TAG = "PMID"

    def parse_line(self, line: str) -> tuple[str | None, str]:
        if line[:1].strip() and line[4:6] == "- ":
            return line[:4].rstrip(), line[6:].strip()
        if line[:1].strip() and line[4:].rstrip() == "-":
            return line[:4].rstrip(), ""
        return None, line.strip()


@dataclass(frozen=True)
class Dialect:
    name: str
    parser: type[Any]
    start: str  # the tag that opens a record
    end: str | None  # the tag that closes one; None: a record runs to the next start (MEDLINE)
    file_tags: frozenset[str] = frozenset()  # tags outside records that are not lost records (WoS FN, VR, EF)


RIS = Dialect("RIS", RisParser, "TY", "ER")
WOS = Dialect("Web of Science", WokParser, "PT", "ER", frozenset({"FN", "VR", "EF"}))
MEDLINE = Dialect("MEDLINE", MedlineParser, "PMID", None)


@dataclass
class Record:
    number: int  # 1-based, in file order
    line: int
    fields: dict[str, list[str]]

    def text(self, *tags: str) -> str:
        """The first of ``tags`` the record has, its lines joined."""
        return next((" ".join(v for v in self.fields[t] if v) for t in tags if any(self.fields.get(t, []))), "")

    def values(self, *tags: str) -> list[str]:
        """Every value of the first of ``tags`` the record has."""
        return next((values for t in tags if (values := [v for v in self.fields.get(t, []) if v])), [])


def _lines(text: str) -> list[str]:
    return [line.lstrip("\ufeff") for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _cut(
    lines: Sequence[str], file_name: str, dialect: Dialect, warnings: list[str]
) -> Iterator[tuple[int, list[str]]]:
    """(first line, lines) of each record, every one closed by its end tag."""
    parser = dialect.parser()
    end = dialect.end or "ER"
    start_line, current = 0, list[str]()
    stray = 0
    for number, line in enumerate(lines, start=1):
        tag = parser.parse_line(line)[0] if line.strip() else None
        if tag == dialect.start:
            if current:
                if dialect.end:
                    warnings.append(
                        f"{file_name}:{start_line}: record has no {end} before the next {dialect.start} "
                        f"(line {number}); read up to there"
                    )
                yield start_line, [*current, _END_LINE]
            start_line, current = number, [line]
        elif current:
            current.append(line)
            if tag is not None and tag == dialect.end:
                yield start_line, current
                current = []
        elif tag and tag not in dialect.file_tags and tag != dialect.end and not stray:
            stray = number
            warnings.append(
                f"{file_name}:{number}: '{tag}' line outside a record (no {dialect.start} before it), skipped"
            )
    if current:
        if dialect.end:
            warnings.append(f"{file_name}:{start_line}: last record has no {end}; read to the end of the file")
        yield start_line, [*current, _END_LINE]


def read_records(text: str, file_name: str, dialect: Dialect) -> tuple[list[Record], list[str]]:
    """The file's records, and a warning (``file:line``) for each broken one (what it holds is kept)."""
    warnings: list[str] = []
    parser = dialect.parser(mapping=_SameName(), list_tags=_Every(), delimiter_tags_mapping={}, ignore=[])
    records: list[Record] = []
    for start_line, lines in _cut(_lines(text), file_name, dialect, warnings):
        parsed = parser.parse_lines(iter(lines))
        if parsed:
            fields = {tag: value if isinstance(value, list) else [value] for tag, value in parsed[0].items() if tag}
            records.append(Record(len(records) + 1, start_line, fields))
    return records, warnings
