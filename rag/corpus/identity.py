"""Stable ids from content and readable, unique citekeys."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Container, Iterable

from rag.records import Paper

ID_PREFIX = "p"
ID_HEX_CHARS = 12
TRUNCATION_MARK = "…"
LETTER_SUFFIXES = 26
# A key longer than this is no key a person typed (a whole line of a file taken as a name): rag gives another.
MAX_CITEKEY_CHARS = 64
# The author and the title word of a generated key are cut to this, so a key stays readable and bounded.
KEY_PART_CHARS = 24
# Title words that make poor citekey stems.
_CITEKEY_SKIP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "on",
        "of",
        "for",
        "in",
        "to",
        "and",
        "with",
        "towards",
        "toward",
        "via",
        "from",
        "is",
        "are",
        "do",
        "does",
        "not",
        "all",
    ]
)


# An arXiv identifier, new style (2206.01288) or old (hep-th/9901001, math.GT/0309136); the version dropped.
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
# Where exports write one inside other text: arXiv:ID, arxiv.org/abs/ID (or /pdf/), DOI 10.48550/arXiv.ID.
_ARXIV_REFERENCE = re.compile(rf"arxiv(?:\.org/(?:abs|pdf)/|:\s*|\.){_ARXIV_ID}", re.I)
# A field holding the identifier alone, possibly with one of those prefixes.
_ARXIV_VALUE = re.compile(rf"(?:arxiv:\s*|https?://arxiv\.org/(?:abs|pdf)/)?{_ARXIV_ID}", re.I)
# How a DOI field may start before the DOI itself: a resolver address or a 'doi:' label.
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)


def arxiv_in(text: str) -> str | None:
    """The arXiv id named inside ``text`` (arXiv:ID, an arxiv.org address, an arXiv DOI), without its version."""
    match = _ARXIV_REFERENCE.search(text)
    return match.group(1) if match else None


def arxiv_value(text: str) -> str | None:
    """``text`` as an arXiv id when that is all it holds (a prefix allowed), without its version."""
    match = _ARXIV_VALUE.fullmatch(text.strip())
    return match.group(1) if match else None


def doi_value(text: str) -> str | None:
    """A DOI field's DOI without a resolver address or 'doi:' label ('https://doi.org/10.1/x' -> '10.1/x')."""
    return _DOI_PREFIX.sub("", text.strip()) or None


def normalize_text(text: str) -> str:
    """Unicode NFC and single spaces: the form that is hashed and indexed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def content_id(text: str) -> str:
    digest = hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()
    return f"{ID_PREFIX}{digest[:ID_HEX_CHARS]}"


def ascii_fold(text: str) -> str:
    """'Dünner' -> 'Dunner', 'İnce' -> 'Ince'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ascii_fold(text).lower())


def surname(author: str) -> str:
    """The family name of 'Yuan, Binhang' or 'Binhang Yuan'."""
    if "," in author:
        return author.split(",", 1)[0]
    parts = author.split()
    return parts[-1] if parts else ""


def citekey_stem(paper: Paper) -> str:
    """author + year + first significant title word, e.g. 'yuan2022decentralized'."""
    author = _letters(surname(paper.first_author)) if paper.first_author else ""
    year = str(paper.year) if paper.year else ""
    word_source = paper.title or paper.text
    words = [_letters(w) for w in re.split(r"[\s:/-]+", word_source)]
    word = next((w for w in words if w and w not in _CITEKEY_SKIP_WORDS), "")
    return f"{(author or 'anon')[:KEY_PART_CHARS]}{year}{word[:KEY_PART_CHARS]}"


def resolve_key_clashes(papers: Iterable[Paper], newcomers: set[str]) -> list[str]:
    """A user's key already used by another paper: the newcomer gets a suffix, and a warning says so."""
    owners: dict[str, Paper] = {}
    warnings = []
    for paper in sorted(papers, key=lambda p: (p.id in newcomers, p.id)):
        if paper.citekey and paper.citekey in owners:
            old = paper.citekey
            paper.citekey, _ = free_key(old, owners)
            warnings.append(f"citekey '{old}' is already used by another paper; this one is '{paper.citekey}'")
        owners[paper.citekey or paper.id] = paper
    return warnings


def free_key(stem: str, used: Container[str], start: int = 2) -> tuple[str, int]:
    """The first '<stem><suffix>' not in ``used``, from suffix number ``start``; and that number."""
    number = start
    while f"{stem}{_suffix(number)}" in used:
        number += 1
    return f"{stem}{_suffix(number)}", number


def _suffix(number: int) -> str:
    """2 -> 'b', 26 -> 'z', 27 -> '27': the letters BibTeX users expect, then numbers."""
    return chr(ord("a") + number - 1) if number <= LETTER_SUFFIXES else str(number)


def assign_citekeys(papers: Iterable[Paper], taken: Iterable[str] = ()) -> None:
    """Give every paper without a citekey a unique one; existing keys never change.

    Collisions get a letter suffix ('b', 'c', ...) in id order, so the result
    does not depend on the order files were ingested in.
    """
    ordered = sorted(papers, key=lambda p: p.id)
    used = set(taken) | {p.citekey for p in ordered if p.citekey}
    next_number: dict[str, int] = {}  # per stem, so thousands of 'anon...' papers stay linear
    for paper in ordered:
        if paper.citekey:
            continue
        stem = citekey_stem(paper)
        key = stem
        if key in used:
            key, number = free_key(stem, used, next_number.get(stem, 2))
            next_number[stem] = number + 1
        paper.citekey = key
        used.add(key)
