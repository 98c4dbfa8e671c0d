"""LaTeX manuscripts: citations, the prose around them, and the files they ``\\input``.

Parsed with pylatexenc (its walker for structure, its latex2text for accents, ligatures and the text of
ordinary macros), with these choices:

- citations: ``\\cite`` and the natbib/biblatex family (``\\citep``, ``\\citet``, ``\\autocite``,
  ``\\parencite``, ``\\textcite``, ``\\footcite`` ...), starred forms, one or two optional ``[...]``
  arguments, several keys in one command; each key is placed where its first character is written;
- comments (``%``, not ``\\%``) and the preamble are not read;
- inline math is read as text (``$95\\%$`` says 95%), display math (``\\[...\\]``, ``equation``, ``align``
  ...) stands for nothing; a citation inside math is reported and not checked;
- figures and tables: their caption is read as a paragraph of its own, each table row as one;
  ``\\ref``-like commands read as "??" (LaTeX's own stand-in), labels and graphics as nothing;
- footnotes are read after the paragraph they interrupt; the bibliography is not read;
- ``\\input``/``\\include`` are followed where they are written, relative to the including file
  (``.tex`` added when missing); a missing file, an unreadable one or a cycle is a warning with file:line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pylatexenc import latex2text, latexwalker, macrospec

from rag.errors import InputError
from rag.manuscripts.citing import Cite, Manuscript, Syntax
from rag.manuscripts.latex_source import prepare
from rag.manuscripts.prose import FOOTNOTE_CLOSE, FOOTNOTE_OPEN, PARAGRAPH, Lines, Marks
from rag.manuscripts.sentences import citing_sentences

CITE_COMMANDS = (
    "cite", "citep", "citet", "citealt", "citealp", "citeauthor", "citeyear", "citeyearpar",
    "Cite", "Citep", "Citet", "Citealt", "Citealp", "Citeauthor",
    "autocite", "Autocite", "parencite", "Parencite", "textcite", "Textcite",
    "footcite", "footcitetext", "smartcite", "Smartcite", "supercite",
)  # fmt: skip
INPUT_COMMANDS = ("input", "include", "subfile")
SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
REFERENCES = ("ref", "eqref", "pageref", "autoref", "cref", "Cref", "vref", "nameref", "labelcref")
UNREAD_MACROS = (
    "label", "includegraphics", "bibliography", "bibliographystyle", "addbibresource", "nocite",
    "printbibliography", "vspace", "hspace", "newpage", "clearpage", "maketitle", "tableofcontents",
)  # fmt: skip
FLOATS = ("figure", "figure*", "table", "table*", "wrapfigure", "sidewaysfigure", "sidewaystable", "subfigure")
TABLES = ("tabular", "tabular*", "tabularx", "longtable", "array", "tabu")
DISPLAY_MATH = (
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "eqnarray", "eqnarray*", "flalign", "flalign*", "alignat", "alignat*", "displaymath",
)  # fmt: skip
UNREAD_ENVIRONMENTS = ("thebibliography", "tikzpicture", "filecontents", "filecontents*")
BLOCKS = ("abstract", "quote", "quotation", "center", "itemize", "enumerate", "description", "minipage")
# Deeper \input chains are a mistake (or a cycle through links).
MAX_INPUT_DEPTH = 16
REFERENCE_TEXT = "??"
_KEY = re.compile(r"[^\s{}\\%,#~]+")
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")

# (name as written, including file) -> (the file as shown, its text); raises InputError when it cannot.
Loader = Callable[[str, str], tuple[str, str]]


@lru_cache(maxsize=1)
def _walker_context() -> Any:
    """pylatexenc's macros, plus the argument shapes of the citation and reference commands."""
    db = latexwalker.get_default_latex_context_db()
    macros = [macrospec.MacroSpec(name, "*[[{") for name in CITE_COMMANDS]
    macros += [macrospec.MacroSpec(name, "*{") for name in REFERENCES]
    macros += [macrospec.MacroSpec(name, "{") for name in INPUT_COMMANDS]
    macros += [macrospec.MacroSpec(name, "*[{") for name in (*SECTIONS, "caption")]
    macros += [macrospec.MacroSpec("footnotetext", "[{"), macrospec.MacroSpec("href", "{{")]
    macros += [macrospec.MacroSpec(name, "*{") for name in ("vspace", "hspace", "addbibresource", "nocite")]
    environments = [macrospec.EnvironmentSpec("longtable", "[{"), macrospec.EnvironmentSpec("tabu", "{")]
    environments += [macrospec.EnvironmentSpec(name, "[") for name in ("wrapfigure", "subfigure", "minipage")]
    db.add_context_category("rag-manuscripts", macros=macros, environments=environments, prepend=True)
    return db


def _call(method: str) -> Callable[..., str]:
    """A latex2text replacement that asks the converter at work (``l2tobj``) for the text."""

    def replacement(node: Any, l2tobj: Any) -> str:
        return str(getattr(l2tobj, method)(node))

    return replacement


@lru_cache(maxsize=1)
def _text_context() -> Any:
    db = latex2text.get_default_latex_context_db()
    spec, env = latex2text.MacroTextSpec, latex2text.EnvironmentTextSpec
    macros = [spec(name, simplify_repl=_call("cite")) for name in CITE_COMMANDS]
    macros += [spec(name, simplify_repl=_call("include")) for name in INPUT_COMMANDS]
    macros += [spec(name, simplify_repl=_call("heading")) for name in (*SECTIONS, "caption")]
    macros += [spec(name, simplify_repl=_call("footnote")) for name in ("footnote", "footnotetext")]
    macros += [spec(name, REFERENCE_TEXT) for name in REFERENCES]
    macros += [spec(name, discard=True) for name in UNREAD_MACROS]
    macros += [spec("\\", simplify_repl=_call("line_break")), spec("item", simplify_repl=_call("item"))]
    macros += [spec("href", simplify_repl=_call("link"))]
    environments = [env(name, simplify_repl=_call("block")) for name in (*FLOATS, *BLOCKS)]
    environments += [env(name, simplify_repl=_call("table")) for name in TABLES]
    environments += [env(name, " ") for name in DISPLAY_MATH]
    environments += [env(name, discard=True) for name in UNREAD_ENVIRONMENTS]
    specials = [latex2text.SpecialsTextSpec("&", " ")]
    db.add_context_category(
        "rag-manuscripts", macros=macros, environments=environments, specials=specials, prepend=True
    )
    return db


@dataclass
class _Reading:
    """What one manuscript's files share while they are read: the marks, the warnings, the files open."""

    marks: Marks = field(default_factory=Marks)
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    open_files: list[str] = field(default_factory=list)
    loader: Loader | None = None


class _Prose(latex2text.LatexNodes2Text):  # type: ignore[misc]  # pylatexenc has no type hints
    """latex2text with the manuscript's choices; one per file, so positions are that file's."""

    def __init__(self, text: str, file: str, reading: _Reading) -> None:
        super().__init__(latex_context=_text_context(), math_mode="text")
        self.source, self.file, self.reading, self.lines = text, file, reading, Lines(text)
        self.in_math = self.in_table = False

    def where(self, offset: int) -> str:
        line, column = self.lines.at(offset)
        return f"{self.file}:{line}:{column}"

    def math_node_to_text(self, node: Any) -> str:
        if node.isNodeType(latexwalker.LatexEnvironmentNode) or node.displaytype == "display":
            return " "
        self.in_math = True
        try:
            return str(super().math_node_to_text(node))
        finally:
            self.in_math = False

    def cite(self, node: Any) -> str:
        star = node.nodeargd.argnlist[0] if node.nodeargd and node.nodeargd.argnlist else None
        command = node.macroname + ("*" if star is not None else "")
        group = node.nodeargd.argnlist[-1] if node.nodeargd and node.nodeargd.argnlist else None
        if self.in_math:
            self.reading.warnings.append(f"{self.where(node.pos)}: \\{command} inside math is not checked")
            return ""
        if group is None or not group.isNodeType(latexwalker.LatexGroupNode):
            self.reading.warnings.append(f"{self.where(node.pos)}: \\{command} without {{key}}; not checked")
            return ""
        start = group.pos + 1
        inside = _COMMENT.sub(lambda m: " " * len(m.group(0)), self.source[start : group.pos + group.len - 1])
        cites, offset = [], start
        for part in inside.split(","):
            key = part.strip()
            at = offset + len(part) - len(part.lstrip())
            offset += len(part) + 1
            if not key:
                self.reading.warnings.append(f"{self.where(at)}: \\{command} with an empty key")
            elif not _KEY.fullmatch(key):
                self.reading.warnings.append(f"{self.where(at)}: '{key}' in \\{command} is not a citation key")
            else:
                line, column = self.lines.at(at)
                cites.append(Cite(key, self.file, line, column, Syntax.LATEX, command))
        return self.reading.marks.place(cites)

    def include(self, node: Any) -> str:
        group = node.nodeargd.argnlist[0] if node.nodeargd and node.nodeargd.argnlist else None
        name = self.source[group.pos + 1 : group.pos + group.len - 1].strip() if group is not None else ""
        if group is None or not group.isNodeType(latexwalker.LatexGroupNode) or not name:
            self.reading.warnings.append(f"{self.where(node.pos)}: \\{node.macroname} without {{file}}; not followed")
            return " "
        return PARAGRAPH + read_included(name, self.where(node.pos), self.file, self.reading) + PARAGRAPH

    def _argument(self, node: Any, index: int = -1) -> str:
        arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
        chosen = arguments[index] if arguments else None
        return str(self.nodelist_to_text([chosen])) if chosen is not None else ""

    def heading(self, node: Any) -> str:
        return PARAGRAPH + self._argument(node) + PARAGRAPH

    def footnote(self, node: Any) -> str:
        return FOOTNOTE_OPEN + self._argument(node).replace(PARAGRAPH, " ") + FOOTNOTE_CLOSE

    def link(self, node: Any) -> str:
        return self._argument(node)

    def item(self, node: Any) -> str:
        label = node.nodeoptarg if hasattr(node, "nodeoptarg") else None
        return PARAGRAPH + (str(self.nodelist_to_text([label])) + " " if label is not None else "")

    def line_break(self, node: Any) -> str:
        return PARAGRAPH if self.in_table else " "

    def block(self, node: Any) -> str:
        return PARAGRAPH + str(self.nodelist_to_text(node.nodelist)) + PARAGRAPH

    def table(self, node: Any) -> str:
        """Each row a paragraph of its own (cells side by side): a row is not part of the sentence around."""
        outer, self.in_table = self.in_table, True
        try:
            return PARAGRAPH + str(self.nodelist_to_text(node.nodelist)) + PARAGRAPH
        finally:
            self.in_table = outer


def _prose(text: str, file: str, reading: _Reading) -> str:
    prepared = prepare(text, file)
    reading.warnings += prepared.warnings
    reading.files.append(file)
    reading.open_files.append(file)
    try:
        walker = latexwalker.LatexWalker(prepared.text, latex_context=_walker_context(), tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes()
        return str(_Prose(prepared.text, file, reading).nodelist_to_text(nodes))
    except RecursionError:
        reading.warnings.append(
            f"{file}: braces or environments nested too deeply to read; its citations are not checked"
        )
        return PARAGRAPH
    finally:
        reading.open_files.pop()


def read_included(name: str, where: str, including: str, reading: _Reading) -> str:
    """The prose of the file ``\\input{name}`` names, or nothing (and a warning) when it cannot be read."""
    if reading.loader is None:
        reading.warnings.append(f"{where}: \\input{{{name}}} not followed (the text was given without its folder)")
        return ""
    if len(reading.open_files) >= MAX_INPUT_DEPTH:
        reading.warnings.append(f"{where}: \\input{{{name}}} not followed: more than {MAX_INPUT_DEPTH} files deep")
        return ""
    try:
        file, text = reading.loader(name, including)
    except InputError as exc:
        reading.warnings.append(f"{where}: \\input{{{name}}} not followed: {exc}")
        return ""
    if file in reading.open_files:
        reading.warnings.append(f"{where}: \\input{{{name}}} not followed: {file} is already being read (a cycle)")
        return ""
    return _prose(text, file, reading)


def read_latex(text: str, file: str, loader: Loader | None = None) -> Manuscript:
    """The citing sentences of a LaTeX text; ``loader`` reads the files it ``\\input``s (None: not followed)."""
    logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)  # tolerant parsing logs every repair it makes
    reading = _Reading(loader=loader)
    prose = _prose(text, file, reading)
    if reading.marks.overflowed:
        reading.warnings.append(f"{file}: more citations than rag can check in one run; the last ones are not checked")
    return Manuscript(citing_sentences(prose, reading.marks), reading.warnings, reading.files)
