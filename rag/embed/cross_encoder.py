"""A cross-encoder run with onnxruntime: each (passage, sentence) pair read together, one probability per
label. The citation check's judge (rag.check.judge) is one; this module knows ONNX and tokens, not what the
labels mean.

Each pair is read alone: an int8 model quantises its activations by the range of what it reads at once, so a
pair read beside others got other probabilities (up to 0.22 apart, 0.025 on average, over 40 SciFact pairs) and
a citation's verdict could depend on which others were read with it. Pairs alone are read on one-thread sessions
side by side (rag.embed.lanes), which is as fast as batches were. A pair already read is answered from memory,
since a check asks about the same sentence and passage more than once (an answer, then its streamed preview; a
manuscript's citation, then the same key elsewhere).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rag.embed.disk_cache import DiskVectors, text_key
from rag.embed.lanes import Lanes, lane_count
from rag.errors import ModelUnavailableError

if TYPE_CHECKING:
    import onnxruntime

Probabilities = npt.NDArray[np.float32]
# Pairs whose probabilities are kept for a second question about them.
REMEMBERED_PAIRS = 50_000
# Readings kept on disk (keep_on_disk): a few rows of 3 numbers each per citation, some 20 MB at most.
DISK_READINGS = 200_000


class CrossEncoder:
    """An ONNX cross-encoder (``model.onnx`` inputs input_ids, attention_mask, token_type_ids; output logits)
    and its ``tokenizer.json``, loaded on first use."""

    def __init__(self, model_file: Path, tokenizer_file: Path, max_tokens: int, threads: int | None = None) -> None:
        self.model_file = model_file
        self.tokenizer_file = tokenizer_file
        self.max_tokens = max_tokens
        self.threads = threads or lane_count()  # one-thread sessions read on side by side
        self._lanes: Lanes | None = None
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

    def _load(self) -> tuple[Lanes, Any]:
        if self._lanes is None:
            try:
                import onnxruntime
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self.tokenizer_file))
                # "longest_first": a sentence longer than the budget (a table row read as one) is cut too, not refused.
                tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
                tokenizer.no_padding()  # a pair read alone, without the padding its neighbours would give it
                options = onnxruntime.SessionOptions()
                options.log_severity_level = 3
                lanes = Lanes.open(self.model_file, options, self.threads)
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                raise ModelUnavailableError(
                    f"cannot load the citation check's judge from {self.model_file} ({type(exc).__name__}: {exc}); "
                    "reinstall rag, or set RAG_JUDGE=off to check with the rules and the fitted score alone"
                ) from None
            self._lanes, self._tokenizer = lanes, tokenizer
        return self._lanes, self._tokenizer

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
        lanes, tokenizer = self._load()

        def read(session: onnxruntime.InferenceSession, encoded: Any) -> Probabilities:
            feed = {
                "input_ids": np.array([encoded.ids], dtype=np.int64),
                "attention_mask": np.array([encoded.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([encoded.type_ids], dtype=np.int64),
            }
            logits = np.asarray(session.run(["logits"], feed)[0][0], dtype=np.float32)
            shifted = np.exp(logits - logits.max())
            row: Probabilities = shifted / shifted.sum()
            return row

        return np.stack(list(lanes.map(read, tokenizer.encode_batch(list(pairs)))))


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
