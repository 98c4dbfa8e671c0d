"""Text for papers: LaTeX with \\cite{citekey}, and BibTeX entries of cited papers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answer import Answer
from rag.citations import CITATION_GROUP
from rag.models import Paper

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
    """[n] runs become ~\\cite{key,...}; everything else is escaped; '- ' lines become an itemize."""
    keys = {c.n: c.paper.citekey for c in answer.citations}

    def line_to_latex(line: str) -> str:
        out, last = [], 0
        for match in _RUN_OF_CITATIONS.finditer(line):
            out.append(latex_escape(line[last : match.start()]))
            numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
            out.append("~\\cite{" + ",".join(keys[n] for n in dict.fromkeys(numbers) if n in keys) + "}")
            last = match.end()
        out.append(latex_escape(line[last:]))
        return "".join(out)

    lines, in_list = [], False
    for line in answer.text.splitlines():
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


def _bib_value(text: str) -> str:
    """Braces balanced and LaTeX specials escaped, so any title is a valid field."""
    return latex_escape(text).replace(r"\{", "(").replace(r"\}", ")")


def bibtex_entry(paper: Paper) -> str:
    """The user's own entry when the paper came from their .bib file, else one built from what we know."""
    if paper.bibtex:
        return paper.bibtex
    fields = [("title", f"{{{_bib_value(paper.title)}}}" if paper.title else None)]
    fields.append(("author", " and ".join(_bib_value(a) for a in paper.authors) or None))
    fields.append(("year", str(paper.year) if paper.year else None))
    if paper.arxiv:
        arxiv = _bib_value(paper.arxiv)
        fields += [("eprint", arxiv), ("archivePrefix", "arXiv"), ("url", f"https://arxiv.org/abs/{arxiv}")]
    if not paper.title:
        fields.append(("note", _bib_value(paper.text[:120])))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@misc{{{paper.citekey},\n{body}\n}}"


def bibtex(papers: Sequence[Paper]) -> str:
    return "\n\n".join(bibtex_entry(p) for p in papers) + "\n"
