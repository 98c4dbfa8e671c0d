"""Query latency in-process and peak memory of `rag search`, at SciFact size (5,183 abstracts).

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/query_latency.py

Uses the ``eval-scifact`` collection that ``rag eval ../shared/eval/scifact --split train``
builds (and builds it first if missing, which takes minutes). Also times indexing the
bundled seed corpus from scratch as a fresh process.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rag.config import load_settings
from rag.records import Method
from rag.services.context import Context
from rag.services.evaluation import evaluate_retrieval
from rag.services.requests import EvalRequest

SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact"
QUERIES = 300
K = 10


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    settings = load_settings(collection="eval-scifact")
    with Context(settings).reader() as library:
        built = len(library.catalog.papers) > 0
    if not built:
        print("building eval-scifact (one-off)...", file=sys.stderr)
        evaluate_retrieval(Context(load_settings()), EvalRequest(SCIFACT, [Method.LEXICAL], "train"))
    questions = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")][:QUERIES]
    with Context(settings).reader() as library:
        retriever = library.retriever()
        retriever.search(questions[0], K)  # warm: model loaded, caches filled
        print("| method | p50 ms | p95 ms | documents |")
        print("|---|---|---|---|")
        for method in (Method.HYBRID, Method.DENSE, Method.LEXICAL):
            latencies = []
            for question in questions:
                started = time.perf_counter()
                retriever.search(question, K, method=method)
                latencies.append((time.perf_counter() - started) * 1000)
            p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
            print(f"| {method.value} | {p50:.1f} | {p95:.1f} | {retriever.paper_count} |")
    rag = str(Path(sys.executable).parent / "rag")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([rag, "--collection", "eval-scifact", "search", questions[1]], check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_mb = max(peak, before) / 1024
    print(f"\n`rag search` at {retriever.paper_count} abstracts: {elapsed:.2f} s end to end, peak RSS {peak_mb:.0f} MB")
    seed_times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as data_dir:
            started = time.perf_counter()
            subprocess.run(
                [rag, "papers"], check=True, capture_output=True, env={**os.environ, "RAG_DATA_DIR": data_dir}
            )
            seed_times.append(time.perf_counter() - started)
    median = statistics.median(seed_times)
    print(f"indexing the bundled seeds from scratch (`rag papers`, fresh process): median {median:.2f} s")


if __name__ == "__main__":
    main()
