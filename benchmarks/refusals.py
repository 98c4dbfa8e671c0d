"""Does `rag ask --no-llm` refuse what the library cannot answer, and only that?

The questions are ``eval/refusal_questions/*.jsonl`` (eval/refusal_questions/README.md says how they were
written): one file per library, 14 questions each, of four kinds:

- ``near_topic`` (6, unanswerable): on the library's field but about a neighbouring method, disease,
  population, organism or material that no paper's title or abstract studies ("Which Petri net models describe
  HIV replication ...?" for a Petri-nets-in-systems-biology library);
- ``off_field`` (1, unanswerable): nothing to do with the library;
- ``paraphrase`` (4, answerable): a paper answers it, but the question says it in other words than the paper
  (lay terms, synonyms, abbreviations spelled out or not);
- ``plain`` (3, answerable): a paper answers it, in the paper's own terms.

The libraries are read from ``../shared/real`` (never copied into the repo); a library that is not there is
skipped. Each is ingested (PDFs with full text, with the embedding model) into a temporary data dir, as
``benchmarks/real_answers.py`` does, and every question is asked through ``rag.services.writing.ask`` without a
model at rag's default -k. An answer is a refusal when it is "Insufficient evidence" (the ``refused`` of
real_answers). Reported per library and overall:

- unanswerable refused, by kind (goal: all), and how many bullets the answered ones got;
- answerable refused, by kind (goal: none), and how many of those answered quote a paper their note names
  (a hint that the answer found the paper, not a goal: nobody graded these answers);
- for each unanswerable question that got an answer, the citekeys its bullets quote; for each answerable
  question refused, the question.

The libraries are split by file name: ``tune`` is the first three in alphabetical order, ``test`` the other
three (printed at the start of a run). Design a refusal rule on ``tune``; measure it on ``test`` and read its
failures there without changing the questions or tuning on them.

    python benchmarks/refusals.py                        # all six libraries
    python benchmarks/refusals.py --split tune           # the three to design on
    python benchmarks/refusals.py --only restoration_pubmed --only litstudy_petri_scopus
    python benchmarks/refusals.py --json out.json        # the numbers and every answer's bullets
    python benchmarks/refusals.py --show                 # every question's answer, refused or its bullets

Set RAG_EMBED_MODEL_DIR or ``--model-dir`` for the embedding model (default ../shared/models/all-MiniLM-L6-v2).
One library takes a few seconds to a minute to ingest (the CSL JSON one holds 1,014 entries).
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_answers as bench

from rag.services import read as read_service
from rag.services import writing as writing_service
from rag.services.requests import SearchRequest, WritingOptions

QUESTIONS = bench.REPO / "eval" / "refusal_questions"
SHARED = bench.SHARED
UNANSWERABLE_KINDS = ("near_topic", "off_field")
ANSWERABLE_KINDS = ("paraphrase", "plain")
KINDS = UNANSWERABLE_KINDS + ANSWERABLE_KINDS
TUNE_LIBRARIES = 3  # the first three files (alphabetical) are the tune split, the rest the test split


@dataclass
class Question:
    library: str
    question: str
    answerable: bool
    kind: str
    note: str


@dataclass
class Result:
    question: Question
    refused: bool
    bullets: list[str] = field(default_factory=list)  # the quoted papers' citekeys, in the answer's order
    named: list[str] = field(default_factory=list)  # citekeys the note names that the library holds


def load_questions(folder: Path) -> dict[str, list[Question]]:
    """File name (without .jsonl) -> its questions, in alphabetical order of file name."""
    out: dict[str, list[Question]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        questions = []
        for i, r in enumerate(rows, start=1):
            q = Question(r["library"], r["question"], bool(r["answerable"]), r["kind"], r.get("note", ""))
            if q.kind not in KINDS or q.answerable != (q.kind in ANSWERABLE_KINDS):
                raise SystemExit(f"{path.name}:{i}: kind {q.kind!r} does not fit answerable={q.answerable}")
            if q.library != rows[0]["library"]:
                raise SystemExit(f"{path.name}:{i}: another library than line 1 ({q.library})")
            questions.append(q)
        out[path.stem] = questions
    return out


def split_names(names: Sequence[str]) -> dict[str, str]:
    """Library file name -> "tune" (the first three in alphabetical order) or "test"."""
    return {name: "tune" if i < TUNE_LIBRARIES else "test" for i, name in enumerate(sorted(names))}


def _named_keys(note: str, keys: set[str]) -> list[str]:
    return [k for k in sorted(keys) if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", note)]


def run_library(
    name: str, questions: Sequence[Question], shared: Path, model_dir: Path | None, notes: list[str]
) -> tuple[list[Result], dict[str, Any]]:
    with bench.ingested_library(name, questions[0].library, shared, model_dir, notes) as library:
        ctx = library.ctx
        keys = {bench.paper_key(p) for p in read_service.papers(ctx).papers}
        started = time.perf_counter()
        results = []
        for q in questions:
            answer = writing_service.ask(ctx, SearchRequest(q.question, None), WritingOptions(use_llm=False, log=False))
            result = Result(q, bench.refused(answer), [b.key for b in bench.bullets_of(answer)])
            result.named = _named_keys(q.note, keys)
            if q.answerable and not result.named:
                notes.append(f"{name}: the note of {q.question!r} names no paper of the library (labels out of date?)")
            results.append(result)
        return results, {**library.info, "questions_seconds": round(time.perf_counter() - started, 1)}


def measure(results: Sequence[Result]) -> dict[str, Any]:
    """Per kind: questions and refusals; then the unanswerable and answerable totals."""
    by_kind = {
        kind: {
            "questions": sum(r.question.kind == kind for r in results),
            "refused": sum(r.refused for r in results if r.question.kind == kind),
        }
        for kind in KINDS
    }
    unanswerable = [r for r in results if not r.question.answerable]
    answerable = [r for r in results if r.question.answerable]
    return {
        "kinds": by_kind,
        "unanswerable": len(unanswerable),
        "unanswerable_refused": sum(r.refused for r in unanswerable),
        "unanswerable_bullets": sum(len(r.bullets) for r in unanswerable),
        "answerable": len(answerable),
        "answerable_refused": sum(r.refused for r in answerable),
        # an answer quoting at least one paper the note names as answering (or related): the rest answered from
        # other papers, worth a look but not a refusal failure
        "answerable_quoting_named": sum(bool(set(r.bullets) & set(r.named)) for r in answerable if not r.refused),
    }


def _ratio(row: dict[str, Any], kind: str) -> str:
    cell = row["kinds"][kind]
    return f"{cell['refused']}/{cell['questions']}" if cell["questions"] else "-"


# The table's columns: heading, and the cell of one row (a library, a split or overall).
_COLUMNS: list[tuple[str, Any]] = [
    ("split", lambda r: r.get("split", "")),
    ("unans. refused", lambda r: f"{r['unanswerable_refused']}/{r['unanswerable']}"),
    ("near_topic", lambda r: _ratio(r, "near_topic")),
    ("off_field", lambda r: _ratio(r, "off_field")),
    ("their bullets", lambda r: str(r["unanswerable_bullets"])),
    ("ans. refused", lambda r: f"{r['answerable_refused']}/{r['answerable']}"),
    ("paraphrase", lambda r: _ratio(r, "paraphrase")),
    ("plain", lambda r: _ratio(r, "plain")),
    ("quote named", lambda r: str(r["answerable_quoting_named"])),
]


def table(rows: dict[str, dict[str, Any]]) -> str:
    """A row per library (then per split and overall): unanswerable questions refused (goal: all), by kind, and
    the bullets of those answered; answerable questions refused (goal: none), by kind, and how many of those
    answered quote a paper their note names."""
    name_width = max(len(n) for n in rows) + 2
    widths = [max(len(heading), *(len(cell(r)) for r in rows.values())) + 2 for heading, cell in _COLUMNS]
    out = [" " * name_width + "".join(f"{h:>{w}}" for (h, _), w in zip(_COLUMNS, widths, strict=True))]
    for name, row in rows.items():
        cells = "".join(f"{cell(row):>{w}}" for (_, cell), w in zip(_COLUMNS, widths, strict=True))
        out.append(f"{name:<{name_width}}{cells}")
    return "\n".join(out)


def failures(name: str, results: Sequence[Result]) -> list[str]:
    lines = []
    for r in results:
        q = r.question
        if not q.answerable and not r.refused:
            lines.append(f"  answered [{q.kind}]: {q.question}\n      bullets: {', '.join(r.bullets) or '(none)'}")
        elif q.answerable and r.refused:
            lines.append(f"  refused  [{q.kind}]: {q.question}")
    return [f"{name}:", *lines] if lines else []


def show(name: str, results: Sequence[Result]) -> None:
    print(f"\n=== {name}")
    for r in results:
        q = r.question
        verdict = "refused" if r.refused else f"bullets: {', '.join(r.bullets) or '(none)'}"
        print(f"[{q.kind}{'' if q.answerable else ', unanswerable'}] {q.question}\n    {verdict}")
        if q.answerable:
            print(f"    note names: {', '.join(r.named) or '(none)'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = bench.library_options(__doc__.split("\n\n")[0], QUESTIONS)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="all", help="which libraries to run")
    parser.add_argument("--show", action="store_true", help="print every question's refusal or bullets")
    parser.add_argument("--json", type=Path, default=None, help="write the numbers and answers to this file")
    args = parser.parse_args(argv)

    model_dir = bench.model_dir_of(args)
    started = time.perf_counter()
    labelled = load_questions(args.questions)
    splits = split_names(list(labelled))
    for split in ("tune", "test"):
        print(f"{split}: {', '.join(n for n, s in splits.items() if s == split) or '(none)'}")
    unknown = [n for n in args.only if n not in labelled]
    if unknown:
        print(f"no question file named {', '.join(unknown)} in {args.questions}", file=sys.stderr)
        return 2
    chosen = {
        n: qs
        for n, qs in labelled.items()
        if (args.split == "all" or splits[n] == args.split) and (not args.only or n in args.only)
    }
    rows: dict[str, dict[str, Any]] = {}
    answers: dict[str, list[Result]] = {}
    notes: list[str] = []
    for name, questions in chosen.items():
        if not (args.shared / "real" / questions[0].library).exists():
            print(f"{name}: skipped ({args.shared / 'real' / questions[0].library} is absent)", file=sys.stderr)
            continue
        results, info = run_library(name, questions, args.shared, model_dir, notes)
        rows[name] = {"split": splits[name], **measure(results), **info}
        answers[name] = results
        if args.show:
            show(name, results)
    if not rows:
        print("no library found: nothing measured", file=sys.stderr)
        return 0
    everything = [r for results in answers.values() for r in results]
    for split in ("tune", "test"):
        part = [r for name, results in answers.items() if splits[name] == split for r in results]
        if part and any(splits[n] != split for n in answers):
            rows[split] = {"split": split, **measure(part)}
    if len(rows) > 1:
        rows["overall"] = {"split": args.split, **measure(everything)}
    seconds = time.perf_counter() - started
    print()
    print(table(rows))
    bench.print_runs(rows, seconds)
    failed = [line for name, results in answers.items() for line in failures(name, results)]
    print("\nfailures (unanswerable answered, with the bullets' citekeys; answerable refused):")
    print("\n".join(failed) if failed else "  none")
    for note in dict.fromkeys(n for n in notes if "out of date" in n or "no embedding model" in n):
        print(note, file=sys.stderr)
    if args.json:
        out = {
            "seconds": round(seconds, 1),
            "splits": splits,
            "libraries": rows,
            "answers": {
                name: [
                    {
                        "question": r.question.question,
                        "kind": r.question.kind,
                        "answerable": r.question.answerable,
                        "refused": r.refused,
                        "bullets": r.bullets,
                        "named": r.named,
                    }
                    for r in results
                ]
                for name, results in answers.items()
            },
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
