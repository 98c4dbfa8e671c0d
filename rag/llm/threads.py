"""How many CPU threads the in-process GGUF model uses: ``RAG_LLM_THREADS``, or (``auto``, the default) what the
machine offers.

``auto`` follows llama.cpp's own default (``cpu_get_num_math()`` in its ``common/common.cpp``: the physical cores,
as its docs advise "physical CPU cores ... as opposed to the logical number of cores"), with two changes: only the
CPUs this process may run on count (``os.sched_getaffinity``: a container's or a batch job's share, which
llama.cpp does not look at), and writing tokens is capped. Writing reads every weight once per token, so it is
bound by memory bandwidth, not by cores: reports on llama.cpp's tracker see no gain past 3-4 threads on a 20-core
i7-14700K (ggml-org/llama.cpp#12966) and the fastest 7B/13B generation at 6 threads on an 8-core Ryzen 5700G,
slower at 8-12 (#39). Reading the prompt is compute-bound and keeps gaining, so it gets every core, as in
llama.cpp. Measured here (2 cores, SmolLM2-135M, idle): 2 threads read the prompt 1.2x faster than 1 and write
1.1x faster; with other work on both cores (load 4-5), 2 threads vary from 0.9x to 0.1x of one thread's writing
speed (benchmarks/local_model.py --speed). Hybrid CPUs' efficiency cores, which llama.cpp leaves out on x86
Linux, are counted here: the cap keeps that from mattering much.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

ThreadSetting = int | Literal["auto"]
# Writing tokens stops gaining from more threads around here (memory-bound; see the module docstring).
MAX_WRITING_THREADS = 8
# Where Linux says which logical CPUs share a core (hyper-threads): one line per CPU, the same for siblings.
SIBLINGS = "/sys/devices/system/cpu/cpu{}/topology/thread_siblings_list"


@dataclass(frozen=True)
class Threads:
    """The threads llama.cpp runs with: ``writing`` generates tokens, ``reading`` processes the prompt."""

    writing: int
    reading: int
    # How the count was chosen, for `rag doctor`: "set" or "auto: ...".
    why: str

    def describe(self) -> str:
        """'2 CPU threads', or '8 CPU threads writing, 16 reading the prompt'."""
        count = f"{self.writing} CPU thread{'s' if self.writing != 1 else ''}"
        return count if self.reading == self.writing else f"{count} writing, {self.reading} reading the prompt"


def usable_cpus() -> Collection[int]:
    """The logical CPUs this process may run on (its affinity), else all the machine has."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return os.sched_getaffinity(0)
        except OSError:
            pass
    return range(os.cpu_count() or 1)


def physical_cores(cpus: Collection[int]) -> int:
    """How many cores ``cpus`` are: hyper-threads of one core count once (what llama.cpp's default counts too).
    Where the machine does not say (not Linux), every CPU counts."""
    cores = set()
    for cpu in cpus:
        try:
            cores.add(Path(SIBLINGS.format(cpu)).read_text(encoding="ascii").strip())
        except (OSError, UnicodeDecodeError):
            return max(1, len(cpus))
    return max(1, len(cores))


def choose(setting: ThreadSetting) -> Threads:
    """The threads for ``setting``: a number as given (both phases), or ``auto`` from the machine."""
    if setting != "auto":
        return Threads(int(setting), int(setting), "set")
    allowed = usable_cpus()
    cores = physical_cores(allowed)
    writing = min(cores, MAX_WRITING_THREADS)
    where = f"{cores} core{'s' if cores != 1 else ''} this process may run on"
    if cores != len(allowed):
        where += f" ({len(allowed)} logical CPUs)"
    capped = f"; writing is memory-bound, so at most {MAX_WRITING_THREADS} write" if writing < cores else ""
    return Threads(writing, cores, f"auto: {where}{capped}")


def busy_hint(threads: Threads) -> str | None:
    """A hint when other work keeps the CPUs busy (the 1-minute load average): then threads wait on each other at
    every step, and fewer can be several times faster (measured here: 2 threads under load 4-5 on 2 cores wrote
    4-58 tokens/s against 37-52 for one). None when the machine is idle enough, or cannot tell."""
    if threads.writing <= 1 or not hasattr(os, "getloadavg"):
        return None
    try:
        load = os.getloadavg()[0]
    except OSError:
        return None
    count = len(usable_cpus())
    if load <= count:
        return None
    return (
        f"the machine is busy (load {load:.1f} on {count} CPUs): threads that wait for a CPU slow each other down; "
        "if answers are slow, try RAG_LLM_THREADS=1"
    )
