"""The command line: a thin typer adapter over rag.services (parse, call one service, render).

May import: everything below it; the only layer that imports typer and rich.
"""

from rag.cli.app import app, ask_main, main

__all__ = ["app", "ask_main", "main"]
