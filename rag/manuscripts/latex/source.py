"""LaTeX text made fit for the reader without moving a character: what is not read is blanked out.

Every change replaces characters by spaces (newlines kept), so an offset in the result is an offset in
the file and each citation keeps its true line and column.

- ``unread``, per file, before its ``\\input``s are followed: comments, verbatim-like environments and
  ``\\verb``, URLs (their ``%`` and ``#`` are not TeX), ``\\iffalse ... \\fi`` (up to its ``\\else``);
- ``body`` and ``balance``, on the whole manuscript once its files are put together: the preamble and what
  follows ``\\end{document}``, and braces or ``\\begin``/``\\end`` without a partner, each with a warning
  (a stray ``{`` would otherwise swallow the rest of the document into one group).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.manuscripts.prose import blank

_VERBATIM = re.compile(
    r"\\begin\{(verbatim\*?|Verbatim\*?|BVerbatim|lstlisting|minted|comment|alltt|filecontents\*?)\}.*?\\end\{\1\}",
    re.DOTALL,
)
_INLINE_VERBATIM = re.compile(r"\\(?:verb|lstinline)\*?([^\w\s{])[^\n]*?\1")
_URL_ARGUMENT = re.compile(r"\\(?:url|href|path)\{([^{}\n]*)\}")
_COMMENT = re.compile(r"(?<!\\)(?:\\\\)*(%[^\n]*)")
_TOKEN = re.compile(r"\\(?P<which>begin|end)\s*\{(?P<name>[^{}\n]*)\}|\\[^a-zA-Z]|\\[a-zA-Z@]+|[{}]")
_DOCUMENT_BEGIN = re.compile(r"\\begin\s*\{document\}")
_DOCUMENT_END = re.compile(r"\\end\s*\{document\}")
_CONDITIONAL = re.compile(r"\\(?:(?P<if>if[a-zA-Z@]*)|(?P<else>else)|(?P<fi>fi)|[a-zA-Z@]+|.)(?![a-zA-Z@])", re.DOTALL)
_NEWIF = re.compile(r"\\newif\s*\\(if[a-zA-Z@]+)")
# TeX's own conditionals (each ends at a \fi); etoolbox's \ifdef{..}{..}{..} and ifthen's \ifthenelse do not.
_PRIMITIVE_IFS = frozenset(
    {
        "if", "ifcat", "ifnum", "ifdim", "ifodd", "ifvmode", "ifhmode", "ifmmode", "ifinner", "ifvoid", "ifhbox",
        "ifvbox", "ifx", "ifeof", "iftrue", "iffalse", "ifcase", "ifdefined", "ifcsname", "iffontchar", "ifincsname",
        "ifpdf", "ifxetex", "ifluatex", "ifpdftex", "ifPDFTeX", "ifXeTeX", "ifLuaTeX", "ifdraft", "ifoptionfinal",
    }
)  # fmt: skip


def _uncommented(text: str) -> str:
    return blank(text, [m.span(1) for m in _COMMENT.finditer(text)])


def _skipped_conditionals(text: str) -> list[tuple[int, int]]:
    """``\\iffalse ... \\fi`` spans (to the ``\\else`` when there is one): what TeX never reads."""
    conditionals = _PRIMITIVE_IFS | set(_NEWIF.findall(text))
    spans, start, depth = [], -1, 0
    for token in _CONDITIONAL.finditer(text):
        name = token.group("if")
        if depth == 0:
            if name == "iffalse":
                start, depth = token.start(), 1
            continue
        if name is not None and name in conditionals:
            depth += 1
        elif token.group("fi"):
            depth -= 1
            if depth == 0:
                spans.append((start, token.end()))
        elif token.group("else") and depth == 1:  # \iffalse A \else B \fi: B is read
            depth = 0
            spans.append((start, token.start()))
    if depth:
        spans.append((start, len(text)))
    return spans


def unread(text: str) -> str:
    """One file's text with what LaTeX would not typeset from it (or that is not TeX) blanked out."""
    spans = [m.span() for m in _VERBATIM.finditer(text)]
    spans += [m.span() for m in _INLINE_VERBATIM.finditer(text)]
    spans += [m.span(1) for m in _URL_ARGUMENT.finditer(text)]
    text = _uncommented(blank(text, spans))
    return blank(text, _skipped_conditionals(text))


def document_span(text: str) -> tuple[int, int] | None:
    """Where the document body (inside ``\\begin{document}``...``\\end{document}``) is, when there is one."""
    begin = _DOCUMENT_BEGIN.search(text)
    if begin is None:
        return None
    end = _DOCUMENT_END.search(text, begin.end())
    return begin.end(), end.start() if end is not None else len(text)


def body(text: str) -> str:
    """The document body when there is one (a chapter read alone has none: all of it is body)."""
    span = document_span(text)
    if span is None:
        return text
    return blank(text, [(0, span[0]), (span[1], len(text))])


def balance(text: str, where: Callable[[int], str]) -> tuple[str, list[str]]:
    """``text`` with braces and \\begin/\\end that have no partner blanked, and a warning for each."""
    braces: list[int] = []
    environments: list[tuple[str, int, int]] = []
    stray: list[tuple[int, int, str]] = []
    for token in _TOKEN.finditer(text):
        value = token.group(0)
        if value == "{":
            braces.append(token.start())
        elif value == "}":
            if braces:
                braces.pop()
            else:
                stray.append((token.start(), token.end(), "'}' closes nothing"))
        elif token.group("which") == "begin":
            environments.append((token.group("name").strip(), token.start(), token.end()))
        elif token.group("which") == "end":
            name = token.group("name").strip()
            if any(open_name == name for open_name, _, _ in environments):
                while environments:
                    open_name, start, end = environments.pop()
                    if open_name == name:
                        break
                    stray.append((start, end, f"\\begin{{{open_name}}} is never ended"))
            else:
                stray.append((token.start(), token.end(), f"\\end{{{name}}} ends nothing"))
    stray += [(start, start + 1, "'{' is never closed") for start in braces]
    stray += [(start, end, f"\\begin{{{name}}} is never ended") for name, start, end in environments]
    warnings = [f"{where(start)}: {why}; read as if it were not there" for start, _, why in sorted(stray)]
    return blank(text, [(start, end) for start, end, _ in stray]), warnings
