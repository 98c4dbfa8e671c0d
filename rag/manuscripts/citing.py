"""What a manuscript reader returns: the sentences that cite, each citation with where it was written."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

# A key Pandoc reads bare; any other needs braces: @{key}.
_BARE_PANDOC_KEY = re.compile(r"\w(?:\w|[:.#$%&+?<>~/-](?=\w))*")


class Syntax(StrEnum):
    """How a citation was written, so it can be shown the way the author wrote it."""

    LATEX = "latex"  # \cite{key} and its relatives; ``command`` holds the name
    PANDOC_BRACKETED = "pandoc_bracketed"  # [@key], [see @key, p. 3; @other]
    PANDOC_SUPPRESSED = "pandoc_suppressed"  # [-@key]: the year only
    PANDOC_IN_TEXT = "pandoc_in_text"  # @key says ...


@dataclass(frozen=True)
class Cite:
    """One key cited at one place: the position (1-based line and column) is where the key is written."""

    key: str
    file: str
    line: int
    column: int
    syntax: Syntax = Syntax.LATEX
    command: str = "cite"  # the LaTeX command, starred forms with their '*'

    @property
    def written(self) -> str:
        """The citation as a reader would paste it: ``\\citep{key}``, ``[@key]``, ``@key``."""
        if self.syntax is Syntax.LATEX:
            return f"\\{self.command}{{{self.key}}}"
        key = self.key if _BARE_PANDOC_KEY.fullmatch(self.key) else f"{{{self.key}}}"
        if self.syntax is Syntax.PANDOC_SUPPRESSED:
            return f"[-@{key}]"
        if self.syntax is Syntax.PANDOC_BRACKETED:
            return f"[@{key}]"
        return f"@{key}"


@dataclass
class CitingSentence:
    """A sentence of the manuscript with the keys it cites, in the order written (each key once)."""

    text: str
    cites: list[Cite]


@dataclass
class Manuscript:
    sentences: list[CitingSentence] = field(default_factory=list)
    # ``file:line: ...`` for what could not be read as written (the rest is read).
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # every file read, included ones too
    # The bibliography files the manuscript names (\bibliography, \addbibresource, YAML bibliography:).
    bibliographies: list[str] = field(default_factory=list)

    def extend(self, other: Manuscript) -> None:
        self.sentences += other.sentences
        self.warnings += other.warnings
        self.files += other.files
        self.bibliographies += [b for b in other.bibliographies if b not in self.bibliographies]

    @property
    def cites(self) -> list[Cite]:
        return [cite for sentence in self.sentences for cite in sentence.cites]
