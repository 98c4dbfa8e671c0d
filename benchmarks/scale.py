"""Query latency and memory as the library grows: 1k, 10k, 100k papers (embedded store).

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/scale.py [--sizes ...] [--corpus zipf]

Papers are synthetic with random unit vectors: more than can be embedded here,
and enough to exercise Chroma's HNSW index, BM25 and fusion at size. By default
each abstract is three sentences drawn from SciFact (a real scientific
vocabulary) and the queries are SciFact claims; ``--corpus zipf`` uses
Zipf-distributed made-up words instead (a worst case for BM25: a few words occur
in nearly every document). Queries are embedded with the real model.
For each size: in-process p50/p95 of a hybrid search (library already open), and
one `rag search` as a fresh process (wall time, peak RSS; the second such run, so a
server client has its saved index). Embedded, that fresh search is timed twice: as it
runs (the store matches the papers file, so only the papers shown are read) and as it
ran before rag kept that mark (the papers file touched, so it is read whole: "whole").
``--server`` runs the
same against a `chroma run` server on loopback (RAG_CHROMA_URL).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rag.config import DEFAULT_EMBED_MODEL, load_settings
from rag.corpus.identity import content_id
from rag.index.catalog import Catalog, CatalogFile
from rag.index.chroma import VectorStore, connect
from rag.index.layout import CATALOG_FILE
from rag.index.storage import backend_for
from rag.index.units import all_units
from rag.records import Paper
from rag.services.context import Context
from rag.text import split_sentences

VOCABULARY = 20_000
WORDS_PER_ABSTRACT = 80
ZIPF_QUERIES = ["heterogeneous gpu training", "sparse expert routing", "memory efficient attention", "w12 w7 w300"]
QUERY_COUNT = 25
SENTENCES_PER_ABSTRACT = 3
RUNS = 4
SERVER_START_POLLS = 300
SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact"
DIMENSIONS = 384


def zipf_texts(size: int, rng: np.random.Generator) -> list[str]:
    words = rng.zipf(1.3, size=(size, WORDS_PER_ABSTRACT)) % VOCABULARY
    topical = ["gpu", "training", "heterogeneous", "sparse", "expert", "routing", "memory", "attention"]
    return [" ".join(topical[w % len(topical)] if w < len(topical) * 4 else f"w{w}" for w in row) for row in words]


def scifact_texts(size: int, rng: np.random.Generator) -> list[str]:
    sentences = [s for r in _scifact_rows() for s in split_sentences(r["text"])]
    picks = rng.integers(0, len(sentences), size=(size, SENTENCES_PER_ABSTRACT))
    return [" ".join(sentences[j] for j in row) for row in picks]


def _scifact_rows() -> list[dict[str, str]]:
    return [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open(encoding="utf-8")]


def build(data_dir: Path, texts: list[str], chroma_url: str | None) -> None:
    papers = []
    for i, body in enumerate(texts):
        text = f"{body} n{i}."  # unique, so every synthetic paper is its own paper
        papers.append(Paper(id=content_id(text), text=text, title=f"Synthetic paper {i}", sources=[f"synthetic#{i}"]))
    size = len(papers)
    catalog = Catalog()
    catalog.upsert(papers)
    rng = np.random.default_rng(size)
    if chroma_url is None:  # on a server, the collection itself holds the papers
        CatalogFile(data_dir / "papers" / CATALOG_FILE).save(catalog)
    vectors = rng.standard_normal((size, DIMENSIONS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = VectorStore(connect(data_dir, chroma_url), "papers", DEFAULT_EMBED_MODEL)
    store.upsert(all_units(catalog.ordered()), vectors)
    # As rag's own ingest does: marks the collection's version, and that it matches the papers file.
    store.save_lists([], backend_for(load_settings(data_dir=data_dir, chroma_url=chroma_url)).sync_marks("papers"))


@contextlib.contextmanager
def chroma_server(folder: Path, wanted: bool) -> Iterator[str | None]:
    """A `chroma run` on a free loopback port for the duration, or None for the embedded store."""
    if not wanted:
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    binary = str(Path(sys.executable).parent / "chroma")
    server = subprocess.Popen(
        [binary, "run", "--path", str(folder / "server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(SERVER_START_POLLS):
            try:
                urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--corpus", choices=["scifact", "zipf"], default="scifact")
    parser.add_argument("--server", action="store_true", help="a `chroma run` server on loopback, not embedded")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    queries = ZIPF_QUERIES
    if args.corpus == "scifact":
        claims = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")]
        queries = claims[:QUERY_COUNT]
    print("| papers | build s | p50 ms | p95 ms | `rag search` s | peak RSS MB | whole: `rag search` s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp, chroma_server(Path(tmp), args.server) as url:
            data_dir = Path(tmp)
            started = time.perf_counter()
            build(data_dir, scifact_texts(size, rng) if args.corpus == "scifact" else zipf_texts(size, rng), url)
            built = time.perf_counter() - started
            settings = load_settings(data_dir=data_dir, chroma_url=url)
            with Context(settings).reader() as library:
                retriever = library.retriever()  # builds and saves the BM25 index once
                retriever.search(queries[0], 10)
                latencies = []
                for _ in range(RUNS):
                    for query in queries:
                        begin = time.perf_counter()
                        retriever.search(query, 10)
                        latencies.append((time.perf_counter() - begin) * 1000)
            latencies.sort()
            p50, p95 = statistics.median(latencies), latencies[int(0.95 * len(latencies))]
            env = {**os.environ, "RAG_DATA_DIR": tmp, **({"RAG_CHROMA_URL": url} if url else {})}
            wall, peak = fresh_search(env, queries[0])
            whole = "| - | -"
            if url is None:
                papers_file = data_dir / "papers" / CATALOG_FILE
                os.utime(papers_file, ns=(papers_file.stat().st_atime_ns, papers_file.stat().st_mtime_ns + 10**9))
                whole = "| {:.2f} | {:.0f}".format(*fresh_search(env, queries[0]))
            print(f"| {size:,} | {built:.0f} | {p50:.1f} | {p95:.1f} | {wall:.2f} | {peak:.0f} {whole} |", flush=True)


def fresh_search(env: dict[str, str], query: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one `rag search` process, after a first one that saves the index."""
    # /usr/bin/time reports this one process's peak RSS (not the server's).
    command = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "rag", "search", query]
    subprocess.run(command, env=env, check=True, capture_output=True)
    begin = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - begin
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


if __name__ == "__main__":
    main()
