"""Time to check one answer's citations offline: 5 sentences against the 5 sources they were given.

The whole answer-time check (rag.check.answers.check_reply): reading the
sentences, dropping repeats, the offline support check of every sentence against
every source (for attribution) read by the judge, names and numbers no source mentions; then the same with
the judge off. Goal (issue 37): the judge adds under 1 s. Uses the bundled corpus; no network.

    python benchmarks/check_speed.py
"""

from __future__ import annotations

import statistics
import time

from rag.check.answers import check_reply
from rag.check.judge import use_judge
from rag.corpus.loader import load_paths
from rag.llm.types import Completion, Usage
from rag.records import Paper
from rag.resources import seeds_dir

RUNS = 7  # answers over distinct papers (the bundled corpus has 39)
SOURCES = 5


def timed(answers: list[tuple[Completion, list[Paper]]]) -> tuple[list[float], int]:
    """Each answer checked once (new sentences each time: nothing is answered from the judge's memory)."""
    timings, shown = [], 0
    for reply, papers in answers:
        started = time.perf_counter()
        answer = check_reply("question", reply, papers, Usage())
        timings.append((time.perf_counter() - started) * 1000)
        shown += sum(1 for s in answer.sentences if s.support is not None and s.support.is_top)
    return timings, shown


def main() -> None:
    corpus = list(load_paths([seeds_dir()]).papers.values())
    answers = []
    for run in range(RUNS + 1):
        papers = corpus[run * SOURCES : (run + 1) * SOURCES]
        sentences = [f"{p.text.split('. ')[0]} [{n}]." for n, p in enumerate(papers, start=1)]
        answers.append((Completion(" ".join(sentences)), papers))
    check_reply("warm-up", *answers[0], Usage())  # loads the trained weights and the judge once
    for name, on, chosen in (
        ("with the judge", True, answers[1 : RUNS + 1]),
        ("fitted score and rules alone", False, answers[1:]),
    ):
        use_judge(on)
        timings, shown = timed(chosen)
        print(f"{name}: {SOURCES} sentences x {SOURCES} sources, {len(chosen)} answers: median "
              f"{statistics.median(timings):.1f} ms, max {max(timings):.1f} ms; {shown} of "
              f"{SOURCES * len(chosen)} sentences with the top label")  # fmt: skip
    use_judge(True)


if __name__ == "__main__":
    main()
