"""`rag lsp` end to end over stdio, timed as an editor would feel it: the first diagnostics of a real thesis
(a fresh library, its .bib read; then a new server on the library that holds it), an edited paragraph's
diagnostics (the debounce not counted), and completion inside ``\\cite{`` once warm. Goals (issue 40):
10 s, 1 s, 300 ms.

    python benchmarks/lsp_speed.py [--thesis DIR --main FILE --chapter FILE]

Copies the thesis into a temporary workspace and uses a temporary data dir; the model is
RAG_EMBED_MODEL_DIR, else ../shared/models/all-MiniLM-L6-v2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "real" / "manuscripts"
MODEL = ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"
SERVER = [sys.executable, "-m", "rag", "lsp"]
DEBOUNCE_SECONDS = 0.5  # rag.lsp.session.DEBOUNCE_SECONDS: the wait after the last keystroke, not work
COMPLETIONS = 20
WAIT_SECONDS = 900
# A long document's diagnostics come in parts (rag.lsp.documents.PART_SENTENCES); this long without one: all came.
QUIET_SECONDS = 5.0


async def _start(workspace: Path, env: dict[str, str]) -> LanguageClient:
    client = await ClientServerConfig(server_command=SERVER, server_env=env).start()
    assert isinstance(client, LanguageClient)
    folder = types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=workspace.as_uri(), workspace_folders=[folder]
    )
    await client.initialize_session(params)
    return client


async def _published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    client.diagnostics.pop(uri, None)
    while uri not in client.diagnostics:
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT_SECONDS)
    return list(client.diagnostics[uri])


async def _settled(client: LanguageClient) -> float:
    """When the last diagnostics came: a long document's are published in parts, the last after QUIET_SECONDS
    without another."""
    last = time.perf_counter()
    while True:
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), QUIET_SECONDS)
        except TimeoutError:
            return last
        last = time.perf_counter()


async def _open(client: LanguageClient, path: Path) -> tuple[float, float, int, str]:
    """Seconds from didOpen to the document's first diagnostics and to its last, how many there were in the end
    (every file's), its URI."""
    uri = path.as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="latex", version=1, text=path.read_text(encoding="utf-8"))
    client.diagnostics.clear()
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    await _published(client, uri)
    first = time.perf_counter() - started
    last = await _settled(client) - started
    return first, max(first, last), sum(len(d) for d in client.diagnostics.values()), uri


async def _edit(client: LanguageClient, path: Path, uri: str) -> float:
    """Seconds from an edit of the first citing sentence (a word before its \\cite) to the diagnostics, the
    debounce not counted."""
    lines = path.read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(lines) if "\\cite" in text)
    at = types.Position(line=line, character=lines[line].index("\\cite"))  # ASCII before it in this thesis
    change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="(clearly) ")
    started = time.perf_counter()
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2), content_changes=[change]
        )
    )
    await _published(client, uri)
    return time.perf_counter() - started - DEBOUNCE_SECONDS


async def _completions(client: LanguageClient, path: Path, uri: str) -> list[float]:
    """Milliseconds per completion request inside a \\cite{ typed at the end of each citing line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    citing = [n for n, text in enumerate(lines) if "\\cite" in text][:COMPLETIONS]
    timings = []
    for version, n in enumerate(citing, start=3):
        typed = " as shown \\cite{"
        at = types.Position(line=n, character=len(lines[n]))
        change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=typed)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
            )
        )
        lines[n] += typed
        started = time.perf_counter()
        where = types.Position(line=n, character=len(lines[n]))
        found = await client.text_document_completion_async(
            types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=where)
        )
        timings.append((time.perf_counter() - started) * 1000)
        assert isinstance(found, types.CompletionList) and found.items
    return timings


async def run(thesis: Path, main: str, chapter: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / thesis.name
        shutil.copytree(thesis, workspace)
        env = {**os.environ, "RAG_DATA_DIR": str(Path(scratch) / "data")}
        env.setdefault("RAG_EMBED_MODEL_DIR", str(MODEL))
        client = await _start(workspace, env)
        cold, whole, count, _ = await _open(client, workspace / main)
        print(f"{main}: first diagnostics {cold:.1f} s on a fresh library, all {whole:.1f} s ({count}, its .bib read)")
        await client.shutdown_session()
        client = await _start(workspace, env)
        warm, whole, count, _ = await _open(client, workspace / main)
        print(f"{main}: first diagnostics {warm:.1f} s from a new server on the library holding it, all {whole:.1f} s"
              f" ({count})")  # fmt: skip
        seconds, whole, _, uri = await _open(client, workspace / chapter)
        print(f"{chapter}: first diagnostics {seconds:.1f} s, all {whole:.1f} s")
        edited = await _edit(client, workspace / chapter, uri)
        rechecked = [m.message for m in client.log_messages if "checked again" in m.message]
        print(f"{chapter}: an edited paragraph's diagnostics {edited:.2f} s after the debounce ({rechecked[-1]})")
        timings = await _completions(client, workspace / chapter, uri)
        print(f"completion inside \\cite{{, {len(timings)} requests: median {statistics.median(timings):.0f} ms, "
              f"max {max(timings):.0f} ms (the first {timings[0]:.0f} ms)")  # fmt: skip
        await client.shutdown_session()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--thesis", type=Path, default=REAL / "chrisjbillington__thesis")
    parser.add_argument("--main", default="thesis.tex")
    parser.add_argument("--chapter", default="numerics.tex")
    args = parser.parse_args()
    asyncio.run(run(args.thesis, args.main, args.chapter))


if __name__ == "__main__":
    main()
