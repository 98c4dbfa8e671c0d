"""`rag mcp`: the library as an MCP server over stdio (the official ``mcp`` SDK), for Claude Desktop,
Claude Code, VS Code, Cursor and any other MCP client.

An adapter beside the CLI, not below it: it owns the MCP tools (``server``), their
structured payloads and short text renderings (``payloads``). It may import
rag.services and everything below; never rag.cli, typer or rich (the
import-linter layers put it next to ``cli``). Nothing here prints to stdout:
stdout is the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.mcp_server.payloads import show_text as show_text
    from rag.mcp_server.server import MAX_QUERY_CHARS as MAX_QUERY_CHARS
    from rag.mcp_server.server import build_server as build_server
    from rag.mcp_server.server import serve as serve

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
