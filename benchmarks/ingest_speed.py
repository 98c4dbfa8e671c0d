"""Embedding throughput: rag's ONNX runner against Chroma's default embedding function.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/ingest_speed.py [--full]

Both embed the same documents in the same run (SciFact abstracts, title + text,
and the bundled seed snippets); vectors are compared by cosine. ``--full``
also times the whole SciFact corpus through rag's embedder and reports peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from pathlib import Path

import numpy as np

from rag.config import Settings
from rag.corpus.loader import load_paths
from rag.embed.choice import choose_embedder
from rag.embed.onnx import OnnxMiniLM
from rag.resources import seeds_dir

SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
SAMPLE = 200


def rate(embed, texts: list[str]) -> tuple[float, np.ndarray]:  # type: ignore[no-untyped-def]
    embed(texts[:2])  # load the model outside the timing
    started = time.perf_counter()
    vectors = np.asarray(embed(texts), dtype=np.float32)
    return len(texts) / (time.perf_counter() - started), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="also embed all 5,183 SciFact abstracts")
    args = parser.parse_args()
    ours = choose_embedder(Settings()).embedder
    if not isinstance(ours, OnnxMiniLM):
        raise SystemExit("set RAG_EMBED_MODEL_DIR to the all-MiniLM-L6-v2 folder")
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    class ChromaDefault(ONNXMiniLM_L6_V2):
        DOWNLOAD_PATH = ours.files_dir.parent

    chroma = ChromaDefault()
    rows = [json.loads(line) for line in SCIFACT.open(encoding="utf-8")]
    corpus = [f"{r['title']}. {r['text']}" for r in rows]
    random.seed(0)
    sets = {
        f"SciFact sample ({SAMPLE} abstracts)": random.sample(corpus, SAMPLE),
        "bundled seed snippets (39)": [p.searchable_text() for p in load_paths([seeds_dir()]).papers.values()],
    }
    print("| documents | Chroma default docs/s | rag docs/s | speed-up | min cosine |")
    print("|---|---|---|---|---|")
    for name, texts in sets.items():
        theirs_rate, theirs = rate(chroma, texts)
        ours_rate, mine = rate(ours.embed, texts)
        cosine = float((theirs * mine).sum(axis=1).min())
        print(f"| {name} | {theirs_rate:.1f} | {ours_rate:.1f} | {ours_rate / theirs_rate:.2f}x | {cosine:.6f} |")
    if args.full:
        full_rate, _ = rate(ours.embed, corpus)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        minutes = len(corpus) / full_rate / 60
        print(f"\nfull SciFact ({len(corpus)} abstracts): {full_rate:.1f} docs/s ({minutes:.1f} min)")
        print(f"peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
