"""Embedding variants of all-MiniLM-L6-v2 on SciFact: speed, and what each costs in ranking.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/embedding_variants.py [--sample N]

One run, one table. Speed (abstracts/s) is timed on a fixed random sample of SciFact
abstracts fed as ingest feeds them (calls of SYNC_CHUNK texts), every variant once per
round, rounds interleaved so that all see the same machine load; the median is shown
with the load averages. Ranking is measured with each variant's own vectors of all
5,183 abstracts and of the train queries: hybrid nDCG@10 and recall@100 with rag's
fusion (rag.index.hybrid, dense weight from settings, one BM25 index for all), dense
nDCG@10 beside it, and the cosine of each variant's vectors to fp32's.

Variants: fp32 as rag runs it today; dynamic int8 (onnxruntime.quantization.quantize_dynamic,
per tensor and per channel, and after onnxruntime's BERT fusions); static QDQ int8
calibrated on a few hundred abstracts that no train query is labelled with; batch sizes;
how many texts are length-sorted together; maximum sequence length; intra-op and
inter-op threads; graph optimisation level, and the optimised graph saved and reloaded.
Models made here go under benchmarks/.cache/embedding-variants (git-ignored), as do
the vectors (reused by reruns: delete the folder after changing a model).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from retrieval import RANK_DEPTH, SHARED, scifact_data

from rag.config import Settings
from rag.embed.onnx import EMBED_BATCH_SIZE, MAX_TOKENS, OnnxMiniLM, model_files_dir
from rag.evaluation.metrics import LabelledQuestion, evaluate
from rag.index.bm25 import LexicalIndex
from rag.index.hybrid import HybridRetriever, LocalUnits
from rag.index.session import SYNC_CHUNK
from rag.records import Paper

CACHE = Path(__file__).resolve().parent / ".cache" / "embedding-variants"
SAMPLE = 320
ROUNDS = 3
CALIBRATION_TEXTS = 300
CALIBRATION_BATCH = 8
SEED = 0
# all-MiniLM-L6-v2's shape, for onnxruntime's BERT fusions.
HEADS = 12
HIDDEN = 384
LEVELS = ("disable", "basic", "extended", "all")


@dataclass(frozen=True)
class Variant:
    """One way of running the model. ``model`` names an ONNX file (see ``make_models``)."""

    label: str
    model: str = "fp32"
    max_tokens: int = MAX_TOKENS
    batch: int = EMBED_BATCH_SIZE
    intra: int = os.cpu_count() or 1
    inter: int = 1  # above 1: onnxruntime's parallel execution mode
    level: str = "all"
    chunk: int | None = SYNC_CHUNK  # texts per embed call, as ingest sends them; None: all at once
    workers: int = 1  # Python threads running batches on one session (each with ``intra`` threads)

    @property
    def vectors_key(self) -> tuple[str, int, int]:
        """What decides the vectors (the rest only decides the speed). Dynamic int8 quantises each batch's
        activations by that batch's range, so its vectors also depend on the batch size (0: any)."""
        model = self.model.removesuffix("-saved")
        return model, self.max_tokens, self.batch if model.startswith("int8-dyn") else 0


class VariantEmbedder(OnnxMiniLM):
    """rag's runner (tokenizer, length-sorted batches, pooling) with one variant's session and threads."""

    def __init__(self, files: Path, model_file: Path, variant: Variant) -> None:
        super().__init__(files, variant.batch, model_file=lambda: model_file, max_tokens=variant.max_tokens)
        self.variant = variant

    def session_options(self) -> Any:
        import onnxruntime

        options = super().session_options()
        options.intra_op_num_threads = self.variant.intra
        options.inter_op_num_threads = self.variant.inter
        if self.variant.inter > 1:
            options.execution_mode = onnxruntime.ExecutionMode.ORT_PARALLEL
        levels = onnxruntime.GraphOptimizationLevel
        options.graph_optimization_level = {
            "disable": levels.ORT_DISABLE_ALL,
            "basic": levels.ORT_ENABLE_BASIC,
            "extended": levels.ORT_ENABLE_EXTENDED,
            "all": levels.ORT_ENABLE_ALL,
        }[self.variant.level]
        return options

    def embed_calls(self, texts: Sequence[str]) -> np.ndarray:
        """The texts embedded as ingest sends them: ``chunk`` at a time."""
        step = self.variant.chunk or max(1, len(texts))
        parts = [self._embed(texts[i : i + step]) for i in range(0, len(texts), step)]
        return np.vstack(parts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.variant.workers == 1:
            return self.embed(texts)
        session, tokenizer = self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]

        def run(batch: list[int]) -> np.ndarray:
            encoded = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            return self.run_batch(session, ids, mask)

        out = np.zeros((len(texts), 384), dtype=np.float32)
        with ThreadPoolExecutor(self.variant.workers) as pool:
            for batch, vectors in zip(batches, pool.map(run, batches), strict=True):
                out[batch] = vectors
        return out


def calibration_batches(files: Path, texts: Sequence[str]) -> Iterator[dict[str, np.ndarray]]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(files / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    ordered = sorted(texts, key=len)
    for start in range(0, len(ordered), CALIBRATION_BATCH):
        encoded = tokenizer.encode_batch(ordered[start : start + CALIBRATION_BATCH])
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        yield {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def make_models(files: Path, calibration: Sequence[str]) -> dict[str, Path]:
    """Each variant's ONNX file, made once into CACHE from the user's fp32 model."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from onnxruntime.transformers.optimizer import optimize_model

    CACHE.mkdir(parents=True, exist_ok=True)
    source = files / "model.onnx"
    models = {"fp32": source}

    def made(name: str, build: Callable[[Path], None]) -> None:
        path = CACHE / f"{name}.onnx"
        if not path.exists():
            started = time.perf_counter()
            build(path)
            print(f"made {name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        models[name] = path

    made("int8-dyn", lambda out: quantize_dynamic(source, out, weight_type=QuantType.QInt8))
    made("int8-dyn-pc", lambda out: quantize_dynamic(source, out, weight_type=QuantType.QInt8, per_channel=True))

    def fused(out: Path) -> None:
        optimize_model(
            str(source), model_type="bert", num_heads=HEADS, hidden_size=HIDDEN, opt_level=0
        ).save_model_to_file(str(out))

    made("fp32-fused", fused)
    # Fused ops (Attention, SkipLayerNormalization) carry no type the quantizer can infer: name it.
    float_default = {"DefaultTensorType": 1}  # onnx.TensorProto.FLOAT
    made("int8-fused", lambda out: quantize_dynamic(models["fp32-fused"], out, extra_options=float_default))
    made(
        "int8-fused-pc",
        lambda out: quantize_dynamic(models["fp32-fused"], out, per_channel=True, extra_options=float_default),
    )

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.batches = calibration_batches(files, calibration)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    def static(out: Path) -> None:
        prepared = CACHE / "fp32-preprocessed.onnx"
        with contextlib.chdir(CACHE):  # the pre-processing leaves scratch files in the working folder
            quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            prepared, out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True, weight_type=QuantType.QInt8
        )

    made("int8-qdq", static)

    def saved(out: Path) -> None:  # onnxruntime's own optimised graph, written once and loaded without optimising
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.optimized_model_filepath = str(out)
        onnxruntime.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])

    made("fp32-saved", saved)
    made("int8-dyn-saved", lambda out: _save_optimised(models["int8-dyn"], out))
    return models


def _save_optimised(model: Path, out: Path) -> None:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = str(out)
    onnxruntime.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


def variants() -> list[Variant]:
    today = Variant("fp32 today (b8, 256 tok, 2 thr, ALL)")
    rows = [today]
    rows += [replace(today, label=f"fp32 graph {level}", level=level) for level in ("disable", "basic", "extended")]
    rows.append(replace(today, label="fp32 saved ALL graph, loaded unoptimised", model="fp32-saved", level="disable"))
    rows.append(replace(today, label="fp32 ORT BERT fusions (transformers.optimizer)", model="fp32-fused"))
    rows.append(replace(today, label="fp32 intra 1", intra=1))
    rows.append(replace(today, label="fp32 intra 2 inter 2 (parallel)", inter=2))
    rows.append(replace(today, label="fp32 2 workers x intra 1", intra=1, workers=2))
    rows += [replace(today, label=f"fp32 batch {b}", batch=b) for b in (1, 4, 16, 32)]
    rows.append(replace(today, label="fp32 sorted over 256 texts", chunk=256))
    rows.append(replace(today, label="fp32 sorted over all texts", chunk=None))
    rows += [replace(today, label=f"fp32 {n} tokens", max_tokens=n) for n in (192, 128)]
    for model in ("int8-dyn", "int8-dyn-pc", "int8-fused", "int8-fused-pc", "int8-qdq"):
        rows.append(replace(today, label=model, model=model))
    int8 = replace(today, model="int8-dyn")
    rows.append(replace(int8, label="int8-dyn saved ALL graph", model="int8-dyn-saved", level="disable"))
    rows += [replace(int8, label=f"int8-dyn batch {b}", batch=b) for b in (1, 4)]
    rows.append(replace(int8, label="int8-dyn 2 workers x intra 1", intra=1, workers=2))
    per_channel = replace(today, model="int8-dyn-pc")
    rows += [replace(per_channel, label=f"int8-dyn-pc batch {b}", batch=b) for b in (1, 4)]
    rows.append(replace(per_channel, label="int8-dyn-pc 2 workers x intra 1", intra=1, workers=2))
    rows.append(replace(per_channel, label="int8-dyn-pc batch 1 192 tokens", batch=1, max_tokens=192))
    rows += [replace(int8, label=f"int8-dyn {n} tokens", max_tokens=n) for n in (192, 128)]
    rows.append(replace(int8, label="int8-dyn-pc 128 tokens", model="int8-dyn-pc", max_tokens=128))
    rows.append(replace(int8, label="int8-fused 128 tokens", model="int8-fused", max_tokens=128))
    rows.append(replace(int8, label="int8-dyn 128 tokens batch 4", max_tokens=128, batch=4))
    return rows


def timed(variant: Variant, files: Path, model: Path, texts: Sequence[str]) -> tuple[float, float]:
    """(seconds to load the session, abstracts/s)."""
    embedder = VariantEmbedder(files, model, variant)
    started = time.perf_counter()
    embedder._load()
    loaded = time.perf_counter() - started
    embedder.embed(texts[:2])
    started = time.perf_counter()
    embedder.embed_calls(texts)
    return loaded, len(texts) / (time.perf_counter() - started)


@dataclass
class Quality:
    ndcg: float
    recall: float
    dense_ndcg: float
    cosine_mean: float
    cosine_min: float


def vectors_of(key: tuple[str, int, int], files: Path, models: dict[str, Path], texts: Sequence[str], what: str) -> Any:
    model, max_tokens, batch = key
    batched = f"-b{batch}" if batch not in (0, EMBED_BATCH_SIZE) else ""  # batch 8: the files made before
    path = CACHE / f"vectors-{what}-{model}-{max_tokens}{batched}-{len(texts)}.npy"
    if path.exists():
        return np.load(path)
    variant = Variant(model, model=model, max_tokens=max_tokens, chunk=None, batch=batch or EMBED_BATCH_SIZE)
    started = time.perf_counter()
    vectors = VariantEmbedder(files, models[model], variant).embed(texts)
    print(f"{what} vectors {model}/{max_tokens}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    np.save(path, vectors)
    return vectors


def quality(
    papers: list[Paper], questions: list[LabelledQuestion], docs: Any, queries: Any, reference: Any, lexical: Any
) -> Quality:
    settings = Settings()
    ids = [p.id for p in papers]
    query_row = {q.question: i for i, q in enumerate(questions)}

    def dense(query: str, n: int) -> list[tuple[str, float]]:
        sims = docs @ queries[query_row[query]]
        top = np.argsort(-sims)[:n]
        return [(ids[i], float(sims[i])) for i in top]

    retriever = HybridRetriever(LocalUnits.of(papers), dense, settings.dense_weight, settings.fusion_depth, lexical)
    hybrid = evaluate(questions, lambda q: [h.paper.id for h in retriever.search(q, RANK_DEPTH)])
    dense_only = evaluate(questions, lambda q: [pid for pid, _ in dense(q, RANK_DEPTH)])
    cosines = (docs * reference).sum(axis=1)
    return Quality(
        hybrid.metrics["ndcg@10"],
        hybrid.metrics["recall@100"],
        dense_only.metrics["ndcg@10"],
        float(cosines.mean()),
        float(cosines.min()),
    )


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=SAMPLE, help="abstracts timed per variant and round")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--scifact", type=Path, default=SHARED / "eval" / "scifact", help="the BEIR SciFact folder")
    parser.add_argument("--only", nargs="*", default=[], help="variants whose label contains one of these words")
    parser.add_argument("--exact", action="store_true", help="--only names whole labels")
    args = parser.parse_args()
    files = model_files_dir(Settings().embed_model_dir or Path("/nonexistent"))
    if files is None:
        raise SystemExit("set RAG_EMBED_MODEL_DIR to the all-MiniLM-L6-v2 folder")
    papers, questions = scifact_data(None, args.scifact)
    texts = [p.searchable_text() for p in papers]
    labelled = {doc for q in questions for doc in q.relevant}
    rng = random.Random(SEED)
    calibration = rng.sample([t for p, t in zip(papers, texts, strict=True) if p.id not in labelled], CALIBRATION_TEXTS)
    sample = rng.sample(texts, args.sample)
    models = make_models(files, calibration)

    def chosen(label: str) -> bool:
        return not args.only or any(word == label if args.exact else word in label for word in args.only)

    rows = [v for v in variants() if chosen(v.label)]

    print(f"load averages before timing (1/5/15 min): {load()}")
    speeds: dict[str, list[float]] = {v.label: [] for v in rows}
    loads: dict[str, list[float]] = {v.label: [] for v in rows}
    for round_no in range(args.rounds):
        for variant in rows:
            loaded, rate = timed(variant, files, models[variant.model], sample)
            speeds[variant.label].append(rate)
            loads[variant.label].append(loaded)
        print(f"round {round_no + 1}/{args.rounds} done; load averages {load()}", file=sys.stderr)
    print(f"load averages after timing: {load()}")

    lexical = LexicalIndex.build(LocalUnits.of(papers).texts())
    reference = vectors_of(("fp32", MAX_TOKENS, 0), files, models, texts, "docs")
    judged: dict[tuple[str, int], Quality] = {}
    for key in dict.fromkeys(v.vectors_key for v in rows):
        docs = vectors_of(key, files, models, texts, "docs")
        queries = vectors_of(key, files, models, [q.question for q in questions], "queries")
        judged[key] = quality(papers, questions, docs, queries, reference, lexical)
    print(f"load averages at the end: {load()}")

    base = statistics.median(speeds[rows[0].label])
    print(f"\nSciFact train: {len(questions)} queries, {len(papers)} abstracts; speed on {args.sample} abstracts")
    print(f"in calls of {SYNC_CHUNK} (ingest's chunk), median of {args.rounds} interleaved rounds")
    columns = "abstracts/s | x today | load s | hybrid nDCG@10 | Δ | recall@100 | dense nDCG@10 | cos mean | cos min"
    print(f"| variant | {columns} |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ref = judged[rows[0].vectors_key]
    for variant in rows:
        speed = statistics.median(speeds[variant.label])
        q = judged[variant.vectors_key]
        print(
            f"| {variant.label} | {speed:.1f} | {speed / base:.2f}x | {statistics.median(loads[variant.label]):.2f} "
            f"| {q.ndcg:.4f} | {q.ndcg - ref.ndcg:+.4f} | {q.recall:.4f} | {q.dense_ndcg:.4f} "
            f"| {q.cosine_mean:.4f} | {q.cosine_min:.4f} |"
        )


if __name__ == "__main__":
    main()
