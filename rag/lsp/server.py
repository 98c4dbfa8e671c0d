"""`rag lsp`: the language server over stdio: the state (rag.lsp.session) with the protocol's features
(rag.lsp.features) registered on it."""

from __future__ import annotations

import logging

from rag.check.verdicts import FailOn
from rag.config import Settings
from rag.lsp import features
from rag.lsp.render import SOURCE
from rag.lsp.session import RagServer


def build_server(settings: Settings, fail_on: FailOn = FailOn.NONE) -> RagServer:
    server = RagServer(settings, fail_on)
    features.register(server)
    return server


def serve(settings: Settings, fail_on: FailOn = FailOn.NONE) -> None:
    """Serve the protocol over stdin/stdout until the client exits; logs go to stderr."""
    # Only rag's own lines at INFO: the model runtime and the libraries below log every step of their work.
    logging.basicConfig(level=logging.WARNING, format=f"{SOURCE} lsp: %(message)s")
    logging.getLogger("rag").setLevel(logging.INFO)
    build_server(settings, fail_on).start_io()
