"""`rag mcp`: the library as an MCP server over stdio (the official ``mcp`` SDK), for Claude Desktop,
Claude Code, VS Code, Cursor and any other MCP client.

An adapter beside the CLI, not below it: it owns the MCP tools (``server``), their
structured payloads and short text renderings (``payloads``). It may import
rag.services and everything below; never rag.cli, typer or rich (the
import-linter layers put it next to ``cli``). Nothing here prints to stdout:
stdout is the protocol.
"""

from __future__ import annotations

from rag.mcp_server.server import build_server, serve

__all__ = ["build_server", "serve"]
