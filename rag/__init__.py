"""rag: a research assistant over a library of paper abstracts: hybrid search and cited answers.

The few entry points a script needs (settings come from ``RAG_*`` variables and
``.env`` as for the CLI; keyword arguments win)::

    import rag
    library = rag.open(collection="papers")
    for hit in library.search("heterogeneous GPUs", k=3).hits:
        print(hit.rank, hit.paper.citekey, round(hit.score, 3))
    print(rag.ask("which works target heterogeneous GPUs?").text)

Everything is imported on first use, so ``import rag`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.check.sentences import Answer
    from rag.services.library import Library
    from rag.services.results import IngestResult, SearchResult

__version__ = "0.1.0"
__all__ = ["Library", "__version__", "ask", "ingest", "open", "search"]


def open(**settings: Any) -> Library:
    """The configured library; keyword arguments are settings (``collection``, ``data_dir``, ``llm_model``...)."""
    from rag.config import load_settings
    from rag.services.context import Context
    from rag.services.library import Library

    return Library(Context(load_settings(**settings)))


def search(query: str, k: int | None = None, **settings: Any) -> SearchResult:
    """``rag.open(**settings).search(query, k)``."""
    return open(**settings).search(query, k)


def ask(question: str, k: int | None = None, **settings: Any) -> Answer:
    """``rag.open(**settings).ask(question, k)``: a cited answer."""
    return open(**settings).ask(question, k)


def ingest(paths: Sequence[str | Path], **settings: Any) -> IngestResult:
    """``rag.open(**settings).ingest(paths)``: add files or folders to the library."""
    return open(**settings).ingest(paths)


def __getattr__(name: str) -> Any:
    if name == "Library":
        from rag.services.library import Library

        return Library
    raise AttributeError(f"module 'rag' has no attribute {name!r}")
