"""rag's own exports read back: each record carries the paper as the library holds it, so nothing is lost.

`rag export` (rag.formats) writes, beside what a format can say, what it cannot: the paper's id, its
aliases and collections, and every field the format would read back differently (an item type CSL has no
name for, authors it splits otherwise, a BibTeX entry rag wrote itself). JSONL records are the paper itself;
CSL JSON items carry it in ``custom.rag`` (CSL's field for data of other programs, which Zotero and Pandoc
ignore); BibTeX entries in an ``@comment{rag: ...}`` before them, which BibTeX, biber and Zotero skip.

A paper read from such a record is a copy of a library's paper: read into the library it came from, it
changes nothing (rag.index.catalog); into another, it is that paper, its keys and collections included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, NamedTuple

from rag.corpus.identity import ID_HEX_CHARS, ID_PREFIX
from rag.records import Paper

# The key of the record in a CSL item's ``custom`` object, and the word that opens a BibTeX comment holding one.
OWN_RECORD = "rag"
CSL_CUSTOM = "custom"
BIBTEX_COMMENT = f"{OWN_RECORD}:"
# A BibTeX record names its entry; ``added`` lists the fields rag added to the user's own entry (the library
# knew them, the entry did not): read back, they are taken off again, so the entry kept is the user's.
ENTRY_KEY = "key"
ADDED_FIELDS = "added"
# Where a paper was read is the reading library's business: the file a copy comes from, not the original's.
NOT_CARRIED = frozenset({"sources", "lists", "passages"})
CARRIED = tuple(f.name for f in fields(Paper) if f.name not in NOT_CARRIED)
# The fields of a JSONL line that `rag export --format jsonl` wrote (Paper.to_dict without passages).
_JSONL_SIGNATURE = frozenset({"id", "text", "citekey", "sources", "no_abstract"})
_PAPER_ID = re.compile(rf"{ID_PREFIX}[0-9a-f]{{{ID_HEX_CHARS}}}")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# Inside a BibTeX comment only the record's own braces may appear, balanced; '@' would start a block.
_COMMENT_ESCAPES = {"{": "\\u007b", "}": "\\u007d", "@": "\\u0040"}


class Parsed(NamedTuple):
    """What a reader of a format rag exports gives: the papers, a warning per entry it could not use, and the
    ids of the papers that were copies (read from rag's own records)."""

    papers: list[Paper]
    warnings: list[str]
    copies: frozenset[str] = frozenset()


def is_own_jsonl(item: Mapping[str, Any]) -> bool:
    return item.keys() >= _JSONL_SIGNATURE and isinstance(item.get("id"), str) and bool(_PAPER_ID.fullmatch(item["id"]))


def csl_record(item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    custom = item.get(CSL_CUSTOM)
    record = custom.get(OWN_RECORD) if isinstance(custom, Mapping) else None
    return record if isinstance(record, Mapping) else None


def bibtex_comment(record: Mapping[str, Any]) -> str:
    """``@comment{rag: {...}}`` on one line, its JSON strings escaped so no brace or '@' of theirs shows."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    escaped = _JSON_STRING.sub(lambda m: "".join(_COMMENT_ESCAPES.get(c, c) for c in m.group(0)), text)
    return f"@comment{{{BIBTEX_COMMENT} {escaped}}}"


def bibtex_record(comment: str) -> Mapping[str, Any] | None:
    """The record a ``@comment`` block's text holds, or None (any other comment, or a damaged one)."""
    text = comment.strip()
    if not text.startswith(BIBTEX_COMMENT):
        return None
    try:
        record = json.loads(text[len(BIBTEX_COMMENT) :])
    except ValueError:
        return None
    return record if isinstance(record, Mapping) and isinstance(record.get(ENTRY_KEY), str) else None


def _fits(template: Paper, name: str, value: Any) -> bool:
    """A carried value of the type the field holds (a record edited by hand must not put a number in a list)."""
    current = getattr(template, name)
    if name == "id":
        return isinstance(value, str) and bool(_PAPER_ID.fullmatch(value))
    if isinstance(current, bool) or name in ("truncated", "no_abstract"):
        return isinstance(value, bool)
    if isinstance(current, list):
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if name == "year":
        return value is None or (isinstance(value, int) and not isinstance(value, bool))
    if name in ("text", "citekey"):
        return isinstance(value, str)
    return value is None or isinstance(value, str)


def restore(paper: Paper, record: Mapping[str, Any], where: str, warnings: list[str]) -> bool:
    """Set every field the record carries on ``paper`` (as its format read it) as the library held it; False
    when the record names no paper (then ``paper`` is an ordinary entry)."""
    if not _fits(paper, "id", record.get("id")):
        warnings.append(f"{where}: rag's record of this entry names no paper id; read as an ordinary entry")
        return False
    wrong = []
    for name in CARRIED:
        if name not in record:
            continue
        if _fits(paper, name, record[name]):
            setattr(paper, name, list(record[name]) if isinstance(record[name], list) else record[name])
        else:
            wrong.append(name)
    if wrong:
        warnings.append(f"{where}: rag's record of this entry has unusable {', '.join(wrong)}; kept as read")
    return True
