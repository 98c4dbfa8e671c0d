"""Each paper's sentences as evidence for a question: which papers may back an answer at all, their sentences
(whole, self-standing, cleaned of a publisher's table of contents), and the evidence selector's pick of the
ones that answer (rag.check.support_model: sentence similarity to the question, coverage of its rare terms,
where results sit in an abstract). Quoted as they are by extractive answers (rag.writing.extractive), given
to a model as its sources (rag.writing.generation), turned into paragraphs (rag.writing.extractive_draft).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from rag.abbreviations import spelled_out
from rag.check import support_model
from rag.check.markers import CITATION_GROUP
from rag.check.screen import no_news_terms
from rag.check.support_model import load_support_model
from rag.corpus.roles import findings_share, is_plan, strip_label
from rag.embed.types import Embedder
from rag.records import Hit, Paper
from rag.text import split_prose, term_coverage, tokenize, unglue
from rag.writing.standing_alone import self_standing

# How well a sentence matches the question: its similarity to it, plus this much for sharing its terms (a
# paper's quote then ranks by its best sentence: rag.writing.extractive).
TERM_OVERLAP_WEIGHT = 0.5
# A paper counts as evidence with this share of the question's terms (and, with a model, a fair cosine)...
EVIDENCE_COVERAGE = 0.5
# ...or with a cosine similarity this high whatever the words (paraphrases).
STRONG_RELEVANCE = 0.40
# A second sentence is quoted when the evidence selector's logit for it is within this of the best one's. With
# claims and their papers grouped so that none is both fitted and measured (5-fold CV, benchmarks/
# quote_selection.py), 80.8% of SciFact claims then get an annotated evidence sentence at 1.58 sentences a quote
# (the selector fitted with L2 100; margin 0.5: 77.3% at 1.42; one sentence: 65.6%).
SECOND_QUOTE_MARGIN = 0.75
# A quote answers the question when it is this close to it in meaning (cosine of MiniLM vectors)...
ANSWER_SIMILARITY = 0.45
# ...or fairly close and holding this share of the question's terms (IDF-weighted)...
ANSWER_SIMILARITY_WITH_TERMS = 0.2
ANSWER_COVERAGE = 0.4
# ...or, without vectors, this share of its terms alone. (Terms the paper's title holds do not count: they
# name the topic, not what is asked about it.)
ANSWER_COVERAGE_ALONE = 0.5
# Another sentence holding this much more of what is asked than the selector's pick is quoted instead.
FOCUS_MARGIN = 0.34
FloatArray = npt.NDArray[np.float64]


def defuse_citations(quoted: str) -> str:
    """An abstract's own '[2]' would read as our reference [2]: write it as '(ref. 2)'."""
    return CITATION_GROUP.sub(lambda match: f"(ref. {match.group(1).strip()})", quoted)


def is_evidence(hit: Hit, question: str, min_relevance: float) -> bool:
    """Whether a hit may back an answer, on absolute signals (never the per-query rescaled score): a cosine
    similarity this strong alone, or at least ``min_relevance`` with half of the question's terms in the paper.
    A paper with no abstract is never evidence: its title is not a finding.

    Calibrated on the bundled corpus and a 5,000-abstract SciFact library, with on-topic questions (the labelled
    questions, SciFact's queries) and off-topic ones (eval/off_topic_questions.txt): a cosine floor alone either
    refuses on-topic questions on a small library or answers off-topic ones on a large one."""
    return not hit.paper.no_abstract and _relevant(hit, question, min_relevance)


def _relevant(hit: Hit, question: str, min_relevance: float) -> bool:
    coverage = term_coverage(question, hit.evidence().searchable_text())
    if hit.dense is not None:
        return hit.dense >= STRONG_RELEVANCE or (hit.dense >= min_relevance and coverage >= EVIDENCE_COVERAGE)
    return coverage >= EVIDENCE_COVERAGE


def related_without_abstract(hits: Sequence[Hit], question: str, min_relevance: float) -> list[Paper]:
    """Title-only papers as relevant as evidence would be: listed under an answer as "related, no abstract"."""
    return [h.paper for h in hits if h.paper.no_abstract and _relevant(h, question, min_relevance)]


def _quotable(hit: Hit) -> tuple[list[str], int]:
    """The abstract's sentences, then the matched passage's with the page they are on; and how many of them
    are the abstract's. Split as a reader splits them (never inside "et al." or "(p. 6)"); a publisher's
    table of contents pasted into a book's abstract ("# Table of Contents Statistical Learning Linear
    Regression ...") is not a sentence."""
    sentences = _sentences_of(hit.paper.text)
    abstract = len(sentences)
    if hit.passage is not None:
        sentences += [f"{s} ({hit.passage.where})" for s in _sentences_of(hit.passage.text)]
    return sentences, abstract


_HEADING_MARK = re.compile(r"\s#{1,6}\s+")
_TABLE_OF_CONTENTS = re.compile(r"^(?:table of )?contents\b", re.IGNORECASE)


def _sentences_of(text: str, labelled: bool = False) -> list[str]:
    """The text's sentences; a structured abstract's section labels ("RESULTS: ") stripped unless ``labelled``
    (rag.corpus.roles reads them)."""
    parts = _HEADING_MARK.split(" " + " ".join(text.split()))
    split = [
        piece
        for part in parts
        if not _TABLE_OF_CONTENTS.match(part.strip())
        for s in split_prose(part.strip())
        for piece in unglue(s)
    ]
    return split if labelled else [strip_label(s) for s in split]


@dataclass
class HitSentences:
    """One hit's quotable sentences, ranked by how well each answers the question (best first)."""

    hit: Hit
    sentences: list[str]
    abstract_sentences: int
    ranked: list[int]
    quoted: list[int]
    # Per sentence: similarity to the question (0 without vectors) + TERM_OVERLAP_WEIGHT x term coverage.
    match: list[float]
    # Per sentence: cosine similarity to the question (None without vectors), and the share of the question's
    # terms beyond the paper's title it holds (IDF-weighted).
    similarity: list[float] | None = None
    coverage: list[float] | None = None
    # Per abstract sentence: the probability that it reports a finding (a result or conclusion: rag.corpus.roles).
    finding: list[float] | None = None
    # The question asks what is known, not which works there are: a trial's registration, or a quote of what a
    # work will do ("Outcomes will include ..."), does not answer it.
    needs_finding: bool = False

    @property
    def quotes_a_plan(self) -> bool:
        return all(is_plan(self.sentences[i]) for i in self.quoted)

    @property
    def quote_text(self) -> str:
        return " ".join(self.sentences[i] for i in self.quoted)

    def answers(self) -> bool:
        """Whether the quote itself answers the question, not only its paper: close in meaning, or holding most
        of the question's terms (calibrated in benchmarks/quote_selection.py and benchmarks/real_answers.py)."""
        coverage = max((self.coverage or [0.0])[i] for i in self.quoted) if self.coverage else 0.0
        if self.similarity is None:
            return coverage >= ANSWER_COVERAGE_ALONE
        similarity = max(self.similarity[i] for i in self.quoted)
        return similarity >= ANSWER_SIMILARITY or (
            similarity >= ANSWER_SIMILARITY_WITH_TERMS and coverage >= ANSWER_COVERAGE
        )


def selector_logits(
    question: str, sentences: Sequence[str], question_vector: FloatArray | None, vectors: FloatArray | None
) -> FloatArray:
    """How evidence-like each sentence is for the question, by the support check's evidence selector (with
    sentence vectors when there are any): similarity, coverage of the question's (rare) terms, where results
    sit in an abstract."""
    model = load_support_model()
    with_vectors = question_vector is not None and vectors is not None
    variant = model.embedding if with_vectors else model.lexical
    cosines = np.asarray(vectors @ question_vector, dtype=np.float64) if with_vectors else None  # type: ignore[operator]
    terms = list(dict.fromkeys(tokenize(question)))
    return variant.selector.logits(support_model.sentence_table(terms, sentences, model.idf, cosines))


def quoted_sentences(logits: FloatArray) -> list[int]:
    """The sentence the selector ranks first, and the runner-up when the selector rates it nearly as high
    (within SECOND_QUOTE_MARGIN): abstracts often give their finding over two sentences. In document order.
    Measured in benchmarks/quote_selection.py (grouped cross-validation on SciFact's evidence sentences)."""
    order = [int(i) for i in np.argsort(-logits, kind="stable")]
    chosen = order[:1]
    if len(order) > 1 and logits[order[0]] - logits[order[1]] < SECOND_QUOTE_MARGIN:
        chosen.append(order[1])
    return sorted(chosen)


def sentence_table(
    question: str, hits: Sequence[Hit], embedder: Embedder | None, findings: bool | None = None
) -> list[HitSentences]:
    """Every quotable sentence of ``hits`` ranked per hit; all of them embedded in one batch. With ``findings``
    (by default: when the question asks for them), a paper's finding is quoted before its aim."""
    per_hit = [(hit, *_quotable(hit)) for hit in hits]
    per_hit = [row for row in per_hit if row[1]]
    # Matched as spelled out: "prevalence of MCR" is about the "motoric cognitive risk syndrome" asked about.
    readable = [spelled_out(sentences, question) for _, sentences, _ in per_hit]
    flat = [s for read in readable for s in read]
    question_vector, vectors = None, None
    if embedder is not None and flat:
        embedded = np.asarray(embedder.embed([question, *flat]), dtype=np.float64)
        question_vector, vectors = embedded[0], embedded[1:]
    table, start = [], 0
    terms = list(dict.fromkeys(tokenize(question)))
    idf = load_support_model().idf
    asks_findings = asks_for_findings(question)
    findings_first = findings or (findings is None and asks_findings)
    needs_finding = asks_findings and not _ASKS_FOR_WORKS.search(question)
    for (hit, sentences, abstract), read in zip(per_hit, readable, strict=True):
        own = vectors[start : start + len(sentences)] if vectors is not None else None
        start += len(sentences)
        similarity = own @ question_vector if own is not None and question_vector is not None else None
        match = [
            TERM_OVERLAP_WEIGHT * term_coverage(question, s) + (float(similarity[i]) if similarity is not None else 0.0)
            for i, s in enumerate(read)
        ]
        # What the question asks about its topic: its terms the paper's title does not hold ("handle worker
        # failures" of "how does MapReduce handle worker failures?"); a sentence that only names the topic
        # does not answer. A question all of whose terms the title holds is answered by the title.
        focus = [t for t in terms if t not in set(tokenize(hit.paper.title or "")) and t not in question_frame()]
        coverage = [_idf_coverage(focus, s, idf) if focus else 1.0 for s in read]
        # A question the paper asks ("Is project popularity related to CI/CD adoption?"), a link, or a sentence on
        # the opposite of what is asked answers nothing: quoted only when the paper says nothing else.
        asks = np.array([answers_nothing(question, s) for s in sentences])
        unasked = np.where(asks, -np.inf, 0.0) if not asks.all() else np.zeros(len(sentences))
        logits = selector_logits(question, read, question_vector, own) + unasked
        ranked = [int(i) for i in np.argsort(-logits, kind="stable")]
        quoted = self_standing(sentences, quoted_sentences(logits), abstract)
        cosines = [float(x) for x in similarity] if similarity is not None else None
        row = HitSentences(hit, sentences, abstract, ranked, quoted, match, cosines, coverage)
        closest = int(np.argmax([c + (cosines[i] if cosines else 0.0) + unasked[i] for i, c in enumerate(coverage)]))
        if not row.answers() or coverage[closest] > max(coverage[i] for i in row.quoted) + FOCUS_MARGIN:
            # The selector's pick does not answer, or another sentence speaks to what is asked far more.
            row.quoted = self_standing(sentences, [closest], abstract)
        if findings_first:
            row.finding = [float(p) for p in findings_share(_sentences_of(hit.paper.text, labelled=True))]
            row.needs_finding = needs_finding
            prefer_findings(row, question)
            if row.needs_finding and row.quotes_a_plan:  # what the work will do: its next best sentence instead
                done = [i for i in row.ranked if not is_plan(sentences[i])]
                row.quoted = self_standing(sentences, done[:1], abstract) if done else row.quoted
        table.append(row)
    return table


_ASKS = re.compile(r"\?[\s)\]\"'”’]*$")
# What a web page's or a book's blurb says besides what the work found: a link ("Follow me!
# https://linktr.ee/..."), a publisher's headings ("What you will learn ...", "Who this book is for").
_PROMOTES = re.compile(r"https?://|\bwww\.|\b(?:what you will learn|who this book is for)\b", re.IGNORECASE)
# A list of keywords an export left at the abstract's end, in brackets: "[law, education, professions, race]".
_KEYWORDS = re.compile(r"^\s*\[[^\[\]]*\]\s*\.?\s*$")


# Two texts whose terms share this share (Jaccard, texts of at least SAME_WORDS_MIN terms) say the same thing in
# nearly the same words: a preprint and its journal version, one study's two conference abstracts. An answer's
# bullet, or a draft's sentence, cites both.
SAME_WORDS = 0.8
SAME_WORDS_MIN = 5


def same_words(terms: set[str], theirs: set[str]) -> bool:
    """Whether two texts' terms are the same, or share SAME_WORDS of their terms."""
    return terms == theirs or (
        min(len(terms), len(theirs)) >= SAME_WORDS_MIN and len(terms & theirs) >= SAME_WORDS * len(terms | theirs)
    )


def states_nothing(sentence: str) -> bool:
    """Whether ``sentence`` states nothing to quote: it asks (ends with a question mark), promotes (a link, a
    blurb's headings), or lists keywords in brackets."""
    return any(pattern.search(sentence) is not None for pattern in (_ASKS, _PROMOTES, _KEYWORDS))


# A word made the opposite of a question's term by its prefix: "anaerobic" for "aerobic", "non-smokers" for
# "smokers", "untreated" for "treated". A sentence naming the opposite and not the term itself speaks of the
# other case: "ANME-1-related organisms are responsible for anaerobic methane oxidation below 600 m" does not
# answer what controls aerobic methane oxidation, though every other word of it is the question's.
# "a-" and "im-" are left out: too many words only look prefixed ("across", "around", "improve").
_NEGATING_PREFIX = re.compile(r"\b(?:non-?|un|(?:an|in)(?=[aeiou]))([a-z][a-z-]{3,})", re.IGNORECASE)
# A term shorter than this (stemmed) is too often the tail of an unrelated word ("in" + "form").
MIN_OPPOSED_TERM = 5


def _negated(text: str) -> list[tuple[str, str]]:
    """Each prefixed word of ``text`` whose stem is a term MIN_OPPOSED_TERM long or more: (word, the stem)."""
    found = []
    for match in _NEGATING_PREFIX.finditer(text):
        stem = tokenize(match.group(1))
        if len(stem) == 1 and len(stem[0]) >= MIN_OPPOSED_TERM:
            found.append((match.group(0), stem[0]))
    return found


@lru_cache(maxsize=64)
def _opposable(question: str) -> frozenset[str]:
    """The question's terms whose opposite it does not name itself ("supervised" in "self-supervised versus
    unsupervised" is not)."""
    return frozenset(set(tokenize(question)) - {stem for _, stem in _negated(question)})


def names_the_opposite(question: str, sentence: str) -> bool:
    """Whether ``sentence`` names the opposite of one of the question's terms (its prefixed form) and not the
    term itself."""
    opposable = _opposable(question)
    opposed, rest = set(), sentence
    for word, stem in _negated(sentence):
        if stem in opposable:
            opposed.add(stem)
            rest = rest.replace(word, " ")
    return bool(opposed - set(tokenize(rest)))


def answers_nothing(question: str, sentence: str) -> bool:
    """Whether ``sentence`` answers nothing of ``question``: it states nothing, or names the opposite of what is
    asked."""
    return states_nothing(sentence) or names_the_opposite(question, sentence)


# A question asks for findings (what is known, whether, how much, which works...) unless it asks how something is
# done or which methods, tools or data are used: those are answered by what a paper did, not what it found.
_ASKS_HOW = re.compile(
    r"^\s*(?:how (?:do|does|did|can|could|should|is|are|was|were|to)\b(?!.*\b(?:affect|influenc|impact|chang|"
    r"differ|compar|relat|associat|perform|improv|reduc|increas))|what (?:\w+ )?(?:methods?|techniques?|"
    r"approach(?:es)?|tools?|algorithms?|datasets?|data|instruments?|measures?|software|definitions?)\b|which "
    r"(?:\w+ )?(?:methods?|techniques?|approach(?:es)?|tools?|algorithms?|datasets?|instruments?|software)\b)",
    re.IGNORECASE,
)
# ...and one asking which works there are ("Which trials test ...", "Which textbooks cover ...") is answered by a
# work that reports nothing yet.
_ASKS_FOR_WORKS = re.compile(
    r"^\s*(?:which|what) (?:[\w-]+ ){0,3}?(?:works?|papers?|stud(?:y|ies)|articles?|books?|textbooks?|trials?|"
    r"reviews?|protocols?|projects?|models?)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"\?\s*$|^\s*(?:what|which|who|whether|how|does|do|did|is|are|was|were|can|when|why)\b", re.I)
# A sentence reports a finding at this probability (rag.corpus.roles); the share quoted is measured in
# training/roles.py --quotes.
FINDING_AT = 0.5
# A question about a quantity ("what is the prevalence", "how many") is answered by a number: a finding stating
# one counts this much more (about a whole sentence's coverage of the question's terms).
QUANTITY_BONUS = 1.0
_QUANTITY = re.compile(
    r"\b(?:how (?:much|many|often|large|common|frequent|big|long)|prevalence|incidence|rates?|proportions?|"
    r"percentage|share|risk|odds|effect sizes?|accuracy|numbers? of|levels? of|magnitude|mortality)\b",
    re.IGNORECASE,
)
# Findings tried in turn, closest first, for one that answers when quoted.
FINDINGS_TRIED = 3
# ...but a question asking whether ("Does obesity increase COVID-19 mortality?") is answered by the finding that says
# so, with or without its number: the quantity bonus took the severity risk ratio over "obesity is significantly
# associated with increased severity and higher mortality".
_YES_NO = re.compile(r"^\s*(?:does|do|did|is|are|was|were|can|could|has|have|had|will|would|should)\b", re.I)
# A "finding" longer than this many words is a blurb's list run into one sentence, not a result: never preferred.
MAX_FINDING_WORDS = 80
_CUT = ("…", "...")
_STATISTIC = re.compile(r"\d\s?%|\b\d+\.\d+\b|\bp\s?[<=>≤]|\bCI\b|\b\d[\d,]*\s?(?:of|in|out of)\s\d")


def asks_for_findings(question: str) -> bool:
    """Whether ``question`` (a question, not a draft's topic) is answered by what papers found."""
    return bool(_QUESTION.search(question)) and not _ASKS_HOW.search(question)


def prefer_findings(row: HitSentences, question: str) -> None:
    """Quote the abstract's finding closest to the question (a number, for a question about a quantity: "Pooled
    prevalence of X was 10% (95% CI 8%-12%)") instead of its aim, background or method ("To systematically review
    the prevalence of X"); beside the findings already quoted when it does not answer alone. A quote of findings
    only stays unless another finding is closer; a finding about something else is never added."""
    finding = row.finding or []
    sentences = row.sentences
    found = [
        i
        for i, p in enumerate(finding)
        if p >= FINDING_AT
        and len(sentences[i].split()) <= MAX_FINDING_WORDS
        and not answers_nothing(question, sentences[i])
    ]
    if not found or any(i >= len(finding) for i in row.quoted) or row.sentences[len(finding) - 1].endswith(_CUT):
        # No finding stated; a passage of the full text quoted (what it says is not an abstract's); or an abstract
        # cut short (the seeds' openings, "…"): its last sentences only look like findings by where they sit.
        return
    coverage = row.coverage or [0.0] * len(row.sentences)
    cosines = row.similarity or [0.0] * len(row.sentences)
    quantity = bool(_QUANTITY.search(question)) and not _YES_NO.match(question)

    def closeness(i: int) -> tuple[float, float]:
        bonus = QUANTITY_BONUS if quantity and _STATISTIC.search(row.sentences[i]) else 0.0
        return coverage[i] + cosines[i] + bonus, finding[i]

    ordered = sorted(found, key=closeness, reverse=True)
    before = row.quoted
    findings_quoted = all(finding[i] >= FINDING_AT for i in before)
    quoted_closeness = max(closeness(i) for i in before)
    # The closest finding first; when no way of quoting it answers (a statistic the quantity bonus lifted, "AUC of
    # 0.72", that says nothing of what is asked), the next closest; a quote of findings only gives way to a closer.
    for best in ordered[:FINDINGS_TRIED]:
        if findings_quoted and closeness(best) <= quoted_closeness:
            break
        candidates = [[best], [best, *(i for i in before if i in found)]]
        if coverage[best] or cosines[best] >= ANSWER_SIMILARITY_WITH_TERMS:  # never beside it when about another thing
            candidates.append([*before, best])
        for quoted in candidates:
            row.quoted = self_standing(row.sentences, sorted(set(quoted)), row.abstract_sentences)
            if row.answers():
                return
    row.quoted = before


# Words that frame a question about papers rather than say what it asks ("which works target ...").
_QUESTION_FRAME = (
    "work works paper papers study studies article articles research target targets address addresses tackle "
    "tackles propose proposes proposed present presents approach approaches method methods technique techniques "
    "use uses used using look looks exist exists existing focus focuses describe describes known"
)


@lru_cache(maxsize=1)
def question_frame() -> frozenset[str]:
    return frozenset(tokenize(_QUESTION_FRAME)) | no_news_terms()


def _idf_coverage(terms: Sequence[str], sentence: str, idf: support_model.Idf) -> float:
    """Share of ``terms`` (weighted by rarity) the sentence holds."""
    have = set(tokenize(sentence))
    total = sum(idf(t) for t in terms)
    return sum(idf(t) for t in terms if t in have) / total if total else 0.0
