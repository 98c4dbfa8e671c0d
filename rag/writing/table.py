"""Evidence tables: a row per paper that answers a question, with what it studied and what it found, word for word.

The rows are the extractive answer's choice (rag.writing.extractive: the papers that may back an answer, the
quote of each that answers, findings before aims: rag.writing.evidence_sentences.prefer_findings), so a
question ``rag ask`` refuses gets no rows. Nothing is written here, only cut out of the abstract: the finding
is the quoted run of sentences, "what was studied" the abstract's own words for its design and population
(empty where it names neither), the numbers those of the finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from rag.check.sentences import AnswerMode
from rag.check.sources import author_year
from rag.corpus.roles import strip_label
from rag.embed.types import Embedder
from rag.records import Hit, Paper, Passage
from rag.writing.evidence_sentences import FINDING_AT, HitSentences, sentence_table
from rag.writing.extractive import Quote, answer_evidence, choose_quotes, refusal, unanswered

# The columns of a table, in order, as every format names them.
COLUMNS = ("citekey", "author_year", "studied", "finding", "numbers")
HEADINGS = {"citekey": "Paper", "author_year": "Author, year", "studied": "Studied", "finding": "Finding",
            "numbers": "Numbers"}  # fmt: skip
# Rows at most when the user gives no -k. On the judged real questions (benchmarks/table_speed.py --real) a
# ceiling of 4 gives 3.4 rows per answerable question, 90% on topic, 62% answering; 5: 4.0, 89%, 57%; 8: 5.4,
# 80%, 46% (the goals: >= 2.5 rows, >= 85% on topic, >= 60% answering).
DEFAULT_ROWS = 4

# How a study names its design, in the words abstracts use (the longest first: "systematic review and
# meta-analysis" before "meta-analysis"); not a database searched ("Cochrane Central Register of Controlled Trials").
_DESIGN = re.compile(
    r"\b(?<!register of )(?<!registry of )(?<!central )(?:systematic review and meta-analys[ie]s|"
    r"systematic (?:literature )?review|meta-analys[ie]s|umbrella review|"
    r"scoping review|narrative review|(?:cluster[- ])?randomi[sz]ed (?:controlled |clinical |crossover )?trials?|"
    r"controlled trials?|(?:(?:prospective|retrospective|population-based|longitudinal|multicent(?:er|re)|"
    r"nationwide) )*(?:cohort|cross-sectional|case-control|observational|longitudinal) (?:study|studies|"
    r"survey|analysis|design)|case series|case stud(?:y|ies)|qualitative stud(?:y|ies)|mixed[- ]methods? "
    r"(?:study|studies|design)|simulation stud(?:y|ies)|field (?:experiment|trial|survey)s?|laboratory "
    r"experiments?|pilot stud(?:y|ies)|feasibility stud(?:y|ies)|quasi-experiment(?:al stud(?:y|ies))?|"
    r"survey of [\w ]{3,40}?(?=[,.;])|(?:semi-structured )?interviews)\b",
    re.IGNORECASE,
)
_PEOPLE = (
    r"participants|patients|adults|children|adolescents|women|men|individuals|people|persons|subjects|"
    r"households|students|infants|volunteers|respondents|residents|workers|pupils|mothers|caregivers|"
    r"studies|trials|articles|papers|sites|plots|species|cases|samples|villages|schools|hospitals|countries"
)
# "1,234 older adults", "n = 720": a counted sample first, wherever it stands; else "among community-dwelling
# older adults", "in preschool children", unless its words say nothing of who ("in some cases", "in countries",
# "in the control households").
_COUNTED = re.compile(
    r"\bn\s?=\s?(?:\d{1,3}(?:[,\u2009]\d{3})+|\d+)(?!\d)(?![.,]\d)|"
    r"(?<![\d.,])(?:\d{1,3}(?:[,\u2009]\d{3})+|\d+)(?!\d)(?![.,]\d)\s+"
    r"(?:(?!(?:in|of|at|on|with|and|or|to|from|for|by|per|were|was|weeks?|months?|years?|days?|hours?)\b)[a-z][\w-]*\s+){0,3}?"
    rf"(?P<who>{_PEOPLE})\b",
    re.IGNORECASE,
)
_AMONG = re.compile(rf"\b(?:among|in)\s+((?:[\w-]+\s+){{0,3}}?)({_PEOPLE})\b", re.IGNORECASE)
_NOT_WHO_WORDS = (
    "the a an some these those this that all both each every other such many most several few our their its his her "
    "control intervention treatment comparison treated untreated same different"
)
_NOT_WHO = frozenset(_NOT_WHO_WORDS.split())
_NOT_PEOPLE_WORDS = "studies trials articles papers sites plots cases samples countries"
_NOT_PEOPLE = frozenset(_NOT_PEOPLE_WORDS.split())


def _population(text: str) -> str | None:
    """The abstract's first counted sample, else its first group named by who they are."""
    for counted in _COUNTED.finditer(text):
        if not counted.group("who") or counted.group("who")[0].islower():  # "Stage 1 Participants": a heading
            return counted.group(0)
    for match in _AMONG.finditer(text):
        said = [w.lower() for w in match.group(1).split() if w.lower() not in _NOT_WHO]
        if said or (match.group(2).lower() not in _NOT_PEOPLE and not match.group(1).split()):
            return match.group(0)
    return None


# A number as a finding states it: "10%", "9.0% (95% CI 8.3-9.8)" gives "9.0%", "95% CI 8.3-9.8"; "p < 0.001"; not
# the number of a name ("SARS-CoV-2", "COVID-19", "IL-6").
_STATISTIC = re.compile(
    r"(?:\b(?:p|P)\s?[<=>≤]\s?0?\.\d+|(?:\b95|\b99|\b90)\s?%\s?(?:CI|CrI|UI|confidence interval)\s?[:,]?\s?"
    r"-?\d+(?:\.\d+)?%?\s?(?:-|–|to|,)\s?-?\d+(?:\.\d+)?%?|[<>≤≥]?\s?(?<![\w.])(?<![A-Za-z]\()(?<![A-Za-z]-)-?\d+(?:[.,]\d+)*"
    r"(?:\s?%|(?!\w))(?:\s?(?:-|–)\s?\d+(?:\.\d+)?%?)?)"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")


@dataclass(frozen=True)
class TableRow:
    """One paper that answers: who, what it studied and what it found, in its own words."""

    paper: Paper
    studied: str
    finding: str
    numbers: list[str]
    # The stretch of the full text the finding is from ("... (p. 4)"); None when it is the abstract's.
    passage: Passage | None = None

    def cells(self) -> dict[str, str]:
        """The row as text, one cell per column of COLUMNS."""
        return {
            "citekey": self.paper.citekey,
            "author_year": author_year(self.paper),
            "studied": self.studied,
            "finding": self.finding,
            "numbers": "; ".join(self.numbers),
        }


@dataclass
class EvidenceTable:
    question: str
    mode: AnswerMode
    rows: list[TableRow] = field(default_factory=list)
    # Why there are no rows (rag ask's "Insufficient evidence" line); empty when there are.
    message: str = ""


def studied(text: str) -> str:
    """The abstract's own words for its design and its population or sample (the first of each), or ''."""
    plain = " ".join(strip_label(part) for part in text.split("\n"))
    design = _DESIGN.search(plain)
    spans = [span for span in (design.group(0) if design else None, _population(plain)) if span]
    return "; ".join(dict.fromkeys(spans))


def numbers_in(finding: str) -> list[str]:
    """The numbers of a finding as it states them (years that only date it, the markers of a list, "(1)",
    "2)", and an age that says who was studied, "children under 5 years", are left out)."""
    found = [
        " ".join(m.group(0).split())
        for m in _STATISTIC.finditer(finding)
        if not _enumerates(finding, m)
        and not _AGE.search(f"{finding[: m.start()].rstrip()} # {finding[m.end() :].lstrip()}")
    ]
    return [n for n in dict.fromkeys(found) if not _YEAR.match(n)]


# An age or age range that describes the population, marked by "#" where the number was: "under the age of # years",
# "aged # months", "#-year-old".
_AGE = re.compile(
    r"\b(?:aged?|ages|age of|under|over|older than|younger than|below|above)\s(?:the age of\s)?#\s(?:years?|yrs?|"
    r"months?|mo)\b|#\s?-?year[\s-]olds?\b",
    re.IGNORECASE,
)


def _enumerates(text: str, match: re.Match[str]) -> bool:
    """Whether the number is a list's marker: "(1) ...", "... and 2) ..."."""
    value = match.group(0).lstrip()
    start = match.end() - len(value)
    if not (value.isdigit() and len(value) <= 2 and text[match.end() : match.end() + 1] == ")"):
        return False
    previous = text[:start].rstrip()[-1:]  # "(1)", "and 2)", "; 3)": not "(n = 12)"
    return text[start - 1 : start] == "(" or not previous or previous.isalpha() or previous in ",;.:"


def _row(quote: Quote, row: HitSentences) -> TableRow:
    """The quote's run of consecutive sentences that holds its first finding (its first sentence when it holds
    none): one stretch of the abstract, so the cell is word for word what the paper says."""
    indexes, sentences, finding, abstract = row.quoted, row.sentences, row.finding, row.abstract_sentences
    chosen = [i for i in indexes if finding is not None and i < len(finding) and finding[i] >= FINDING_AT]
    start = (chosen or list(indexes))[0]
    run = [start]
    while run[-1] + 1 in indexes:
        run.append(run[-1] + 1)
    passage = quote.hit.passage if start >= abstract else None
    if passage is None:
        text = " ".join(sentences[i] for i in run)
    else:  # the full text's sentences each end "(p. 4)": the run is its words, then where it is, once
        where = f" ({passage.where})"
        text = " ".join(sentences[i].removesuffix(where) for i in run) + where
    return TableRow(quote.hit.paper, studied(quote.hit.paper.text), text, numbers_in(text), passage)


def evidence_table(
    question: str,
    hits: Sequence[Hit],
    embedder: Embedder | None,
    min_relevance: float,
    limit: int = DEFAULT_ROWS,
    field: AbstractSet[str] = frozenset(),
) -> EvidenceTable:
    """A row for each paper whose quote answers ``question`` (at most ``limit``: a ceiling, not a quota), the
    best first; none answers: no rows, and the refusal ``rag ask`` would give (``field`` as for it)."""
    evidence = answer_evidence(question, hits, min_relevance)
    table = sentence_table(question, evidence, embedder, findings=True) if evidence else []
    quotes = choose_quotes(table, limit, twins=False)
    if unanswered(question, quotes, embedder, field):
        return EvidenceTable(question, AnswerMode.INSUFFICIENT, message=refusal(question, hits).text)
    by_paper = {row.hit.paper.id: row for row in table}
    rows = []
    for quote in quotes:
        rows.append(_row(quote, by_paper[quote.hit.paper.id]))
    return EvidenceTable(question, AnswerMode.EXTRACTIVE, rows)
