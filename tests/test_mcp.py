"""`rag mcp` as MCP clients meet it: spawned over stdio and driven with the SDK's own client."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from conftest import needs_model
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from rag.mcp_server import MAX_QUERY_CHARS

QUERY = "heterogeneous GPUs"
# A query well past the limit, as a client pasting a whole document would send.
TOO_LONG = 10_000
# Generous for a 2-core machine under load: the first call loads the embedding model.
CALL_TIMEOUT = 60.0
EXPECTED_ARGUMENTS = {
    "search": ["query", "k", "since", "until", "lists"],
    "ask": ["question", "k"],
    "show": ["ref"],
    "bibtex": ["keys"],
    "libraries": [],
    "check": ["text", "format"],
}


def rag_env() -> dict[str, str]:
    """The test's RAG_* settings (the conftest fixtures set them) for the spawned server, and PYTHONPATH, so
    the server runs the code under test (a worktree's, not the installed checkout's)."""
    return {k: v for k, v in os.environ.items() if k.startswith("RAG_") or k == "PYTHONPATH"}


def serve(tmp_path: Path, session: Callable[[Client], Awaitable[None]], *options: str) -> str:
    """Run ``session`` against a fresh `rag [OPTIONS] mcp` process; returns what the server wrote to stderr."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "rag", *options, "mcp"], env=rag_env(), cwd=str(tmp_path)
    )
    log = tmp_path / "server-stderr.txt"

    async def main() -> None:
        with log.open("w", encoding="utf-8") as errlog, anyio.fail_after(CALL_TIMEOUT * 3):
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=CALL_TIMEOUT) as client:
                await session(client)

    anyio.run(main)
    return log.read_text(encoding="utf-8")


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def cli_json(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "rag", *args, "--json"], capture_output=True, text=True, env=os.environ, check=True
    )
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_tools_answer_like_the_cli(seeded: Path, tmp_path: Path) -> None:
    expected_search = cli_json("search", QUERY, "-k", "3")

    async def session(client: Client) -> None:
        listed = await client.list_tools()
        arguments = {tool.name: list(tool.input_schema.get("properties", {})) for tool in listed.tools}
        assert arguments == EXPECTED_ARGUMENTS

        found = await client.call_tool("search", {"query": QUERY, "k": 3})
        assert not found.is_error
        assert found.structured_content == expected_search  # the same fields and values as `rag search --json`
        top = expected_search["hits"][0]
        assert top["citekey"] in text(found)

        default_k = await client.call_tool("search", {"query": QUERY})
        assert default_k.structured_content is not None
        assert len(default_k.structured_content["hits"]) == 5

        answer = await client.call_tool("ask", {"question": "which works target heterogeneous GPUs?", "k": 3})
        assert not answer.is_error
        payload = answer.structured_content
        assert payload is not None
        assert payload["mode"] == "extractive"  # no model configured in tests
        cited = {c["n"] for c in payload["citations"]}
        assert cited and {int(n) for n in re.findall(r"\[(\d+)\]", payload["answer"])} <= cited
        assert "References" in text(answer)

        for ref in (top["citekey"], top["id"], top["sources"][0]):
            shown = await client.call_tool("show", {"ref": ref})
            assert not shown.is_error, text(shown)
            assert shown.structured_content is not None
            assert shown.structured_content["id"] == top["id"]
            assert "list_subjects" in shown.structured_content

        second = expected_search["hits"][1]["citekey"]
        bib = await client.call_tool("bibtex", {"keys": [top["citekey"], second, top["citekey"]]})
        assert not bib.is_error, text(bib)
        assert bib.structured_content is not None
        assert [e["citekey"] for e in bib.structured_content["entries"]] == [top["citekey"], second]
        assert text(bib).startswith(f"@misc{{{top['citekey']},")

        libraries = await client.call_tool("libraries", {})
        assert libraries.structured_content is not None
        assert {c["name"]: c["papers"] for c in libraries.structured_content["collections"]}["papers"] == 39

    serve(tmp_path, session)


def test_bad_calls_get_clear_errors_and_the_server_keeps_serving(seeded: Path, tmp_path: Path) -> None:
    async def session(client: Client) -> None:
        async def refused(name: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            message = text(result)
            assert "Traceback" not in message
            return message

        assert "nope" in await refused("nope", {})
        assert "k" in await refused("search", {"query": QUERY, "k": "many"})
        assert "less than or equal" in await refused("search", {"query": QUERY, "k": 10_000})
        assert "query" in await refused("search", {})
        assert await refused("search", {"query": "   "}) == (
            "the query is empty; say what to look for, e.g. 'heterogeneous GPUs'"
        )
        long_message = await refused("ask", {"question": "x" * TOO_LONG})
        assert f"{TOO_LONG:,} characters" in long_message and f"{MAX_QUERY_CHARS:,}" in long_message
        not_found = await refused("show", {"ref": "nobody1999nothing"})
        assert "no paper with id, citekey or source 'nobody1999nothing'" in not_found
        assert "the search tool finds papers and their citekeys" in not_found and "rag papers" not in not_found
        assert "'nobody1999nothing'" in await refused("bibtex", {"keys": ["nobody1999nothing"]})
        assert "at least one citekey" in await refused("bibtex", {"keys": []})

        partial = await client.call_tool("bibtex", {"keys": ["yuan2022decentralized", "nobody1999nothing"]})
        assert not partial.is_error and partial.structured_content is not None
        assert [e["citekey"] for e in partial.structured_content["entries"]] == ["yuan2022decentralized"]
        assert partial.structured_content["unknown"] == ["nobody1999nothing"]
        assert "no paper with citekey nobody1999nothing" in text(partial)

        after = await client.call_tool("search", {"query": QUERY, "k": 1})
        assert not after.is_error
        assert after.structured_content is not None and len(after.structured_content["hits"]) == 1

    log = serve(tmp_path, session)
    assert "Traceback" not in log


def test_a_missing_library_is_an_error_not_an_empty_answer(seeded: Path, tmp_path: Path) -> None:
    async def session(client: Client) -> None:
        result = await client.call_tool("search", {"query": QUERY})
        assert result.is_error
        assert "there is no library 'nope'" in text(result) and "papers" in text(result)
        assert "`rag --collection nope ingest FILES` (in a terminal)" in text(result)
        libraries = await client.call_tool("libraries", {})
        assert not libraries.is_error
        assert libraries.structured_content is not None
        assert "nope" not in {c["name"] for c in libraries.structured_content["collections"]}  # nothing was created

    serve(tmp_path, session, "--collection", "nope")  # the global options apply as for any command


@needs_model
def test_papers_another_process_ingests_are_found_by_meaning_on_the_next_call(seeded: Path, tmp_path: Path) -> None:
    """Embedded Chroma keeps its vector index in memory: the server must notice another process's write."""
    note = tmp_path / "note.md"
    note.write_text(
        "# Photosynthesis in deep-sea vents\n\nChemosynthetic bacteria fix carbon near hydrothermal vents.\n",
        encoding="utf-8",
    )

    async def session(client: Client) -> None:
        before = await client.call_tool("search", {"query": "bacteria living near hydrothermal vents", "k": 1})
        assert before.structured_content is not None
        assert before.structured_content["hits"][0]["title"] != "Photosynthesis in deep-sea vents"
        done = subprocess.run([sys.executable, "-m", "rag", "ingest", str(note)], capture_output=True, env=os.environ)
        assert done.returncode == 0, done.stderr
        after = await client.call_tool("search", {"query": "microbes at undersea volcanic springs", "k": 1})
        assert after.structured_content is not None
        (hit,) = after.structured_content["hits"]
        assert hit["title"] == "Photosynthesis in deep-sea vents" and hit["relevance"] is not None

    serve(tmp_path, session)
