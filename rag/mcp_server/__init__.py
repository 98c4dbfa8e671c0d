"""`rag mcp`: the library as an MCP server over stdio (the official ``mcp`` SDK), for Claude Desktop,
Claude Code, VS Code, Cursor and any other MCP client.

An adapter beside the CLI, not below it: it owns the MCP tools (``server``), their
structured payloads and short text renderings (``payloads``). It may import
rag.services and everything below; never rag.cli, typer or rich (the
import-linter layers put it next to ``cli``). Nothing here prints to stdout:
stdout is the protocol.
"""

from __future__ import annotations

from rag.faces import face_attribute
from rag.mcp_server.server import build_server, serve

__all__ = ["build_server", "serve"]


# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "show_text": "rag.mcp_server.payloads",
    "MAX_QUERY_CHARS": "rag.mcp_server.server",
}
__all__ += sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
