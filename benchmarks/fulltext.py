"""PDF full text: what indexing body passages gains (and costs) against abstracts alone.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/fulltext.py [--papers 200]

Builds N synthetic multi-page PDFs from SciFact (../shared/eval/scifact): paper i
has a title, an "Abstract" (SciFact doc A_i), a "1 Introduction" heading and three
body pages, each the text of another SciFact doc. Body pages take docs judged
relevant to a SciFact *train* claim first, so some claims are answered only by a
paper's body; another share of judged docs become abstracts, so other claims are
answered by an abstract. A claim's relevant item is the paper that holds its doc.
Whole groups of claims sharing docs go to one side, so no claim is mixed.

The folder is ingested through ``rag.services.ingest.ingest`` into collections of one
temporary data dir: ``fulltext`` (passages beside each paper) and ``abstracts``
(``full_text=False``, what ``rag ingest --abstract-only`` does). A third,
``control``, holds every doc of those PDFs as a one-page PDF of its own (4N
papers, body claims labelled with their doc's own file): the same text as
``fulltext`` without passages, to tell what the bigger haystack costs abstract
claims from what cutting and collapsing passages costs. Reported:

- quality: nDCG@10 (binary), recall@10, MRR@10 (rag.evaluation.metrics) of hybrid, lexical
  and dense retrieval on body-only claims and abstract claims, per collection;
  for body claims found with full text, how often the hit came with a passage and
  that passage's page is the page holding the relevant doc;
- speed: PDF parsing alone (pages/s, passages made; "short abstracts" counts
  parsed abstracts that lost over a tenth of the text written), ingest end to end
  (parse + embed + store; papers/s and indexed units/s), and query latency p50/p95
  per method with the library already open (200 claims, methods taking turns).

Quality numbers are deterministic for a given --seed; timings need an idle
machine. The default run takes about 5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pdf_fixture import write_pdf

from rag.config import Settings, load_settings
from rag.corpus.identity import normalize_text
from rag.corpus.loader import load_paths
from rag.corpus.pdf.document import FIRST_PAGES, MAX_ABSTRACT_CHARS
from rag.evaluation.metrics import MRR_DEPTH, NDCG_DEPTH, EvalReport, LabelledQuestion, evaluate
from rag.index.hybrid import HybridRetriever
from rag.records import Hit, Method, Paper
from rag.services.context import Context
from rag.services.ingest import ingest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SCIFACT = SHARED / "eval" / "scifact"
DEFAULT_MODEL = SHARED / "models" / "all-MiniLM-L6-v2"
BODY_PAGES = 3
PDF_LINE_CHARS = 90
TITLE_WORDS = 10
K = 10
LATENCY_QUERIES = 200
SEED = 7
METHODS = (Method.HYBRID, Method.LEXICAL, Method.DENSE)
METRICS = (f"ndcg@{NDCG_DEPTH}", f"recall@{K}", f"mrr@{MRR_DEPTH}")
# Warm-up searches per method before latency is timed (the first hundred or so run slower).
WARM_QUERIES = 30
# (collection, full_text, control): the same PDFs with and without full text, and the control
# library where every doc of those PDFs is a one-page PDF of its own.
MODES = (("fulltext", True, False), ("abstracts", False, False), ("control", False, True))


@dataclass
class Doc:
    id: str
    title: str
    text: str


@dataclass
class Synthetic:
    """The PDFs' contents and the claims they answer, keyed by PDF file name."""

    papers: dict[str, list[Doc]]  # file -> [abstract doc, body page docs...]
    body_questions: list[LabelledQuestion]
    abstract_questions: list[LabelledQuestion]
    # Control: each body doc a PDF of its own, and the body claims labelled with those files.
    control_papers: dict[str, Doc] = field(default_factory=dict)
    control_body_questions: list[LabelledQuestion] = field(default_factory=list)
    # (claim id, file) -> page numbers (1-based, as passages cite them) holding a relevant doc
    pages: dict[tuple[str, str], set[int]] = field(default_factory=dict)


def _latin1(text: str) -> str:
    """The fixture writes Helvetica (Latin-1) text."""
    return text.encode("latin-1", "replace").decode("latin-1")


def _wrap(text: str) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + len(word) > PDF_LINE_CHARS:
            lines.append(line.rstrip())
            line = ""
        line += word + " "
    return [*lines, line.rstrip()] if line else lines


def _load_scifact() -> tuple[dict[str, Doc], dict[str, str], dict[str, dict[str, int]]]:
    docs = {}
    with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            text = _latin1(row["text"])
            title = _latin1(row.get("title") or "") or " ".join(text.split()[:TITLE_WORDS])
            docs[row["_id"]] = Doc(row["_id"], title, text)
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as f:
        queries = {row["_id"]: row["text"] for row in map(json.loads, f)}
    qrels: dict[str, dict[str, int]] = {}
    with open(SCIFACT / "qrels" / "train.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if int(row["score"]) > 0 and row["corpus-id"] in docs and row["query-id"] in queries:
                qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = 1
    return docs, queries, qrels


def claim_groups(qrels: dict[str, dict[str, int]]) -> list[tuple[list[str], list[str]]]:
    """(claims, docs) connected by judgements: a group goes wholly to abstracts or to bodies."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for qid, rel in qrels.items():
        for doc in rel:
            parent[root("q:" + qid)] = root("d:" + doc)
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for node in sorted(parent):
        claims, docs = groups.setdefault(root(node), ([], []))
        (claims if node.startswith("q:") else docs).append(node[2:])
    return list(groups.values())


def build_corpus(n: int, rng: random.Random) -> Synthetic:
    docs, queries, qrels = _load_scifact()
    judged = {doc for rel in qrels.values() for doc in rel}
    groups = claim_groups(qrels)
    rng.shuffle(groups)
    # Half the abstracts are judged docs (at most a quarter of them); bodies take judged docs first.
    abstract_quota, body_quota = min(n // 2, len(judged) // 4), BODY_PAGES * n
    abstract_docs: list[str] = []
    body_docs: list[str] = []
    abstract_claims: list[str] = []
    body_claims: list[str] = []
    for claims, members in groups:
        if len(abstract_docs) + len(members) <= abstract_quota:
            abstract_docs += members
            abstract_claims += claims
        elif len(body_docs) + len(members) <= body_quota:
            body_docs += members
            body_claims += claims
    unjudged = sorted(set(docs) - judged)
    rng.shuffle(unjudged)
    fill = iter(unjudged)
    abstract_docs += [next(fill) for _ in range(n - len(abstract_docs))]
    body_docs += [next(fill) for _ in range(body_quota - len(body_docs))]
    rng.shuffle(abstract_docs)
    rng.shuffle(body_docs)
    papers: dict[str, list[Doc]] = {}
    where: dict[str, tuple[str, int]] = {}  # doc -> (file, page)
    for i, doc in enumerate(abstract_docs):
        name = f"paper{i:04d}.pdf"
        body = body_docs[BODY_PAGES * i : BODY_PAGES * (i + 1)]
        papers[name] = [docs[doc], *(docs[d] for d in body)]
        where[doc] = (name, 1)
        where.update({d: (name, page) for page, d in enumerate(body, start=2)})
    synthetic = Synthetic(papers, [], [])
    for claims, out in ((body_claims, synthetic.body_questions), (abstract_claims, synthetic.abstract_questions)):
        for qid in claims:
            relevant = {where[doc][0]: 1 for doc in qrels[qid]}
            out.append(LabelledQuestion(qid, queries[qid], relevant))
            for doc in qrels[qid]:
                synthetic.pages.setdefault((qid, where[doc][0]), set()).add(where[doc][1])
    own_file = {doc: f"body{j:04d}.pdf" for j, doc in enumerate(body_docs)}
    synthetic.control_papers = {name: docs[doc] for doc, name in own_file.items()}
    synthetic.control_papers.update({name: content[0] for name, content in papers.items()})
    synthetic.control_body_questions = [
        LabelledQuestion(qid, queries[qid], {own_file[doc]: 1 for doc in qrels[qid]}) for qid in body_claims
    ]
    return synthetic


def write_pdfs(papers: dict[str, list[Doc]], folder: Path) -> int:
    """One PDF per paper (its abstract on page 1, then one page per body doc); returns the pages written."""
    folder.mkdir(parents=True)
    pages = 0
    for name, (abstract, *body) in papers.items():
        first = [abstract.title[:PDF_LINE_CHARS], "Jane Doe, Ann Roe", "Abstract", *_wrap(abstract.text)]
        more = [_wrap(doc.text) for doc in body]
        write_pdf(folder / name, [*first, "1 Introduction"], title=abstract.title, more_pages=more)
        pages += 1 + len(more)
    return pages


def file_of(paper: Paper) -> str:
    return paper.sources[0].partition("#")[0]


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Quality:
    reports: dict[tuple[str, str], EvalReport]  # (claims, method) -> report
    passage_hits: int = 0  # body claims whose relevant paper came with a passage (hybrid, top K)
    right_page: int = 0  # ... and that passage is on a page holding the relevant doc
    found: int = 0  # body claims whose relevant paper is in the top K (hybrid)


def measure_quality(
    retriever: HybridRetriever, claims: dict[str, list[LabelledQuestion]], synthetic: Synthetic
) -> Quality:
    quality = Quality({})
    last: dict[str, list[Hit]] = {}

    def ranking(method: Method) -> Callable[[str], list[str]]:
        def rank(question: str) -> list[str]:
            hits = retriever.search(question, K, method=method)
            last[question] = hits
            return [file_of(h.paper) for h in hits]

        return rank

    for label, questions in claims.items():
        for method in METHODS:
            if method is not Method.LEXICAL and not retriever.has_dense:
                continue
            quality.reports[(label, method.value)] = evaluate(questions, ranking(method))
            if label != "body" or method is not Method.HYBRID:
                continue
            for q in questions:
                for hit in last[q.question]:
                    name = file_of(hit.paper)
                    if name not in q.relevant:
                        continue
                    quality.found += 1
                    if hit.passage is not None:
                        quality.passage_hits += 1
                        quality.right_page += hit.passage.page in synthetic.pages.get((q.query_id, name), ())
                    break
    return quality


def measure_latency(retriever: HybridRetriever, questions: Sequence[str]) -> dict[str, tuple[float, float]]:
    """p50 and p95 ms per method; methods take turns on each question, so warm-up and noise hit all alike."""
    methods = [m for m in METHODS if m is Method.LEXICAL or retriever.has_dense]
    for question in questions[:WARM_QUERIES]:  # model loaded, index pages and caches warm
        for method in methods:
            retriever.search(question, K, method=method)
    latencies: dict[str, list[float]] = {m.value: [] for m in methods}
    for question in questions:
        for method in methods:
            started = time.perf_counter()
            retriever.search(question, K, method=method)
            latencies[method.value].append((time.perf_counter() - started) * 1000)
    return {name: (percentile(values, 0.5), percentile(values, 0.95)) for name, values in latencies.items()}


@dataclass
class Speed:
    parse_seconds: float
    pages_read: int
    passages: int
    short_abstracts: int
    ingest_seconds: float
    papers: int
    latency: dict[str, tuple[float, float]]


def short_abstracts(parsed: Sequence[Paper], abstracts: dict[str, str]) -> int:
    """Papers whose parsed abstract lost more than a tenth of the abstract written into the PDF."""
    lost = 0
    for paper in parsed:
        written = normalize_text(abstracts[file_of(paper)])
        lost += len(paper.text) < 0.9 * min(len(written), MAX_ABSTRACT_CHARS)
    return lost


def run_mode(
    settings: Settings,
    pdf_dir: Path,
    full_text: bool,
    papers: dict[str, list[Doc]],
    claims: dict[str, list[LabelledQuestion]],
    synthetic: Synthetic,
    latency_questions: Sequence[str],
) -> tuple[Speed, Quality]:
    started = time.perf_counter()
    parsed = list(load_paths([pdf_dir], full_text=full_text).papers.values())
    parse_seconds = time.perf_counter() - started
    # Without full text only the first FIRST_PAGES pages are read.
    pages_read = sum(len(docs) if full_text else min(len(docs), FIRST_PAGES) for docs in papers.values())
    started = time.perf_counter()
    result = ingest(Context(settings), [pdf_dir], full_text=full_text)
    ingest_seconds = time.perf_counter() - started
    if result.added != len(papers) or result.warnings:
        sys.exit(f"ingest added {result.added} of {len(papers)} papers: {result.warnings}")
    with Context(settings).reader() as library:
        retriever = library.retriever()
        latency = measure_latency(retriever, latency_questions)
        quality = measure_quality(retriever, claims, synthetic)
    speed = Speed(
        parse_seconds,
        pages_read,
        result.passages_found,
        short_abstracts(parsed, {name: docs[0].text for name, docs in papers.items()}),
        ingest_seconds,
        result.added,
        latency,
    )
    return speed, quality


def print_tables(
    synthetic: Synthetic, pages: int, warm_seconds: float, results: dict[str, tuple[Speed, Quality]]
) -> None:
    n = len(synthetic.papers)
    print(
        f"\n{n} PDFs ({pages} pages: abstract + {BODY_PAGES} body pages each), "
        f"{len(synthetic.body_questions)} body-only claims, {len(synthetic.abstract_questions)} abstract claims "
        f"(SciFact train), k={K}; control = each of the {len(synthetic.control_papers)} docs its own one-page PDF"
    )
    print("\n| claims | method | collection | nDCG@10 | recall@10 | MRR@10 |")
    print("|---|---|---|---|---|---|")
    for label in ("body", "abstract"):
        for method in METHODS:
            for collection, *_ in MODES:
                report = results[collection][1].reports.get((label, method.value))
                if report is not None:
                    cells = " | ".join(f"{report.metrics[m]:.3f}" for m in METRICS)
                    print(f"| {label} | {method.value} | {collection} | {cells} |")
    quality = results["fulltext"][1]
    print(
        f"\nfulltext, hybrid, body claims: relevant paper in top {K} for {quality.found}; "
        f"of those {quality.passage_hits} came with a passage, "
        f"{quality.right_page} with the passage on the page holding the relevant doc"
    )
    print(f"\nspeed, after a one-off {warm_seconds:.1f}s first parse (imports pypdf and the passage splitter)")
    print(
        "\n| collection | PDFs | parse pages/s | pages read | passages | short abstracts | "
        "ingest s | ingest papers/s | ingest units/s | hybrid p50/p95 ms | lexical p50/p95 ms | dense p50/p95 ms |"
    )
    print(f"|---|{'---|' * 11}")
    for collection, *_ in MODES:
        speed = results[collection][0]
        units = speed.papers + speed.passages
        latency = " | ".join(
            f"{speed.latency[m.value][0]:.1f} / {speed.latency[m.value][1]:.1f}" if m.value in speed.latency else "-"
            for m in METHODS
        )
        print(
            f"| {collection} | {speed.papers} | {speed.pages_read / speed.parse_seconds:.0f} | {speed.pages_read} | "
            f"{speed.passages} | {speed.short_abstracts} | {speed.ingest_seconds:.1f} | "
            f"{speed.papers / speed.ingest_seconds:.1f} | {units / speed.ingest_seconds:.1f} | {latency} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=200, help="synthetic PDFs to build (default 200)")
    parser.add_argument("--seed", type=int, default=SEED, help="shuffles which docs go where")
    args = parser.parse_args()
    model = Path(os.environ.get("RAG_EMBED_MODEL_DIR") or DEFAULT_MODEL)
    if not model.is_dir():
        sys.exit(f"no embedding model at {model}: set RAG_EMBED_MODEL_DIR")
    rng = random.Random(args.seed)
    synthetic = build_corpus(args.papers, rng)
    questions = [q.question for q in (*synthetic.body_questions, *synthetic.abstract_questions)]
    latency_questions = rng.sample(questions * (LATENCY_QUERIES // len(questions) + 1), LATENCY_QUERIES)
    claims = {"body": synthetic.body_questions, "abstract": synthetic.abstract_questions}
    control_claims = {"body": synthetic.control_body_questions, "abstract": synthetic.abstract_questions}
    with tempfile.TemporaryDirectory() as tmp:
        pdf_dir, control_dir = Path(tmp) / "pdfs", Path(tmp) / "control"
        control_papers = {name: [doc] for name, doc in synthetic.control_papers.items()}
        pages = write_pdfs(synthetic.papers, pdf_dir)
        write_pdfs(control_papers, control_dir)
        started = time.perf_counter()  # the first full-text parse imports pypdf and llama-index's splitter
        load_paths([next(iter(sorted(pdf_dir.iterdir())))])
        warm_seconds = time.perf_counter() - started
        results = {}
        for collection, full_text, control in MODES:
            folder, papers = (control_dir, control_papers) if control else (pdf_dir, synthetic.papers)
            print(f"{collection}: ingesting {len(papers)} PDFs...", file=sys.stderr)
            settings = load_settings(data_dir=Path(tmp) / "data", collection=collection, embed_model_dir=model)
            results[collection] = run_mode(
                settings,
                folder,
                full_text,
                papers,
                control_claims if control else claims,
                synthetic,
                latency_questions,
            )
    print_tables(synthetic, pages, warm_seconds, results)


if __name__ == "__main__":
    main()
