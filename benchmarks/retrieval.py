"""Retrieval quality: dense, lexical and hybrid side by side (nDCG@10, recall, MRR).

    python benchmarks/retrieval.py dev       # ../shared/eval/dev_questions.jsonl on the bundled seeds
    python benchmarks/retrieval.py scifact   # ../shared/eval/scifact (train split), 5,183 abstracts

Dense scores here are exact cosine similarities over the same vectors rag
stores in Chroma (HNSW at this size returns the exact neighbours). Document
vectors are cached under benchmarks/.cache so reruns take seconds.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

from rag.config import DEFAULT_DENSE_WEIGHT, DEFAULT_FUSION_DEPTH, Settings
from rag.corpus.loader import load_paths
from rag.embed.choice import choose_embedder
from rag.evaluation.metrics import EvalReport, LabelledQuestion, evaluate, load_questions
from rag.index.hybrid import HybridRetriever, LocalUnits
from rag.records import Method, Paper
from rag.resources import seeds_dir

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CACHE = Path(__file__).resolve().parent / ".cache"
RANK_DEPTH = 100


def dev_data() -> tuple[list[Paper], list[LabelledQuestion]]:
    loaded = load_paths([seeds_dir()])
    papers = list(loaded.papers.values())
    by_source = {source: p.id for p in papers for source in p.sources}
    questions = load_questions(SHARED / "eval" / "dev_questions.jsonl")
    for q in questions:
        grades: dict[str, int] = {}
        for key, grade in q.relevant.items():
            grades[by_source[key]] = max(grade, grades.get(by_source[key], 0))
        q.relevant = grades
    return papers, questions


def scifact_data(
    limit: int | None, folder: Path = SHARED / "eval" / "scifact"
) -> tuple[list[Paper], list[LabelledQuestion]]:
    papers = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            papers.append(Paper(id=row["_id"], text=row["text"], title=row.get("title") or None))
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            queries[row["_id"]] = row["text"]
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / "train.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    questions = [LabelledQuestion(qid, queries[qid], rel) for qid, rel in qrels.items() if qid in queries]
    return papers, questions[:limit]


def doc_vectors(name: str, papers: list[Paper], embed) -> np.ndarray:  # type: ignore[no-untyped-def]
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"{name}-{len(papers)}.npy"
    if path.exists():
        return np.load(path)
    started = time.perf_counter()
    vectors = embed([p.searchable_text() for p in papers])
    print(f"embedded {len(papers)} docs in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    np.save(path, vectors)
    return vectors


def run(
    name: str, papers: list[Paper], questions: list[LabelledQuestion], weights: list[float]
) -> dict[str, EvalReport]:
    embedder = choose_embedder(Settings()).embedder
    if embedder is None:
        sys.exit("no embedding model: set RAG_EMBED_MODEL_DIR")
    vectors = doc_vectors(name, papers, embedder.embed)
    ids = [p.id for p in papers]

    def dense(query: str, n: int) -> list[tuple[str, float]]:
        sims = vectors @ embedder.embed([query])[0]
        top = np.argsort(-sims)[:n]
        return [(ids[i], float(sims[i])) for i in top]

    reports = {}
    for method in (Method.LEXICAL, Method.DENSE):
        retriever = HybridRetriever(LocalUnits.of(papers), dense, DEFAULT_DENSE_WEIGHT, DEFAULT_FUSION_DEPTH)
        reports[method.value] = evaluate(
            questions, lambda q, m=method, r=retriever: [h.paper.id for h in r.search(q, RANK_DEPTH, method=m)]
        )
    for weight in weights:
        retriever = HybridRetriever(LocalUnits.of(papers), dense, weight, DEFAULT_FUSION_DEPTH)
        label = "hybrid" + ("" if weight == DEFAULT_DENSE_WEIGHT else f" w={weight}")
        reports[label] = evaluate(questions, lambda q, r=retriever: [h.paper.id for h in r.search(q, RANK_DEPTH)])
    return reports


def print_table(title: str, reports: dict[str, EvalReport]) -> None:
    names = list(next(iter(reports.values())).metrics)
    print(f"\n{title}")
    print(f"| method | {' | '.join(names)} |")
    print(f"|---|{'---|' * len(names)}")
    for method, report in reports.items():
        print(f"| {method} | {' | '.join(f'{report.metrics[n]:.3f}' for n in names)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", choices=["dev", "scifact"])
    parser.add_argument("--limit", type=int, help="only the first N SciFact questions")
    parser.add_argument("--weights", type=float, nargs="*", default=[DEFAULT_DENSE_WEIGHT], help="dense weights to try")
    args = parser.parse_args()
    papers, questions = dev_data() if args.dataset == "dev" else scifact_data(args.limit)
    reports = run(args.dataset, papers, questions, args.weights)
    print_table(f"{args.dataset}: {len(questions)} questions, {len(papers)} documents", reports)


if __name__ == "__main__":
    main()
