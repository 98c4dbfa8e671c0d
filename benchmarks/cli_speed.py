"""Command latency: `rag --help`, and `rag search` against a bare chromadb script.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/cli_speed.py

Both searches run as fresh processes (cold imports included) on the same data
dir and collection, interleaved, and the medians are compared.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 7
QUERY = "which works target heterogeneous GPUs?"
BARE_SCRIPT = """
import sys
from pathlib import Path
import chromadb
from chromadb.config import Settings
from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

class Local(ONNXMiniLM_L6_V2):
    DOWNLOAD_PATH = Path(sys.argv[2])

client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
collection = client.get_collection("papers")
vector = Local()([sys.argv[3]])[0]
print(collection.query(query_embeddings=[vector], n_results=5)["ids"])
"""


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    return time.perf_counter() - started


def main() -> None:
    model_dir = os.environ.get("RAG_EMBED_MODEL_DIR")
    if not model_dir:
        sys.exit("set RAG_EMBED_MODEL_DIR to the all-MiniLM-L6-v2 folder")
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as data_dir:
        env = {**os.environ, "RAG_DATA_DIR": data_dir}
        subprocess.run([str(bin_dir / "rag"), "papers"], check=True, capture_output=True, env=env)  # index once
        helps, ours, bare = [], [], []
        for _ in range(RUNS):
            helps.append(timed([str(bin_dir / "rag"), "--help"], env))
            ours.append(timed([str(bin_dir / "rag"), "search", QUERY], env))
            bare.append(
                timed([sys.executable, "-c", BARE_SCRIPT, str(Path(data_dir) / "chroma"), model_dir, QUERY], env)
            )
    help_median, ours_median, bare_median = (statistics.median(x) for x in (helps, ours, bare))
    print(f"| measure ({RUNS} runs, median) | seconds |")
    print("|---|---|")
    print(f"| rag --help | {help_median:.3f} |")
    print(f"| rag search (end to end) | {ours_median:.3f} |")
    print(f"| bare chromadb script | {bare_median:.3f} |")
    print(f"| ratio search / bare | {ours_median / bare_median:.2f} |")


if __name__ == "__main__":
    main()
