"""`rag doctor`: what is configured, what is reachable, what is missing, and how to fix it.

Read-only: it never downloads, writes, or takes the data directory's lock; an embedded
Chroma folder is read as files (rag.index.chroma_files), never opened.
"""

from __future__ import annotations

import os

from rag.check.judge import judge_files
from rag.config import EmbedVariant, Settings
from rag.embed.builds import NEW_LIBRARY_VARIANT, variant_of
from rag.embed.choice import choose_embedder, vector_collection
from rag.embed.endpoint import ENDPOINT_MODEL_PREFIX
from rag.errors import StoreError
from rag.index.backend import Backend
from rag.index.layout import DataDir
from rag.index.lock import is_locked
from rag.index.units import unit_count
from rag.llm.cache import ResponseCache
from rag.services.context import Context
from rag.services.model_checks import check_embeddings, check_llm
from rag.services.results import DoctorReport, Status


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
    built_with = next((info.model for info in found if info.name == _vector_collection_name(settings)), None)
    _library_build(settings, built_with, report)


def _library_build(settings: Settings, built_with: str | None, report: DoctorReport) -> None:
    """Which build of the local model made the configured library's vectors, and whether it is the one asked for."""
    if built_with is None or settings.embed_base_url or not settings.dense_enabled:
        return
    built = variant_of(built_with)
    library = f"library '{settings.collection}'"
    if built is None:
        return  # another model altogether: the store refuses it with its own message
    if settings.embed_variant is EmbedVariant.AUTO:
        if built is not NEW_LIBRARY_VARIANT:
            report.add(
                "variant",
                Status.INFO,
                f"{library} keeps its {built.value} vectors ({built_with}); "
                f"new libraries get {NEW_LIBRARY_VARIANT.value}",
                f"`rag reindex` embeds it again with {NEW_LIBRARY_VARIANT.value}",
            )
        return
    if built is not settings.embed_variant:
        report.add(
            "variant",
            Status.WARN,
            f"{library} has {built.value} vectors ({built_with}) but RAG_EMBED_VARIANT={settings.embed_variant.value}: "
            "commands refuse to mix them",
            f"run `rag reindex` to embed it again with {settings.embed_variant.value}, or set RAG_EMBED_VARIANT=auto",
        )


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


def _judge(settings: Settings, report: DoctorReport) -> None:
    """The citation check's judge: on, off by the setting, or missing from the install."""
    files = judge_files()
    if not settings.judge:
        report.add("citation judge", Status.INFO, "off (RAG_JUDGE=false): the fitted score and the rules alone")
    elif all(f.is_file() for f in files):
        size = files[0].stat().st_size / 2**20
        report.add("citation judge", Status.OK, f"on: a cross-encoder, int8 ONNX, {size:.0f} MB ({files[0].parent})")
    else:
        missing = ", ".join(f.name for f in files if not f.is_file())
        report.add("citation judge", Status.WARN, f"missing {missing}: reinstall rag (the check reads without it)")


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
        check_embeddings(settings, report)
        collection = _vector_collection_name(settings)
        report.add("collection", Status.INFO, f"library '{settings.collection}' uses Chroma collection '{collection}'")
    _judge(settings, report)
    check_llm(settings, report)
    entries, size = ResponseCache(backend.layout.llm_cache).size()
    report.add("cache", Status.INFO, f"{entries} cached model answers, {size / 1024:.0f} KiB")
    return report
