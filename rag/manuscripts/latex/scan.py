"""Reading TeX's arguments the way TeX reads them, over text whose comments are already blanked out.

A command's arguments are described by a signature in xparse's letters: ``m`` a mandatory argument (a
``{...}`` group or a single token), ``o`` an optional ``[...]``, ``O`` an optional one with a default, ``s``
a star, ``d`` an optional ``(...)`` (biblatex's multicite notes). Spaces and line ends before an argument
are skipped, as TeX skips them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A control word (\input, \cite*) or a control symbol (\\, \%, \{): read left to right, so that ``\\input``
# is a line break followed by the word "input", never the command.
CONTROL = re.compile(r"\\(?:(?P<word>[a-zA-Z@]+)|.)", re.DOTALL)
_SPACE = re.compile(r"\s*")
_TOKEN = re.compile(r"\\(?:[a-zA-Z@]+|.)|[^\s{}]", re.DOTALL)


class Incomplete(Exception):
    """The text ended before the command's arguments did (they may follow in the text that called it)."""


@dataclass(frozen=True)
class Argument:
    start: int  # of the content, inside the braces or brackets
    end: int
    outer_start: int  # with the braces or brackets
    outer_end: int


def skip_space(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def balanced(text: str, pos: int, close: str = "}") -> int:
    """The offset just past the ``close`` that ends the group opened at ``pos`` (braces nest inside; a
    ``[...]`` ends at the first ``]`` outside braces); Incomplete when the text ends first."""
    depth = 0
    index = pos + 1
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                if close == "}":
                    return index + 1
                raise Incomplete  # a "]" never came before its group closed: not an optional argument
            depth -= 1
        elif char == close and depth == 0:
            return index + 1
        index += 1
    raise Incomplete


def mandatory(text: str, pos: int) -> Argument:
    """A ``{...}`` group or a single token (``\\input chapter`` has no braces: TeX's own syntax is a word)."""
    start = skip_space(text, pos)
    if start >= len(text):
        raise Incomplete
    if text[start] == "{":
        end = balanced(text, start)
        return Argument(start + 1, end - 1, start, end)
    if text[start] == "}":
        raise ValueError("no argument")
    token = _TOKEN.match(text, start)
    if token is None:
        raise ValueError("no argument")
    return Argument(start, token.end(), start, token.end())


def optional(text: str, pos: int, opening: str = "[", closing: str = "]") -> Argument | None:
    start = skip_space(text, pos)
    if start >= len(text):
        raise Incomplete
    if text[start] != opening:
        return None
    end = balanced(text, start, closing)
    return Argument(start + 1, end - 1, start, end)


def arguments(text: str, pos: int, signature: str) -> tuple[int, list[Argument | None]]:
    """The arguments after ``pos`` (just past the command's name) read by ``signature``; the offset past them.
    An optional argument not given is None; ValueError when a mandatory one is missing."""
    found: list[Argument | None] = []
    for letter in signature:
        if letter == "s":
            start = skip_space(text, pos)
            star = start < len(text) and text[start] == "*"
            found.append(Argument(start, start + 1, start, start + 1) if star else None)
            pos = start + 1 if star else pos
        elif letter in "oO":
            argument = optional(text, pos)
            found.append(argument)
            pos = argument.outer_end if argument else pos
        elif letter == "d":
            argument = optional(text, pos, "(", ")")
            found.append(argument)
            pos = argument.outer_end if argument else pos
        else:
            argument = mandatory(text, pos)
            found.append(argument)
            pos = argument.outer_end
    return pos, found


def word_after(text: str, pos: int) -> str:
    """TeX's ``\\input file`` syntax: the file name is the characters up to the next space or brace."""
    match = re.compile(r"[ \t]*([^\s{}\\%]+)").match(text, pos)
    return match.group(1) if match else ""
