"""A cross-encoder run with onnxruntime: each (passage, sentence) pair read together, one probability per
label. The citation check's judge (rag.check.judge) is one; this module knows ONNX and tokens, not what the
labels mean.

Pairs are sorted by length and padded per batch; a pair already read is answered from memory, since a check
asks about the same sentence and passage more than once (an answer, then its streamed preview; a manuscript's
citation, then the same key elsewhere).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rag.embed.disk_cache import DiskVectors, text_key
from rag.errors import ModelUnavailableError

if TYPE_CHECKING:
    import onnxruntime

Probabilities = npt.NDArray[np.float32]
# Pairs read per run: small batches measured fastest on 2 cores, as for the embedder.
PAIR_BATCH_SIZE = 16
# Pairs whose probabilities are kept for a second question about them.
REMEMBERED_PAIRS = 50_000
# Readings kept on disk (keep_on_disk): a few rows of 3 numbers each per citation, some 20 MB at most.
DISK_READINGS = 200_000
# Threads the judge runs on: the machine's cores, as the embedder (a thesis's check is mostly the judge's
# reading: 40 s on one thread, 37 s on two, for 787 citations on two busy cores), at most this many.
MAX_JUDGE_THREADS = 4
JUDGE_THREADS = min(os.cpu_count() or 1, MAX_JUDGE_THREADS)


class CrossEncoder:
    """An ONNX cross-encoder (``model.onnx`` inputs input_ids, attention_mask, token_type_ids; output logits)
    and its ``tokenizer.json``, loaded on first use."""

    def __init__(self, model_file: Path, tokenizer_file: Path, max_tokens: int, threads: int = JUDGE_THREADS) -> None:
        self.model_file = model_file
        self.tokenizer_file = tokenizer_file
        self.max_tokens = max_tokens
        self.threads = threads
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Any = None
        self._memory: OrderedDict[tuple[str, str], Probabilities] = OrderedDict()
        self._disk: DiskVectors | None = None
        self._model_id = ""

    def keep_on_disk(self, path: Path) -> None:
        """Keep what is read in ``path`` (SQLite) too: a check run again reads only new pairs. The model's own
        hash is part of each key, so a retrained judge never answers from an older one's readings."""
        if self._disk is None or self._disk.path != path:
            self._disk = DiskVectors(path, DISK_READINGS)
            self._model_id = _file_hash(self.model_file)

    def _load(self) -> tuple[onnxruntime.InferenceSession, Any]:
        if self._session is None:
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self.tokenizer_file))
                # "longest_first": a sentence longer than the budget (a table row read as one) is cut too, not refused.
                tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                options = onnxruntime.SessionOptions()
                options.log_severity_level = 3
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                session = onnxruntime.InferenceSession(
                    str(self.model_file), sess_options=options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                raise ModelUnavailableError(
                    f"cannot load the citation check's judge from {self.model_file} ({type(exc).__name__}: {exc}); "
                    "reinstall rag, or set RAG_JUDGE=off to check with the rules and the fitted score alone"
                ) from None
            self._session, self._tokenizer = session, tokenizer
        return self._session, self._tokenizer

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> Probabilities:
        """One row of label probabilities per (passage, sentence) pair, in order."""
        out = np.zeros((len(pairs), 0), dtype=np.float32)
        missing = list(dict.fromkeys(pair for pair in pairs if pair not in self._memory))
        keys = {pair: text_key(self._model_id, *pair) for pair in missing} if self._disk is not None else {}
        if missing and self._disk is not None:
            kept = self._disk.read(list(keys.values()))
            for pair, key in keys.items():
                if key in kept:
                    self._remember(pair, kept[key])
            missing = [pair for pair in missing if keys[pair] not in kept]
        if missing:
            fresh = self._run(missing)
            for pair, row in zip(missing, fresh, strict=True):
                self._remember(pair, row)
            if self._disk is not None:
                self._disk.write([(keys[pair], row) for pair, row in zip(missing, fresh, strict=True)])
        if pairs:
            out = np.stack([self._memory[pair] for pair in pairs])
        return out

    def _remember(self, pair: tuple[str, str], row: Probabilities) -> None:
        self._memory[pair] = row
        if len(self._memory) > REMEMBERED_PAIRS:
            self._memory.popitem(last=False)

    def _run(self, pairs: Sequence[tuple[str, str]]) -> Probabilities:
        session, tokenizer = self._load()
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        rows: list[Probabilities] = [np.zeros(0, dtype=np.float32)] * len(pairs)
        for start in range(0, len(order), PAIR_BATCH_SIZE):
            batch = order[start : start + PAIR_BATCH_SIZE]
            encoded = tokenizer.encode_batch([pairs[i] for i in batch])
            feed = {
                "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
            }
            logits = np.asarray(session.run(["logits"], feed)[0], dtype=np.float32)
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            for i, row in zip(batch, shifted / shifted.sum(axis=1, keepdims=True), strict=True):
                rows[i] = row
        return np.stack(rows)


def _file_hash(path: Path) -> str:
    """The model file's SHA-256 (``""`` when it cannot be read: loading it then fails with a clear error)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return ""
    return digest.hexdigest()
