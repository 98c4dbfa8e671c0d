"""Builds of the local all-MiniLM-L6-v2: the user's own fp32 ONNX file, or int8 weights made from it.

The int8 build is onnxruntime's dynamic quantisation of that same file (weights stored as
int8 per output channel, activations quantised batch by batch as it runs), run one text per
batch on the first 192 tokens. Measured on SciFact train (benchmarks/embedding_variants.py,
one interleaved run): 66.9 vs 24.5 abstracts/s for fp32 (2.72x), hybrid nDCG@10 0.7327 vs
0.7356, recall@100 0.9466 vs 0.9454, cosine to the fp32 vectors 0.972 on average. Per-tensor
weights moved the vectors more (cosine 0.937 at 256 tokens, dense nDCG@10 -0.017 against
-0.003 per channel); static QDQ lost ranking (-0.086) and was slower than fp32.
It is made once, on first use, into rag's cache folder (``int8_cache_dir``), never downloaded;
the model folder is only read, so a read-only one works. A build's name tags the vectors it
makes (rag.index.chroma.EMBED_MODEL_KEY): vectors of two builds never mix in one library.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from platformdirs import user_cache_dir

from rag.config import APP_NAME, DEFAULT_EMBED_MODEL, EmbedVariant
from rag.errors import ModelUnavailableError

# "all-MiniLM-L6-v2+int8": the model, then the build. The fp32 build keeps the bare name, which libraries
# built before there were builds carry.
BUILD_SEPARATOR = "+"
MODELS_SUBDIR = "models"
# How the int8 weights are made: part of the build's folder name, so another recipe never reuses a file.
INT8_RECIPE = "dynamic-per-channel"
# Texts per batch for the int8 build: activations are quantised by each batch's range, so one text alone gets
# the same vector whatever it is ingested with (and this was fastest: 45.2/s vs 35.0/s in batches of 8).
INT8_BATCH_SIZE = 1
# Tokens the int8 build reads of each text (fp32: 256, sentence-transformers' limit for this model, which was
# trained on 128). 192 with int8: 66.9 abstracts/s, 2.72x fp32's 24.5, hybrid nDCG@10 -0.0030 and recall@100
# +0.0012 on SciFact train; at 256 tokens int8 is 2.01x (+0.0007); 128 tokens lose 0.006-0.010.
INT8_MAX_TOKENS = 192
# Hex digits of the source file's identity that name its int8 build's folder.
SOURCE_KEY_CHARS = 16
# Where RAG_EMBED_VARIANT=auto puts a new library (and `rag reindex`): int8, the fastest build within 0.005
# nDCG@10 of fp32 on SciFact (2.72x; libraries made before keep their fp32 vectors).
NEW_LIBRARY_VARIANT = EmbedVariant.INT8


def build_name(variant: EmbedVariant) -> str:
    """The name vectors of this build are tagged with."""
    if variant is EmbedVariant.INT8:
        return f"{DEFAULT_EMBED_MODEL}{BUILD_SEPARATOR}{variant.value}"
    return DEFAULT_EMBED_MODEL


def variant_of(name: str) -> EmbedVariant | None:
    """The local build a vector tag names, or None for another model (an endpoint's, or unknown)."""
    for variant in (EmbedVariant.FP32, EmbedVariant.INT8):
        if name == build_name(variant):
            return variant
    return None


def is_local_build(name: str) -> bool:
    """Whether ``name`` tags vectors of one of the local model's builds (they share one Chroma collection)."""
    return variant_of(name) is not None


def int8_cache_dir() -> Path:
    """rag's own cache folder for models it makes (read at each call: HOME and XDG_CACHE_HOME may change)."""
    return Path(user_cache_dir(APP_NAME, appauthor=False)) / MODELS_SUBDIR


def _source_key(source: Path) -> str:
    """Names the fp32 file (path, size, modification time) without reading 90 MB on every command."""
    stat = source.stat()
    identity = f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    return hashlib.sha256(identity.encode()).hexdigest()[:SOURCE_KEY_CHARS]


def int8_model(source: Path, cache_dir: Path | None = None) -> Path:
    """The int8 build of the fp32 ``source`` file, made once into ``cache_dir`` (default ``int8_cache_dir()``).

    Another process making it at the same moment is harmless: each writes its own temporary
    file and renames it into place. Where the cache cannot be written, the build is made in
    a temporary folder for this process only.
    """
    folder = (cache_dir or int8_cache_dir()) / f"{build_name(EmbedVariant.INT8)}-{INT8_RECIPE}-{_source_key(source)}"
    target = folder / "model.onnx"
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _quantize(source, folder, target)
    except OSError:
        scratch = Path(tempfile.mkdtemp(prefix="rag-int8-"))
        target = scratch / "model.onnx"
        _quantize(source, scratch, target)
    return target


def _quantize(source: Path, folder: Path, target: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # onnxruntime's quantiser needs the onnx package
        raise ModelUnavailableError(
            f"cannot make the int8 embedding model ({exc}); `pip install onnx`, or set RAG_EMBED_VARIANT=fp32"
        ) from None
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".model-", suffix=".onnx.tmp")
    os.close(handle)
    try:
        quantize_dynamic(Path(source), Path(temporary), weight_type=QuantType.QInt8, per_channel=True)
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
