"""How cited answers hold up with a real model: any OpenAI-compatible endpoint, or a GGUF run in-process.

Runs the `rag` CLI (its --json contract), so the same script measures any version of rag and any model:
the labelled questions of the bundled corpus with `ask` and related-work drafts with `draft`, or the questions
and topics of another library (--library FILE, --questions, --topic). Several checkouts can be measured in one
run (--checkout NAME=DIR: that checkout's code on PYTHONPATH), so before and after share the machine's load.
Reported per checkout and job kind:

- answers shown as model answers (mode "llm") and, of those, the share with at least one supported citation
- fragments, titles restated as claims and near-duplicate sentences shown (goal 0), judged here by rules of
  this script's own (not rag's), so rag cannot pass by construction
- shown model answers that address their question (goal 100%): a shown sentence shares a topic word with it
- answers that fell back to quotes/outline, seconds per answer (goal < 10 s idle, in-process)
- seconds to the first checked sentence streamed (`--json --stream`, where the checkout has it)
- a cached answer: seconds for the same question asked again, and whether the model was loaded (goal < 1 s of
  answering, no load)

    RAG_LLM_GGUF=/path/SmolLM2-135M-Instruct.Q4_1.gguf python benchmarks/local_model.py
    RAG_LLM_GGUF=... python benchmarks/local_model.py --checkout before=../rag-main --checkout after=.
    RAG_LLM_GGUF=... python benchmarks/local_model.py --server          # the same model behind a loopback server
    RAG_LLM_GGUF=... python benchmarks/local_model.py \\
        --library ../shared/real/bibtex/ErikBjare__thesis/docs/tex/zotero.bib \\
        --questions benchmarks/thesis_questions.txt --topic "EEG-based brain-computer interfaces"
    RAG_LLM_BASE_URL=http://localhost:11434/v1 RAG_LLM_MODEL=llama3.1 python benchmarks/local_model.py

A fresh data dir per checkout is used (the library ingested once); answers are not cached (--no-cache) except
in the cache measurement. Print `uptime` beside the numbers: other work on the machine slows a 1-thread model.
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
_WORD = re.compile(r"[a-z0-9]+")
_CITATION = re.compile(r"\[\d+\]")
# The benchmark's own judgement of a shown sentence (deliberately simpler than rag's checks).
FRAGMENT_MIN_WORDS = 4
_FUNCTION_WORDS = "a an the of in on at to for from with by and or as that which than its their our"
_COMMON_WORDS = (
    "which what who how does do did is are was were the a an of in on for to and or with by about any there "
    "work works paper papers study studies look research exist exists effect role"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
TITLE_OVERLAP = 0.8
DUPLICATE_OVERLAP = 0.7
COMMON = frozenset(_COMMON_WORDS.split())
SUBPROCESS_TIMEOUT = 900


def _words(text: str) -> list[str]:
    return _WORD.findall(_CITATION.sub("", text).lower())


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _words(text) if w not in COMMON and len(w) > 2}


def faults(sentences: list[dict[str, Any]], titles: list[str]) -> dict[str, Any]:
    """Fragments, titles and near-duplicates among the shown sentences, by this script's rules, and which."""
    counts: dict[str, Any] = {"fragments": 0, "titles": 0, "near_duplicates": 0, "flagged": []}
    earlier: list[set[str]] = []
    for sentence in sentences:
        words = _words(sentence["text"])
        bare = _CITATION.sub("", sentence["text"])
        content = set(words) - COMMON
        found = []
        if len(words) < FRAGMENT_MIN_WORDS or words[-1] in FUNCTION_WORDS or bare.count("[") != bare.count("]"):
            found.append("fragments")
        # A title used as a sentence: nearly all the sentence's words are the title's.
        if content and any(len(content & set(_words(t))) / len(content) >= TITLE_OVERLAP for t in titles if t):
            found.append("titles")
        if any(_overlap(set(words), e) >= DUPLICATE_OVERLAP for e in earlier):
            found.append("near_duplicates")
        for kind in found:
            counts[kind] += 1
            counts["flagged"].append((kind, sentence["text"]))
        earlier.append(set(words))
    return counts


Run = tuple[dict[str, Any] | None, float, float | None, str]


def _run(rag: str, args: list[str], env: dict[str, str], flags: list[str]) -> Run:
    """(--json payload, seconds, seconds to the first streamed sentence, error)."""
    started = time.perf_counter()
    process = subprocess.Popen([rag, *args, "--json", *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)  # fmt: skip
    first: float | None = None
    assert process.stderr is not None and process.stdout is not None
    errors = []
    for line in process.stderr:
        if first is None and line.startswith('{"event": "sentence"'):
            first = time.perf_counter() - started
        errors.append(line)
    out = process.stdout.read()
    process.wait(timeout=SUBPROCESS_TIMEOUT)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        return None, seconds, first, (errors[-1].strip() if errors else f"exit {process.returncode}")
    payload = json.loads(out)
    payload["_loaded_model"] = any("llama.cpp: loading" in line for line in errors)
    return payload, seconds, first, ""


def _measure(payload: dict[str, Any], question: str, seconds: float, first: float | None) -> dict[str, Any]:
    shown = payload["mode"] == "llm"
    sentences = (payload.get("sentences") or []) if shown else []
    titles = [c.get("title") or "" for c in payload.get("citations", [])]
    usage = payload.get("usage") or {}
    topic = _stems(question)
    return {
        "mode": payload["mode"],
        "shown_as_model": shown,
        "supported_citation": shown and any(s.get("support") in TOP_LABELS and s["citations"] for s in sentences),
        "addresses_question": shown and any(topic & _stems(s["text"]) for s in sentences),
        "sentences": len(sentences),
        **faults(sentences, titles),
        "fell_back": payload["mode"] in ("extractive", "outline") and bool(payload.get("model")),
        "more_from_papers": len(payload.get("more_from_papers") or []),
        "seconds": seconds,
        "first_sentence_seconds": first,
        "completion_tokens": usage.get("completion_tokens", 0),
    }


def _table(rows: list[dict[str, Any]], failures: int) -> str:
    shown = [r for r in rows if r["shown_as_model"]]
    share = lambda a, b: f"{a}/{b} ({100 * a / b:.0f}%)" if b else f"{a}/0"  # noqa: E731
    seconds = [r["seconds"] for r in rows]
    firsts = [r["first_sentence_seconds"] for r in rows if r["first_sentence_seconds"] is not None]
    return "\n".join(
        [
            f"runs: {len(rows) + failures} ({failures} failed)",
            f"shown as model answers: {share(len(shown), len(rows))}",
            f"  with >= 1 supported citation: {share(sum(r['supported_citation'] for r in shown), len(shown))}",
            f"  addressing their question: {share(sum(r['addresses_question'] for r in shown), len(shown))}",
            f"  with more from the papers under them: {sum(1 for r in shown if r['more_from_papers'])}",
            f"fragments / titles / near-duplicates shown: {sum(r['fragments'] for r in rows)} / "
            f"{sum(r['titles'] for r in rows)} / {sum(r['near_duplicates'] for r in rows)}",
            f"fell back to quotes / outline: {sum(r['fell_back'] for r in rows)}",
            f"seconds per answer: mean {sum(seconds) / max(len(seconds), 1):.1f}, max {max(seconds, default=0):.1f}",
            f"seconds to the first streamed sentence: {_mean(firsts)} ({len(firsts)} runs streamed one)",
        ]
    )


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "n/a"


def _jobs(questions: list[str], topics: list[str], only: str | None) -> list[tuple[str, str, list[str]]]:
    jobs = [("ask", q, ["ask", q]) for q in questions] + [("draft", t, ["draft", t]) for t in topics]
    return [job for job in jobs if only in (None, job[0])]


def _questions(path: Path) -> list[str]:
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    return [json.loads(line)["question"] for line in lines] if path.suffix == ".jsonl" else lines


def _start_server(env: dict[str, str]) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """The GGUF behind llama.cpp's server in a process of its own: rag reaches it as any loopback endpoint."""
    code = (
        "import sys, time; from pathlib import Path; from rag.llm import gguf\n"
        "m = gguf.start(Path(sys.argv[1])); print(m.base_url, m.model, m.api_key, flush=True)\n"
        "while True: time.sleep(60)"
    )
    process = subprocess.Popen([sys.executable, "-c", code, env["RAG_LLM_GGUF"]], stdout=subprocess.PIPE,
                               text=True, env=env)  # fmt: skip
    assert process.stdout is not None
    base_url, model, key = process.stdout.readline().split()
    served = {k: v for k, v in env.items() if k != "RAG_LLM_GGUF"}
    return process, {**served, "RAG_LLM_BASE_URL": base_url, "RAG_LLM_MODEL": model, "RAG_LLM_API_KEY": key}


def _cached(rag: str, question: str, env: dict[str, str]) -> dict[str, Any]:
    """The same question twice with the cache on: the second answer's seconds, and whether it loaded the model."""
    _run(rag, ["ask", question], env, [])
    payload, seconds, _, error = _run(rag, ["ask", question], env, [])
    _, search_seconds, _, _ = _run(rag, ["search", question], env, [])
    return {
        "seconds": round(seconds, 2),
        "seconds_beyond_search": round(seconds - search_seconds, 2),  # imports and retrieval are paid by search too
        "loaded_model": bool(payload and payload["_loaded_model"]),
        "from_cache": bool(payload and (payload.get("usage") or {}).get("cached_calls")),
        "error": error,
    }


def measure_checkout(
    name: str, checkout: Path | None, args: argparse.Namespace, base: dict[str, str]
) -> dict[str, Any]:
    env = dict(base)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout.resolve())
    env["RAG_DATA_DIR"] = tempfile.mkdtemp(prefix=f"rag-local-model-{name}-")
    if args.library:
        env["RAG_COLLECTION"] = "bench"
        subprocess.run([args.rag, "ingest", str(args.library)], env=env, check=True, capture_output=True)
    else:  # the first command indexes the bundled corpus: not part of any answer's time
        subprocess.run([args.rag, "papers"], env=env, check=True, capture_output=True)
    helps = subprocess.run([args.rag, "ask", "--help"], env=env, capture_output=True, text=True).stdout
    flags = ["--no-cache", *(["--stream"] if "--stream" in helps else [])]
    server = None
    if args.server:
        server, env = _start_server(env)
    try:
        rows: dict[str, list[dict[str, Any]]] = {"ask": [], "draft": []}
        failures = 0
        for kind, text, job in _jobs(args.question_list, args.topic_list, args.only):
            payload, seconds, first, error = _run(args.rag, job, env, flags)
            if payload is None:
                failures += 1
                print(f"[{name}] FAILED {job}: {error}", file=sys.stderr)
                continue
            row = _measure(payload, text, seconds, first)
            rows[kind].append({**row, "job": job})
            print(f"[{name}] {kind:5} {row['mode']:22} {seconds:5.1f}s  {text[:60]}", file=sys.stderr, flush=True)
        cached = _cached(args.rag, args.question_list[0], env) if args.question_list else {}
    finally:
        if server is not None:
            server.terminate()
    return {"rows": rows, "failures": failures, "cached": cached}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rag", default=shutil.which("rag") or str(Path(sys.executable).with_name("rag")))
    parser.add_argument("--checkout", action="append", default=[], help="NAME=DIR: measure that checkout's code")
    parser.add_argument("--library", type=Path, help="ingest this file into a fresh library and ask about it")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help=".jsonl (question field) or .txt")
    parser.add_argument("--topic", action="append", default=[], help="a draft topic (repeatable)")
    parser.add_argument("--server", action="store_true", help="RAG_LLM_GGUF behind a loopback server process")
    parser.add_argument("--json", type=Path, help="also write every run's measures here")
    parser.add_argument("--only", choices=("ask", "draft"), help="run one kind of job")
    args = parser.parse_args()
    base = dict(os.environ)
    if not (base.get("RAG_LLM_GGUF") or base.get("RAG_LLM_MODEL")):
        sys.exit("set RAG_LLM_GGUF, or RAG_LLM_BASE_URL and RAG_LLM_MODEL (see the docstring)")
    args.question_list = _questions(args.questions)
    args.topic_list = args.topic or (list(DRAFT_TOPICS) if args.library is None else [])
    checkouts = [tuple(c.split("=", 1)) for c in args.checkout] or [("installed", None)]
    results = {}
    for name, folder in checkouts:
        results[name] = measure_checkout(name, Path(folder) if folder else None, args, base)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    for name, result in results.items():
        for kind, measured in result["rows"].items():
            if measured:
                print(f"== {name}: {kind} ({len(measured)} runs)\n{_table(measured, 0)}")
        print(f"== {name}: cached answer: {json.dumps(result['cached'])}")
    print(f"load: {load}")
    if args.json:
        args.json.write_text(json.dumps({"load": load, **results}, indent=1))


if __name__ == "__main__":
    main()
