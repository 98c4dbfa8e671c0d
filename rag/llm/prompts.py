"""Prompt templates: plain files in prompts/, checked for exactly the placeholders we fill."""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rag.errors import PromptError
from rag.resources import bundled_dir

# Each template and the placeholders the code fills in it.
PLACEHOLDERS: dict[str, frozenset[str]] = {
    "system": frozenset(),
    "ask": frozenset({"question", "sources", "length", "citation_format"}),
    "summarize": frozenset({"topic", "sources", "citation_format"}),
    "summarize_merge": frozenset({"topic", "summaries", "citation_format"}),
    "draft": frozenset({"topic", "sources", "must_cite", "citation_format"}),
    "verify": frozenset({"claim", "evidence"}),
    # How to give citations, filled into {citation_format} above: [n] in text, or JSON sentences.
    "format_text": frozenset(),
    "format_json": frozenset(),
}


@dataclass(frozen=True)
class Prompt:
    name: str
    template: str

    def render(self, **values: str) -> str:
        return self.template.format(**values)


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def check(name: str, template: str, origin: Path) -> Prompt:
    try:
        found = placeholders(template)
    except ValueError as exc:  # a lone '{' or '}'
        raise PromptError(f"{origin}: malformed template ({exc}); write literal braces as '{{{{' and '}}}}'") from None
    expected = PLACEHOLDERS[name]
    if found != expected:
        missing, extra = sorted(expected - found), sorted(found - expected)
        raise PromptError(
            f"{origin}: placeholders do not match (missing: {', '.join(missing) or 'none'}; "
            f"unknown: {', '.join(extra) or 'none'}); expected exactly {', '.join(sorted(expected)) or 'none'}"
        )
    return Prompt(name, template.strip())


@cache
def load_prompt(name: str, folder: Path | None = None) -> Prompt:
    path = (folder or bundled_dir("prompts")) / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptError(f"cannot read prompt {path}: {exc.strerror or exc}") from None
    return check(name, text, path)
