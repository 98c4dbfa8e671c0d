"""How long `rag table QUESTION` takes on a 500-paper library once it is indexed (goal: under 3 s).

The library is 500 SciFact abstracts (``../shared/eval/scifact``): the papers the first claims cite, then the
corpus in order; the questions are those claims asked as questions. It is ingested once into a temporary data
dir (not timed). Then, timed:

- in-process: each question's table (rag.services.table.table: retrieval, the sentences' roles, their vectors),
  the first question separately (it loads the models and embeds sentences no question embedded before);
- a fresh `rag table` process for one question, as a user runs it (imports and all), with --format csv.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/table_speed.py [--questions 20]
    python benchmarks/table_speed.py --real   # rows on the judged real questions (benchmarks/real_answers.py's)

``--real`` builds tables for the judged questions of ``eval/real_questions`` instead: rows per answerable
question (goal >= 2.5), the share of rows on a paper graded >= 1 (goal >= 85%) and graded 2 (goal >= 60%), rows
for the unanswerable questions (goal 0), and whether every finding is word for word in its paper's abstract.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rag.config import load_settings
from rag.corpus.roles import strip_label
from rag.services.context import Context
from rag.services.ingest import ingest
from rag.services.requests import SearchRequest
from rag.services.table import table
from rag.writing.evidence_sentences import _sentences_of
from rag.writing.table import TableRow

SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact"
PAPERS = 500
GOAL_SECONDS = 3.0


def build_library(folder: Path, questions: int) -> tuple[Path, list[str]]:
    """A JSONL of PAPERS abstracts (those the first ``questions`` claims cite first) and the questions."""
    claims = [json.loads(line) for line in (SCIFACT / "queries.jsonl").read_text().splitlines() if line.strip()]
    with (SCIFACT / "qrels" / "train.tsv").open() as handle:
        cited: dict[str, list[str]] = {}
        for row in csv.DictReader(handle, delimiter="\t"):
            cited.setdefault(row["query-id"], []).append(row["corpus-id"])
    asked = [c for c in claims if c["_id"] in cited][:questions]
    wanted = list(dict.fromkeys(doc for c in asked for doc in cited[c["_id"]]))
    corpus = {}
    for line in (SCIFACT / "corpus.jsonl").read_text().splitlines():
        doc = json.loads(line)
        if doc["_id"] in wanted or len(corpus) < PAPERS - len(wanted):
            corpus[doc["_id"]] = {"key": f"sf{doc['_id']}", "title": doc["title"], "abstract": doc["text"]}
    chosen = [corpus[d] for d in wanted if d in corpus] + [v for k, v in corpus.items() if k not in wanted]
    path = folder / "library.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in chosen[:PAPERS]))
    return path, [f"Is it true that {c['text'].rstrip('.').lower()}?" for c in asked]


def _word_for_word(row: TableRow) -> bool:
    """The finding is one stretch of the abstract, or of the full-text passage it names ("... (p. 4)"), spaces
    aside (two sentences an export ran together, "50%.Our results", are cut apart with a space between) and
    section labels aside ("... by chance. Discussion: This study ..." is quoted without its label)."""
    if row.passage is None:
        unlabelled = " ".join(strip_label(s) for s in _sentences_of(row.paper.text, labelled=True))
        return any(_unspaced(row.finding) in _unspaced(text) for text in (row.paper.text, unlabelled))
    bare = row.finding.removesuffix(f" ({row.passage.where})")
    return _unspaced(bare) in _unspaced(row.passage.text)


def _unspaced(text: str) -> str:
    return "".join(text.split())


def judged_rows() -> None:
    """Tables for the judged real questions, graded by the papers' grades."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import real_answers as bench

    rows, graded, answerable, unanswerable_rows, verbatim = 0, [], 0, 0, True
    for questions in bench.load_questions(bench.QUESTIONS).values():
        with tempfile.TemporaryDirectory(prefix="rag-table-real-") as tmp:
            ctx = Context(load_settings(data_dir=Path(tmp), collection="real"), remember_embeddings=True)
            ingest(ctx, [bench.SHARED / "real" / questions[0].library])
            for q in questions:
                result = table(ctx, SearchRequest(q.question))
                verbatim &= all(_word_for_word(r) for r in result.rows)
                if not q.answerable:
                    unanswerable_rows += len(result.rows)
                    continue
                answerable += 1
                rows += len(result.rows)
                graded += [q.relevant.get(bench.paper_key(r.paper)) for r in result.rows]
    print(f"rows per answerable question: {rows / answerable:.2f} ({rows} rows, {answerable} questions)")
    print(f"rows on topic (graded >= 1): {sum(g is not None and g >= 1 for g in graded) / len(graded):.1%}")
    print(f"rows answering (graded 2): {sum(g == 2 for g in graded) / len(graded):.1%}")
    print(f"ungraded rows: {sum(g is None for g in graded)}; rows for unanswerable questions: {unanswerable_rows}")
    print(f"every finding word for word in its abstract (or full-text passage): {verbatim}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--real", action="store_true", help="rows on the judged real questions instead")
    args = parser.parse_args()
    if args.real:
        judged_rows()
        return
    with tempfile.TemporaryDirectory(prefix="rag-table-speed-") as tmp:
        data = Path(tmp) / "data"
        library, questions = build_library(Path(tmp), args.questions)
        settings = load_settings(data_dir=data)
        done = ingest(Context(settings), [library])
        print(f"library: {done.total_papers} papers; {len(questions)} questions")
        ctx = Context(settings)
        seconds, rows = [], []
        for question in questions:
            started = time.perf_counter()
            result = table(ctx, SearchRequest(question))
            seconds.append(time.perf_counter() - started)
            rows.append(len(result.rows))
        rest = seconds[1:] or seconds
        print(f"first question (models loaded, sentences embedded): {seconds[0]:.2f} s")
        print(f"in-process, the others: median {statistics.median(rest):.2f} s, max {max(rest):.2f} s")
        print(f"rows per question: mean {statistics.mean(rows):.2f}; questions with no rows: {rows.count(0)}")
        env = {**os.environ, "RAG_DATA_DIR": str(data)}
        command = [sys.executable, "-m", "rag", "table", questions[-1], "--format", "csv"]
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        process = time.perf_counter() - started
        print(f"a fresh `rag table` process: {process:.2f} s (goal < {GOAL_SECONDS:.0f} s)")
        slowest = max(max(rest), process)
        print("within the goal" if slowest < GOAL_SECONDS else f"SLOWER than the goal: {slowest:.2f} s")


if __name__ == "__main__":
    main()
