"""`rag lsp`: the citation check as a Language Server Protocol server over stdio (pygls 2.x, lsprotocol), for
VS Code, Neovim, Emacs and any other LSP client.

An adapter beside the CLI and the MCP server, not below them: ``server`` starts it; ``session`` holds its
state (each open document's check, the debounce, publishing); ``features`` answers the protocol's requests
(open, change, save, hover, completion, code actions); ``publishing`` assembles each file's diagnostics;
``documents`` keeps each document's check and re-checks only the sentences an edit changed; ``reading``
reads a document as `rag check` does but never a file outside the workspace folders; ``positions`` maps
citations to LSP ranges (0-based, UTF-16) and finds where a key is being written; ``ranking`` orders the
library's keys by how well each paper fits a sentence; ``render`` turns checks into diagnostics, hovers and
code actions. It may import rag.services and everything below; never rag.cli, typer or rich. Nothing here
prints to stdout: stdout is the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.lsp.server import build_server as build_server
    from rag.lsp.server import serve as serve

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
