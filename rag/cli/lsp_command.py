"""`rag lsp`: the citation check as a language server over stdio, for editors (rag.lsp does the work)."""

from __future__ import annotations

from typing import Annotated

import typer

from rag.check.verdicts import FailOn
from rag.cli.runtime import handle_errors, settings


@handle_errors
def lsp(
    fail_on: Annotated[
        FailOn,
        typer.Option(
            "--fail-on",
            help="Which findings the editor shows as errors, as `rag check --fail-on` names what fails a run: "
            "any problem; only keys missing from the bibliography; or none (default: problems are warnings). "
            "Notes are hints either way.",
        ),
    ] = FailOn.NONE,
) -> None:
    """Serve the citation check to editors (Language Server Protocol, stdio).

    For .tex, .md, .qmd and .Rmd files: diagnostics on open, save and after edits, hover over a key,
    completion of keys inside \\cite{...} and after @, code actions. See the README's "Editors" section for
    VS Code, Neovim and Emacs. Logs go to stderr; stdout is the protocol.
    """
    # Imported here: pygls and the checker take a while to import, and `rag --help` must not pay for them.
    from rag.lsp import serve

    serve(settings(), fail_on)
