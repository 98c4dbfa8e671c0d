"""`rag doctor`'s checks of the models: the embedding model's files or endpoint, and what the chat model's
provider says of it (rag.llm.providers: its endpoint or GGUF file, threads, which key goes where). Read-only:
nothing is downloaded or loaded.
"""

from __future__ import annotations

from rag.config import EmbedVariant, Settings
from rag.embed.builds import NEW_LIBRARY_VARIANT, int8_cache_dir
from rag.embed.choice import chroma_cache_dir
from rag.embed.onnx import model_files_dir
from rag.endpoints import Level, ProbeLine, endpoint_lines
from rag.llm.providers import provider_for
from rag.services.results import DoctorReport, Status

# How a probe's finding shows in the report.
_STATUS = {Level.OK: Status.OK, Level.INFO: Status.INFO, Level.WARN: Status.WARN, Level.FAIL: Status.FAIL}


def check_embeddings(settings: Settings, report: DoctorReport) -> None:
    if not settings.dense_enabled:
        report.add("embeddings", Status.INFO, "off (RAG_EMBED_MODEL=none): BM25 only")
        return
    if settings.embed_base_url:
        key = settings.embed_api_key.get_secret_value() if settings.embed_api_key else None
        _add(report, endpoint_lines("embeddings", settings.embed_base_url, settings.embed_model, key))
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
            report.add("embeddings", Status.OK, f"{settings.embed_model} loaded from {files}; {_variant(settings)}")
        return
    files = model_files_dir(chroma_cache_dir())
    if files is not None:
        report.add("embeddings", Status.OK, f"{settings.embed_model} cached in {files}; {_variant(settings)}")
    else:
        report.add(
            "embeddings",
            Status.WARN,
            f"{settings.embed_model} not cached; it is downloaded on first use (needs internet)",
            "offline: set RAG_EMBED_MODEL_DIR to a folder with the model files",
        )


def _variant(settings: Settings) -> str:
    """RAG_EMBED_VARIANT in words: the build that embeds, and where an int8 build is made."""
    variant = settings.embed_variant
    made = f"int8 made once from it into {int8_cache_dir()}"
    if variant is EmbedVariant.AUTO:
        return f"variant auto (each library keeps the build of its vectors; new ones {NEW_LIBRARY_VARIANT.value})"
    return f"variant {variant.value}" + (f" ({made})" if variant is EmbedVariant.INT8 else "")


def _add(report: DoctorReport, lines: list[ProbeLine]) -> None:
    for line in lines:
        report.add(line.name, _STATUS[line.level], line.detail, line.hint)


def check_llm(settings: Settings, report: DoctorReport) -> None:
    """What the configured chat model's provider says of it (rag.llm.providers): read-only, nothing loaded."""
    _add(report, provider_for(settings).probe(settings))
