"""Cited text as LaTeX: ``[n]`` runs become ``~\\cite{key,...}``, a paper named in the text ``\\citet{key}``
(natbib; biblatex reads it too with ``natbib=true``), everything else escaped."""

from __future__ import annotations

import re

from rag.check.claims import rewrite_citation_runs
from rag.check.markers import CITATION_GROUP
from rag.check.sentences import Answer
from rag.check.subjects import cited_subjects
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
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


def to_latex(answer: Answer) -> str:
    """[n] runs become ~\\cite{key,...}; everything else is escaped; '- ' lines become an itemize; a vague subject
    rag named ("The paper (Hazra, 2021)") cites its paper there instead ("The paper~\\cite{hazra}"); a paper named in
    the text ("Hazra et al. (2021) propose Y [3].") is \\citet ("\\citet{hazra} propose Y.")."""
    keys = {c.n: c.paper.citekey for c in answer.citations}

    def cite(numbers: list[int]) -> str:
        return "~\\cite{" + ",".join(keys[n] for n in numbers if n in keys) + "}"

    def line_to_latex(line: str) -> str:
        return "".join(
            f"\\citet{{{keys[piece]}}}"
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
    return "\n".join(lines)
