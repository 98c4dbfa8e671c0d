"""What a manuscript reader returns: the sentences that cite, each citation with where it was written."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from rag.abbreviations import with_long_forms
from rag.manuscripts.tidy import tidied

# A key Pandoc reads bare; any other needs braces: @{key}.
_BARE_PANDOC_KEY = re.compile(r"\w(?:\w|[:.#$%&+?<>~/-](?=\w))*")
# LaTeX citations that print their authors in the text ("\textcite{x} showed", natbib's "\citet{x} showed").
IN_TEXT_COMMANDS = frozenset(
    name + star
    for base in ("textcite", "citet", "citeauthor", "textcites", "citealt")
    for name in (base, base[0].upper() + base[1:])
    for star in ("", "*")
)
# Such a citation as shown in a sentence (rag.manuscripts.sentences.shown): "\textcite{a,b}".
_IN_TEXT_LATEX = re.compile(
    r"\\(?:" + "|".join(re.escape(name) for name in sorted(IN_TEXT_COMMANDS, key=len, reverse=True)) + r")\{[^{}]*\}"
)


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
    def in_text(self) -> bool:
        """Whether the citation stands for its authors in the text ("@key found", "\\textcite{key} found")."""
        return self.syntax is Syntax.PANDOC_IN_TEXT or (
            self.syntax is Syntax.LATEX and self.command in IN_TEXT_COMMANDS
        )

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


def written_in_text(cites: Sequence[Cite]) -> str:
    """One citation standing for its authors in the text, as written: ``@key``, ``\\textcite{a,b}``."""
    first = cites[0]
    if first.syntax is Syntax.LATEX:
        return f"\\{first.command}{{{','.join(cite.key for cite in cites)}}}"
    return " ".join(cite.written for cite in cites)


class Context(StrEnum):
    """Where a sentence stands: the checker reads prose strictly, table cells and headings leniently."""

    PROSE = "prose"
    LIST = "list"  # an item of a list
    FOOTNOTE = "footnote"
    CAPTION = "caption"  # of a figure or a table
    HEADING = "heading"
    TABLE = "table"  # a table row: cells side by side, not a sentence


@dataclass
class CitingSentence:
    """A sentence of the manuscript with every citation it holds, in the order written (a key cited twice
    is there twice), and where it stands."""

    text: str
    cites: list[Cite]
    context: Context = Context.PROSE
    # A list item going on from the sentence that leads into its list ("... including:"): that sentence.
    lead_in: str = ""
    # The manuscript's abbreviations (short form -> long form), wherever in it they are defined.
    defined: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def reading(self) -> str:
        """The sentence as the check matches it: after its lead-in, if any, with the short forms it uses spelled
        out (rag.abbreviations)."""
        text = self._without_in_text_citations()
        return with_long_forms(f"{self.lead_in} {text}" if self.lead_in else text, self.defined)

    def _without_in_text_citations(self) -> str:
        """The text without the citations standing for their authors, shown as written: the check reads the
        sentence around them (a key's words are not the sentence's)."""
        text = self.text
        if any(cite.in_text and cite.syntax is Syntax.LATEX for cite in self.cites):
            text = _IN_TEXT_LATEX.sub(" ", text)
        for cite in self.cites:
            if cite.syntax is Syntax.PANDOC_IN_TEXT:
                text = text.replace(cite.written, " ")
        return tidied(text) if text != self.text else text


@dataclass
class Manuscript:
    sentences: list[CitingSentence] = field(default_factory=list)
    # ``file:line: ...`` for what could not be read as written (the rest is read).
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # every file read, included ones too
    # The bibliography files the manuscript names (\bibliography, \addbibresource, YAML `bibliography:`)
    # that exist, in the order named; the missing ones are warnings.
    bibliographies: list[Path] = field(default_factory=list)
    # Its abbreviations: "cosmic microwave background (CMB)" in one chapter, "CMB" alone in another.
    abbreviations: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._share_abbreviations()

    def extend(self, other: Manuscript) -> None:
        self.sentences += other.sentences
        self.warnings += other.warnings
        self.files += [file for file in other.files if file not in self.files]
        self.bibliographies += [bib for bib in other.bibliographies if bib not in self.bibliographies]
        for short, long in other.abbreviations.items():
            self.abbreviations.setdefault(short, long)
        self._share_abbreviations()

    def _share_abbreviations(self) -> None:
        for sentence in self.sentences:
            sentence.defined = self.abbreviations

    @property
    def cites(self) -> list[Cite]:
        return [cite for sentence in self.sentences for cite in sentence.cites]

    def cites_by_context(self) -> dict[Context, int]:
        """How many citations stand in prose, lists, footnotes, captions, headings and tables."""
        counts = dict.fromkeys(Context, 0)
        for sentence in self.sentences:
            counts[sentence.context] += len(sentence.cites)
        return counts
