"""What a command runs with: its settings, how it reports, and the external services it uses.

The seams (embedder, chat model, storage backend) are given here or built from the
settings here, in one place; the layers below receive them and never build their
own. Tests pass fakes that keep meaning (an embedder that still ranks similar text
closer, a chat model that answers like a model) instead of patching modules.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass

from rag.check.judge import use_judge
from rag.config import Settings
from rag.embed.cached import CachedEmbedder
from rag.embed.choice import EmbedderChoice, choose_embedder
from rag.embed.disk_cache import DiskCachedEmbedder
from rag.errors import InputError
from rag.index.backend import Backend
from rag.index.chroma_setup import download_default_model
from rag.index.opener import Opener
from rag.index.session import LibrarySession
from rag.index.storage import backend_for
from rag.llm.types import Activity, ChatModel
from rag.records import Notify, ProgressFn, silent
from rag.services.judges import warn_small_judge
from rag.services.requests import WritingOptions


@dataclass
class Context:
    settings: Settings
    notify: Notify = silent
    progress: ProgressFn | None = None
    # None: chosen from the settings (local model files, Chroma's cache, an endpoint, or BM25 only).
    embedder: EmbedderChoice | None = None
    # None: an OpenAI-compatible client built from the settings when a command asks for a model.
    chat: ChatModel | None = None
    # Hears what that client's model is doing during each request (a progress line on a terminal).
    activity: Activity | None = None
    # None: the data dir, or the Chroma server the settings name (rag.index.backend); kept for the context's life.
    backend: Backend | None = None
    # Keep every text's vector for the context's life: a long-lived process meets the same abstracts again.
    remember_embeddings: bool = False
    # Keep the vectors of texts embedded on disk too (rag.embed.disk_cache): `rag check` run again embeds only
    # the sentences that changed.
    keep_embeddings: bool = False

    def __post_init__(self) -> None:
        use_judge(self.settings.judge)

    def embedding(self) -> EmbedderChoice:
        if self.embedder is None:
            choice = choose_embedder(self.settings, download=download_default_model)
            if self.keep_embeddings:
                cache = self.storage().layout.vector_cache
                choice = choice.wrapped(lambda inner: DiskCachedEmbedder(inner, cache))
            if self.remember_embeddings:
                choice = choice.wrapped(CachedEmbedder)
            self.embedder = choice
        return self.embedder

    def storage(self) -> Backend:
        if self.backend is None:
            self.backend = backend_for(self.settings)
        return self.backend

    def _opener(self) -> Opener:
        return Opener(self.settings, self.storage(), self.embedding(), self.notify, self.progress)

    def reader(self) -> AbstractContextManager[LibrarySession]:
        """The configured library, open for a command that reads it (rag.index.opener.Opener.reader)."""
        return self._opener().reader()

    def writer(self, *, create: bool = False) -> AbstractContextManager[LibrarySession]:
        """The configured library, open for a command that changes it; ``create`` for ingest alone."""
        return self._opener().writer(create=create)

    def rebuilder(self) -> AbstractContextManager[LibrarySession]:
        """The configured library, open for `rag reindex`."""
        return self._opener().rebuilder()

    def chat_model(self, options: WritingOptions) -> ChatModel | None:
        """The model a writing command uses, or None (extractive). Config errors surface here, first."""
        settings = self.settings
        no_model = self.chat is None and not settings.llm_enabled and settings.llm_gguf is None
        if options.use_llm and settings.llm_base_url and no_model:
            raise InputError(f"a base URL ({settings.llm_base_url}) but no model: set RAG_LLM_MODEL or pass --model")
        if not options.use_llm or no_model:
            if options.verify_llm:
                raise InputError("--verify llm needs a model; set RAG_LLM_MODEL or pass --model")
            return None
        if self.chat is not None:
            return self.chat
        from rag.llm.providers import ChatPlaces, chat_model

        layout = self.storage().layout
        answers = layout.llm_cache if options.cache and settings.llm_cache else None
        model = chat_model(settings, ChatPlaces(answers, layout.endpoint_capabilities), self.activity, self.notify)
        if options.verify_llm:
            warn_small_judge(self.settings, model.name, layout.judge_figures, self.notify)
        return model
