"""BibTeX entries of cited papers: the user's own entry when there is one, else one built from metadata."""

from __future__ import annotations

from collections.abc import Sequence

from rag.formats.latex import latex_escape
from rag.records import Paper


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
