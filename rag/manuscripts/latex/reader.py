"""LaTeX manuscripts: the citations and the prose around them, once the manuscript is put together as its
build puts it together (rag.manuscripts.latex.tree: inputs, the author's macros).

Parsed with pylatexenc (its walker for structure, its latex2text for accents, ligatures and the text of
ordinary macros), with these choices:

- citations: ``\\cite`` and the natbib/biblatex/cite/apacite families (``\\citep``, ``\\citet``, ``\\citen``,
  ``\\autocite``, ``\\parencite``, ``\\textcite``, ``\\fullcite``, ``\\citetitle`` ...), any other ``\\...cite...``
  command with a key list but ``\\nocite``, starred forms, one or two optional ``[...]`` arguments, several
  keys in one command, biblatex's multicites (``\\parencites(pre)(post)[p]{a}[q]{b}``); each key is placed
  where its first character is written (where the macro that wrote it is called);
- the preamble is not read (its definitions are: macros, glossary entries, bibliographies);
- inline math is read as text (``$95\\%$`` says 95%), display math stands for nothing; a citation inside
  math is reported and not checked;
- figures and tables: their caption is read as a paragraph of its own, each table row as one (marked so);
  ``\\ref`` reads as "??" (LaTeX's own stand-in), ``\\cref``/``\\autoref`` as the kind the label's prefix
  names ("Figure ??"), ``\\gls``/``\\ac`` and relatives as the entry's text; labels and graphics as nothing;
- footnotes are read after the paragraph they interrupt; the bibliography is not read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pylatexenc import latex2text, latexwalker, macrospec

from rag.abbreviations import definitions
from rag.manuscripts.citing import Cite, Context, Manuscript, Syntax
from rag.manuscripts.latex.cites import multicites_merged
from rag.manuscripts.latex.commands import (
    BIBLIOGRAPHY_SIGNATURES,
    BIBTEX_LISTS,
    BLOCKS,
    CITE_COMMANDS,
    DISPLAY_MATH,
    FLOATS,
    GLOSSARY_LINKS,
    GLOSSARY_USES,
    NAMED_REFERENCES,
    PLAIN_REFERENCES,
    SECTIONS,
    TABLES,
    TEXT_AFTER_ONE,
    TEXT_WRAPPERS,
    UNREAD_ENVIRONMENTS,
    UNREAD_MACROS,
    citation_names,
    reference_text,
)
from rag.manuscripts.latex.glossary import Glossary
from rag.manuscripts.latex.source import balance, body
from rag.manuscripts.latex.tree import RECORDED, Tree
from rag.manuscripts.located import Located
from rag.manuscripts.prose import FOOTNOTE_CLOSE, FOOTNOTE_OPEN, PARAGRAPH, Marks, blank, paragraph
from rag.manuscripts.sentences import citing_sentences
from rag.manuscripts.sources import Finder, find_bibliographies

_KEY = re.compile(r"[^\s{}\\%,#~]+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_NEEDED = re.compile(r"\\[a-zA-Z]*[cC]ite|\\(?:gls|Gls|GLS|acr|Acr|ACR|ac|Ac|glsxtr|Glsxtr)")
_STRUCTURE = re.compile(r"\\begin\s*\{(?P<begin>[^{}]*)\}|\\end\s*\{(?P<end>[^{}]*)\}|\\.|[{}]", re.DOTALL)


@lru_cache(maxsize=8)
def _walker_context(extra_cites: frozenset[str]) -> Any:
    """pylatexenc's macros, plus the argument shapes of the citation, glossary and reference commands."""
    db = latexwalker.get_default_latex_context_db()
    spec = macrospec.MacroSpec
    macros = [spec(name, "*[[{") for name in (*CITE_COMMANDS, *sorted(extra_cites))]
    macros += [spec(name, "*[{") for name in GLOSSARY_USES]
    macros += [spec(name, "*[{{") for name in GLOSSARY_LINKS]
    macros += [spec(name, "*[{") for name in TEXT_WRAPPERS]
    macros += [spec(name, "[{{") for name in TEXT_AFTER_ONE]
    macros += [spec(name, "*{") for name in (*PLAIN_REFERENCES, *NAMED_REFERENCES)]
    macros += [spec(name, "*[{") for name in (*SECTIONS, "caption")]
    macros += [spec("footnotetext", "[{"), spec("href", "{{"), spec("citeleft", ""), spec("citeright", "")]
    macros += [spec(name, "*{") for name in ("vspace", "hspace", "nocite", "label")]
    macros += [
        spec(name, "".join("[" if letter == "o" else "{" for letter in shape)) for name, shape in RECORDED.items()
    ]
    environments = [macrospec.EnvironmentSpec("longtable", "[{"), macrospec.EnvironmentSpec("tabu", "{")]
    environments += [macrospec.EnvironmentSpec(name, "[") for name in ("wrapfigure", "subfigure", "minipage")]
    db.add_context_category("rag-manuscripts", macros=macros, environments=environments, prepend=True)
    return db


def _call(method: str) -> Callable[..., str]:
    """A latex2text replacement that asks the converter at work (``l2tobj``) for the text."""

    def replacement(node: Any, l2tobj: Any) -> str:
        return str(getattr(l2tobj, method)(node))

    return replacement


@lru_cache(maxsize=8)
def _text_context(extra_cites: frozenset[str]) -> Any:
    db = latex2text.get_default_latex_context_db()
    spec, env = latex2text.MacroTextSpec, latex2text.EnvironmentTextSpec
    macros = [spec(name, simplify_repl=_call("cite")) for name in (*CITE_COMMANDS, *sorted(extra_cites))]
    macros += [spec(name, simplify_repl=_call("glossary")) for name in GLOSSARY_USES]
    macros += [spec(name, simplify_repl=_call("heading")) for name in SECTIONS]
    macros += [spec("caption", simplify_repl=_call("caption"))]
    macros += [spec(name, simplify_repl=_call("footnote")) for name in ("footnote", "footnotetext")]
    macros += [spec(name, "??") for name in PLAIN_REFERENCES]
    macros += [spec(name, simplify_repl=_call("reference")) for name in NAMED_REFERENCES]
    macros += [spec(name, discard=True) for name in (*UNREAD_MACROS, *RECORDED)]
    macros += [spec("\\", simplify_repl=_call("line_break")), spec("item", simplify_repl=_call("item"))]
    macros += [
        spec(name, simplify_repl=_call("link")) for name in ("href", *GLOSSARY_LINKS, *TEXT_WRAPPERS, *TEXT_AFTER_ONE)
    ]
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
    """What the prose reader shares: the marks, the warnings, the glossary and where each offset was written."""

    located: Located
    tree: Tree
    marks: Marks = field(default_factory=Marks)
    glossary: Glossary = field(default_factory=Glossary)
    warnings: list[str] = field(default_factory=list)

    def position(self, offset: int) -> tuple[str, int, int]:
        origin = self.located.origin(offset)
        lines = self.tree.lines.get(origin.file)
        line, column = lines.at(origin.offset) if lines is not None else (1, 1)
        return origin.file, line, column

    def where(self, offset: int) -> str:
        file, line, column = self.position(offset)
        return f"{file}:{line}:{column}"


class _Prose(latex2text.LatexNodes2Text):  # type: ignore[misc]  # pylatexenc has no type hints
    """latex2text with the manuscript's choices."""

    def __init__(self, text: str, reading: _Reading, extra_cites: frozenset[str]) -> None:
        super().__init__(latex_context=_text_context(extra_cites), math_mode="text")
        self.source, self.reading = text, reading
        self.in_math = self.in_table = False

    def math_node_to_text(self, node: Any) -> str:
        if node.isNodeType(latexwalker.LatexEnvironmentNode) or node.displaytype == "display":
            return " "
        self.in_math = True
        try:
            return str(super().math_node_to_text(node))
        finally:
            self.in_math = False

    def _last_group(self, node: Any) -> Any:
        group = node.nodeargd.argnlist[-1] if node.nodeargd and node.nodeargd.argnlist else None
        return group if group is not None and group.isNodeType(latexwalker.LatexGroupNode) else None

    def _group_text(self, group: Any) -> str:
        return str(self.source[group.pos + 1 : group.pos + group.len - 1])

    def cite(self, node: Any) -> str:
        star = node.nodeargd.argnlist[0] if node.nodeargd and node.nodeargd.argnlist else None
        command = node.macroname + ("*" if star is not None else "")
        group = self._last_group(node)
        where = self.reading.where
        if self.in_math:
            self.reading.warnings.append(f"{where(node.pos)}: \\{command} inside math is not checked")
            return ""
        if group is None:
            self.reading.warnings.append(f"{where(node.pos)}: \\{command} without {{key}}; not checked")
            return ""
        cites, offset = [], group.pos + 1
        for part in self._group_text(group).split(","):
            key = part.strip()
            at = offset + len(part) - len(part.lstrip())
            offset += len(part) + 1
            if not key:
                self.reading.warnings.append(f"{where(at)}: \\{command} with an empty key")
            elif not _KEY.fullmatch(key):
                self.reading.warnings.append(f"{where(at)}: '{key}' in \\{command} is not a citation key")
            else:
                file, line, column = self.reading.position(at)
                cites.append(Cite(key, file, line, column, Syntax.LATEX, command))
        return self.reading.marks.place(cites)

    def glossary(self, node: Any) -> str:
        group = self._last_group(node)
        if group is None:
            return ""
        key = self._group_text(group).strip()
        return self.reading.glossary.text(node.macroname, GLOSSARY_USES[node.macroname], key)

    def reference(self, node: Any) -> str:
        group = self._last_group(node)
        return reference_text(self._group_text(group)) if group is not None else "??"

    def _argument(self, node: Any, index: int = -1) -> str:
        arguments = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
        chosen = arguments[index] if arguments else None
        return str(self.nodelist_to_text([chosen])) if chosen is not None else ""

    def heading(self, node: Any) -> str:
        return paragraph(Context.HEADING) + self._argument(node) + PARAGRAPH

    def caption(self, node: Any) -> str:
        return paragraph(Context.CAPTION) + self._argument(node) + PARAGRAPH

    def footnote(self, node: Any) -> str:
        return FOOTNOTE_OPEN + self._argument(node).replace(PARAGRAPH, " ") + FOOTNOTE_CLOSE

    def link(self, node: Any) -> str:
        return self._argument(node)

    def item(self, node: Any) -> str:
        label = node.nodeoptarg if hasattr(node, "nodeoptarg") else None
        return paragraph(Context.LIST) + (str(self.nodelist_to_text([label])) + " " if label is not None else "")

    def line_break(self, node: Any) -> str:
        return paragraph(Context.TABLE) if self.in_table else " "

    def block(self, node: Any) -> str:
        return PARAGRAPH + str(self.nodelist_to_text(node.nodelist)) + PARAGRAPH

    def table(self, node: Any) -> str:
        """Each row a paragraph of its own (cells side by side): a row is not part of the sentence around."""
        outer, self.in_table = self.in_table, True
        try:
            return paragraph(Context.TABLE) + str(self.nodelist_to_text(node.nodelist)) + PARAGRAPH
        finally:
            self.in_table = outer


def _bibliographies(tree: Tree, finder: Finder | None) -> tuple[list[Path], list[str]]:
    """The bibliography files the manuscript names, found like its inputs; a warning for each not found."""
    found: list[Path] = []
    warnings: list[str] = []
    for recorded in tree.recorded:
        if recorded.command not in BIBLIOGRAPHY_SIGNATURES:
            continue
        *options, value = recorded.arguments
        if any(option and "remote" in option for option in options):
            continue  # biblatex fetches it from the web: not a file of the manuscript
        # BibTeX's \bibliography{a,b} names a.bib and b.bib; biblatex's \addbibresource names the file.
        names = [(value or "").strip()]
        if recorded.command in BIBTEX_LISTS:
            names = [name.strip() + ("" if name.strip().endswith(".bib") else ".bib") for name in names[0].split(",")]
        paths, missing = find_bibliographies(
            [name for name in names if name not in ("", ".bib")],
            tree.where(recorded.where),
            recorded.where.file,
            finder,
        )
        found += [path for path in paths if path not in found]
        warnings += missing
    return found, warnings


def _uncited_blanked(text: str) -> str:
    """``text`` with each paragraph that cites nothing (and holds no glossary use, whose first use prints the
    long form) blanked, when it is whole on its own (braces and environments closed inside it): it can give
    no citing sentence, and pylatexenc, which reads about 100 kB a second, need not read it. A paragraph
    ending in a colon is kept: it leads into a list whose items go on from it; of one ending a sentence, its
    full stop is kept, so that a list after it is not read as going on from a colon before it."""
    spans = []
    start = 0
    for end in [m.start() for m in _PARAGRAPH_BREAK.finditer(text)] + [len(text)]:
        chunk = text[start:end]
        written = chunk.rstrip()
        if not _NEEDED.search(chunk) and _whole(chunk) and not written.endswith(":"):
            spans.append((start, start + len(written) - 1 if written.endswith((".", "!", "?")) else end))
        start = end
    return blank(text, spans)


def _whole(chunk: str) -> bool:
    depth, environments = 0, []
    for token in _STRUCTURE.finditer(chunk):
        value = token.group(0)
        if value == "{":
            depth += 1
        elif value == "}":
            depth -= 1
            if depth < 0:
                return False
        elif token.group("begin") is not None:
            environments.append(token.group("begin"))
        elif token.group("end") is not None and (not environments or environments.pop() != token.group("end")):
            return False
    return depth == 0 and not environments


def _notes(tree: Tree) -> list[str]:
    return [
        f"{tree.where(r.where)}: \\includeonly ignored: every \\include is read, as a full build reads them"
        for r in tree.recorded
        if r.command == "includeonly"
    ]


def read_latex(text: str, file: str, finder: Finder | None = None) -> Manuscript:
    """The citing sentences of a LaTeX manuscript; ``finder`` reads the files it names (None: none is read)."""
    logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)  # tolerant parsing logs every repair it makes
    tree = Tree(finder)
    located = tree.put_together(text, file)
    reading = _Reading(located, tree)
    for recorded in tree.recorded:
        reading.glossary.define(recorded.command, recorded.arguments)
    prose_text, unbalanced = balance(body(located.text), reading.where)
    prose_text = multicites_merged(_uncited_blanked(prose_text))
    extra = citation_names(prose_text)
    try:
        walker = latexwalker.LatexWalker(prose_text, latex_context=_walker_context(extra), tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes()
        prose = str(_Prose(prose_text, reading, extra).nodelist_to_text(nodes))
    except RecursionError:
        reading.warnings.append(
            f"{file}: braces or environments nested too deeply to read; its citations are not checked"
        )
        prose = PARAGRAPH
    bibliographies, missing = _bibliographies(tree, finder)
    warnings = tree.warnings + unbalanced + reading.warnings + missing + _notes(tree)
    if reading.marks.overflowed:
        warnings.append(f"{file}: more citations than rag can check in one run; the last ones are not checked")
    sentences = citing_sentences(prose, reading.marks)
    abbreviations = _abbreviations(located.text, reading.glossary)
    return Manuscript(sentences, warnings, tree.files, bibliographies, abbreviations)


# A command's name and the braces around its arguments, which a definition's words do not hold.
_MARKUP = re.compile(r"\\[A-Za-z]+\*?|[{}~]")


def _abbreviations(text: str, glossary: Glossary) -> dict[str, str]:
    """The abbreviations the manuscript defines: its acronym entries (\\newacronym{rbd}{RBD}{rigid body
    dynamics}), and those it defines in its text, also in paragraphs that cite nothing (the prose the check
    reads leaves those out): "\\emph{cosmic microwave background} (CMB)"."""
    found = {e.short: e.long for e in glossary.entries.values() if e.short and e.long and e.short != e.long}
    for short, long in definitions(" ".join(_MARKUP.sub(" ", body(text)).split())).items():
        found.setdefault(short, long)
    return found
