"""The MCP tools over one library: search, ask, show, bibtex, libraries, check (the SDK's ``MCPServer``).

One ``Context`` lives as long as the server, so the embedding model is loaded once
and stays loaded. The library itself is opened per call (``Context.reader``),
without a lock: `rag ingest` in a terminal works while the server runs, and the
next call sees what it added.

Every tool answers with a short text (what a person or a model reads) and the
structured result of ``rag ... --json`` (rag.mcp_server.payloads). A ``RagError``
becomes a tool error carrying its one-line message; bad arguments are rejected by
the SDK against each tool's schema, or here with a message saying what to change.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from rag import __version__
from rag.config import Settings
from rag.errors import InputError, NotFoundError, RagError
from rag.formats.bibtex import bibtex_entry
from rag.mcp_server import payloads
from rag.records import Paper
from rag.redaction import configured_secrets, redact
from rag.services.context import Context
from rag.services.library import Library
from rag.services.manage import collections

SERVER_NAME = "rag"
# Longer than any real question; past it a client is pasting a document, which retrieval cannot use as a query.
MAX_QUERY_CHARS = 2_000
# More papers than an answer can cite or a model can read in one context.
MAX_K = 50
# A thesis is a few hundred thousand characters; past this a client is sending something else.
MAX_MANUSCRIPT_CHARS = 2_000_000
# One bibliography's worth; a client asking for more wants `rag export`.
MAX_BIBTEX_KEYS = 200
# Notices and refused calls reach the client's server log (stderr), one line each.
LOG_LEVEL: Final = "INFO"
# Read-only tools: clients may call them without asking the user each time.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

logger = logging.getLogger(__name__)

Query = Annotated[str, Field(description=f"What to look for, in words (at most {MAX_QUERY_CHARS:,} characters).")]
Question = Annotated[str, Field(description=f"A question about the library (at most {MAX_QUERY_CHARS:,} characters).")]
Year = Annotated[int | None, Field(description="Only papers from this year on (since) or up to it (until).")]
Lists = Annotated[
    list[str] | None,
    Field(description="Only papers from these seed lists (file name, its prefix, or words of its subject)."),
]
Ref = Annotated[str, Field(description="Paper id, citekey, or source reference such as 000_e22c73655386b99b.txt#7.")]
Keys = Annotated[
    list[str],
    Field(description=f"Citekeys (ids and file#n references work too), at most {MAX_BIBTEX_KEYS}."),
]

TopK = Annotated[int, Field(ge=1, le=MAX_K, description=f"How many papers (1-{MAX_K}).")]
Manuscript = Annotated[
    str,
    Field(
        description="A manuscript's text with its citations: LaTeX (\\cite{key}, \\citep, \\autocite ...) "
        f"or Pandoc/Quarto Markdown ([@key], @key), at most {MAX_MANUSCRIPT_CHARS:,} characters."
    ),
]
ManuscriptFormat = Annotated[
    Literal["latex", "markdown"], Field(description="latex, or markdown (Pandoc / Quarto citations).")
]


class RagTools:
    """The state a server keeps between calls: one Context (settings, the loaded embedder with the vectors of
    texts it has seen, one Chroma client), one Library."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.ctx = Context(settings, notify=self._notify, remember_embeddings=True)
        self.library = Library(self.ctx)
        self._secrets = configured_secrets(settings)
        # The SDK runs each call in a worker thread: one at a time, because the embedder and the Chroma
        # client are shared.
        self._serial = threading.Lock()
        self._notices: set[str] = set()

    def _notify(self, message: str) -> None:
        """Notices go to stderr (stdout is the protocol), each once: the library is reopened on every call."""
        if message not in self._notices:
            self._notices.add(message)
            logger.info("%s", redact(message, self._secrets))

    def call(self, tool: str, work: Callable[[], CallToolResult]) -> CallToolResult:
        """Run one tool call; a RagError becomes a tool error carrying its one-line message, keys masked.

        Returned rather than raised as the SDK's ToolError, which would prefix "Error executing tool ...";
        anything else escapes to the SDK, which logs the traceback here and tells the client only that it failed.
        """
        with self._serial:
            try:
                # Another rag process may have written the library since the last call (rag.index.backend).
                self.ctx.storage().refresh(self.settings.collection)
                return work()
            except RagError as exc:
                message = in_mcp_terms(redact(str(exc), self._secrets))
                logger.info("%s refused: %s", tool, message)
                return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)

    def papers_for(self, keys: list[str]) -> tuple[list[Paper], list[str]]:
        """The papers behind ``keys``, each once, in the order asked, and the keys no paper has."""
        wanted = list(dict.fromkeys(key.strip() for key in keys if key.strip()))
        if not wanted:
            raise InputError('give at least one citekey, e.g. ["yuan2022decentralized"]; search finds citekeys')
        if len(wanted) > MAX_BIBTEX_KEYS:
            raise InputError(f"{len(wanted)} citekeys asked for; at most {MAX_BIBTEX_KEYS} per call")
        found: dict[str, Paper] = {}
        missing: list[str] = []
        with self.ctx.reader() as library:
            for key in wanted:
                try:
                    paper = library.paper(key)
                except NotFoundError:
                    missing.append(key)
                else:
                    found.setdefault(paper.id, paper)
        if not found:
            raise NotFoundError(
                f"no paper with citekey {', '.join(repr(key) for key in missing)}; the search tool finds papers "
                "and their citekeys"
            )
        return list(found.values()), missing


# Hints in the core's messages name CLI commands; a client calling tools is told what it can do from there.
_CLI_HINTS = (
    (re.compile(r"`rag papers` lists them"), "the search tool finds papers and their citekeys"),
    (re.compile(r"(`rag [^`]+`)"), r"\1 (in a terminal)"),
)


def in_mcp_terms(message: str) -> str:
    """A core error's hint as an MCP client can act on it: its tools, or a command to run in a terminal."""
    for pattern, replacement in _CLI_HINTS:
        message = pattern.sub(replacement, message)
    return message


def checked_text(value: str, what: str) -> str:
    """A query or question fit for retrieval, or a tool error saying what to change."""
    if not value.strip():
        raise InputError(f"the {what} is empty; say what to look for, e.g. 'heterogeneous GPUs'")
    if len(value) > MAX_QUERY_CHARS:
        raise InputError(
            f"the {what} is {len(value):,} characters long; the limit is {MAX_QUERY_CHARS:,}: "
            "ask about one topic in a sentence or two"
        )
    return value


def result(text: str, payload: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


def build_server(settings: Settings) -> MCPServer:
    """The MCP server over the library ``settings`` name (collection, data dir or Chroma server, model)."""
    tools = RagTools(settings)
    server: MCPServer = MCPServer(
        name=SERVER_NAME,
        version=__version__,
        instructions=(
            f"A library of research-paper abstracts ('{settings.collection}'). Use search to find papers, "
            "ask for an answer whose every sentence cites a paper, show for one paper in full, "
            "bibtex for BibTeX entries of citekeys, libraries to list the collections, "
            "check to check a manuscript's citations against the library."
        ),
        log_level=LOG_LEVEL,
    )
    _add_question_tools(server, tools, settings.top_k)
    _add_library_tools(server, tools)
    _add_check_tool(server, tools)
    return server


def _add_question_tools(server: MCPServer, tools: RagTools, default_k: int) -> None:
    """search and ask: the questions a client puts to the library."""

    @server.tool(annotations=READ_ONLY)
    def search(
        query: Query,
        k: TopK = default_k,
        since: Year = None,
        until: Year = None,
        lists: Lists = None,
    ) -> CallToolResult:
        """Find the papers most relevant to a query (hybrid dense + BM25 retrieval), best first.

        Each hit has id, rank, score, title, year, citekey, text (the abstract) and sources.
        """

        def work() -> CallToolResult:
            found = tools.library.search(checked_text(query, "query"), k, since=since, until=until, lists=lists or ())
            return result(payloads.search_text(found), payloads.search_payload(found))

        return tools.call("search", work)

    @server.tool(annotations=READ_ONLY)
    def ask(question: Question, k: TopK = default_k) -> CallToolResult:
        """Answer a question from the library; every sentence cites the papers it comes from ([n]).

        Written by the configured language model and checked, else quoted from the abstracts (extractive).
        A question the library cannot support gets mode "insufficient_evidence" and the closest papers.
        """

        def work() -> CallToolResult:
            answer = tools.library.ask(checked_text(question, "question"), k)
            return result(payloads.answer_text(answer), payloads.answer_payload(answer))

        return tools.call("ask", work)


def _add_library_tools(server: MCPServer, tools: RagTools) -> None:
    """show, bibtex and libraries: what is in the library, for reading and citing it."""

    @server.tool(annotations=READ_ONLY)
    def show(ref: Ref) -> CallToolResult:
        """One paper in full: title, authors, year, arXiv id, citekey, abstract, and the seed lists it came from."""

        def work() -> CallToolResult:
            view = tools.library.show(ref)
            return result(payloads.show_text(view), payloads.show_payload(view))

        return tools.call("show", work)

    @server.tool(annotations=READ_ONLY)
    def bibtex(keys: Keys) -> CallToolResult:
        """BibTeX entries for citekeys: the user's own entry when the paper came from a .bib file, else one
        built from its metadata. Keys no paper has are listed under "unknown" (an error only when none is known)."""

        def work() -> CallToolResult:
            papers, unknown = tools.papers_for(keys)
            payload = payloads.bibtex_payload([(paper, bibtex_entry(paper)) for paper in papers], unknown)
            return result(payloads.bibtex_text(payload), payload)

        return tools.call("bibtex", work)

    @server.tool(annotations=READ_ONLY)
    def libraries() -> CallToolResult:
        """The libraries (collections) here: papers, vectors and embedding model of each."""

        def work() -> CallToolResult:
            found = collections(tools.ctx)
            return result(payloads.collections_text(found), payloads.collections_payload(found))

        return tools.call("libraries", work)


def _add_check_tool(server: MCPServer, tools: RagTools) -> None:
    @server.tool(annotations=READ_ONLY)
    def check(text: Manuscript, format: ManuscriptFormat = "latex") -> CallToolResult:
        """Check a manuscript's citations against the library, like `rag check --json`: for each citation,
        whether the cited paper backs the sentence (label: evidence_found, weak, unsupported, contradicted, or
        cannot_check when the paper has no abstract), what to do (verdict; missing_key when no bibliography
        holds the key), the best evidence sentence, and for a likely wrong paper up to 3 papers of the library
        that fit better (citekeys to paste)."""

        def work() -> CallToolResult:
            if len(text) > MAX_MANUSCRIPT_CHARS:
                raise InputError(f"the text is {len(text):,} characters long; the limit is {MAX_MANUSCRIPT_CHARS:,}")
            report = tools.library.check(text=text, text_format=format)
            return result(payloads.check_text(report), payloads.check_payload(report))

        return tools.call("check", work)


def serve(settings: Settings) -> None:
    """Serve MCP over stdin/stdout until the client closes the connection."""
    server = build_server(settings)  # configures logging: stderr, at LOG_LEVEL
    # bm25s sets its own logger to DEBUG when imported and logs every index build (one per call on a small
    # library): filter at the handlers, which a logger's own level cannot bypass.
    for handler in logging.getLogger().handlers:
        handler.setLevel(LOG_LEVEL)
    server.run("stdio")


__all__ = ["MAX_BIBTEX_KEYS", "MAX_K", "MAX_QUERY_CHARS", "build_server", "serve"]
