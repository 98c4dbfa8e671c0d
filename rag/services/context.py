"""What a command runs with: its settings, how it reports, and the external services it uses.

The seams (embedder, chat model, Chroma client) are given here or built from the
settings here, in one place; the layers below receive them and never build their
own. Tests pass fakes that keep meaning (an embedder that still ranks similar text
closer, a chat model that answers like a model) instead of patching modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rag.config import Settings
from rag.embed.choice import EmbedderChoice, choose_embedder
from rag.errors import InputError
from rag.index.session import LibrarySession, open_library
from rag.llm.types import ChatModel
from rag.records import Notify, ProgressFn, silent
from rag.services.requests import WritingOptions

if TYPE_CHECKING:
    from chromadb.api import ClientAPI


@dataclass
class Context:
    settings: Settings
    notify: Notify = silent
    progress: ProgressFn | None = None
    # None: chosen from the settings (local model files, Chroma's cache, an endpoint, or BM25 only).
    embedder: EmbedderChoice | None = None
    # None: an OpenAI-compatible client built from the settings when a command asks for a model.
    chat: ChatModel | None = None
    # None: connect as the settings say (embedded folder or RAG_CHROMA_URL).
    chroma: ClientAPI | None = None

    def embedding(self) -> EmbedderChoice:
        if self.embedder is None:
            self.embedder = choose_embedder(self.settings)
        return self.embedder

    @contextmanager
    def open(
        self,
        *,
        bootstrap: bool = True,
        rebuild: bool = False,
        remote: bool = False,
        write: bool = False,
        create: bool = False,
    ) -> Iterator[LibrarySession]:
        """The configured library, open for one command (see rag.index.session): ``write`` for commands
        that change it (they take the lock), ``create`` for the one that may make a new library (ingest)."""
        with open_library(
            self.settings,
            self.embedding(),
            self.notify,
            self.progress,
            bootstrap=bootstrap,
            rebuild=rebuild,
            remote=remote,
            client=self.chroma,
            write=write,
            create=create,
        ) as library:
            yield library

    def chat_model(self, options: WritingOptions) -> ChatModel | None:
        """The model a writing command uses, or None (extractive / outline). Config errors surface here, first."""
        settings = self.settings
        identity = None  # the endpoint's name in the cache and capability memory: its URL, unless that changes
        if options.use_llm and self.chat is None and (gguf := settings.llm_gguf) is not None:
            settings = self._local_model_settings(settings, gguf)
            identity = f"gguf:{gguf.resolve()}"
        if options.use_llm and settings.llm_base_url and not settings.llm_enabled and self.chat is None:
            raise InputError(f"a base URL ({settings.llm_base_url}) but no model: set RAG_LLM_MODEL or pass --model")
        if not options.use_llm or (not settings.llm_enabled and self.chat is None):
            if options.verify_llm:
                raise InputError("--verify llm needs a model; set RAG_LLM_MODEL or pass --model")
            return None
        if self.chat is not None:
            return self.chat
        from rag.llm.cache import CACHE_DIR, ResponseCache
        from rag.llm.capabilities import CAPABILITIES_FILE, EndpointMemory
        from rag.llm.chat import OpenAICompatibleChat

        cache = ResponseCache(settings.data_dir / CACHE_DIR) if options.cache and settings.llm_cache else None
        memory = EndpointMemory(settings.data_dir / CAPABILITIES_FILE)
        return OpenAICompatibleChat(settings, cache, memory, identity)

    def _local_model_settings(self, settings: Settings, gguf: Path) -> Settings:
        """Settings that point the usual client at an in-process llama.cpp serving ``gguf`` (started once)."""
        if settings.llm_base_url:
            raise InputError(
                f"both a GGUF file ({gguf}) and a base URL ({settings.llm_base_url}) are set: pick one "
                "(unset RAG_LLM_BASE_URL / drop --base-url, or unset RAG_LLM_GGUF / drop --gguf)"
            )
        from pydantic import SecretStr

        from rag.llm import gguf as local

        server = local.start(gguf, threads=settings.llm_threads, notify=self.notify)
        # The file is the model, whatever RAG_LLM_MODEL names; the key is the server's own, never a user's.
        return settings.model_copy(
            update={
                "llm_base_url": server.base_url,
                "llm_model": server.model,
                "llm_api_key": SecretStr(server.api_key),
                "llm_context_tokens": min(settings.llm_context_tokens, local.source_budget(settings.llm_max_tokens)),
            }
        )
