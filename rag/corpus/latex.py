"""LaTeX in titles, abstracts and names -> plain text, with pylatexenc.

What real BibTeX files hold beyond what pylatexenc's defaults read: Zotero escapes the characters it
cannot write as ``{\\textless}``, ``{\\textgreater}``, ``{\\textbar}``, and a backslash the user typed
as ``{\\textbackslash}``, so a "\\beta" typed into an abstract arrives as ``{\\textbackslash}beta``;
hand-written files use "%" unescaped ("79%, p < 0.05"), which LaTeX would read as a comment.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

# Characters without which a value holds no LaTeX: such values skip the (slow, pure-Python) parser.
_LATEX_SIGNS = re.compile(r"[\\{}$~]|--|``|''")
# What the parser makes of LaTeX without macros or math, in this order ("---" before "--"): most LaTeX in real
# BibTeX is braces protecting capitals and "--" in page ranges, read some 50 times faster by replacing these
# (identical output on the 9,782 such values of 20 real .bib files).
_PLAIN_SIGNS = (
    ("---", "\u2014"),
    ("--", "\u2013"),
    ("``", "\u201c"),
    ("''", "\u201d"),
    ("~", "\xa0"),
    ("{", ""),
    ("}", ""),
)
# Text macros Zotero writes that pylatexenc 2.10 does not know.
_EXTRA_MACROS = {
    "textless": "<",
    "textgreater": ">",
    "textbar": "|",
    "textasciicircum": "^",
    "textquotedbl": '"',
    "textunderscore": "_",
    "textbraceleft": "{",
    "textbraceright": "}",
    "url": "%s",  # an address as it is, not in <...>
}
# A "%" in a field is a percent sign, not the start of a LaTeX comment (BibTeX has none).
_PERCENT = re.compile(r"(?<!\\)%")
# A macro name left in the text after decoding: an escaped backslash the user typed before a name.
_LEFT_MACRO = re.compile(r"\\([a-zA-Z]+)")
# Formatting macros whose argument lost its braces on the way (Scopus' "\mathbf8 1. 9 7 %").
_FORMATTING = ("mathbf", "mathrm", "mathit", "textbf", "textit", "textrm", "text", "emph")
# Sub- and superscript digits in math ("H$_2$O", "$^{13}$C"), as Unicode so they read as chemistry does.
_MATH = re.compile(r"(?<!\\)\$([^$]+)(?<!\\)\$")
_SCRIPT = re.compile(r"([_^])(?:\{(?:\\(?:textrm|mathrm)\{)?([0-9+\-=()]+)\}?\}|([0-9]))")
# Spacing by a length, which pylatexenc leaves as text ("p{$\mkern1mu$}={$\mkern1mu$}.021", Better BibTeX's thin
# spaces, read "p1mu=1mu.021"): a space, none where it pulls text together.
_SPACING = re.compile(r"\\(?:mkern|mskip|kern|hskip)\s*(-?)\s*[0-9.]+\s*(?:mu|em|ex|pt|mm|cm|in|bp|sp)\b ?")
_SUBSCRIPTS = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SUPERSCRIPTS = str.maketrans("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")


@cache
def _decoder() -> tuple[Any, Any, Any]:
    """pylatexenc's walker context, text context and converter, built once (building them is most of a
    short call)."""
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    text_context = get_default_latex_context_db()
    text_context.add_context_category(
        "rag-zotero", prepend=True, macros=[MacroTextSpec(name, text) for name, text in _EXTRA_MACROS.items()]
    )
    converter = LatexNodes2Text(latex_context=text_context, math_mode="text")
    return latexwalker.get_default_latex_context_db(), text_context, converter


def _scripts(math: re.Match[str]) -> str:
    def script(found: re.Match[str]) -> str:
        digits = found.group(2) or found.group(3)
        return digits.translate(_SUBSCRIPTS if found.group(1) == "_" else _SUPERSCRIPTS)

    return f"${_SCRIPT.sub(script, math.group(1))}$"


def _space(spacing: re.Match[str]) -> str:
    return "" if spacing.group(1) else " "


def _convert(value: str) -> str:
    from pylatexenc.latexwalker import LatexWalker

    walker_context, _, converter = _decoder()
    nodes, _, _ = LatexWalker(value, latex_context=walker_context, tolerant_parsing=True).get_latex_nodes()
    return str(converter.nodelist_to_text(nodes))


def _left_macro(found: re.Match[str]) -> str:
    """A macro name that was text in the source ("\\beta" typed into Zotero): its symbol, where LaTeX has one."""
    name = found.group(1)
    if _decoder()[1].get_macro_spec(name) is not None:
        return _convert(f"\\{name}{{}}")
    prefix = next((p for p in _FORMATTING if name.startswith(p)), None)
    return name[len(prefix) :] if prefix else found.group(0)


def latex_to_text(value: str) -> str:
    """``value`` with its LaTeX markup read as text: accents, escapes, ``\\textit{...}``, math symbols."""
    if not _LATEX_SIGNS.search(value):
        return value
    if "\\" not in value and "$" not in value:
        for sign, text in _PLAIN_SIGNS:
            value = value.replace(sign, text)
        return value
    text = _convert(_PERCENT.sub(r"\\%", _MATH.sub(_scripts, _SPACING.sub(_space, value))))
    return _LEFT_MACRO.sub(_left_macro, text) if "\\" in text else text


# Math that is LaTeX beyond doubt: a span holding a macro or a braced script ("$\beta $", "$Ca^{2+}$").
_MARKED_MATH = re.compile(r"(?<!\\)\$[^$]*(?:\\[a-zA-Z]|[_^]\{)[^$]*(?<!\\)\$")


def stray_latex_to_text(value: str) -> str:
    """LaTeX that reached a format which is not LaTeX (Scopus abstracts carry "\\mathbf8 1. 9 7 %" and
    "$\\beta $" into RIS and CSV): only unmistakable markup is read, so "$2.00", "~5%" and "{" stay."""
    if "\\" not in value:
        return value
    value = _MARKED_MATH.sub(lambda found: latex_to_text(found.group(0)), value)
    return _LEFT_MACRO.sub(_left_macro, value) if "\\" in value else value
