"""How cited answers hold up with a real model: any OpenAI-compatible endpoint, or a GGUF run in-process.

Runs the installed `rag` CLI (its --json contract), so the same script measures
any version of rag and any model: the 8 labelled questions of the bundled
corpus with `ask`, and 3 related-work drafts with `draft`. Reported per run:

- answers shown as model answers (mode "llm") and, of those, the share with at
  least one supported citation (the promise: 100%)
- the share of shown sentences that carry a citation (goal >= 95%)
- sentences repeated within a shown answer (goal 0)
- answers that fell back to quotes/outline, seconds per answer, completion tokens/s

    RAG_LLM_GGUF=/path/SmolLM2-135M-Instruct.Q4_1.gguf python benchmarks/local_model.py
    RAG_LLM_BASE_URL=http://localhost:11434/v1 RAG_LLM_MODEL=llama3.1 python benchmarks/local_model.py

A fresh data dir is used unless RAG_DATA_DIR is set; answers are never cached (--no-cache).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
QUESTIONS = REPO / "eval" / "dev_questions.jsonl"
DRAFT_TOPICS = (
    "decentralized training on heterogeneous GPUs",
    "mixture-of-experts training and inference",
    "pipeline and tensor parallelism for large models",
)
TOP_LABELS = ("supported", "evidence_found")
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_CITATION = re.compile(r"\[\d+\]")


def _normalized(sentence: str) -> str:
    return _NOT_WORD.sub(" ", _CITATION.sub("", sentence).lower()).strip()


def _run(rag: str, args: list[str], env: dict[str, str]) -> tuple[dict[str, Any] | None, float, str]:
    started = time.perf_counter()
    done = subprocess.run([rag, *args, "--json", "--no-cache"], capture_output=True, text=True, env=env, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return None, seconds, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
    return json.loads(done.stdout), seconds, ""


def _measure(payload: dict[str, Any], seconds: float) -> dict[str, Any]:
    shown = payload["mode"] == "llm"
    sentences = payload.get("sentences") or [] if shown else []
    keys = [_normalized(s["text"]) for s in sentences]
    usage = payload.get("usage") or {}
    return {
        "mode": payload["mode"],
        "shown_as_model": shown,
        # The top label: "supported" (the model judge, or rag before 0.2), "evidence_found" (the offline check).
        "supported_citation": shown and any(s.get("support") in TOP_LABELS and s["citations"] for s in sentences),
        "sentences": len(sentences),
        "cited_sentences": sum(1 for s in sentences if s["citations"]),
        "repeated": len(keys) - len(set(keys)),
        "fell_back": payload["mode"] in ("extractive", "outline") and bool(payload.get("model")),
        "seconds": seconds,
        "completion_tokens": usage.get("completion_tokens", 0),
    }


def _table(rows: list[dict[str, Any]], failures: int) -> str:
    shown = [r for r in rows if r["shown_as_model"]]
    backed = sum(r["supported_citation"] for r in shown)
    sentences = sum(r["sentences"] for r in rows)
    cited = sum(r["cited_sentences"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    tokens = sum(r["completion_tokens"] for r in rows)
    share = lambda a, b: f"{a}/{b} ({100 * a / b:.0f}%)" if b else f"{a}/0"  # noqa: E731
    return "\n".join(
        [
            f"runs: {len(rows) + failures} ({failures} failed)",
            f"shown as model answers: {share(len(shown), len(rows))}",
            f"  of those with >= 1 supported citation: {share(backed, len(shown))}",
            f"shown sentences carrying a citation: {share(cited, sentences)}",
            f"sentences repeated within an answer: {sum(r['repeated'] for r in rows)}",
            f"fell back to quotes / outline: {sum(r['fell_back'] for r in rows)}",
            f"seconds per answer: {seconds / max(len(rows), 1):.1f}",
            f"completion tokens/s (whole command): {tokens / seconds if seconds else 0:.1f}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rag", default=shutil.which("rag") or str(Path(sys.executable).with_name("rag")))
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--json", type=Path, help="also write every run's measures here")
    parser.add_argument("--only", choices=("ask", "draft"), help="run one kind of job")
    args = parser.parse_args()
    env = dict(os.environ)
    if not (env.get("RAG_LLM_GGUF") or env.get("RAG_LLM_MODEL")):
        sys.exit("set RAG_LLM_GGUF, or RAG_LLM_BASE_URL and RAG_LLM_MODEL (see the docstring)")
    env.setdefault("RAG_DATA_DIR", tempfile.mkdtemp(prefix="rag-local-model-"))
    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines() if line.strip()]
    jobs = [("ask", ["ask", q]) for q in questions] + [("draft", ["draft", t]) for t in DRAFT_TOPICS]
    jobs = [job for job in jobs if args.only in (None, job[0])]
    rows: dict[str, list[dict[str, Any]]] = {"ask": [], "draft": []}
    failures = 0
    for kind, job in jobs:
        payload, seconds, error = _run(args.rag, job, env)
        if payload is None:
            failures += 1
            print(f"FAILED {job}: {error}", file=sys.stderr)
            continue
        row = _measure(payload, seconds)
        rows[kind].append({**row, "job": job})
        print(f"{kind:5} {row['mode']:22} {row['seconds']:5.1f}s  {job[1][:60]}", file=sys.stderr)
    for kind, measured in rows.items():
        print(f"== {kind} ({len(measured)} runs)\n{_table(measured, 0)}")
    print(f"== all\n{_table([r for m in rows.values() for r in m], failures)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
