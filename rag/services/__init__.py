"""One function per command: each takes a ``Context`` (settings, reporting, seams) and a
request record, and returns a result record (rag.services.results, or an Answer).

May import: everything below it. Never typer or rich: the CLI and the MCP server
are adapters over these functions.
"""
