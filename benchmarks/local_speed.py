"""How fast a local answer is, by thread count, and how promptly the process ends (issue 30's closing numbers).

Runs the `rag` CLI in new processes, as a user does, with the GGUF model of RAG_LLM_GGUF (or --gguf) run in-process:

- seconds per answer (`rag ask QUESTION --json --no-cache`) with RAG_LLM_THREADS=1, 2 and auto (the default),
  runs interleaved (1, 2, auto, no model, 1, 2, ...) so the machine's load falls on each setting alike
- the model's own speed at each count: prompt tokens read and tokens written per second, as llama.cpp's server
  times them (a fixed prompt of about an answer's size, in a process of its own per run)
- a local answer over the no-model answer of the same question (`--no-llm`; goal <= 5x)
- seconds from the last output of the answer to the process's exit (goal < 0.3 s)

    RAG_LLM_GGUF=/path/SmolLM2-135M-Instruct.Q4_1.gguf python benchmarks/local_speed.py --repeat 3
    RAG_LLM_GGUF=... python benchmarks/local_speed.py --checkout ../main --threads 1 2    # another checkout's code

A fresh data dir is used (the bundled corpus indexed once, before any timing). Print `uptime` beside the numbers:
another process on the machine takes the cores more threads would use.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUESTION = "which works target heterogeneous GPUs?"
THREAD_SETTINGS = ("1", "2", "auto")
NO_MODEL = "no model"
# Goals of issue 30.
RATIO_GOAL = 5.0
EXIT_GOAL_SECONDS = 0.3
SUBPROCESS_TIMEOUT = 600
# The model's speed: a prompt of about an answer's size (rag's sources for one question), a short answer.
SPEED_PROMPT_CHARS = 2400
SPEED_ANSWER_TOKENS = 128
READ_CHUNK = 65536

# Started in a process of its own per run: the thread count is fixed when llama.cpp loads the model.
SPEED_SCRIPT = """
import json, sys, urllib.request
from pathlib import Path
from rag.llm import gguf
from rag.llm.threads import choose

setting = sys.argv[2]
model = gguf.start(Path(sys.argv[1]), threads=choose(setting if setting == "auto" else int(setting)))
body = {"model": model.model, "max_tokens": int(sys.argv[3]), "temperature": 0,
        "messages": [{"role": "user", "content": sys.stdin.read()}]}
request = urllib.request.Request(f"{model.base_url}/chat/completions", data=json.dumps(body).encode(),
    headers={"Authorization": f"Bearer {model.api_key}", "Content-Type": "application/json"})
with urllib.request.urlopen(request) as response:
    print(json.dumps(json.load(response).get("timings", {})), flush=True)
"""


def _run(rag: str, args: list[str], env: dict[str, str]) -> dict[str, float]:
    """One `rag` process: its seconds, and the seconds from its last output (stdout or stderr) to its exit."""
    started = time.perf_counter()
    process = subprocess.Popen([rag, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stderr is not None
    selector = selectors.DefaultSelector()
    for stream in (process.stdout, process.stderr):
        selector.register(stream, selectors.EVENT_READ)
    last_output, out = started, b""
    while selector.get_map():
        for key, _ in selector.select():
            data = os.read(key.fd, READ_CHUNK)
            if not data:  # end of file: the process closed it, which it does when it exits
                selector.unregister(key.fileobj)
                continue
            last_output = time.perf_counter()
            out += data if key.fileobj is process.stdout else b""
    process.wait(timeout=SUBPROCESS_TIMEOUT)
    ended = time.perf_counter()
    if process.returncode != 0:
        raise RuntimeError(f"rag {' '.join(args)} exited {process.returncode}")
    payload = json.loads(out)
    return {"seconds": ended - started, "exit_seconds": ended - last_output, "llm": float(payload["mode"] == "llm")}


def _speed(gguf: str, setting: str, env: dict[str, str]) -> dict[str, float]:
    """llama.cpp's own timing of one fixed request at ``setting`` threads: prompt and answer tokens per second."""
    seeds = sorted((REPO / "seeds").glob("*.txt"))
    prompt = seeds[0].read_text(encoding="utf-8")[:SPEED_PROMPT_CHARS] + "\n\nSummarize these abstracts."
    done = subprocess.run(
        [sys.executable, "-c", SPEED_SCRIPT, gguf, setting, str(SPEED_ANSWER_TOKENS)],
        input=prompt,
        capture_output=True,
        text=True,
        env=env,
        timeout=SUBPROCESS_TIMEOUT,
        check=True,
    )
    timings = json.loads(done.stdout.strip().splitlines()[-1])
    return {"prompt_per_second": timings["prompt_per_second"], "predicted_per_second": timings["predicted_per_second"]}


def _median(rows: list[dict[str, float]], key: str) -> float:
    return statistics.median(row[key] for row in rows) if rows else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rag", default=str(Path(sys.executable).with_name("rag")))
    parser.add_argument("--gguf", default=os.environ.get("RAG_LLM_GGUF"), help="the model (else RAG_LLM_GGUF)")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each setting (interleaved)")
    parser.add_argument("--threads", nargs="+", default=list(THREAD_SETTINGS), help="RAG_LLM_THREADS settings")
    parser.add_argument("--checkout", type=Path, default=REPO, help="measure this checkout's code (PYTHONPATH)")
    parser.add_argument("--no-speed", action="store_true", help="answers only (a checkout without rag.llm.threads)")
    parser.add_argument("--json", type=Path, help="also write every run here")
    args = parser.parse_args()
    if not args.gguf:
        sys.exit("set RAG_LLM_GGUF or pass --gguf (a .gguf model file)")
    env = {**os.environ, "RAG_LLM_GGUF": args.gguf, "PYTHONPATH": str(args.checkout.resolve())}
    env["RAG_DATA_DIR"] = tempfile.mkdtemp(prefix="rag-local-speed-")
    subprocess.run([args.rag, "papers"], env=env, check=True, capture_output=True)  # indexing is timed nowhere
    if not args.no_speed:
        from rag.llm.threads import choose

        print(f"auto here: {choose('auto').describe()} ({choose('auto').why})", file=sys.stderr)
    loads = [os.getloadavg()[0]]
    answers: dict[str, list[dict[str, float]]] = {name: [] for name in (*args.threads, NO_MODEL)}
    speeds: dict[str, list[dict[str, float]]] = {name: [] for name in args.threads}
    ask = ["ask", args.question, "--json", "--no-cache"]
    for repeat in range(args.repeat):
        for setting in args.threads:
            run = _run(args.rag, ask, {**env, "RAG_LLM_THREADS": setting})
            answers[setting].append(run)
            if not args.no_speed:
                speeds[setting].append(_speed(args.gguf, setting, env))
            print(f"[{repeat + 1}] threads {setting:4}: {run} {speeds[setting][-1:]}", file=sys.stderr, flush=True)
        answers[NO_MODEL].append(_run(args.rag, [*ask, "--no-llm"], env))
        print(f"[{repeat + 1}] {NO_MODEL}: {answers[NO_MODEL][-1]}", file=sys.stderr, flush=True)
        loads.append(os.getloadavg()[0])
    no_model = _median(answers[NO_MODEL], "seconds")
    print(f"{'threads':8} {'s/answer':>9} {'x no-model':>10} {'prompt tok/s':>12} {'write tok/s':>11} {'exit s':>7}")
    for setting in args.threads:
        rows, speed = answers[setting], speeds[setting]
        print(
            f"{setting:8} {_median(rows, 'seconds'):9.1f} {_median(rows, 'seconds') / no_model:10.1f} "
            f"{_median(speed, 'prompt_per_second'):12.0f} {_median(speed, 'predicted_per_second'):11.1f} "
            f"{_median(rows, 'exit_seconds'):7.2f}"
        )
    print(f"{NO_MODEL:8} {no_model:9.1f} {1.0:10.1f} {'':12} {'':11} {_median(answers[NO_MODEL], 'exit_seconds'):7.2f}")
    exits = [row["exit_seconds"] for setting in args.threads for row in answers[setting]]
    print(f"medians of {args.repeat} runs; goals: a local answer <= {RATIO_GOAL:.0f}x the no-model answer, exit < "
          f"{EXIT_GOAL_SECONDS} s after the last output (here: max {max(exits):.2f} s)")  # fmt: skip
    print(f"load (1-minute average) during the runs: {min(loads):.2f}-{max(loads):.2f}")
    if args.json:
        args.json.write_text(json.dumps({"answers": answers, "speeds": speeds, "loads": loads}, indent=1))


if __name__ == "__main__":
    main()
