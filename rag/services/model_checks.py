"""`rag doctor`'s checks of the models: the embedding model's files or endpoint, the chat model's endpoint or
GGUF file, and which key goes where. Read-only: nothing is downloaded or loaded.
"""

from __future__ import annotations

from pathlib import Path

from rag.config import EmbedVariant, Settings
from rag.embed.builds import NEW_LIBRARY_VARIANT, int8_cache_dir
from rag.embed.choice import chroma_cache_dir
from rag.embed.onnx import model_files_dir
from rag.endpoints import OPENAI_BASE_URL
from rag.errors import InputError
from rag.redaction import mask
from rag.services.results import DoctorReport, Status

# Seconds to wait for an endpoint or server to answer a health check.
PROBE_TIMEOUT = 5.0
# Endpoint model lists can be long; show this many.
SHOWN_MODELS = 8
# Below this many parameters a model rarely writes a sentence its sources back (measured with SmolLM2-135M:
# benchmarks/local_model.py); from about 3B on, answers read as prose.
USABLE_PARAMETERS = 3e9
SMALL_MODEL_NOTE = "expect most answers to fall back to quotes; a 3B+ model writes usable prose"


def check_embeddings(settings: Settings, report: DoctorReport) -> None:
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
    detail = f"GGUF {path} ({local.size_mb(path):.0f} MB), run in-process by llama.cpp"
    if not local.xllamacpp_available():
        report.add("llm", Status.FAIL, f"{detail}, but xllamacpp is not installed", local.INSTALL_HINT)
        return
    report.add("llm", Status.OK, f"{detail}; xllamacpp installed")
    _threads(settings, report)
    _model_size(local.parameter_count(path), report)


def _threads(settings: Settings, report: DoctorReport) -> None:
    """How many CPU threads the model gets, why, and which setting said so (RAG_LLM_THREADS, or the default)."""
    from rag.config import setting_sources, source_of
    from rag.llm.threads import busy_hint, choose

    threads = choose(settings.llm_threads)
    source = source_of("llm_threads", setting_sources({}))
    why = f" ({threads.why})" if threads.why != "set" else ""
    origin = source if source.startswith(".") else f"the {source}"  # the default, the environment, .env (PATH)
    detail = f"{threads.describe()}{why}; RAG_LLM_THREADS={settings.llm_threads} from {origin}"
    report.add("threads", Status.INFO, detail, busy_hint(threads) or "")


def _model_size(parameters: float | None, report: DoctorReport) -> None:
    """Says when the configured model is small: its answers will mostly be quotes."""
    if parameters is None or parameters >= USABLE_PARAMETERS:
        return
    size = f"{parameters / 1e9:.1f}B" if parameters >= 1e9 else f"{parameters / 1e6:.0f}M"
    report.add("model size", Status.WARN, f"{size} parameters: {SMALL_MODEL_NOTE}")


def check_llm(settings: Settings, report: DoctorReport) -> None:
    if settings.llm_gguf is not None:
        _gguf(settings, settings.llm_gguf, report)
        report.add("keys", Status.INFO, "no key is sent: the model runs in this process")
        return
    base_url, key = settings.llm_credentials()
    openai_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if not settings.llm_enabled:
        report.add("llm", Status.INFO, "none configured: ask, summarize and draft are extractive")
    elif key is None and base_url is None:
        report.add(
            "llm", Status.FAIL, f"model '{settings.llm_model}' but no key", "set OPENAI_API_KEY or RAG_LLM_BASE_URL"
        )
    else:
        _endpoint("llm", base_url or OPENAI_BASE_URL, settings.llm_model, key, report)
        from rag.llm.gguf import parameters_in_name

        _model_size(parameters_in_name(settings.llm_model or ""), report)
    verb = "is" if settings.llm_enabled else "would be (once a model is configured)"
    sent = f"{mask(key)} {verb} sent to {base_url or OPENAI_BASE_URL}" if key else "no key is sent"
    if openai_key and base_url and key != openai_key:
        sent += "; OPENAI_API_KEY is set but never sent to a custom base URL"
    report.add("keys", Status.INFO, sent)
