"""Time to check one answer's citations offline: 5 sentences against the 5 sources they were given.

The whole answer-time check (rag.check.answers.check_reply): reading the
sentences, dropping repeats, the offline support check of every sentence against
every source (for attribution), names and numbers no source mentions. Goal: under
100 ms. Uses the bundled corpus; no model, no network.

    python benchmarks/check_speed.py
"""

from __future__ import annotations

import statistics
import time

from rag.check.answers import check_reply
from rag.corpus.loader import load_paths
from rag.llm.types import Completion, Usage
from rag.resources import seeds_dir

RUNS = 30
SOURCES = 5


def main() -> None:
    papers = list(load_paths([seeds_dir()]).papers.values())[:SOURCES]
    sentences = [f"{p.text.split('. ')[0]} [{n}]." for n, p in enumerate(papers, start=1)]
    reply = Completion(" ".join(sentences))
    check_reply("warm-up", reply, papers, Usage())  # loads the trained weights once
    timings = []
    for _ in range(RUNS):
        started = time.perf_counter()
        answer = check_reply("question", reply, papers, Usage())
        timings.append((time.perf_counter() - started) * 1000)
    shown = sum(1 for s in answer.sentences if s.support is not None and s.support.is_top)
    print(f"{len(sentences)} sentences x {SOURCES} sources, {RUNS} runs: median {statistics.median(timings):.1f} ms, "
          f"max {max(timings):.1f} ms; {shown} of {len(sentences)} sentences with the top label")  # fmt: skip


if __name__ == "__main__":
    main()
