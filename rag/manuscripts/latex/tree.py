"""A LaTeX manuscript put together as its build puts it together: the main file with every file it reads
(``\\input``, ``\\include``, ``\\subfile``, the import package's ``\\import``/``\\subimport``/
``\\includefrom``..., glossaries' ``\\loadglsentries``), through the macros the author wrote around them
(``\\newcommand{\\inputch}[1]{\\input{chapters/#1}}``).

It reads the text as TeX reads its input: a stack of levels (a file, a macro's expansion), each read left
to right. The author's macros are expanded where they matter to the reader: when they write a citation,
an input, a glossary entry or a cross-reference, when they take the name of such a command (a
``\\newcommand\\ac`` of the author's own) or when they drop an argument (``\\newcommand{\\todo}[1]{}``).
Other macros are left to the prose reader, which reads their arguments as text.

Also recorded on the way, with where they were written: the bibliographies named, the glossary entries
defined and ``\\includeonly``. An input that cannot be followed (missing, unreadable, a cycle, too deep, or a
manuscript given as text) is a warning with file:line:column, never silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import InputError
from rag.manuscripts.latex.commands import (
    BIBLIOGRAPHY_SIGNATURES,
    GLOSSARY_DEFINITIONS,
    GLOSSARY_USES,
    IMPORTS,
    INPUT_SIGNATURES,
    NAMED_REFERENCES,
    PAGE_INCLUDES,
    PLAIN_REFERENCES,
    RELATIVE_IMPORTS,
    is_citation,
)
from rag.manuscripts.latex.macros import DEFINERS, Macro, call_arguments, expand, read_definition
from rag.manuscripts.latex.scan import CONTROL, Incomplete, arguments, word_after
from rag.manuscripts.latex.source import document_span, unread
from rag.manuscripts.located import Located, Origin
from rag.manuscripts.prose import Lines
from rag.manuscripts.sources import Finder

# Deeper \input chains are a mistake (or a cycle through links); more expansions than this, a macro that
# calls itself.
MAX_INPUT_DEPTH = 16
MAX_LEVELS = 200
MAX_EXPANSIONS = 100_000
_BRACED = re.compile(r"\s*[{\[]")
_AT_END = re.compile(r"\s*\Z")
RECORDED = {**BIBLIOGRAPHY_SIGNATURES, **GLOSSARY_DEFINITIONS, "includeonly": "m"}
# Built-in commands whose meaning an author's macro of the same name replaces: the macro is expanded.
_HANDLED = frozenset((*INPUT_SIGNATURES, *GLOSSARY_USES, *NAMED_REFERENCES, *PLAIN_REFERENCES))


# A macro without arguments that stands for a few words (\newcommand{\lyse}{\textsf{lyse}}, \eg): expanded,
# so the sentence keeps its words (latex2text drops a macro it does not know). Not one that programs TeX.
MAX_TEXT_MACRO = 200
_PROGRAMMING = re.compile(r"[#@]|\\(?:[egx]?def|if|else|fi|begin|end|par\b|new|renew|let|csname|expandafter)")


def _is_text(body: str) -> bool:
    return bool(body.strip()) and len(body) <= MAX_TEXT_MACRO and not _PROGRAMMING.search(body)


@dataclass(frozen=True)
class Recorded:
    """A command met on the way that the reader acts on later (a bibliography, a glossary entry)."""

    command: str
    arguments: list[str | None]
    where: Origin


@dataclass
class _Level:
    source: Located
    file: str | None  # the file this level reads (None: a macro's expansion, or text put around a file)
    import_dir: Path | None  # where \subimport and (inside imported files) \input names are relative to
    pos: int = 0  # read up to here
    done: int = 0  # put in the output up to here


@dataclass
class Tree:
    """One manuscript's files, read once each and put together; what was met on the way."""

    finder: Finder | None
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    lines: dict[str, Lines] = field(default_factory=dict)
    macros: dict[str, Macro] = field(default_factory=dict)
    recorded: list[Recorded] = field(default_factory=list)
    _expanded: set[str] = field(default_factory=set)
    _warned: set[str] = field(default_factory=set)
    _expansions: int = 0

    def where(self, origin: Origin) -> str:
        lines = self.lines.get(origin.file)
        if lines is None:
            return origin.file
        line, column = lines.at(origin.offset)
        return f"{origin.file}:{line}:{column}"

    def _warn_once(self, key: str, warning: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self.warnings.append(warning)

    def put_together(self, text: str, file: str) -> Located:
        """The main file's text with everything it reads put in place, ready for the prose reader."""
        out = Located()
        levels = [self._open(text, file, None, is_main=True)]
        while levels:
            self._read(levels, out)
        return out

    def _open(self, text: str, file: str, import_dir: Path | None, is_main: bool = False) -> _Level:
        self.files.append(file)
        self.lines[file] = Lines(text)
        kept = unread(text)
        span = None if is_main else document_span(kept)
        start, end = span if span is not None else (0, len(kept))  # a subfile's (or standalone's) body only
        return _Level(Located.of(kept[start:end], Origin(file, start)), file, import_dir)

    def _read(self, levels: list[_Level], out: Located) -> None:
        """Read the top level up to its next command that matters and act on it (or to its end)."""
        level = levels[-1]
        text = level.source.text
        while (command := CONTROL.search(text, level.pos)) is not None:
            name = command.group("word")
            level.pos = command.end()
            if name is None or not self._matters(name):
                continue
            try:
                self._act(name, command.start(), levels, out)
            except Incomplete:
                if not self._merge_down(levels, command.start(), out):
                    self.warnings.append(f"{self.where(level.source.origin(command.start()))}: \\{name} ends "
                                         "before its arguments; not read")  # fmt: skip
                    continue
            return
        out.extend(level.source.slice(level.done))
        levels.pop()

    def _matters(self, name: str) -> bool:
        return (
            name in self.macros
            or name in DEFINERS
            or name in INPUT_SIGNATURES
            or name in RECORDED
            or (name == "endinput")
        )

    def _merge_down(self, levels: list[_Level], start: int, out: Located) -> bool:
        """A macro's expansion ended before the arguments of a command in it: read on into the text after
        the macro, as TeX does (``\\newcommand{\\inp}{\\input}`` then ``\\inp{chapter}``)."""
        if len(levels) < 2 or levels[-1].file is not None:
            return False
        top, below = levels.pop(), levels[-1]
        out.extend(top.source.slice(top.done, start))
        merged = top.source.slice(start)
        merged.extend(below.source.slice(below.done))
        levels[-1] = _Level(merged, below.file, below.import_dir)
        return True

    def _act(self, name: str, start: int, levels: list[_Level], out: Located) -> None:
        level = levels[-1]
        source = level.source
        if name in self.macros:
            self._use_macro(self.macros[name], start, levels, out)
        elif name in DEFINERS:
            definition = read_definition(name, source, level.pos)
            if definition.macro is not None and not (name == "providecommand" and definition.macro.name in self.macros):
                self._define(definition.macro)
            out.extend(source.slice(level.done, start))
            level.pos = level.done = max(definition.end, level.pos)
        elif name in INPUT_SIGNATURES:
            self._input(name, start, levels, out)
        elif name == "endinput":
            if level.file is not None:
                out.extend(source.slice(level.done, start))
                level.pos = level.done = source.length
        else:
            end, found = arguments(source.text, level.pos, RECORDED[name])
            texts = [source.text[a.start : a.end] if a else None for a in found]
            self.recorded.append(Recorded(name, texts, source.origin(start)))
            level.pos = end

    def _define(self, macro: Macro) -> None:
        if macro.alias_of in self.macros:  # \let copies the meaning the name has now
            target = self.macros[macro.alias_of]
            macro = Macro(macro.name, target.signature, target.defaults, target.body, macro.where, target.alias_of)
        words = macro.control_words()
        self.macros[macro.name] = macro
        matters = (
            macro.name in _HANDLED
            or is_citation(macro.name)
            or macro.alias_of is not None
            or any(word in _HANDLED or word in self._expanded or is_citation(word) for word in words)
            or bool(macro.unused_arguments())
            or (not macro.signature and macro.alias_of is None and _is_text(macro.body.text))
        )
        if matters:
            self._expanded.add(macro.name)
        else:
            del self.macros[macro.name]  # read as text by the prose reader, its arguments too
            self._expanded.discard(macro.name)

    def _use_macro(self, macro: Macro, start: int, levels: list[_Level], out: Located) -> None:
        level = levels[-1]
        source = level.source
        call = source.origin(start)
        if macro.alias_of in INPUT_SIGNATURES:  # \let\myinput\input: read again as \input (rare: a copy)
            level.source = source.replaced([(start, level.pos, f"\\{macro.alias_of}")])
            level.pos = start
            return
        if macro.alias_of is not None:  # \let\oldcite\cite: the prose reader reads the built-in
            out.extend(source.slice(level.done, start))
            out.add(f"\\{macro.alias_of}", Origin(call.file, call.offset, fixed=True))
            level.done = level.pos
            return
        self._expansions += 1
        if self._expansions > MAX_EXPANSIONS or len(levels) > MAX_LEVELS:
            self._warn_once(
                "expansions", f"{self.where(call)}: \\{macro.name} expands into itself (or too deep); not expanded"
            )
            del self.macros[macro.name]
            return
        try:
            end, given = call_arguments(macro, source, level.pos)
        except ValueError:
            self.warnings.append(f"{self.where(call)}: \\{macro.name} is missing an argument; not read")
            return
        self._warn_dropped(macro, given, call)
        out.extend(source.slice(level.done, start))
        level.pos = level.done = end
        levels.append(_Level(expand(macro, given, call), None, level.import_dir))

    def _warn_dropped(self, macro: Macro, given: list[Located | None], call: Origin) -> None:
        for n in macro.unused_arguments():
            value = given[n] if n < len(given) else None
            words = {m.group("word") for m in CONTROL.finditer(value.text)} if value is not None else set()
            if any(word and is_citation(word) for word in words):
                self._warn_once(
                    f"dropped {macro.name}",
                    f"{self.where(call)}: \\{macro.name} (defined at {self.where(macro.where)}) drops its "
                    "argument: the citations in it are not in the built document and are not read",
                )

    def _input(self, name: str, start: int, levels: list[_Level], out: Located) -> None:
        level = levels[-1]
        source, text = level.source, level.source.text
        where = self.where(source.origin(start))
        folder = ""
        if _AT_END.match(text, level.pos):
            raise Incomplete
        if name == "input" and not _BRACED.match(text, level.pos):  # TeX's own form: \input chapter
            file_name = word_after(text, level.pos)
            end = text.index(file_name, level.pos) + len(file_name) if file_name else level.pos
        else:
            end, found = arguments(text, level.pos, INPUT_SIGNATURES[name])
            values = [text[a.start : a.end].strip() for a, letter in zip(found, INPUT_SIGNATURES[name], strict=True)
                      if a is not None and letter == "m"]  # fmt: skip
            folder, file_name = (values[0], values[1]) if name in IMPORTS else ("", values[-1])
        file_name = file_name.strip('"')  # \input{"my chapter"}: a name with spaces, quoted
        out.extend(source.slice(level.done, start))
        level.pos = level.done = end
        shown = f"\\{name}{{{folder + '}{' if folder else ''}{file_name}}}"
        if not file_name:
            self.warnings.append(f"{where}: {shown} without a file name; not followed")
            return
        if self.finder is None:
            self.warnings.append(f"{where}: {shown} not followed (a manuscript given as text never reads files)")
            return
        if sum(1 for open_level in levels if open_level.file is not None) >= MAX_INPUT_DEPTH:
            self.warnings.append(f"{where}: {shown} not followed: more than {MAX_INPUT_DEPTH} files deep")
            return
        including = source.origin(start).file
        first = self._first_folder(name, folder, level, including)
        # LaTeX adds .tex to a name without it (\include always does); a name with another ending is tried
        # with .tex first, as LaTeX does since 2020.
        names = [file_name] if file_name.endswith(".tex") else [f"{file_name}.tex", file_name]
        names = names[:1] if name == "include" else names
        path = self.finder.find(names, including, first)
        if path is None:
            looked = self.finder.looked(names, including, first)
            self.warnings.append(f"{where}: {shown} not followed: no such file (looked for {looked})")
            return
        try:
            file, included, warnings = self.finder.read(path)
        except InputError as exc:
            self.warnings.append(f"{where}: {shown} not followed: {exc}")
            return
        self.warnings += warnings
        if any(open_level.file == file for open_level in levels):
            self.warnings.append(f"{where}: {shown} not followed: {file} is already being read (a cycle)")
            return
        around = "\n\n" if name in PAGE_INCLUDES else "\n"
        stand = Origin(including, source.origin(start).offset, fixed=True)
        out.add(around, stand)
        levels.append(_Level(Located.of(around, stand), None, level.import_dir))
        import_dir = path.parent if name in IMPORTS else level.import_dir
        levels.append(self._open(included, file, import_dir))

    def _first_folder(self, name: str, folder: str, level: _Level, including: str) -> Path | None:
        """Where the import package looks first: the folder named (``\\subimport``: relative to the folder
        the including file was imported from, or its own)."""
        if name in RELATIVE_IMPORTS:
            base = level.import_dir if level.import_dir is not None else Path(including).parent
            return base / folder
        if name in IMPORTS:
            assert self.finder is not None
            for base in self.finder.folders(including):
                if (base / folder).is_dir():
                    return base / folder
            return Path(folder)
        return level.import_dir
