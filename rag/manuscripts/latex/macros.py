"""The macros a LaTeX author defines, read from their definitions and expanded where they are used.

Read: ``\\newcommand``, ``\\renewcommand``, ``\\providecommand``, ``\\DeclareRobustCommand`` (starred too,
``[n]`` arguments, ``[default]`` for the first), ``\\def``/``\\gdef``/``\\edef``/``\\xdef`` with ``#1#2``
parameters, xparse's ``\\NewDocumentCommand`` family (``m``, ``o``, ``O{..}``, ``s``) and ``\\let``. A
definition with delimited parameters or any other argument type is not read: the macro is then read as
LaTeX-unaware text would read it, its arguments as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.manuscripts.latex.scan import CONTROL, Argument, Incomplete, arguments, mandatory, optional, skip_space
from rag.manuscripts.located import Located, Origin

NEWCOMMANDS = ("newcommand", "renewcommand", "providecommand", "DeclareRobustCommand")
DEFS = ("def", "gdef", "edef", "xdef")
DOCUMENT_COMMANDS = (
    "NewDocumentCommand", "RenewDocumentCommand", "ProvideDocumentCommand", "DeclareDocumentCommand",
    "NewExpandableDocumentCommand",
)  # fmt: skip
# An environment's definition is read past, not into: a \renewcommand inside it is local to the environment.
ENVIRONMENT_DEFINERS = {
    "newenvironment": "smoom", "renewenvironment": "smoom", "NewDocumentEnvironment": "mmmm",
    "RenewDocumentEnvironment": "mmmm", "DeclareDocumentEnvironment": "mmmm", "newtheorem": "smomo",
}  # fmt: skip
DEFINERS = (*NEWCOMMANDS, *DEFS, *DOCUMENT_COMMANDS, "let", *ENVIRONMENT_DEFINERS)
_NAME = re.compile(r"\s*\{?\s*\\([a-zA-Z@]+|.)\s*\}?")
_PARAMETER = re.compile(r"##|#([1-9])")
_DEF_PARAMETERS = re.compile(r"(?:#[1-9])*")
_DOCUMENT_ARGUMENT = re.compile(r"\s*(?:([smo])|O\s*(\{))")


@dataclass
class Macro:
    name: str
    signature: str  # xparse letters: s, o (no default), O (its default in ``defaults``), m
    defaults: list[str | None]
    body: Located
    where: Origin  # of the definition
    alias_of: str | None = None  # \let\x\input: \x is the built-in \input

    def control_words(self) -> set[str]:
        return {m.group("word") for m in CONTROL.finditer(self.body.text) if m.group("word")}

    def unused_arguments(self) -> list[int]:
        """The (0-based) arguments the body never uses: what is given to them is not typeset."""
        used = {int(m.group(1)) - 1 for m in _PARAMETER.finditer(self.body.text) if m.group(1)}
        return [n for n, letter in enumerate(self.signature) if letter != "s" and n not in used]


@dataclass(frozen=True)
class Definition:
    """What a definition command read: the macro (None when it could not be read) and where it ends."""

    end: int
    macro: Macro | None


def _defined_name(text: str, pos: int) -> tuple[str, int] | None:
    match = _NAME.match(text, pos)
    return (match.group(1), match.end()) if match else None


def _body(source: Located, argument: Argument) -> Located:
    return source.slice(argument.start, argument.end)


def _newcommand(source: Located, name: str, pos: int) -> Definition:
    text = source.text
    count = optional(text, pos)
    pos = count.outer_end if count else pos
    default = optional(text, pos) if count else None
    pos = default.outer_end if default else pos
    body = mandatory(text, pos)
    try:
        n = int(text[count.start : count.end].strip()) if count else 0
    except ValueError:
        return Definition(body.outer_end, None)
    signature = ("O" if default else "m") + "m" * (n - 1) if n else ""
    defaults = [text[default.start : default.end] if default else None] + [None] * max(0, n - 1)
    return Definition(body.outer_end, Macro(name, signature, defaults[:n], _body(source, body), source.origin(pos)))


def _def(source: Located, name: str, pos: int) -> Definition:
    text = source.text
    parameters = _DEF_PARAMETERS.match(text, pos)
    after = parameters.end() if parameters else pos
    if not text.startswith("{", after):  # delimited parameters (\def\x#1.{...}): not read
        return Definition(after, None)
    body = mandatory(text, after)
    n = (after - pos) // 2
    return Definition(body.outer_end, Macro(name, "m" * n, [None] * n, _body(source, body), source.origin(pos)))


def _document_command(source: Located, name: str, pos: int) -> Definition:
    text = source.text
    spec = mandatory(text, pos)
    body = mandatory(text, spec.outer_end)
    signature, defaults, at = "", list[str | None](), spec.start
    while (letter := _DOCUMENT_ARGUMENT.match(text, at)) is not None and at < spec.end:
        if letter.group(1):
            signature += letter.group(1)
            defaults.append(None)
            at = letter.end()
        else:
            default = mandatory(text, letter.start(2))
            signature += "O"
            defaults.append(text[default.start : default.end])
            at = default.outer_end
    if text[at : spec.end].strip():  # another argument type: not read
        return Definition(body.outer_end, None)
    return Definition(body.outer_end, Macro(name, signature, defaults, _body(source, body), source.origin(pos)))


def _let(source: Located, name: str, pos: int) -> Definition:
    text = source.text
    pos = skip_space(text, pos)
    pos = skip_space(text, pos + 1) if text.startswith("=", pos) else pos
    target = CONTROL.match(text, pos)
    if target is None or not target.group("word"):
        return Definition(pos, None)
    where = source.origin(pos)
    return Definition(target.end(), Macro(name, "", [], Located(), where, alias_of=target.group("word")))


def read_definition(command: str, source: Located, pos: int) -> Definition:
    """The definition that ``\\command`` (one of DEFINERS, its name ending at ``pos``) starts."""
    text = source.text
    try:
        if command in ENVIRONMENT_DEFINERS:
            return Definition(arguments(text, pos, ENVIRONMENT_DEFINERS[command])[0], None)
        star = skip_space(text, pos)
        named = _defined_name(text, star + 1 if command in NEWCOMMANDS and text.startswith("*", star) else pos)
        if named is None:
            return Definition(pos, None)
        if command in NEWCOMMANDS:
            return _newcommand(source, *named)
        if command in DEFS:
            return _def(source, *named)
        if command in DOCUMENT_COMMANDS:
            return _document_command(source, *named)
        return _let(source, *named)
    except (Incomplete, ValueError):
        return Definition(pos, None)


def expand(macro: Macro, given: list[Located | None], call: Origin) -> Located:
    """The macro's body with each ``#n`` replaced by what was given (its default, or nothing, when an optional
    argument is not given); the body's own text stands where the macro was called."""
    values = [
        value if value is not None else Located.of(default or "", Origin(call.file, call.offset, fixed=True))
        for value, default in zip(given, macro.defaults, strict=False)
    ]
    stand = Origin(call.file, call.offset, fixed=True)
    out, last, body = Located(), 0, macro.body.text
    for parameter in _PARAMETER.finditer(body):
        out.add(body[last : parameter.start()], stand)
        if parameter.group(1) is None:
            out.add("#", stand)
        elif (n := int(parameter.group(1)) - 1) < len(values):
            out.extend(values[n])
        last = parameter.end()
    out.add(body[last:], stand)
    return out


def call_arguments(macro: Macro, source: Located, pos: int) -> tuple[int, list[Located | None]]:
    """What a use of ``macro`` is given (Incomplete when the text ends first, ValueError when one is missing)."""
    end, found = arguments(source.text, pos, macro.signature)
    given: list[Located | None] = []
    for letter, argument in zip(macro.signature, found, strict=True):
        if argument is None:
            given.append(None)
        elif letter == "s":
            given.append(Located.of("\\BooleanTrue", source.origin(argument.start)))
        else:
            given.append(source.slice(argument.start, argument.end))
    return end, given
