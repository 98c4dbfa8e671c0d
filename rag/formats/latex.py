"""Cited text as LaTeX: ``[n]`` runs become the citation commands the manuscript's bibliography package
defines (``~\\cite{key,...}``; natbib ``~\\citep``, biblatex ``~\\parencite``), a paper named in the text its
in-text form (``\\citet``, ``\\textcite``; plain LaTeX: "Hazra et al.~\\cite{key}"), everything else escaped so that
pdflatex builds it: LaTeX's special characters, and the symbols and Greek letters abstracts use, in math mode;
a character pdflatex cannot set otherwise is named in a comment at the top (XeLaTeX or LuaLaTeX set it).
"""

from __future__ import annotations

import re
import unicodedata

from rag.check.claims import rewrite_citation_runs
from rag.check.markers import CITATION_GROUP
from rag.check.sentences import Answer
from rag.check.subjects import cited_subjects
from rag.config import LatexCitations
from rag.corpus.identity import surname
from rag.records import Paper
from rag.writing.in_text import mark_in_text, split_marked

_RUN_OF_CITATIONS = re.compile(rf"\s*(?:{CITATION_GROUP.pattern})+")
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # pdflatex's default OT1 fonts set these as "¡", "¿" and an em dash: "p>0.05" would print "p¿0.05".
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# Dashes and spaces of Unicode text that pdflatex's UTF-8 input does not know (CENTRAL and Embase write
# "cluster‐randomized" with U+2010): the ASCII LaTeX writes them with.
_TEXT_PUNCTUATION = {
    "\u2010": "-", "\u2011": "-", "\u2012": "--", "\u2015": "---", "\u2009": r"\,", "\u200a": r"\,", "\u202f": r"\,",
    "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ", "\u2007": " ", "\u2008": " ",
    "\u200b": "", "\u2060": "", "\ufeff": "",
}  # fmt: skip
# Punctuation beyond Latin-1 that pdflatex's UTF-8 input sets (en and em dashes, curly quotes, dagger, bullet,
# ellipsis, per mille, single guillemets).
_PDFLATEX_PUNCTUATION = frozenset("–—‘’‚“”„†‡•…‰‹›")
# Symbols abstracts use that pdflatex's text fonts lack: set in math mode.
_MATH_SYMBOLS = {
    "≤": r"\leq", "≥": r"\geq", "±": r"\pm", "×": r"\times", "÷": r"\div", "≈": r"\approx", "≠": r"\neq",
    "∼": r"\sim", "→": r"\rightarrow", "←": r"\leftarrow", "↑": r"\uparrow", "↓": r"\downarrow", "∞": r"\infty",
    "°": r"^\circ", "µ": r"\mu", "·": r"\cdot", "√": r"\surd", "∑": r"\sum", "∆": r"\Delta", "−": "-",
    "′": r"'", "″": r"''", "⁺": r"^+", "⁻": r"^-", "²": r"^2", "³": r"^3", "¹": r"^1", "₂": r"_2", "₃": r"_3",
}  # fmt: skip
_GREEK = {
    chr(code): "\\" + unicodedata.name(chr(code)).split()[-1].lower()
    for code in range(0x3B1, 0x3CA)
    if code != 0x3C2  # final sigma
}
_GREEK |= {"Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi",
           "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega", "ε": r"\epsilon", "ο": "o"}  # fmt: skip
_COMMANDS = {
    LatexCitations.CITE: ("cite", None),
    LatexCitations.NATBIB: ("citep", "citet"),
    LatexCitations.BIBLATEX: ("parencite", "textcite"),
}


def latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in _LATEX_SPECIALS:
            out.append(_LATEX_SPECIALS[ch])
        elif ch in _TEXT_PUNCTUATION:
            out.append(_TEXT_PUNCTUATION[ch])
        elif ch in _MATH_SYMBOLS or ch in _GREEK:
            out.append(f"\\ensuremath{{{_MATH_SYMBOLS.get(ch) or _GREEK[ch]}}}")
        else:
            out.append(ch)
    return "".join(out)


def cite_key(key: str, citations: LatexCitations) -> str:
    """One key cited as a parenthetical citation of ``citations``' package (``\\citep{key}``, ...)."""
    return f"\\{_COMMANDS[citations][0]}{{{key}}}"


def needs_unicode_engine(latex: str) -> list[str]:
    """Characters pdflatex (T1 fonts, UTF-8 input) cannot set: letters, symbols, numbers, punctuation and spaces
    outside Latin-1 and Latin Extended-A (the punctuation its UTF-8 input knows aside)."""
    return sorted(
        {
            ch
            for ch in latex
            if ord(ch) > 0x17F and unicodedata.category(ch)[0] in "LSNPZ" and ch not in _PDFLATEX_PUNCTUATION
        }
    )


def _named(paper: Paper, key: str, command: str | None) -> str:
    """A paper named as a sentence's subject: \\citet{key} / \\textcite{key}, or "Hazra et al.~\\cite{key}"."""
    if command is not None:
        return f"\\{command}{{{key}}}"
    names = [surname(a) for a in paper.authors if surname(a)]
    who = f"{names[0]} et al." if len(names) > 2 else " and ".join(names)
    return f"{latex_escape(who)}~\\cite{{{key}}}" if who else f"\\cite{{{key}}}"


def to_latex(answer: Answer, citations: LatexCitations = LatexCitations.CITE) -> str:
    """[n] runs become the citation command; everything else is escaped; '- ' lines become an itemize; a vague
    subject rag named ("The paper (Hazra, 2021)") cites its paper there instead ("The paper~\\cite{hazra}"); a
    paper named in the text ("Hazra et al. (2021) propose Y [3].") takes the in-text form."""
    keys = {c.n: c.paper.citekey for c in answer.citations}
    papers = {c.n: c.paper for c in answer.citations}
    parenthetical, in_text = _COMMANDS[citations]

    def cite(numbers: list[int]) -> str:
        return f"~\\{parenthetical}{{" + ",".join(keys[n] for n in numbers if n in keys) + "}"

    def line_to_latex(line: str) -> str:
        return "".join(
            _named(papers[piece], keys[piece], in_text)
            if isinstance(piece, int)
            else rewrite_citation_runs(piece, _RUN_OF_CITATIONS, latex_escape, cite)
            for piece in split_marked(line)
        )

    lines, in_list = [], False
    for line in mark_in_text(cited_subjects(answer), answer).splitlines():
        bullet = line.lstrip().startswith("- ")
        if bullet and not in_list:
            lines.append("\\begin{itemize}")
        if not bullet and in_list:
            lines.append("\\end{itemize}")
        in_list = bullet
        lines.append(f"  \\item {line_to_latex(line.lstrip()[2:])}" if bullet else line_to_latex(line))
    if in_list:
        lines.append("\\end{itemize}")
    document = "\n".join(lines)
    if unset := needs_unicode_engine(document):
        document = f"% needs XeLaTeX or LuaLaTeX for {''.join(unset)}\n" + document
    return document
