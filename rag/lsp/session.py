"""The language server's state (pygls 2.x): the open documents' checks, publishing, the debounce.

Diagnostics on open and save (the document's
bibliographies added to the library first, as `rag check` adds them) and DEBOUNCE_SECONDS after the last
edit (only the sentences an edit changed are checked again); hover over a key; completion of keys inside
``\\cite{`` and after ``@``, ranked for the sentence being written; code actions.

Checks run on one worker thread, one at a time (the library and the models are not shared between checks);
hover and completion answer from the last check, on the protocol's thread. A document that cannot be
checked (too large, binary, a bug) gets one diagnostic and a log line; the server keeps running.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from rag import __version__
from rag.check.verdicts import FailOn
from rag.config import Settings
from rag.lsp.documents import Checks, DocumentCheck
from rag.lsp.publishing import Published, assemble
from rag.lsp.ranking import Ranker
from rag.lsp.reading import CHECKED_ENDINGS, refusal
from rag.lsp.render import line_diagnostic
from rag.manuscripts.sources import shown
from rag.services.context import Context

SERVER_NAME = "rag"
# After the last keystroke, how long to wait before checking: typing a word does not start a check.
DEBOUNCE_SECONDS = 0.5
logger = logging.getLogger(__name__)


class RagServer(LanguageServer):
    """The server's state: the checks (made on first use, on the worker thread), each open document's."""

    def __init__(self, settings: Settings, fail_on: FailOn) -> None:
        super().__init__(SERVER_NAME, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = settings
        self.fail_on = fail_on
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rag-check")
        self.documents: dict[str, DocumentCheck] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.published: dict[str, set[str]] = {}  # document -> the URIs its diagnostics went to
        self._checks: Checks | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def checks(self) -> Checks:
        """The check of the open documents, over one Context for the server's life (made on the worker)."""
        if self._checks is None:
            ctx = Context(self.settings, notify=self.log, remember_embeddings=True, keep_embeddings=True)
            self._checks = Checks(ctx)
        return self._checks

    @property
    def ranker(self) -> Ranker | None:
        """The warm ranker of the library's keys (None before the first check or completion)."""
        return self._checks.ranker if self._checks is not None else None

    def log(self, message: str) -> None:
        """A line in the client's log (and on stderr), from any thread."""
        logger.info(message)
        params = types.LogMessageParams(type=types.MessageType.Log, message=f"rag: {message}")
        if self._loop is None or threading.get_ident() == self._loop_thread:
            self.window_log_message(params)
        else:
            self._loop.call_soon_threadsafe(self.window_log_message, params)

    def roots(self, path: Path) -> list[Path]:
        """The workspace folders the client opened; with none, the document's own folder."""
        folders = [Path(to_fs_path(f.uri) or "") for f in self.workspace.folders.values()]
        if not folders and self.workspace.root_path:
            folders = [Path(self.workspace.root_path)]
        return [f for f in folders if str(f)] or [path.parent]

    def open_texts(self) -> dict[str, str]:
        return {shown(Path(d.path)): d.source for d in self.workspace.text_documents.values() if d.path}

    async def check(self, uri: str, full: bool) -> None:
        """Check the document (``full``: read its bibliographies again too) and publish what was found."""
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        document = self.workspace.get_text_document(uri)
        if not document.path or not document.path.lower().endswith(CHECKED_ENDINGS):
            return
        text, path = document.source, Path(document.path)
        why = refusal(text)
        if why is not None:
            self.log(f"{shown(path)}: {why}")
            self.publish(uri, {uri: [line_diagnostic(0, "", why, types.DiagnosticSeverity.Warning)]})
            return
        state = await self._loop.run_in_executor(self.worker, self._check_now, uri, path, text, full)
        if state is None:
            return
        found = assemble(state, self.roots(path), self.workspace.position_codec, self.fail_on)
        if not full:
            found.logged.append(
                f"{shown(path)}: {state.rechecked} of {len(state.sentences)} citing sentences checked again"
            )
        for line in found.logged:
            self.log(line)
        self._send(uri, path, found)

    def _send(self, uri: str, path: Path, found: Published) -> None:
        # A file open in the editor as a document of its own gets its diagnostics from its own check only: a
        # main file and its chapter, both open, do not take turns overwriting each other's.
        own = set(self.workspace.text_documents) - {uri}
        name = shown(path)  # the document's own diagnostics go to the URI the client gave, as it spelled it
        targets = {uri if file == name else Path(file).as_uri(): d for file, d in found.by_file.items()}
        self.publish(uri, {target: d for target, d in targets.items() if target not in own})

    def _part(self, uri: str, path: Path, part: DocumentCheck) -> None:
        """On the protocol's thread: the diagnostics of a first check so far (its log lines wait for the end)."""
        self._send(uri, path, assemble(part, self.roots(path), self.workspace.position_codec, self.fail_on))

    def _check_now(self, uri: str, path: Path, text: str, full: bool) -> DocumentCheck | None:
        """On the worker: the full check or the update; a failure is a log line, never the server's end."""
        try:
            checks, roots, texts = self.checks(), self.roots(path), self.open_texts()
            old = self.documents.get(uri)
            loop = self._loop

            def part(found: DocumentCheck) -> None:
                if loop is not None:
                    loop.call_soon_threadsafe(self._part, uri, path, found)

            state = (
                checks.full(path, text, roots, texts, part)
                if full or old is None
                else checks.update(old, text, roots, texts)
            )
        except Exception as exc:
            logger.exception("checking %s failed", path)
            self.log(f"{shown(path)}: not checked ({type(exc).__name__}: {exc})")
            return None
        self.documents[uri] = state
        return state

    def publish(self, uri: str, by_uri: dict[str, list[types.Diagnostic]]) -> None:
        """Diagnostics to each URI; those this document gave before and gives no more are cleared."""
        for stale in self.published.get(uri, set()) - set(by_uri):
            by_uri[stale] = []
        for target, diagnostics in by_uri.items():
            params = types.PublishDiagnosticsParams(uri=target, diagnostics=diagnostics)
            self.text_document_publish_diagnostics(params)
        self.published[uri] = {target for target, found in by_uri.items() if found}

    def later(self, uri: str) -> None:
        """Check the document once its edits pause (each edit restarts the wait)."""
        if (task := self.pending.pop(uri, None)) is not None:
            task.cancel()

        async def wait_then_check() -> None:
            await asyncio.sleep(DEBOUNCE_SECONDS)
            self.pending.pop(uri, None)
            await self.check(uri, full=False)

        self.pending[uri] = asyncio.ensure_future(wait_then_check())
