"""`rag mcp`: serve the library to MCP clients over stdio (rag.mcp_server does the work)."""

from __future__ import annotations

from rag.cli.runtime import handle_errors, settings


@handle_errors
def mcp() -> None:
    """Serve the library to MCP clients (stdio).

    For Claude Desktop, Claude Code, VS Code, Cursor...

    Tools: search, ask, show, bibtex, libraries. Global options and RAG_* settings
    apply, e.g. `rag --collection NAME mcp`. Logs go to stderr; stdout is the protocol.
    """
    # Imported here: the MCP SDK takes about a second to import, and `rag --help` must not pay for it.
    from rag.mcp_server import serve

    serve(settings())
