"""A finding: what one rule of the citation check found in a sentence against its cited sources."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    code: str  # the rule that found it (rag.check.rules.registry.RULES)
    said: str  # what the sentence says: "1.76", "Germany", "decreased", "not"
    source_says: str | None = None  # the source's word it replaces, or the denial it drops, or None
    found_in: int | None = None  # a number or name missing from the cited source but in this other one


def says_instead(finding: Finding, cited: str, other: str | None) -> str:
    """A word turned into another, for a reader: "says 'lower' where [1] says 'higher'"."""
    return f"says '{finding.said}' where {cited} says '{finding.source_says}'"
