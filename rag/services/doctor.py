"""`rag doctor`: what is configured, what is reachable, what is missing, and how to fix it.

Read-only: it never downloads, writes, or takes the data directory's lock; an embedded
Chroma folder is read as files (rag.index.chroma_files), never opened.
"""

from __future__ import annotations

import os
from pathlib import Path

from rag.config import Settings
from rag.embed.choice import choose_embedder, chroma_cache_dir, vector_collection
from rag.embed.endpoint import ENDPOINT_MODEL_PREFIX
from rag.embed.onnx import model_files_dir
from rag.endpoints import OPENAI_BASE_URL
from rag.errors import InputError, StoreError
from rag.index.backend import Backend
from rag.index.layout import DataDir
from rag.index.lock import is_locked
from rag.index.units import unit_count
from rag.llm.cache import ResponseCache
from rag.redaction import mask
from rag.services.context import Context
from rag.services.results import DoctorReport, Status

# Seconds to wait for an endpoint or server to answer a health check.
PROBE_TIMEOUT = 5.0
# Endpoint model lists can be long; show this many.
SHOWN_MODELS = 8


def _data_dir(layout: DataDir, report: DoctorReport) -> None:
    folder = layout.root
    if not folder.exists():
        report.add("data dir", Status.INFO, f"{folder} (created on first use)")
        return
    if not folder.is_dir():
        report.add("data dir", Status.FAIL, f"{folder} is a file, not a folder", "set RAG_DATA_DIR to a folder")
        return
    if not os.access(folder, os.R_OK | os.X_OK):
        report.add(
            "data dir", Status.FAIL, f"{folder} cannot be read", "fix its permissions (chmod u+rx) or set RAG_DATA_DIR"
        )
        return
    detail = f"{folder}; libraries: {', '.join(layout.library_names()) or 'none yet'}"
    if not os.access(folder, os.W_OK):
        report.add("data dir", Status.FAIL, detail, "make it writable or set RAG_DATA_DIR to another folder")
        return
    busy = " (another rag process is using it right now)" if is_locked(layout.lock) else ""
    report.add("data dir", Status.OK, detail + busy)


def _collections(settings: Settings, backend: Backend, report: DoctorReport) -> None:
    if not backend.has_index:
        report.add("chroma", Status.INFO, f"{backend.where}: no vector index yet")
        return
    try:
        found = [info for info in backend.inspect() if info.vectors is not None]
    except Exception as exc:  # a damaged store or an unreachable server is itself the finding
        report.add("chroma", Status.FAIL, f"{backend.where}: {exc}", backend.repair_hint)
        return
    rows = [f"{info.name} ({info.vectors} vectors, {info.model or '?'})" for info in found]
    report.add("chroma", Status.OK, f"{backend.where}: {'; '.join(rows) or 'no collections'}")
    _missing_vectors(settings, backend, {info.name: info.vectors or 0 for info in found}, report)


def _vector_collection_name(settings: Settings) -> str:
    """The Chroma collection the configured library and embedding model use (without loading the model)."""
    model = f"{ENDPOINT_MODEL_PREFIX}{settings.embed_model}" if settings.embed_base_url else settings.embed_model
    return vector_collection(settings.collection, model)


def _missing_vectors(settings: Settings, backend: Backend, vectors: dict[str, int], report: DoctorReport) -> None:
    """Papers saved without their vectors (an interrupted ingest, or no model then): search misses them."""
    try:
        saved = backend.peek_catalog(settings.collection)
    except StoreError as exc:
        report.add("papers", Status.FAIL, str(exc), "restore it from papers.json.bak or re-ingest your files")
        return
    if saved is None:
        return  # the store itself holds the papers: each has its vector
    units = unit_count(saved.papers.values())
    stored = vectors.get(_vector_collection_name(settings), 0)
    if units and stored < units:
        report.add(
            "vectors",
            Status.WARN,
            f"library '{settings.collection}': {units - stored} of {units} papers and passages have no vector yet "
            "(an interrupted ingest, or no model then); search does not find them by meaning",
            "run `rag reindex` (or `rag ingest` on the same files again)",
        )


def _embeddings(settings: Settings, report: DoctorReport) -> None:
    if not settings.dense_enabled:
        report.add("embeddings", Status.INFO, "off (RAG_EMBED_MODEL=none): BM25 only")
        return
    if settings.embed_base_url:
        key = settings.embed_api_key.get_secret_value() if settings.embed_api_key else None
        _endpoint("embeddings", settings.embed_base_url, settings.embed_model, key, report)
        return
    if settings.embed_model_dir is not None:
        files = model_files_dir(settings.embed_model_dir)
        if files is None:
            report.add(
                "embeddings",
                Status.WARN,
                f"no model files in {settings.embed_model_dir}: lexical search only",
                "point RAG_EMBED_MODEL_DIR at the folder holding onnx/model.onnx and the tokenizer files",
            )
        else:
            report.add("embeddings", Status.OK, f"{settings.embed_model} loaded from {files}")
        return
    files = model_files_dir(chroma_cache_dir())
    if files is not None:
        report.add("embeddings", Status.OK, f"{settings.embed_model} cached in {files}")
    else:
        report.add(
            "embeddings",
            Status.WARN,
            f"{settings.embed_model} not cached; it is downloaded on first use (needs internet)",
            "offline: set RAG_EMBED_MODEL_DIR to a folder with the model files",
        )


def _endpoint(name: str, base_url: str, model: str | None, key: str | None, report: DoctorReport) -> None:
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=key or "not-needed", max_retries=0, timeout=PROBE_TIMEOUT)
    try:
        models = [m.id for m in client.models.list()]
    except openai.AuthenticationError:
        report.add(name, Status.FAIL, f"{base_url} rejected the key (401)", "check the API key setting")
        return
    except Exception as exc:
        report.add(
            name, Status.FAIL, f"{base_url} does not answer ({type(exc).__name__})", "start the server or fix the URL"
        )
        return
    listed = ", ".join(models[:SHOWN_MODELS]) + (" …" if len(models) > SHOWN_MODELS else "")
    if model and models and model not in models:
        report.add(name, Status.FAIL, f"{base_url} answers but has no '{model}' (has: {listed})", "pick one it has")
        return
    report.add(name, Status.OK, f"{base_url} answers; model '{model}'; serves: {listed or 'unlisted'}")


def _gguf(settings: Settings, gguf: Path, report: DoctorReport) -> None:
    """The GGUF file and the engine that would run it; never loads the model (doctor stays read-only and quick)."""
    from rag.llm import gguf as local

    if settings.llm_base_url:
        report.add(
            "llm",
            Status.FAIL,
            f"both RAG_LLM_GGUF ({gguf}) and RAG_LLM_BASE_URL ({settings.llm_base_url}) are set",
            "pick one: unset RAG_LLM_BASE_URL or RAG_LLM_GGUF",
        )
        return
    try:
        path = local.check_gguf(gguf)
    except InputError as exc:
        report.add("llm", Status.FAIL, str(exc), "point RAG_LLM_GGUF at a .gguf model file")
        return
    threads = f"{settings.llm_threads} thread{'s' if settings.llm_threads > 1 else ''}"
    detail = f"GGUF {path} ({local.size_mb(path):.0f} MB), run in-process by llama.cpp ({threads})"
    if not local.xllamacpp_available():
        report.add("llm", Status.FAIL, f"{detail}, but xllamacpp is not installed", local.INSTALL_HINT)
        return
    report.add("llm", Status.OK, f"{detail}; xllamacpp installed")


def _llm(settings: Settings, report: DoctorReport) -> None:
    if settings.llm_gguf is not None:
        _gguf(settings, settings.llm_gguf, report)
        report.add("keys", Status.INFO, "no key is sent: the model runs in this process")
        return
    base_url, key = settings.llm_credentials()
    openai_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if not settings.llm_enabled:
        report.add("llm", Status.INFO, "none configured: ask is extractive, summarize/draft give outlines")
    elif key is None and base_url is None:
        report.add(
            "llm", Status.FAIL, f"model '{settings.llm_model}' but no key", "set OPENAI_API_KEY or RAG_LLM_BASE_URL"
        )
    else:
        _endpoint("llm", base_url or OPENAI_BASE_URL, settings.llm_model, key, report)
    verb = "is" if settings.llm_enabled else "would be (once a model is configured)"
    sent = f"{mask(key)} {verb} sent to {base_url or OPENAI_BASE_URL}" if key else "no key is sent"
    if openai_key and base_url and key != openai_key:
        sent += "; OPENAI_API_KEY is set but never sent to a custom base URL"
    report.add("keys", Status.INFO, sent)


def diagnose(ctx: Context) -> DoctorReport:
    settings, backend = ctx.settings, ctx.storage()
    report = DoctorReport()
    _data_dir(backend.layout, report)
    _collections(settings, backend, report)
    try:
        choose_embedder(settings, download=None)  # read-only: never downloads, never writes a marker
    except Exception as exc:  # a bad setting is itself a finding
        report.add("embeddings", Status.FAIL, str(exc))
    else:
        _embeddings(settings, report)
        collection = _vector_collection_name(settings)
        report.add("collection", Status.INFO, f"library '{settings.collection}' uses Chroma collection '{collection}'")
    _llm(settings, report)
    entries, size = ResponseCache(backend.layout.llm_cache).size()
    report.add("cache", Status.INFO, f"{entries} cached model answers, {size / 1024:.0f} KiB")
    return report
