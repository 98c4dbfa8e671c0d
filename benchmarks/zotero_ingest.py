"""A Zotero library ingested again after one item changed: what it costs with and without the PDF cache.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/zotero_ingest.py [--items 500]

Builds a Zotero data directory (tests/zotero_fixture.py) of N journal articles, each with an
abstract and a two-page PDF in storage/, ingests it once, then edits one item's title (a new
dateModified and version, as Zotero does) and ingests again, four ways (three times each, a new
item edited every time, the median shown): in-process through
``rag.services.ingest.ingest`` and as a whole ``rag ingest`` process, each with the PDF cache
the first ingest left (after) and with that cache removed (before: every PDF parsed again, what
a second ingest cost before the cache). Goal: after, under 2 s for 500 items, with only the edited
item updated and no PDF parsed. Without RAG_EMBED_MODEL_DIR the library is lexical only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from zotero_fixture import ZoteroFixture

from rag.config import load_settings
from rag.index.layout import DataDir
from rag.services import ingest as ingest_service
from rag.services.context import Context

ROOT = Path(__file__).resolve().parent.parent
WORDS = [
    "graph",
    "network",
    "model",
    "data",
    "learning",
    "molecule",
    "protein",
    "training",
    "loss",
    "scaling",
    "attention",
    "memory",
    "retrieval",
    "language",
    "vision",
    "robot",
    "policy",
    "reward",
    "sparse",
    "dense",
    "kernel",
    "tensor",
    "gradient",
    "cluster",
    "device",
    "pipeline",
    "latency",
    "throughput",
    "sample",
    "benchmark",
    "query",
    "index",
    "corpus",
    "citation",
    "abstract",
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def build(folder: Path, items: int, seed: int) -> ZoteroFixture:
    rng = random.Random(seed)
    zotero = ZoteroFixture(folder)
    for n in range(items):
        title = f"Paper {n}: {_sentence(rng, 6)}"
        abstract = " ".join(_sentence(rng, 15) for _ in range(5))
        item = zotero.item(
            f"I{n:07d}",
            creators=[(f"Ann{n}", f"Roe{n % 97}"), ("Bo", f"Li{n % 13}")],
            title=title,
            abstractNote=abstract,
            date=f"{2000 + n % 25}-01-00 {2000 + n % 25}",
            publicationTitle="Journal of Benchmarks",
        )
        first = [title, "Abstract", abstract[:300], "1 Introduction", _sentence(rng, 20)]
        body = [_sentence(rng, 14) for _ in range(4)]
        zotero.pdf(item, f"A{n:07d}", first, [body])
    return zotero


def _in_process(data: Path, folder: Path) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    result = ingest_service.ingest(Context(load_settings(data_dir=data)), [folder])
    seconds = time.perf_counter() - started
    return seconds, {
        "parsed": result.pdfs_parsed,
        "reused": result.pdfs_reused,
        "updated": result.updated,
        "unchanged": result.unchanged,
    }


def _whole_process(data: Path, folder: Path) -> tuple[float, dict[str, int]]:
    env = {**os.environ, "RAG_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rag", "ingest", str(folder), "--json"], env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"rag ingest failed: {done.stderr.strip()}")
    result = json.loads(done.stdout)
    return seconds, {
        "parsed": result["pdfs_parsed"],
        "reused": result["pdfs_reused"],
        "updated": result["updated"],
        "unchanged": result["unchanged"],
    }


def _second_ingest(
    run: Callable[[Path, Path], tuple[float, dict[str, int]]], data: Path, folder: Path, cache: Path, cached: bool
) -> tuple[float, dict[str, int]]:
    """One ingest after an edit; without ``cached``, the PDF cache is set aside for it (and put back)."""
    if cached:
        return run(data, folder)
    kept = cache.with_name("pdf-cache-kept")
    shutil.move(cache, kept)
    try:
        return run(data, folder)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.move(kept, cache)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="second ingests per row; the median is shown")
    args = parser.parse_args()
    model = os.environ.get("RAG_EMBED_MODEL_DIR") or "none (lexical only)"
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        zotero = build(Path(tmp) / "Zotero", args.items, args.seed)
        print(f"{args.items} items with a PDF each built in {time.perf_counter() - started:.1f} s; model: {model}")
        data = Path(tmp) / "data"
        seconds, first = _in_process(data, zotero.folder)
        print(f"first ingest (in-process): {seconds:.2f} s, {first['parsed']} PDFs parsed")
        cache = DataDir(data).pdf_cache
        runs: list[tuple[str, Callable[[Path, Path], tuple[float, dict[str, int]]], bool]] = [
            ("in-process", _in_process, True),
            ("in-process", _in_process, False),
            ("whole `rag ingest` process", _whole_process, True),
            ("whole `rag ingest` process", _whole_process, False),
        ]
        print("\n| second ingest, one item edited | PDF cache | seconds | PDFs parsed | reused | updated | unchanged |")
        print("|---|---|---:|---:|---:|---:|---:|")
        edits = 0
        for how, run, cached in runs:
            timings = []
            for _ in range(args.repeat):
                item = zotero.ids[f"I{(args.items // 2 + edits) % args.items:07d}"]
                edits += 1
                zotero.touch(item, title=f"Edited title number {edits}")
                timings.append(_second_ingest(run, data, zotero.folder, cache, cached))
            seconds, counts = sorted(timings, key=lambda timing: timing[0])[len(timings) // 2]
            label = "kept (after)" if cached else "removed (before)"
            print(
                f"| {how} | {label} | {seconds:.2f} | {counts['parsed']} | {counts['reused']} | "
                f"{counts['updated']} | {counts['unchanged']} |"
            )
        zotero.close()


if __name__ == "__main__":
    main()
