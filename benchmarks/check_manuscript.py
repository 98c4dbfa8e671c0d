"""`rag check` on a manuscript built from labelled SciFact claims: what it flags, what it suggests, how fast.

The library is the pairs' abstracts (one paper per SciFact doc_id, citekey ``doc<id>``, ingested as CSL JSON
into a temporary data dir). The manuscript has one paragraph per labelled pair: the claim, citing its paper
by key, written once as LaTeX (``\\cite{doc1}``) and once as Pandoc Markdown (``[@doc1]``). Reported:

- SUPPORT citations passed (no problem) and stated, NEI / CONTRADICT citations flagged as problems and
  (CONTRADICT) called contradicted, with 95% Wilson intervals, for each format (manuscript policy: "not
  stated in the abstract" is a note, so NEI is expected to pass);
- swapped keys: each SUPPORT claim citing a wrong paper instead (another claim's paper): how often that is
  flagged, and how often the suggestions name the claim's true paper;
- seconds per 100 citations (the check in-process), and `rag check` wall time on a 100-citation file;
- with ``--verify llm``: the same labels from the model as judge (RAG_LLM_GGUF or an endpoint), on the
  first ``--limit`` pairs of each gold label.

Note: the offline check was fitted on these very pairs (benchmarks/support_check.py), and the judge was trained
on 80% of their claims (by claim and paper groups), so its offline numbers here are mostly in-sample; each label
is also reported on the groups the judge's training held out ("claims the judge never trained on"), and the
fitted score's held-out numbers are support_check.py's cross-validation.

    python benchmarks/check_manuscript.py
    RAG_LLM_GGUF=.../SmolLM2-135M-Instruct.Q4_1.gguf python benchmarks/check_manuscript.py --verify llm --limit 15
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag.config import load_settings
from rag.evaluation.support import wilson
from rag.services.check import check
from rag.services.context import Context
from rag.services.ingest import ingest
from rag.services.requests import CheckRequest
from rag.services.results import CheckReport

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ROOT.parent / "shared" / "eval" / "support" / "train.jsonl"
sys.path.insert(0, str(ROOT / "training"))
from scifact_split import held_out_groups, read_rows  # noqa: E402

JUDGE_TRAINING = ROOT / "rag" / "check" / "judge" / "training.json"
MODEL_DIR = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"
STATED = "fits_stated"
SPEED_CITATIONS = 100
_LATEX_SPECIAL = {c: f"\\{c}" for c in "&%$#_{}"} | {"~": r"\textasciitilde{}", "^": r"\^{}", "\\": r"\textbackslash{}"}
_PANDOC_SPECIAL = {c: f"\\{c}" for c in "\\`*_[]@$#<>"}


def _escape(text: str, table: dict[str, str]) -> str:
    return "".join(table.get(c, c) for c in text)


def _claim(text: str) -> str:
    return text.strip().rstrip(".")


def latex(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> str:
    body = "\n\n".join(
        f"{_escape(_claim(r['claim']), _LATEX_SPECIAL)}~\\cite{{{k}}}." for r, k in zip(rows, keys, strict=True)
    )
    return f"\\documentclass{{article}}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"


def pandoc(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> str:
    return (
        "\n\n".join(f"{_escape(_claim(r['claim']), _PANDOC_SPECIAL)} [@{k}]." for r, k in zip(rows, keys, strict=True))
        + "\n"
    )


def _library_file(rows: Sequence[dict[str, Any]], folder: Path) -> Path:
    items = {
        r["doc_id"]: {
            "id": f"doc{r['doc_id']}",
            "type": "article-journal",
            "title": r["title"],
            "abstract": r["abstract"],
        }
        for r in rows
    }
    path = folder / "library.json"
    path.write_text(json.dumps(list(items.values())), encoding="utf-8")
    return path


def _share(hits: int, total: int) -> str:
    low, high = wilson(hits, total)
    return f"{hits / total:.3f} [{low:.3f}, {high:.3f}] ({hits}/{total})" if total else "n/a"


def _judge_never_read(rows: Sequence[dict[str, Any]]) -> list[bool]:
    """Whether each pair's claim is in the SciFact groups the shipped judge's training held out
    (training/train_judge.py's seed and share): the judge trained on the others, so only these measure it."""
    args = json.loads(JUDGE_TRAINING.read_text(encoding="utf-8"))["args"]
    group_of, held = held_out_groups(read_rows(PAIRS.parent), int(args["seed"]), float(args["holdout"]))
    never = set(held)
    return [group_of.get(f"c{row['claim_id']}") in never for row in rows]


def _measure(report: CheckReport, rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    checks = report.checks
    if len(checks) != len(rows):
        raise SystemExit(f"{len(checks)} citations read for {len(rows)} claims: the manuscript was misread")
    never_read = _judge_never_read(rows)
    out = {}
    for gold in ("SUPPORT", "NEI", "CONTRADICT"):
        mine = [c for c, row in zip(checks, rows, strict=True) if row["label"] == gold]
        out[f"{gold} passed (no problem)"] = _share(sum(not c.flagged for c in mine), len(mine))
        out[f"{gold} stated in the abstract"] = _share(sum(c.verdict.value == STATED for c in mine), len(mine))
        out[f"{gold} called contradicted"] = _share(sum(c.verdict.value == "contradicts" for c in mine), len(mine))
        unseen = [c for c, row, n in zip(checks, rows, never_read, strict=True) if row["label"] == gold and n]
        if gold == "SUPPORT":
            out[f"{gold} passed, claims the judge never trained on"] = _share(
                sum(not c.flagged for c in unseen), len(unseen)
            )
        else:
            out[f"{gold} flagged, claims the judge never trained on"] = _share(
                sum(c.flagged for c in unseen), len(unseen)
            )
    return out


def _swapped(rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """SUPPORT claims each citing another SUPPORT claim's paper (never one of its own cited papers)."""
    support = [r for r in rows if r["label"] == "SUPPORT"]
    cited: dict[int, set[str]] = {}
    for r in rows:
        cited.setdefault(r["claim_id"], set()).add(str(r["doc_id"]))
    wrong, true = [], []
    for i, r in enumerate(support):
        for step in range(1, len(support)):
            other = str(support[(i + len(support) // 2 + step) % len(support)]["doc_id"])
            if other not in cited[r["claim_id"]]:
                wrong.append(f"doc{other}")
                break
        true.append(f"doc{r['doc_id']}")
    return support, wrong, true


def _run(ctx: Context, path: Path, verify_llm: bool) -> tuple[CheckReport, float]:
    started = time.perf_counter()
    report = check(ctx, CheckRequest([path], verify_llm=verify_llm, cache=False))
    return report, time.perf_counter() - started


def _cli_seconds(path: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rag", "check", str(path), "--json"], capture_output=True, env=env, check=False
    )
    return time.perf_counter() - started


def _balanced(rows: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    chosen: list[dict[str, Any]] = []
    for gold in ("SUPPORT", "NEI", "CONTRADICT"):
        chosen += [r for r in rows if r["label"] == gold][:limit]
    return sorted(chosen, key=rows.index)


def _report(title: str, values: dict[str, Any]) -> None:
    print(f"\n{title}")
    for name, value in values.items():
        print(f"  {name}: {value}")


def _judged(ctx: Context, rows: Sequence[dict[str, Any]], folder: Path, limit: int) -> None:
    chosen = _balanced(rows, limit)
    keys = [f"doc{r['doc_id']}" for r in chosen]
    report, seconds = _run(ctx, _write(folder / "llm.tex", latex(chosen, keys)), verify_llm=True)
    calls = report.usage.calls if report.usage else 0
    _report(
        f"--verify llm ({report.checker}), {len(chosen)} pairs, LaTeX, {seconds:.0f} s "
        f"({seconds / len(chosen):.1f} s per citation, {calls} model calls)",
        _measure(report, chosen),
    )


def _offline(ctx: Context, rows: Sequence[dict[str, Any]], folder: Path, env: dict[str, str]) -> None:
    keys = [f"doc{r['doc_id']}" for r in rows]
    for name, text in (("claims.tex", latex(rows, keys)), ("claims.md", pandoc(rows, keys))):
        report, seconds = _run(ctx, _write(folder / name, text), verify_llm=False)
        values = _measure(report, rows)
        values["seconds per 100 citations"] = f"{100 * seconds / len(rows):.2f}"
        _report(f"offline, {name}: {len(rows)} citations in {seconds:.1f} s", values)
    support, wrong, true = _swapped(rows)
    report, seconds = _run(ctx, _write(folder / "swapped.tex", latex(support, wrong)), verify_llm=False)
    flagged = [c for c in report.checks if c.flagged]
    named = sum(key in {s.paper.citekey for s in c.suggestions} for c, key in zip(report.checks, true, strict=True))
    _report(
        f"swapped keys: {len(support)} SUPPORT claims citing a wrong paper ({seconds:.1f} s)",
        {
            "flagged": _share(len(flagged), len(support)),
            "suggestions name the true paper (of all swapped)": _share(named, len(support)),
            "... of the flagged ones": _share(named, len(flagged)),
        },
    )
    hundred = _write(folder / "hundred.tex", latex(rows[:SPEED_CITATIONS], keys[:SPEED_CITATIONS]))
    _cli_seconds(hundred, env)  # warm the file cache
    runs = [_cli_seconds(hundred, env) for _ in range(3)]
    print(f"\n`rag check` on {SPEED_CITATIONS} citations, wall time (process start included): "
          f"best {min(runs):.2f} s, worst {max(runs):.2f} s")  # fmt: skip


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="?", type=Path, default=PAIRS)
    parser.add_argument("--verify", choices=("offline", "llm"), default="offline")
    parser.add_argument("--limit", type=int, default=15, help="--verify llm: pairs of each gold label checked")
    parser.add_argument("--model-dir", type=Path, default=MODEL_DIR, help="all-MiniLM-L6-v2's files")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "RAG_DATA_DIR": str(folder / "data"), "RAG_EMBED_MODEL_DIR": str(args.model_dir)}
        ctx = Context(load_settings(data_dir=folder / "data", embed_model_dir=args.model_dir))
        started = time.perf_counter()
        ingest(ctx, [_library_file(rows, folder)])
        papers = len({r["doc_id"] for r in rows})
        print(f"library: {papers} abstracts ingested in {time.perf_counter() - started:.1f} s")
        if args.verify == "llm":
            _judged(ctx, rows, folder, args.limit)
        else:
            _offline(ctx, rows, folder, env)


if __name__ == "__main__":
    main()
