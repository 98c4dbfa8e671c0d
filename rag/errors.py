"""The one exception hierarchy users see.

Every failure a user can cause or fix (bad input, missing model, busy data
directory, unreachable server) is a ``RagError``; the CLI turns it into one
line on stderr and exit code 1. Anything else is a bug.

The bottom of the package: imports nothing of rag.
"""

from __future__ import annotations


class RagError(Exception):
    """A failure the user can act on; the message says what to do next."""


class InputError(RagError):
    """A file, folder, question or option the user gave cannot be used."""


class OptionError(InputError):
    """An option that cannot apply to the files given (``--zotero-collection`` naming no collection):
    the whole command stops, where a bad file is only skipped."""


class NotFoundError(RagError):
    """An id, citekey or source reference that is not in the library."""


class StoreError(RagError):
    """The index (Chroma or our papers file) cannot be opened or written."""


class StoreBusyError(StoreError):
    """Another process holds the data directory's write lock."""


class EmbeddingMismatchError(StoreError):
    """The collection was built with another embedding model than the one asked for."""


class ModelUnavailableError(RagError):
    """The embedding model can neither be loaded nor downloaded."""


class LLMError(RagError):
    """The model call failed in a way the user must act on."""


class SchemaRefusedError(LLMError):
    """The endpoint does not take a JSON schema in ``response_format``; ask again in text."""


class PromptError(RagError):
    """A prompt file is missing or does not have the placeholders the code fills."""


class Interrupted(RagError):
    """The user stopped a command (Ctrl-C); the message says what was kept and what remains."""
