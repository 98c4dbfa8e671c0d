"""Sessions of one ONNX model side by side, each on one thread, one per core.

On 2 cores two one-thread sessions do more than one session on both: 8.8 ms an abstract embedded one at a time
instead of 11.2 (int8), and a judge's pairs read one at a time likewise. A text or a pair run alone gets the same
numbers on one thread as on two, so the lanes change how fast, never what comes out.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import onnxruntime

Item = TypeVar("Item")
Result = TypeVar("Result")
Work = Callable[["onnxruntime.InferenceSession", Item], Result]
# Lanes at most, however many cores: past a few, each lane's memory buys little.
MAX_LANES = 4


def lane_count() -> int:
    """Lanes for this machine: one per core, at most MAX_LANES."""
    return min(os.cpu_count() or 1, MAX_LANES)


class Lanes:
    """One-thread sessions of one model; ``map`` runs work on whichever is free, results in order."""

    def __init__(self, sessions: Sequence[onnxruntime.InferenceSession]) -> None:
        self.count = len(sessions)
        self._free: queue.SimpleQueue[onnxruntime.InferenceSession] = queue.SimpleQueue()
        for session in sessions:
            self._free.put(session)
        self._pool = (
            ThreadPoolExecutor(max_workers=self.count, thread_name_prefix="rag-onnx") if self.count > 1 else None
        )

    @classmethod
    def open(cls, model_file: Path, options: onnxruntime.SessionOptions, count: int) -> Lanes:
        """``count`` sessions of ``model_file``, each with ``options`` on one thread."""
        import onnxruntime

        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        return cls(
            [
                onnxruntime.InferenceSession(str(model_file), sess_options=options, providers=["CPUExecutionProvider"])
                for _ in range(max(count, 1))
            ]
        )

    def map(self, work: Work[Item, Result], items: Sequence[Item]) -> Iterator[Result]:
        """``work(session, item)`` for each item, in the items' order."""

        def on_a_free_lane(item: Item) -> Result:
            session = self._free.get()
            try:
                return work(session, item)
            finally:
                self._free.put(session)

        if self._pool is None or len(items) < 2:
            return map(on_a_free_lane, items)
        return self._pool.map(on_a_free_lane, items)
