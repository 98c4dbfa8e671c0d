"""Time to recover an interrupted ingest of the SciFact corpus (5,183 abstracts).

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/recovery.py [--kill-after 120]

Writes SciFact as a seed list (+ papers.tsv for titles), starts `rag ingest`,
kills it with SIGKILL after --kill-after seconds, then times the next command
(`rag papers`), which finds the papers saved but some vectors missing and
completes them. Vectors are stored in chunks, so only the unfinished chunk is
lost.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"


def write_seed_list(folder: Path) -> int:
    rows = [json.loads(line) for line in SCIFACT.open(encoding="utf-8")]
    abstracts = [" ".join(r["text"].split()) for r in rows]
    (folder / "scifact.txt").write_text("Related papers: SciFact\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    lines = ["file\tentry\ttitle\tfirst_author\tyear\tarxiv"]
    lines += [f"scifact.txt\t{i}\t{' '.join(r['title'].split())}\t\t\t" for i, r in enumerate(rows, start=1)]
    (folder / "papers.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kill-after", type=float, default=120.0, help="seconds before the ingest is killed")
    args = parser.parse_args()
    rag = [sys.executable, "-m", "rag"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        count = write_seed_list(folder)
        env = {**os.environ, "RAG_DATA_DIR": str(Path(tmp) / "data"), "RAG_COLLECTION": "recovery"}
        started = time.perf_counter()
        ingest = subprocess.Popen(
            [*rag, "ingest", str(folder)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            ingest.wait(timeout=args.kill_after)
            print("ingest finished before the kill; raise the corpus size or lower --kill-after")
            return
        except subprocess.TimeoutExpired:
            ingest.send_signal(signal.SIGKILL)
            ingest.wait()
        killed_at = time.perf_counter() - started
        started = time.perf_counter()
        done = subprocess.run([*rag, "papers", "--json"], env=env, capture_output=True, text=True, check=True)
        recovery = time.perf_counter() - started
        papers = len(json.loads(done.stdout)["papers"])
        notice = next((line for line in done.stderr.splitlines() if "added vectors" in line), "no vectors were missing")
        print(f"SciFact: {count} abstracts; ingest killed after {killed_at:.0f} s")
        print(f"next command: {recovery:.0f} s to complete the index ({notice.strip()}); {papers} papers listed")


if __name__ == "__main__":
    main()
