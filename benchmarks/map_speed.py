"""Seconds and file size of `rag map` (PNG and HTML) on the bundled 39 papers and on a large library.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 nice -n 10 python benchmarks/map_speed.py \\
        [--papers 5000] [--data-dir /tmp/map-bench] [--collection map-bench] [--lexical]

The large library is the first ``--papers`` documents of SciFact's corpus
(../shared/eval/scifact/corpus.jsonl, real scientific abstracts), ingested once
into the collection ``--collection`` (map-bench) of ``--data-dir`` and reused by later runs
(embedding 5,000 abstracts takes minutes here; the ingest is not timed).
``--lexical`` also maps both libraries without an embedding model (TF-IDF vectors).

Each map is drawn in-process through the service (rag.services.mapping.draw_map):
open the library, read vectors, group, project, render, write; the time is the
wall time of that call, the size is the file's. Import time (matplotlib,
scikit-learn) is paid by the first map and reported separately. Then, before/after
on the large library's vectors: its t-SNE layout as openTSNE's defaults draw it
(Barnes-Hut theta 0.5, 500 iterations) and as rag does (rag.mapping.layout), with
the seconds and the neighbour trustworthiness of each.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from rag.config import Settings, load_settings
from rag.services.context import Context
from rag.services.ingest import ingest
from rag.services.mapping import draw_map
from rag.services.requests import MapRequest

SCIFACT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
DEFAULT_PAPERS = 5000
BENCH_COLLECTION = "map-bench"
QUERY = "gene expression in cancer cells"
BUNDLED_QUERY = "which works target heterogeneous GPUs?"
OPENTSNE_DEFAULTS = (0.5, 500)
# Papers whose neighbourhoods are compared (trustworthiness is quadratic in them) and how many neighbours.
TRUST_SAMPLE = 1500
TRUST_NEIGHBOURS = 10


def large_library(data_dir: Path, papers: int, settings: Settings) -> None:
    """Ingest the first ``papers`` SciFact documents into BENCH_COLLECTION, unless they are there."""
    ctx = Context(settings)
    with ctx.reader() as library:
        if len(library.catalog.papers) >= papers:
            return
    source = data_dir / f"scifact-{papers}.jsonl"
    with SCIFACT_CORPUS.open(encoding="utf-8") as corpus:
        lines = [next(corpus) for _ in range(papers)]
    source.write_text("".join(lines), encoding="utf-8")
    started = time.perf_counter()
    ingest(ctx, [source], fields=[], full_text=False)
    print(f"(ingested {papers} papers in {time.perf_counter() - started:.0f} s, not counted below)")


def measure(label: str, settings: Settings, out_dir: Path, query: str) -> None:
    for suffix in (".png", ".html"):
        output = out_dir / f"{label}{suffix}"
        started = time.perf_counter()
        result = draw_map(Context(settings), MapRequest(output, query=query))
        seconds = time.perf_counter() - started
        row = {
            "library": label,
            "format": suffix[1:],
            "papers": len(result.map.points),
            "themes": len(result.map.themes),
            "method": result.map.method,
            "seconds": round(seconds, 2),
            "bytes": result.size,
        }
        print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=DEFAULT_PAPERS)
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "map-bench")
    parser.add_argument("--collection", default=BENCH_COLLECTION, help="the large library's collection")
    parser.add_argument("--lexical", action="store_true", help="also map without an embedding model")
    args = parser.parse_args()
    data_dir: Path = args.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    out_dir = Path(tempfile.mkdtemp(prefix="map-out-"))

    started = time.perf_counter()
    import matplotlib.figure  # noqa: F401
    import sklearn.manifold  # noqa: F401

    print(f"(imports of matplotlib and scikit-learn: {time.perf_counter() - started:.2f} s)")

    bundled = load_settings(data_dir=data_dir / "bundled")
    with Context(bundled).reader():  # first use indexes the bundled corpus: not timed
        pass
    large = load_settings(data_dir=data_dir, collection=args.collection)
    large_library(data_dir, args.papers, large)

    measure("bundled", bundled, out_dir, BUNDLED_QUERY)
    measure(f"scifact{args.papers}", large, out_dir, QUERY)
    if args.lexical:
        empty = Path(tempfile.mkdtemp(prefix="no-model-"))
        measure("bundled-lexical", bundled.model_copy(update={"embed_model_dir": empty}), out_dir, BUNDLED_QUERY)
        lexical = large.model_copy(update={"embed_model_dir": empty})
        measure(f"scifact{args.papers}-lexical", lexical, out_dir, QUERY)
    layouts_before_and_after(large)
    print(f"maps written to {out_dir}")


def layouts_before_and_after(settings: Settings) -> None:
    import numpy as np
    from sklearn.manifold import trustworthiness

    from rag.mapping import layout

    with Context(settings).reader() as library:
        assert library.store is not None, "the large library needs the embedding model"
        vectors = np.asarray(list(library.store.paper_vectors().values()), dtype=np.float32)
    sample = np.random.default_rng(0).choice(len(vectors), min(TRUST_SAMPLE, len(vectors)), replace=False)
    ours = (layout.TSNE_THETA, layout.TSNE_ITERATIONS)
    for label, (theta, iterations) in (("openTSNE defaults", OPENTSNE_DEFAULTS), ("rag", ours)):
        layout.TSNE_THETA, layout.TSNE_ITERATIONS = theta, iterations
        started = time.perf_counter()
        coords, _ = layout.project(vectors, seed=0)
        seconds = time.perf_counter() - started
        trust = trustworthiness(vectors[sample], coords[sample], n_neighbors=TRUST_NEIGHBOURS)
        row = {"layout": label, "theta": theta, "iterations": iterations, "papers": len(vectors)}
        print(json.dumps({**row, "seconds": round(seconds, 2), "trustworthiness": round(float(trust), 4)}))
    layout.TSNE_THETA, layout.TSNE_ITERATIONS = ours


if __name__ == "__main__":
    main()
