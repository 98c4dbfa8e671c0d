"""A LaTeX file made fit for the parser without moving a character: what is not prose is blanked out.

Every change replaces characters by spaces (newlines kept), so an offset in the result is an offset in
the file and each citation keeps its true line and column. Blanked: verbatim-like environments and
``\\verb``, URLs (their ``%`` and ``#`` are not TeX), the preamble and anything after ``\\end{document}``;
braces and ``\\begin``/``\\end`` that have no partner are blanked too, each with a ``file:line`` warning
(a stray ``{`` would otherwise swallow the rest of the document into one group).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.manuscripts.prose import Lines, blank

_VERBATIM = re.compile(
    r"\\begin\{(verbatim\*?|Verbatim\*?|BVerbatim|lstlisting|minted|comment|alltt)\}.*?\\end\{\1\}", re.DOTALL
)
_INLINE_VERBATIM = re.compile(r"\\(?:verb|lstinline)\*?([^\w\s{])[^\n]*?\1")
_URL_ARGUMENT = re.compile(r"\\(?:url|href|path)\{([^{}\n]*)\}")
_TOKEN = re.compile(r"\\(?P<which>begin|end)\s*\{(?P<name>[^{}\n]*)\}|\\[^a-zA-Z]|\\[a-zA-Z@]+|%[^\n]*|[{}]")
_COMMENT = re.compile(r"(?<!\\)(?:\\\\)*%[^\n]*")
_DOCUMENT_BEGIN = re.compile(r"\\begin\s*\{document\}")
_DOCUMENT_END = re.compile(r"\\end\s*\{document\}")


@dataclass
class Prepared:
    text: str
    warnings: list[str] = field(default_factory=list)


def _body_only(text: str) -> str:
    """The document body when there is one (an \\input file has none: all of it is body)."""
    uncommented = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    begin = _DOCUMENT_BEGIN.search(uncommented)
    if begin is None:
        return text
    end = _DOCUMENT_END.search(uncommented, begin.end())
    spans = [(0, begin.end())]
    if end is not None:
        spans.append((end.start(), len(text)))
    return blank(text, spans)


def _unbalanced(text: str, file: str) -> tuple[list[tuple[int, int]], list[str]]:
    """Spans of braces and \\begin/\\end without a partner, and a warning for each."""
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
    lines = Lines(text)
    warnings = []
    for start, _, why in sorted(stray):
        line, column = lines.at(start)
        warnings.append(f"{file}:{line}:{column}: {why}; read as if it were not there")
    return [(start, end) for start, end, _ in stray], warnings


def prepare(text: str, file: str) -> Prepared:
    """``text`` with what is not prose blanked out, and a warning per unbalanced brace or environment."""
    spans = [m.span() for m in _VERBATIM.finditer(text)]
    spans += [m.span() for m in _INLINE_VERBATIM.finditer(text)]
    spans += [m.span(1) for m in _URL_ARGUMENT.finditer(text)]
    text = _body_only(blank(text, spans))
    stray, warnings = _unbalanced(text, file)
    return Prepared(blank(text, stray), warnings)
