"""The protocol's requests and notifications, each answered from the server's state (rag.lsp.server)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from rag.check.verdicts import CitationCheck, Verdict
from rag.lsp.positions import cite_range, key_in_progress, key_span, lines_of, server_column
from rag.lsp.publishing import lacking
from rag.lsp.ranking import MAX_ITEMS
from rag.lsp.render import BIB_LACKS, add_entry_action, hover_text, replace_action
from rag.manuscripts.sources import shown
from rag.records import Paper
from rag.text import printable

if TYPE_CHECKING:
    from rag.lsp.session import RagServer

# What makes a client ask for completion without a keystroke of the key: a citation's brace, a comma
# between keys, Pandoc's @.
TRIGGERS = ["{", ",", "@"]


def register(server: RagServer) -> None:
    _documents(server)
    _hover(server)
    _completion(server)
    _code_actions(server)


def _documents(server: RagServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def opened(ls: RagServer, params: types.DidOpenTextDocumentParams) -> None:
        await ls.check(params.text_document.uri, full=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: RagServer, params: types.DidSaveTextDocumentParams) -> None:
        await ls.check(params.text_document.uri, full=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def changed(ls: RagServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def closed(ls: RagServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.pop(uri, None)
        ls.publish(uri, {uri: []})


def _at(ls: RagServer, uri: str, position: types.Position) -> tuple[CitationCheck | None, Paper | None]:
    """The check (and paper) of the key under the cursor in the document's last check."""
    document = ls.workspace.get_text_document(uri)
    state = ls.documents.get(uri)
    if state is None or not document.path:
        return None, None
    lines = lines_of(document.source)
    column = server_column(lines, position, ls.workspace.position_codec)
    name = shown(Path(document.path))
    for check in state.all_checks:
        if check.cite.file != name:
            continue
        line, start, end = key_span(lines, check.cite)
        if line == position.line and start <= column <= end:
            paper = check.paper or (state.view.resolve(check.cite.key) if state.view is not None else None)
            return check, paper
    return None, None


def _hover(server: RagServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: RagServer, params: types.HoverParams) -> types.Hover | None:
        check, paper = _at(ls, params.text_document.uri, params.position)
        if check is None:
            return None
        content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover_text(check, paper))
        return types.Hover(contents=content)


def _item(paper: Paper, rank: int, where: types.Range) -> types.CompletionItem:
    title = printable(paper.title or "untitled")
    return types.CompletionItem(
        label=paper.citekey,
        kind=types.CompletionItemKind.Reference,
        detail=f"{title} ({paper.year or 'n.d.'})",
        documentation=", ".join(paper.authors) or None,
        sort_text=f"{rank:05d}",
        filter_text=paper.citekey,
        text_edit=types.TextEdit(range=where, new_text=paper.citekey),
    )


def _completion(server: RagServer) -> None:
    options = types.CompletionOptions(trigger_characters=TRIGGERS)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, options)
    async def complete(ls: RagServer, params: types.CompletionParams) -> types.CompletionList | None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        lines = lines_of(document.source)
        codec = ls.workspace.position_codec
        column = server_column(lines, params.position, codec)
        latex = (document.path or "").lower().endswith(".tex")
        writing = key_in_progress(lines, params.position.line, column, latex)
        if writing is None:
            return None
        ranker = ls.ranker
        if ranker is None:  # the first completion, before any check: warm up once, on the worker
            loop = asyncio.get_running_loop()
            ranker = await loop.run_in_executor(ls.worker, lambda: ls.checks().ranker_for(writing.sentence))
        line = lines[params.position.line]
        start = types.Position(
            line=params.position.line, character=codec.client_num_units(line[: column - len(writing.prefix)])
        )
        where = types.Range(start=start, end=params.position)
        ranked = ranker.rank(writing.sentence, writing.prefix, MAX_ITEMS)
        items = [_item(paper, rank, where) for rank, (paper, _) in enumerate(ranked)]
        return types.CompletionList(is_incomplete=True, items=items)


def _code_actions(server: RagServer) -> None:
    kinds = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, kinds)
    def actions(ls: RagServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        state = ls.documents.get(uri)
        document = ls.workspace.get_text_document(uri)
        if state is None or not document.path:
            return None
        lines, codec, name = lines_of(document.source), ls.workspace.position_codec, shown(Path(document.path))
        wanted = params.range
        bib, missing = lacking(state)
        found: list[types.CodeAction] = []
        for check in state.all_checks:
            if check.cite.file != name:
                continue
            where = cite_range(lines, check.cite, codec)
            if where.end.line < wanted.start.line or where.start.line > wanted.end.line:
                continue
            if where.end.line == wanted.start.line and where.end.character < wanted.start.character:
                continue
            if where.start.line == wanted.end.line and where.start.character > wanted.end.character:
                continue
            if check.verdict is Verdict.WRONG_PAPER:
                found += replace_action(uri, where, check)
            if bib is not None and check.paper is not None and check.cite.key in missing:
                text = bib.read_text(encoding="utf-8", errors="replace")
                found.append(add_entry_action(check.cite.key, check.paper, bib, text, codec.client_num_units))
        unique = {action.title: action for action in found}
        return list(unique.values()) or None


__all__ = ["BIB_LACKS", "TRIGGERS", "register"]
