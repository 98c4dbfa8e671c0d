"""One function per command: each takes a ``Context`` (settings, reporting, seams) and a
request record, and returns a result record (rag.services.results, or an Answer).

May import: everything below it. Never typer or rich: the CLI and the MCP server
are adapters over these functions.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "Context": "rag.services.context",
    "answer_json": "rag.services.contracts",
    "draft": "rag.services.drafting",
    "remove": "rag.services.manage",
    "build_map": "rag.services.mapping",
    "papers": "rag.services.read",
    "search": "rag.services.read",
    "DraftRequest": "rag.services.requests",
    "EvalRequest": "rag.services.requests",
    "MapRequest": "rag.services.requests",
    "SearchRequest": "rag.services.requests",
    "SummaryRequest": "rag.services.requests",
    "WritingOptions": "rag.services.requests",
    "PaperView": "rag.services.results",
    "SearchResult": "rag.services.results",
    "ask": "rag.services.writing",
    "summarize": "rag.services.writing",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
