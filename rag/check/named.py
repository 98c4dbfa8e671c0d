"""The work a sentence names by its author ("Fucci et al. replicated it with EEG"), when that is not the paper
it cites: a mistyped key the sentence itself tells, whatever the abstracts say.

Only the forms that cite a work are read: "Surname et al.", "Surname (2019)", "Surname and Other (2019)".
"Bell's theorem" or "Newton step" name a method, which any paper may be cited for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.check.paper_fit import fold_name, surnames_of
from rag.corpus.identity import surname
from rag.records import Paper

_NAME = r"[^\W\d_][\w'’-]+"
_AUTHOR_CITED = re.compile(
    rf"\b({_NAME})(?=\s+et\s+al\b|\s+(?:and|&)\s+{_NAME}\s+\(\s*(?:19|20)\d\d|\s+\(\s*(?:19|20)\d\d[a-z]?\s*\))"
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def authors_named(sentence: str) -> frozenset[str]:
    """The surnames ``sentence`` names as a work's authors, folded ("Fucci et al." -> "fucci")."""
    return frozenset(fold_name(name) for name in _AUTHOR_CITED.findall(sentence) if name[0].isupper())


def named_instead(sentence: str, cited: Sequence[Paper], library: Sequence[Paper]) -> Paper | None:
    """The one paper of ``library`` whose first author ``sentence`` names (of several, the one of the year it
    gives), when the sentence names no author of the ``cited`` papers and that paper is not among them; None
    otherwise."""
    names = authors_named(sentence)
    if not names or any(names & surnames_of(paper.authors) for paper in cited):
        return None
    taken = {paper.id for paper in cited}
    meant = [paper for paper in library if paper.id not in taken and names & surnames_of(paper.authors[:1])]
    if len(meant) > 1:  # one author's papers: the year the sentence gives tells which
        years = {int(year) for year in _YEAR.findall(sentence)}
        meant = [paper for paper in meant if paper.year in years]
    return meant[0] if len(meant) == 1 else None


def names_another(meant: Paper) -> str:
    """Why the cited paper is the wrong one, said of the paper ``named_instead`` found."""
    return f"the sentence names {surname(meant.first_author or '').strip()}, who did not write the paper cited"
