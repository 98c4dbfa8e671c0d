"""The work a sentence names, when that is not the paper it cites: a mistyped key the sentence itself tells,
whatever the abstracts say. A work is named by its author ("Fucci et al. replicated it with EEG"), or by the name
of what it introduced ("We use the RLlib framework", "CoppeliaSim, formerly V-REP").

Only the forms that cite a work are read: "Surname et al.", "Surname (2019)", "Surname and Other (2019)".
"Bell's theorem" or "Newton step" name a method, which any paper may be cited for. Of other names, only coined
ones (``coined_names``) name a work: a field's words ("Bayesian Neural Networks"), a person's ("Fourier") or an
acronym ("EEG", "PPO") are used by many papers, and a library paper using one is not the one meant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.check.markers import CITATION_GROUP
from rag.check.paper_fit import fold_name, surnames_of
from rag.check.rules.facts import fold
from rag.check.rules.name_facts import name_mentions
from rag.corpus.identity import surname
from rag.records import Paper

_NAME = r"[^\W\d_][\w'’-]+"
_AUTHOR_CITED = re.compile(
    rf"\b({_NAME})(?=\s+et\s+al\b|\s+(?:and|&)\s+{_NAME}\s+\(\s*(?:19|20)\d\d|\s+\(\s*(?:19|20)\d\d[a-z]?\s*\))"
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# A coined name: a word with a capital right after a letter ("RLlib", "ConvLSTM", "iCub"; not "Runge-Kutta",
# "non-Gaussian" or "McDonald") or a digit ("FreeEEG32"), some lower case (not an acronym: "GPT-3", "MNI152"), of
# this many characters or more (not a gene's "p53").
_WORD = re.compile(r"(?<![\w-])[A-Za-z][\w-]*[\w]")
_COINED = re.compile(r"(?!Ma?c[A-Z])(?![A-Z]+s$)(?!.*[a-z](?:RNA|DNA))(?=.*[a-z])(?:.*[A-Za-z][A-Z]|.*\d).*")
MIN_COINED = 4
# The letter an isoform or variant of a numbered name adds after its digits ("FoxO3a").
_VARIANT = re.compile(r"(?<=\d)[a-z]$")
# Where the sentence shows a citation, the words before it that may name what it cites...
KEY_REACH = 8
# ...and the end of its clause after it.
_CLAUSE_END = re.compile(r"[,;:.]")
# A name of the sentence that at most this many papers of the library use names a work too.
NAMED_BY_FEW = 2


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


def coined_names(sentence: str) -> list[str]:
    """The coined names ``sentence`` uses: the names of tools, datasets, models and methods a paper introduced."""
    found = (w for w in _WORD.findall(CITATION_GROUP.sub("", sentence)) if len(w) >= MIN_COINED)
    return list(dict.fromkeys(w for w in found if _COINED.fullmatch(w)))


def naming_text(paper: Paper) -> str:
    """What a paper names, folded, hyphens dropped: its title, abstract and authors."""
    return fold(f"{paper.searchable_text()} {' '.join(paper.authors)}").replace("-", "")


def uses(name: str, text: str) -> bool:
    """Whether ``text`` (a ``naming_text``) uses the coined ``name``, or a word starting with it ("RLlib's"); a
    name ending in a letter after its digits is used by its stem too, as an isoform is ("FoxO3a" by "FOXO3"); a
    number is not used by a longer one ("Piezo1" by "Piezo12")."""
    core = fold(name).replace("-", "")
    stem = _VARIANT.sub("", core)
    return stem in text and re.search(rf"(?<![a-z0-9]){re.escape(stem)}(?![0-9])", text) is not None


@dataclass
class NamedWorks:
    """A library's papers by the coined names they use, each name looked up once, each paper's ``naming_text``
    folded once (for the papers cited too: a paper is cited in many sentences)."""

    papers: Sequence[Paper]
    _texts: dict[str, str] = field(default_factory=dict, init=False)
    _using: dict[str, list[Paper]] = field(default_factory=dict, init=False)

    def text(self, paper: Paper) -> str:
        if paper.id not in self._texts:
            self._texts[paper.id] = naming_text(paper)
        return self._texts[paper.id]

    def using(self, name: str) -> list[Paper]:
        if name not in self._using:
            self._using[name] = [paper for paper in self.papers if uses(name, self.text(paper))]
        return self._using[name]


def work_named_instead(
    sentence: str, cited: Sequence[Paper], works: NamedWorks, key: str = ""
) -> tuple[str, Paper] | None:
    """The coined name ``sentence`` uses that none of the ``cited`` papers does, and the one paper of the library
    (``works``) using it: a sentence on "the RLlib framework" citing a paper that never names it, where one paper
    of the library does; None otherwise. Where the sentence shows the citation of ``key`` ("defined in @yeo2011",
    "\\textcite{yeo2011}"), only the names near it count (``near_the_key``)."""
    names = coined_names(near_the_key(sentence, key))
    if not names or any(_names_one_of(sentence, names, paper, works) for paper in cited):
        return None
    taken = {paper.id for paper in cited}
    for name in names:
        meant = [paper for paper in works.using(name) if paper.id not in taken]
        if len(meant) == 1:
            return name, meant[0]
    return None


def near_the_key(sentence: str, key: str) -> str:
    """The words of ``sentence`` around where it shows the citation of ``key``: KEY_REACH words before it and the
    rest of its clause after it ("For each region, DiFuMo provides ..., the mapping of regions to networks
    defined in @yeo2011, ..." cites Yeo for the networks, not for DiFuMo); the whole sentence where it does not
    show it (a parenthetical citation is taken out of the text)."""
    at = sentence.find(key) if key else -1
    if at < 0:
        return sentence
    before = sentence[:at].split()[-KEY_REACH:]
    after = _CLAUSE_END.split(sentence[at + len(key) :], maxsplit=1)[0]
    return " ".join([*before, after])


def _names_one_of(sentence: str, coined: Sequence[str], paper: Paper, works: NamedWorks) -> bool:
    """Whether ``paper`` uses one of the names ``sentence`` uses: a coined one, or another in its title ("CoppeliaSim,
    formerly known as V-Rep" citing "V-REP: A Versatile and Scalable Robot Simulation Framework") or that few
    papers of the library use (NAMED_BY_FEW; not "GPU"). It may be cited for that one."""
    text = works.text(paper)
    if any(uses(name, text) for name in coined):
        return True
    title = fold(paper.title or "").replace("-", "")
    others = [forms[0] for forms in name_mentions(sentence)]
    return any(uses(name, title) or (uses(name, text) and len(works.using(name)) <= NAMED_BY_FEW) for name in others)


def names_other_work(name: str) -> str:
    """Why the cited paper is the wrong one, said of the name ``work_named_instead`` found."""
    return f"the sentence names {name}, which the paper cited does not"
