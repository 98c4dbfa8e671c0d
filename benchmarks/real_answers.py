"""`rag ask --no-llm` on real libraries, judged by a reader: do the bullets answer, and are the quotes clean?

The questions are ``eval/real_questions/*.jsonl`` (8 per library, one the library cannot answer), each with
the papers a reader graded by their title and abstract: 2 = the paper answers the question, 1 = on topic but
does not answer it, 0 = not relevant (eval/real_questions/README.md says how they were judged). The
libraries are read from ``../shared/real`` (never copied into the repo); a library that is not there is
skipped. Each is ingested (PDFs with full text, with the embedding model) into a temporary data dir, then for
every question:

- ``ask`` without a model (rag's default -k): the share of bullets whose paper is graded >= 1 (goal >= 90%)
  and graded 2 (goal >= 60%), over the answerable questions. A bullet quoting a paper nobody graded counts
  as ungraded (in the denominator, as neither): the count is printed, and such papers should be judged
  (``--pool`` lists them); and the share of the papers graded 2 that the answers quote, of as many as an
  answer can hold (-k, and rag's cap on bullets), so that precision is not bought by quoting nothing;
- the quotes that hold the result: a question may list, for papers graded 2 whose abstract states a finding
  that answers it, those sentences verbatim (``results``); over the bullets on such papers, the share whose quote
  holds one of them (goal >= 80%), so that a bullet on the right paper quoting its background or aim instead of
  its finding is seen. A quote holds a result sentence when, both normalised (``result_words``: lower case,
  NFKC, soft hyphens and a line-break hyphen "classi- fication" joined, every other hyphen or mark a word break,
  rag's page marks dropped), the result's words are a run of the quote's words, or the quote's words are a run
  of the result's covering >= 60% of it (a trimmed quote), or the words of the result and of the quote (or of
  one of its sentences) have a Jaccard overlap >= 0.6 (a re-split or glued sentence). Questions without
  ``results`` do not count;
- the unanswerable question: refused ("Insufficient evidence"), or how many bullets it got;
- nDCG@10 of ``rag search`` against a plain BM25 (bm25s, English stop words and Snowball stemming, over the
  title and abstract of the same papers) in the same run, over the answerable questions; an unjudged paper
  in a top 10 gains nothing (counted, per ranker);
- the quotes that are not clean sentences, counted per bullet by kind (goal 0 each): ``ligature`` (ﬁ ﬂ ...),
  ``line_numbers`` (a PDF's line numbers inside the text: "communication 7 game ... 8 the effects"),
  ``copyright`` (© 2013 Elsevier, "all rights reserved"), ``cut_bracket`` (ends inside brackets or a
  citation, or starts inside one), ``dangling`` (the subject is in the sentence before: "The former",
  "This approach", "They", "It ..." but not "It is known that"), ``duplicate`` (the same sentence quoted under
  two papers of one answer), and, beside the issue's list, ``heading`` (a section number and heading glued
  on: "3.3 Fault Tolerance Since ..."), ``toc`` (a table of contents: dot leaders, "# Table of Contents"),
  ``hyphenation`` ("classi- fication", a soft hyphen), ``glued_list`` (a blurb's or a PDF's list run into one
  "sentence": "... analysis Promotes understanding ... context Comprehensive appendices", bullets),
  ``back_matter`` (what an export appends to an abstract: "Supported By: ...", "Keywords: ...", "TRIAL
  REGISTRATION: ...") and ``connective`` (starts "Moreover," / "However," / "Hence": leans on the sentence
  before; reported, no goal).

The detectors are heuristics, tuned on every sentence of these three libraries (abstracts and PDF passages);
``--show`` marks each bullet's kinds so a reader can check them. A bullet's grade is its paper's: a quote of
an answering paper that does not itself answer (a table of contents, a blurb) still counts as grade 2 there,
and shows up among the unclean quotes instead.

    python benchmarks/real_answers.py                  # the tables
    python benchmarks/real_answers.py --show           # each question's bullets with their grades
    python benchmarks/real_answers.py --json out.json  # the numbers
    python benchmarks/real_answers.py --pool           # the candidates to judge (ungraded ones marked ?)
    python benchmarks/real_answers.py --only restoration_pubmed --show

``--pool`` lists, per question, rag search's top 15, the plain BM25's top 15 and the papers ``ask -k 8``
quotes, with title, grade and abstract: what a reader judges. Set RAG_EMBED_MODEL_DIR or ``--model-dir`` for
the embedding model (default ../shared/models/all-MiniLM-L6-v2).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.check.sentences import Answer, AnswerMode  # noqa: E402
from rag.config import load_settings  # noqa: E402
from rag.evaluation.metrics import ndcg  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.services import ingest as ingest_service  # noqa: E402
from rag.services import read as read_service  # noqa: E402
from rag.services import writing as writing_service  # noqa: E402
from rag.services.context import Context  # noqa: E402
from rag.services.requests import SearchRequest, WritingOptions  # noqa: E402
from rag.text import split_sentences  # noqa: E402
from rag.writing import extractive  # noqa: E402

QUESTIONS = REPO / "eval" / "real_questions"
SHARED = REPO.parent / "shared"
POOL_DEPTH = 15  # rag search and BM25 candidates pooled for judging
POOL_ASK_K = 8  # ask -k for the pool
NDCG_AT = 10
GOAL_ON_TOPIC = 0.90
GOAL_ANSWERS = 0.60
GOAL_RESULTS = 0.80
RESULT_JACCARD = 0.6  # word-set overlap at which a quote holds a result sentence
RESULT_COVER = 0.6  # a quote inside a result sentence must cover this share of its words
KINDS = (
    "ligature",
    "line_numbers",
    "copyright",
    "cut_bracket",
    "dangling",
    "duplicate",
    "heading",
    "toc",
    "hyphenation",
    "glued_list",
    "back_matter",
    "connective",
)
GOAL_ZERO = KINDS[:-1]  # "connective" is reported, not a goal

# --- what makes a quote not a clean sentence -------------------------------------------------------------------

_LIGATURE = re.compile("[\ufb00-\ufb06]")
_COPYRIGHT = re.compile(r"©|\(c\)\s*(?:19|20)\d\d|\bcopyright\b|\ball rights reserved\b", re.I)
# What an export appends to an abstract: "Supported By: ...", "Keywords: ...", "TRIAL REGISTRATION: NCT...".
_BACK_MATTER = re.compile(
    r"\b(?:Supported by|Funding(?: sources?)?|Key ?words|Disclosures?|Conflicts? of interest|(?:Trial )?Registration)"
    r"\s?:",
    re.I,
)
# rag marks a quote from a PDF passage with where it is: "... (p. 4)" / "(passage 3)".
_LOCATION = re.compile(r"\s*\((?:p\.\s*\d+|passage \d+)\)\s*$")
_LOCATIONS = re.compile(r"\s*\((?:p\.\s*\d+|passage \d+)\)")
_LIST_MARKER = re.compile(r"(?:^|[\s,;:])(?:\d{1,2}|[a-zA-Z]|[ivx]{1,4})\)$")  # "1)" / "b)" ending the text
_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z][a-z]")
_TOC = re.compile(r"(?:\.\s?){6,}|#\s*Table of Contents|\bTable of Contents\b")
_HYPHEN_BREAK = re.compile(r"\b[a-z]{2,}- (?!and\b|or\b|to\b|nor\b|as\b|but\b|than\b)[a-z]{2,}\b")
_SOFT_HYPHEN = "\u00ad"
_NOT_LINE_NUMBER_BEFORE = {
    "figure", "fig", "fig.", "table", "section", "chapter", "eq", "eq.", "equation", "step", "steps", "theorem",
    "lemma", "proposition", "definition", "assumption", "remark", "example", "part", "phase", "type", "group",
    "groups", "class", "grade", "stage", "level", "day", "days", "week", "weeks", "month", "months", "year",
    "experiment", "study", "studies", "model", "case", "cases", "and", "or", "to", "of", "than", "between", "from",
    "p", "p.", "pp.", "vol", "vol.", "no", "no.", "n", "version", "edition", "volume", "gen",
}  # fmt: skip
_UNITS = {
    "percent", "times", "fold", "and", "or", "to", "of", "per", "x", "s", "ms", "sec", "min", "h", "hr", "hrs", "mg",
    "g", "kg", "ml", "l", "mm", "cm", "m", "km", "hz", "khz", "db", "years", "year", "days", "day", "weeks", "week",
    "months", "month", "hours", "hour", "minutes", "minute", "seconds", "subjects", "participants", "patients",
    "samples", "trials", "sessions", "studies", "items", "groups", "sites", "plots", "species", "channels",
}  # fmt: skip
_LINE_GAP = (3, 30)  # words between two consecutive line numbers
# A list or blurb glued into one "sentence": items that start capitalised mid-sentence with no stop before them
# ("... time series analysis Promotes understanding ... practical context Comprehensive appendices ...": a verb or
# adjective, not a name), or bullets.
_GLUED_ITEM = re.compile(r"\b[a-z]{2,} [A-Z][a-z]+(?:s|ive|ible|able|al|ed|ing) [a-z]{2,}")
_BULLET_MARK = re.compile(r"\s[*•▪]\s")
GLUED_ITEMS = 3  # glued items (or 2 bullet marks) that make a quote a list
_EXPLETIVE_IT = re.compile(
    r"^It (?:is|was|has been|had been|can be|could be|may be|might be|should be|must be|will be|would be|seems|"
    r"seemed|appears|appeared|remains|turns out|follows)\b(?:\s+\S+){0,4}?\s+(?:that|to|whether|how|why|if)\b"
)
_SELF = (
    r"paper|study|article|work|review|thesis|book|textbook|chapter|edition|survey|research|manuscript|report|"
    r"text|volume|monograph|meta-analysis|trial|dissertation|project|investigation|analysis|protocol|commentary|"
    r"editorial|guide|primer|tutorial|contribution|note|letter|issue|special"
)
# Words that may stand between "This" and "paper" ("This newly expanded second edition", "This engaging and
# clearly written textbook"): adjectives and adverbs by their endings, ordinals, hyphenated compounds.
_MODIFIER = (
    r"(?:and|new|first|second|third|fourth|fifth|revised|major|short|brief|present|current|written|"
    r"[a-z]+(?:ed|ing|ly|ive|al|ic|ous|ful|able|ible|ary|ory|ent|ant)|[a-z]+-[a-z-]+)"
)
_DANGLING = re.compile(
    r"^(?:(?:The|These|Those) (?:former|latter)\b|The (?:above|aforementioned|same)\b|"
    r"(?:They|Their|Them|He|She|His|Her|Its)\b|It\b|"
    rf"(?:This|These|That|Those|Such|Both)\b(?!(?:\s+{_MODIFIER}){{0,5}}\s+(?:{_SELF})s?\b))"
)
_LEAD_IN = re.compile(
    r"^(?:In summary|In short|Overall|Taken together|Together|In conclusion|Thus|Therefore|Hence|Moreover|"
    r"Furthermore|However|In addition|Additionally|Consequently|As a result|Finally|Also|Here|Namely|In particular|"
    r"Specifically),\s+"
)
_CONNECTIVE = re.compile(
    r"^(?:Moreover|Furthermore|However|Hence|Thus|Therefore|Consequently|Additionally|In addition|Similarly|"
    r"Likewise|Nevertheless|Nonetheless|Conversely|In contrast|By contrast|On the other hand|Otherwise|Instead|"
    r"Finally|Then|Accordingly|As a result|In turn|Besides|Also|Namely|In summary|In short|Taken together|"
    r"In particular|Specifically)\b"
)


def _bracket_cut(text: str) -> bool:
    """Ends inside ( or [ (an unclosed opener), starts inside one (a closer never opened, other than a list's
    "1)" or "b)"), or ends on 'et al.'."""
    depth = 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            if depth:
                depth -= 1
            elif not _LIST_MARKER.search(text[: i + 1]):
                return True
    return depth > 0 or bool(re.search(r"\bet al\.?$", text))


def _line_numbers(text: str) -> bool:
    """Two bare consecutive integers a line's length apart inside running prose ("communication 7 game ... 8 the
    effects"): each between two lower-case words, the words between them mostly words, neither a figure, table or
    step number (so equations, matrices and tables of contents do not count)."""
    words = text.split()
    found: list[tuple[int, int]] = []
    for i, word in enumerate(words[1:-1], start=1):
        before, after = words[i - 1], words[i + 1]
        if (
            re.fullmatch(r"\d{1,3}", word)
            and re.fullmatch(r"[a-z][a-z'’-]*[,;:]?", before)
            and re.fullmatch(r"[a-z][a-z'’-]+", after)
            and before.rstrip(",;:") not in _NOT_LINE_NUMBER_BEFORE
            and after not in _UNITS
        ):
            found.append((i, int(word)))
    for n, (i, value) in enumerate(found):
        for j, other in found[n + 1 :]:
            between = words[i + 1 : j]
            prose = sum(bool(re.fullmatch(r"[A-Za-z][a-z'’-]*[,;:.]?", w)) for w in between)
            if other == value + 1 and _LINE_GAP[0] <= len(between) <= _LINE_GAP[1] and prose >= 0.8 * len(between):
                return True
    return False


def quote_faults(quote: str) -> set[str]:
    """The kinds of debris in one quote (duplicates are counted across an answer, in ``answer_faults``)."""
    text = _LOCATION.sub("", quote.strip())
    first = text.lstrip("\"'“‘([ ")
    kinds = set()
    if _LIGATURE.search(text):
        kinds.add("ligature")
    if _line_numbers(text):
        kinds.add("line_numbers")
    if _COPYRIGHT.search(text):
        kinds.add("copyright")
    if _bracket_cut(text):
        kinds.add("cut_bracket")
    lead_in = _LEAD_IN.sub("", first)  # "In summary, these results ...": the subject after the lead-in
    subject = lead_in[:1].upper() + lead_in[1:]
    if any(_DANGLING.match(t) and not _EXPLETIVE_IT.match(t) for t in (first, subject)):
        kinds.add("dangling")
    if _HEADING.match(first):
        kinds.add("heading")
    if _TOC.search(text):
        kinds.add("toc")
    if _SOFT_HYPHEN in text or _HYPHEN_BREAK.search(text):
        kinds.add("hyphenation")
    if len(_GLUED_ITEM.findall(text)) >= GLUED_ITEMS or len(_BULLET_MARK.findall(text)) >= GLUED_ITEMS - 1:
        kinds.add("glued_list")
    if _BACK_MATTER.search(text):
        kinds.add("back_matter")
    if _CONNECTIVE.match(first):
        kinds.add("connective")
    return kinds


def _sentence_key(sentence: str) -> str:
    return re.sub(r"[\W_]+", " ", sentence).strip().lower()


def _sentences(quote: str) -> list[str]:
    """A quote's sentences, without the page marks rag adds after each passage sentence."""
    return split_sentences(_LOCATIONS.sub("", quote))


def answer_faults(bullets: Sequence[Bullet]) -> list[set[str]]:
    """Per bullet, the kinds of debris; ``duplicate`` when a sentence it quotes (of 5+ words) is quoted again in
    another line of the same answer."""
    faults = [quote_faults(b.quote) for b in bullets]
    owners: dict[str, set[int]] = {}
    for b in bullets:
        for sentence in _sentences(b.quote):
            key = _sentence_key(sentence)
            if len(key.split()) >= 5:
                owners.setdefault(key, set()).add(b.line)
    for b, kinds in zip(bullets, faults, strict=True):
        if any(len(owners.get(_sentence_key(s), ())) > 1 for s in _sentences(b.quote)):
            kinds.add("duplicate")
    return faults


# --- does a quote hold the result? ----------------------------------------------------------------------------

# "classi- fication", not "breast-, colon- and lung-tumor"
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011]\s+(?!(?:and|or|to|nor|as|but|than)\b)(?=[a-z])")
_WORD = re.compile(r"[^\W_]+")


def result_words(text: str) -> list[str]:
    """The words of a quote or result sentence, for comparing them: NFKC (ligatures), lower case, soft hyphens
    dropped and a hyphen broken across a line joined ("classi- fication" -> "classification"), every other
    hyphen, dash or mark a word break ("semi-quantitative" -> "semi quantitative"), rag's page marks dropped."""
    text = unicodedata.normalize("NFKC", _LOCATIONS.sub(" ", text)).replace(_SOFT_HYPHEN, "")
    return _WORD.findall(_LINE_BREAK_HYPHEN.sub("", text).lower())


def _contains(words: list[str], run: list[str]) -> bool:
    n = len(run)
    return n > 0 and any(words[i : i + n] == run for i in range(len(words) - n + 1))


def _jaccard(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa or sb else 0.0


def holds_result(quote: str, result: str) -> bool:
    """The quote holds the result sentence: the result is inside the quote, the quote is a part of the result
    covering most of it, or their words (or those of one of the quote's sentences) overlap by Jaccard >= 0.6."""
    q, r = result_words(quote), result_words(result)
    if not q or not r:
        return False
    if _contains(q, r) or (_contains(r, q) and len(q) >= RESULT_COVER * len(r)):
        return True
    return any(_jaccard(words, r) >= RESULT_JACCARD for words in [q, *map(result_words, _sentences(quote))])


def result_held(question: Question, bullet: Bullet) -> bool | None:
    """None when the question lists no result sentence for the bullet's paper; else whether the quote holds one."""
    results = question.results.get(bullet.key)
    if not results:
        return None
    return any(holds_result(bullet.quote, r) for r in results)


# --- reading an answer -----------------------------------------------------------------------------------------


@dataclass
class Bullet:
    key: str  # the quoted paper's citekey (its id when it has none)
    title: str
    quote: str
    line: int = 0  # the answer's line: papers whose quotes say the same share one


_BULLET = re.compile(r"^\s*[-•*]\s+(.*?)\s*((?:\[\d+\])+)\s*$")


def paper_key(paper: Paper) -> str:
    return paper.citekey or paper.id


def _strip_lead(body: str, paper: Paper) -> str:
    """'Title (Author, 2022): quote' -> 'quote' (rag.writing.extractive's bullet lead); the body if no lead."""
    title = paper.title or ""
    if title and body.startswith(title):
        rest = body[len(title) :]
        if rest.startswith(" ("):
            end = rest.find("): ")
            if end >= 0:
                return rest[end + 3 :]
        rest = rest.removeprefix(" [RETRACTED]")
        if rest.startswith(": "):
            return rest[2:]
    return body


def bullets_of(answer: Answer) -> list[Bullet]:
    """The answer's quote bullets: lines '- ... [n]' whose n is one of its citations; a bullet citing papers whose
    quotes say the same ('- Title A (..); Title B (..): ... [3][4]') counts once for each."""
    if answer.mode is AnswerMode.INSUFFICIENT:
        return []
    papers = {c.n: c.paper for c in answer.citations}
    out = []
    for number, line in enumerate(answer.text.splitlines()):
        match = _BULLET.match(line)
        cited = [papers[int(n)] for n in re.findall(r"\d+", match.group(2)) if int(n) in papers] if match else []
        if match and cited:
            quote = _strip_lead(match.group(1), cited[0])
            out += [Bullet(paper_key(paper), paper.title or "", quote, number) for paper in cited]
    return out


def refused(answer: Answer) -> bool:
    return answer.mode is AnswerMode.INSUFFICIENT or answer.text.lstrip().startswith("Insufficient evidence")


# --- the plain BM25 baseline -----------------------------------------------------------------------------------


class PlainBM25:
    """bm25s over each paper's title and abstract: English stop words, Snowball stemming, Lucene's k1/b."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        import bm25s
        import Stemmer

        self.keys = [paper_key(p) for p in papers]
        self.stemmer = Stemmer.Stemmer("english")
        corpus = bm25s.tokenize(
            [p.searchable_text() for p in papers], stopwords="en", stemmer=self.stemmer, show_progress=False
        )
        self.index = bm25s.BM25(k1=1.2, b=0.75)
        self.index.index(corpus, show_progress=False)

    def rank(self, query: str, k: int) -> list[str]:
        import bm25s
        import numpy as np

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, return_ids=False, show_progress=False)
        known = [t for t in tokens[0] if t in self.index.vocab_dict]
        if not known:
            return []
        scores = np.asarray(self.index.get_scores(known))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
        return [self.keys[i] for i in order if scores[i] > 0]


# --- running a library ----------------------------------------------------------------------------------------


@dataclass
class Question:
    library: str
    question: str
    answerable: bool
    relevant: dict[str, int]
    # citekey -> the verbatim sentences of its abstract stating the finding that answers the question (grade 2)
    results: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Result:
    question: Question
    bullets: list[Bullet]
    faults: list[set[str]]
    refused: bool
    rag_top: list[str]
    bm25_top: list[str]
    pool: dict[str, str] = field(default_factory=dict)  # key -> where it came from (--pool)
    quotes8: dict[str, str] = field(default_factory=dict)  # key -> quote under ask -k 8 (--pool)


def load_questions(folder: Path) -> dict[str, list[Question]]:
    """Label file name (without .jsonl) -> its questions."""
    out: dict[str, list[Question]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out[path.stem] = [
            Question(
                r["library"],
                r["question"],
                bool(r["answerable"]),
                {str(k): int(v) for k, v in r["relevant"].items()},
                {str(k): [str(s) for s in v] for k, v in r.get("results", {}).items()},
            )
            for r in rows
        ]
    return out


def _ask(ctx: Context, question: str, k: int | None) -> Answer:
    return writing_service.ask(ctx, SearchRequest(question, k), WritingOptions(use_llm=False, log=False))


@dataclass
class Ingested:
    """A real library ingested into a temporary data dir, and what a run reports of it."""

    ctx: Context
    info: dict[str, Any]


@contextmanager
def ingested_library(
    name: str, library: str, shared: Path, model_dir: Path | None, notes: list[str]
) -> Iterator[Ingested]:
    """``library`` (a path under shared/real) ingested with the embedding model into a data dir of its own, gone
    after; ``info`` holds its size, rag's settings for answers and the ingest time (add the questions' time)."""
    overrides: dict[str, Any] = {"collection": "real"}
    if model_dir is not None:
        overrides["embed_model_dir"] = model_dir
    with tempfile.TemporaryDirectory(prefix="rag-real-") as tmp:
        settings = load_settings(data_dir=Path(tmp), **overrides)
        ctx = Context(settings, notify=notes.append, remember_embeddings=True)
        started = time.perf_counter()
        embedder = ctx.embedding().embedder
        if embedder is None:
            notes.append(f"{name}: no embedding model (set RAG_EMBED_MODEL_DIR or --model-dir): BM25-only answers")
        ingested = ingest_service.ingest(ctx, [shared / "real" / library])
        info = {
            "library": library,
            "papers": ingested.total_papers,
            "passages": ingested.passages_found,
            "ask_k": settings.top_k,
            "min_relevance": settings.min_relevance,
            "embedder": embedder.name if embedder else "none (BM25 only)",
            "ingest_seconds": round(time.perf_counter() - started, 1),
        }
        yield Ingested(ctx, info)


def run_library(
    name: str, questions: Sequence[Question], shared: Path, model_dir: Path | None, pool: bool, notes: list[str]
) -> tuple[list[Result], dict[str, Any]]:
    with ingested_library(name, questions[0].library, shared, model_dir, notes) as library:
        ctx = library.ctx
        papers = read_service.papers(ctx).papers
        known = {paper_key(p) for p in papers}
        stale = sorted({k for q in questions for k in q.relevant if k not in known})
        if stale:
            notes.append(f"{name}: graded keys not in the library (labels out of date?): {', '.join(stale)}")
        texts = {paper_key(p): " ".join(result_words(p.text)) for p in papers}
        lost = sorted(
            {
                key
                for q in questions
                for key, sentences in q.results.items()
                if any(" ".join(result_words(s)) not in texts.get(key, "") for s in sentences)
            }
        )
        if lost:
            notes.append(f"{name}: result sentences not in their paper's text (labels out of date?): {', '.join(lost)}")
        bm25 = PlainBM25(papers)
        started = time.perf_counter()
        results = []
        for q in questions:
            answer = _ask(ctx, q.question, None)
            bullets = bullets_of(answer)
            depth = POOL_DEPTH if pool else NDCG_AT
            rag_top = [paper_key(h.paper) for h in read_service.search(ctx, SearchRequest(q.question, depth)).hits]
            result = Result(q, bullets, answer_faults(bullets), refused(answer), rag_top, bm25.rank(q.question, depth))
            if pool:
                for where, keys in (("rag", rag_top), ("bm25", result.bm25_top)):
                    for key in keys:
                        result.pool.setdefault(key, where)
                for b in bullets_of(_ask(ctx, q.question, POOL_ASK_K)):
                    result.pool.setdefault(b.key, "ask8")
                    result.quotes8[b.key] = b.quote
                for b in bullets:
                    result.pool.setdefault(b.key, "ask")
            results.append(result)
        info = {
            **library.info,
            "questions_seconds": round(time.perf_counter() - started, 1),
            "_papers": {paper_key(p): p for p in papers},
        }
        return results, info


# --- measuring ------------------------------------------------------------------------------------------------


def measure(results: Sequence[Result], k: int) -> dict[str, Any]:
    """The numbers of a set of questions; ``k`` is the answers' -k (with rag's own cap on bullets, if it has one,
    the most papers an answer can quote)."""
    answerable = [r for r in results if r.question.answerable]
    graded = [r.question.relevant.get(b.key) for r in answerable for b in r.bullets]
    # Papers graded 2 that the answer quotes, of those it could have (at most k): a stricter selector must not
    # buy its precision by quoting nothing.
    answering = sum(sum(r.question.relevant.get(b.key) == 2 for b in r.bullets) for r in answerable)
    ceiling = min(k, getattr(extractive, "MAX_ANSWER_SENTENCES", k))
    reachable = sum(min(ceiling, sum(g == 2 for g in r.question.relevant.values())) for r in answerable)
    bullets = len(graded)
    held = [h for r in answerable for b in r.bullets if (h := result_held(r.question, b)) is not None]
    unanswerable = [r for r in results if not r.question.answerable]
    faults = Counter(kind for r in results for kinds in r.faults for kind in kinds)
    all_bullets = sum(len(r.bullets) for r in results)

    def ndcgs(ranked: str) -> list[float]:
        return [ndcg(getattr(r, ranked)[:NDCG_AT], r.question.relevant, NDCG_AT) for r in answerable]

    def unjudged(ranked: str) -> int:
        return sum(k not in r.question.relevant for r in answerable for k in getattr(r, ranked)[:NDCG_AT])

    rag_ndcg, bm25_ndcg = ndcgs("rag_top"), ndcgs("bm25_top")
    return {
        "questions": len(results),
        "answerable": len(answerable),
        "bullets": bullets,
        "bullets_per_answer": round(bullets / len(answerable), 2) if answerable else None,
        "on_topic_share": round(sum(g is not None and g >= 1 for g in graded) / bullets, 3) if bullets else None,
        "answers_share": round(sum(g == 2 for g in graded) / bullets, 3) if bullets else None,
        "answering_recall": round(answering / reachable, 3) if reachable else None,
        "ungraded_bullets": sum(g is None for g in graded),
        "result_bullets": len(held),
        "results_held": sum(held),
        "results_held_share": round(sum(held) / len(held), 3) if held else None,
        "answerable_refused": sum(r.refused for r in answerable),
        "unanswerable": len(unanswerable),
        "unanswerable_refused": sum(r.refused for r in unanswerable),
        "unanswerable_bullets": sum(len(r.bullets) for r in unanswerable),
        "ndcg10_rag": round(sum(rag_ndcg) / len(rag_ndcg), 3) if rag_ndcg else None,
        "ndcg10_bm25": round(sum(bm25_ndcg) / len(bm25_ndcg), 3) if bm25_ndcg else None,
        "unjudged_top10_rag": unjudged("rag_top"),
        "unjudged_top10_bm25": unjudged("bm25_top"),
        "all_bullets": all_bullets,
        "unclean_bullets": sum(bool(kinds - {"connective"}) for r in results for kinds in r.faults),
        "faults": {kind: faults.get(kind, 0) for kind in KINDS},
    }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


# The table's lines: label, and the cell of one library's row.
_LINES: list[tuple[str, Any]] = [
    ("questions (answerable)", lambda r: f"{r['questions']} ({r['answerable']})"),
    ("bullets on answerable (per answer)", lambda r: f"{r['bullets']} ({r['bullets_per_answer']})"),
    (f"paper graded >= 1 (goal {GOAL_ON_TOPIC:.0%})", lambda r: _pct(r["on_topic_share"])),
    (f"paper graded 2 (goal {GOAL_ANSWERS:.0%})", lambda r: _pct(r["answers_share"])),
    ("papers graded 2 quoted (of <= k)", lambda r: _pct(r["answering_recall"])),
    (
        f"quote holds the result (goal {GOAL_RESULTS:.0%})",
        lambda r: (
            f"{r['results_held']}/{r['result_bullets']} {_pct(r['results_held_share'])}" if r["result_bullets"] else "-"
        ),
    ),
    ("ungraded bullets", lambda r: str(r["ungraded_bullets"])),
    ("answerable refused", lambda r: str(r["answerable_refused"])),
    (
        "unanswerable: refused / bullets",
        lambda r: f"{r['unanswerable_refused']}/{r['unanswerable']} refused, {r['unanswerable_bullets']} bullets",
    ),
    ("nDCG@10 rag search", lambda r: _num(r["ndcg10_rag"])),
    ("nDCG@10 plain BM25", lambda r: _num(r["ndcg10_bm25"])),
    ("unjudged in top 10 (rag / bm25)", lambda r: f"{r['unjudged_top10_rag']} / {r['unjudged_top10_bm25']}"),
    ("unclean quotes (of all bullets)", lambda r: f"{r['unclean_bullets']} / {r['all_bullets']}"),
]


def table(rows: dict[str, dict[str, Any]]) -> str:
    width = max(22, *(len(n) for n in rows)) + 2
    lines = [(label, [cell(r) for r in rows.values()]) for label, cell in _LINES]
    for kind in KINDS:
        label = f"  {kind}" + ("" if kind in GOAL_ZERO else " (no goal)")
        lines.append((label, [str(r["faults"][kind]) for r in rows.values()]))
    out = [f"{'':<34}" + "".join(f"{n:>{width}}" for n in rows)]
    out += [f"{label:<34}" + "".join(f"{c:>{width}}" for c in cells) for label, cells in lines]
    return "\n".join(out)


def _grade(q: Question, key: str) -> str:
    grade = q.relevant.get(key)
    return "?" if grade is None else str(grade)


def show(name: str, results: Sequence[Result]) -> None:
    print(f"\n=== {name}")
    for r in results:
        q = r.question
        tag = "" if q.answerable else "  [unanswerable]"
        print(f"\nQ: {q.question}{tag}")
        if r.refused:
            print("   (refused: Insufficient evidence)")
        for b, kinds in zip(r.bullets, r.faults, strict=True):
            flags = f"  <{', '.join(sorted(kinds))}>" if kinds else ""
            held = result_held(q, b)
            mark = "" if held is None else "  (holds the result)" if held else "  (MISSES the result)"
            print(f"  [{_grade(q, b.key)}] {b.key}: {b.quote}{flags}{mark}")
            if held is False:
                for sentence in q.results[b.key]:
                    print(f"      result: {sentence}")


def show_pool(name: str, results: Sequence[Result], papers: dict[str, Paper]) -> None:
    """Each candidate's abstract the first time it appears (later: its title alone), and its quote under -k 8."""
    print(f"\n##### {name}")
    seen: set[str] = set()
    for i, r in enumerate(results, start=1):
        q = r.question
        print(f"\n=== Q{i}: {q.question}  (answerable: {q.answerable})")
        for key, where in r.pool.items():
            paper = papers.get(key)
            print(f"  [{_grade(q, key)}] {key}  ({where})  {paper.title if paper else ''}")
            if paper is not None and key not in seen and paper.text != paper.title:
                print(f"      {paper.text[:1200]}")
            seen.add(key)
            if key in r.quotes8:
                print(f"      QUOTED: {r.quotes8[key][:400]}")


def print_runs(rows: dict[str, dict[str, Any]], seconds: float) -> None:
    """Each library's size and times, as ``ingested_library`` and the run recorded them, then the total."""
    for name, row in rows.items():
        if "ingest_seconds" in row:
            print(
                f"{name}: {row['papers']} papers, {row['passages']} passages; ingest {row['ingest_seconds']} s, "
                f"questions {row['questions_seconds']} s; ask -k {row['ask_k']}, min relevance "
                f"{row['min_relevance']}, embeddings {row['embedder']}"
            )
    print(f"total {seconds:.1f} s")


def library_options(description: str, questions: Path) -> argparse.ArgumentParser:
    """The options every benchmark over real libraries and question files takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder holding real/")
    parser.add_argument("--questions", type=Path, default=questions, help="folder of question files")
    parser.add_argument("--model-dir", type=Path, default=None, help="embedding model dir (else RAG_EMBED_MODEL_DIR)")
    parser.add_argument("--only", action="append", default=[], help="run only this file (name without .jsonl)")
    return parser


def model_dir_of(args: argparse.Namespace) -> Path | None:
    """--model-dir, else RAG_EMBED_MODEL_DIR (read by rag itself), else the shared folder's model if present."""
    if args.model_dir is not None or os.environ.get("RAG_EMBED_MODEL_DIR"):
        return args.model_dir  # type: ignore[no-any-return]
    default = args.shared / "models" / "all-MiniLM-L6-v2"
    return default if default.exists() else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = library_options(__doc__.split("\n\n")[0], QUESTIONS)
    parser.add_argument("--show", action="store_true", help="print each question's bullets with their grades")
    parser.add_argument("--pool", action="store_true", help="print the candidates to judge per question")
    parser.add_argument("--json", type=Path, default=None, help="write the numbers to this file")
    args = parser.parse_args(argv)
    model_dir = model_dir_of(args)
    started = time.perf_counter()
    labelled = load_questions(args.questions)
    if args.only:
        labelled = {n: qs for n, qs in labelled.items() if n in args.only}
    rows: dict[str, dict[str, Any]] = {}
    everything: list[Result] = []
    notes: list[str] = []
    for name, questions in labelled.items():
        if not (args.shared / "real" / questions[0].library).exists():
            print(f"{name}: skipped ({args.shared / 'real' / questions[0].library} is absent)", file=sys.stderr)
            continue
        results, info = run_library(name, questions, args.shared, model_dir, args.pool, notes)
        papers = info.pop("_papers")
        rows[name] = {**measure(results, info["ask_k"]), **info}
        everything.extend(results)
        if args.pool:
            show_pool(name, results, papers)
        if args.show:
            show(name, results)
    if not rows:
        print("no library found: nothing measured", file=sys.stderr)
        return 0
    if len(rows) > 1:
        rows["overall"] = measure(everything, next(iter(rows.values()))["ask_k"])
    seconds = time.perf_counter() - started
    print()
    print(table(rows))
    print_runs(rows, seconds)
    for note in dict.fromkeys(n for n in notes if "out of date" in n or "no embedding model" in n):
        print(note, file=sys.stderr)
    if args.json:
        out = {"seconds": round(seconds, 1), "libraries": rows}
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
