"""`rag lsp`: the citation check as a language server, driven end to end over stdio by a real LSP client
(pytest-lsp): diagnostics with exact ranges, hover, completion, code actions, hostile documents; and once by a
real editor (Neovim headless, its built-in client) on a real thesis."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from conftest import REPO, needs_model
from lsprotocol import types
from pygls.workspace import PositionCodec
from pytest_lsp import ClientServerConfig, LanguageClient
from test_check import BIB, SUPPORTED, UNCHECKABLE, UNRELATED
from typer.testing import CliRunner

from rag.check.verdicts import FailOn, Verdict
from rag.cli import app
from rag.lsp.documents import PART_SENTENCES
from rag.lsp.positions import cite_range, key_in_progress, key_span
from rag.lsp.render import severity
from rag.manuscripts.citing import Cite

SERVER = [sys.executable, "-m", "rag", "lsp"]
# A real computer's first check loads the models: generous, never a timed assertion.
WAIT_SECONDS = 180
OTHER_BIB = r"""@article{lee2021,
  title = {Caffeine and the timing of sleep},
  author = {Lee, Kim},
  year = {2021},
  abstract = {Caffeine taken late in the day delays sleep onset and shortens total sleep time in adults.}
}
"""
REAL = REPO.parent / "shared" / "real" / "manuscripts"
REAL_THESIS = REAL / "bentharnist-fmi__bcnn-prob-nowcasting-thesis"


def _paper(*lines: str) -> str:
    return (
        "\\documentclass{article}\n\\begin{document}\n" + "\n".join(lines) + "\n\\bibliography{refs}\n\\end{document}\n"
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    return folder


@pytest_asyncio.fixture
async def client(workspace: Path) -> AsyncIterator[LanguageClient]:
    config = ClientServerConfig(server_command=SERVER, server_env=dict(os.environ))
    started = await config.start()
    assert isinstance(started, LanguageClient)
    folder = types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")
    capabilities = types.ClientCapabilities()
    await started.initialize_session(
        types.InitializeParams(capabilities=capabilities, root_uri=workspace.as_uri(), workspace_folders=[folder])
    )
    yield started
    await started.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri``."""
    client.diagnostics.pop(uri, None)
    while uri not in client.diagnostics:
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT_SECONDS)
    return list(client.diagnostics[uri])


def _open(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    language = "latex" if path.suffix == ".tex" else "markdown"
    item = types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    return uri


async def _actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic) -> Any:
    """The code actions the server offers for one of its diagnostics."""
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )


def _span(found: types.Diagnostic) -> tuple[int, int, int, int]:
    r = found.range
    return r.start.line, r.start.character, r.end.line, r.end.character


def _by_code(found: list[types.Diagnostic]) -> dict[str, list[types.Diagnostic]]:
    codes: dict[str, list[types.Diagnostic]] = {}
    for diagnostic in found:
        codes.setdefault(str(diagnostic.code), []).append(diagnostic)
    return codes


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
@pytest.mark.asyncio
async def test_diagnostics_hover_completion_and_code_actions(client: LanguageClient, workspace: Path) -> None:
    paper = workspace / "paper.tex"
    text = _paper(SUPPORTED, UNRELATED, UNCHECKABLE)
    paper.write_text(text, encoding="utf-8")
    uri = _open(client, paper, text)
    codes = _by_code(await _diagnostics(client, uri))
    # rag check's positions (tests/test_check.py: 3:114, 4:57, 5:19, 5:52), 0-based, the key's whole range.
    (wrong,) = codes["wrong-paper"]
    assert _span(wrong) == (3, 56, 3, 64) and wrong.severity == types.DiagnosticSeverity.Warning
    assert "better: smith2020" in wrong.message
    (missing,) = codes["missing-key"]
    assert _span(missing) == (4, 18, 4, 27) and missing.severity == types.DiagnosticSeverity.Warning
    assert [_span(d) for d in codes["stated"]] == [(2, 113, 2, 121)]
    assert [_span(d) for d in codes["cannot-check"]] == [(4, 51, 4, 58)]
    assert {d.severity for d in codes["stated"] + codes["cannot-check"]} == {types.DiagnosticSeverity.Hint}

    hovered = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=60)
        )
    )
    assert hovered is not None and isinstance(hovered.contents, types.MarkupContent)
    assert "Decentralized Training of Foundation Models" in hovered.contents.value
    assert "Yuan, Binhang" in hovered.contents.value and "2022" in hovered.contents.value
    assert "likely the wrong paper" in hovered.contents.value
    stated = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=2, character=115)
        )
    )
    assert stated is not None and "heterogeneous GPUs connected by slow networks" in str(stated.contents)
    title_only = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=4, character=53)
        )
    )
    assert title_only is not None and "Known by its title only" in str(title_only.contents)

    actions = await _actions(client, uri, wrong)
    assert actions is not None
    (replace,) = [a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Cite smith2020")]
    assert replace.edit is not None and replace.edit.changes is not None
    assert list(replace.edit.changes[uri]) == [types.TextEdit(range=wrong.range, new_text="smith2020")]

    # Completion inside \citep{ on a new line: the paper that fits the sentence comes first.
    typed = "Caffeine late in the day shortens how long adults sleep \\citep{"
    line = len(text.split("\n")) - 3
    _edit(client, uri, 2, line, 0, typed + "}.\n")
    completed = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=len(typed)),
        )
    )
    assert isinstance(completed, types.CompletionList) and completed.items
    first = completed.items[0]
    assert first.label == "smith2020" and first.detail == "Coffee consumption and sleep quality (2020)"
    assert {item.label for item in completed.items} >= {"smith2020", "yuan2022", "doe2019"}
    await _diagnostics(client, uri)

    # A citing sentence written above the others: after the pause only it is checked, the others move down.
    _edit(client, uri, 3, 2, 0, "Drinking coffee after noon reduces sleep quality \\cite{smith2020}.\n")
    moved = _by_code(await _diagnostics(client, uri))
    assert _span(moved["wrong-paper"][0]) == (4, 56, 4, 64)
    assert _span(moved["missing-key"][0]) == (5, 18, 5, 27)
    assert (2, 55, 2, 64) in [_span(d) for d in moved["stated"]]
    assert any("1 of 4 citing sentences checked again" in m.message for m in client.log_messages)


def _edit(client: LanguageClient, uri: str, version: int, line: int, character: int, text: str) -> None:
    at = types.Position(line=line, character=character)
    change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=text)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
        )
    )


@needs_model
@pytest.mark.asyncio
async def test_a_long_document_shows_its_first_diagnostics_before_the_last_is_read(
    client: LanguageClient, workspace: Path
) -> None:
    total = PART_SENTENCES + 5
    lines = [f"Training on heterogeneous GPUs, setting {n} \\cite{{yuan2022}}." for n in range(total)]
    uri = _open(client, workspace / "long.tex", _paper(*lines))
    seen: list[int] = []
    while not seen or seen[-1] < total:
        await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), WAIT_SECONDS)
        if uri in client.diagnostics:
            seen.append(len(client.diagnostics[uri]))
    assert seen == [PART_SENTENCES, total]


@needs_model
@pytest.mark.asyncio
async def test_a_library_paper_the_bib_lacks_gets_its_entry(client: LanguageClient, workspace: Path) -> None:
    other = workspace.parent / "other.bib"
    other.write_text(OTHER_BIB, encoding="utf-8")
    assert CliRunner().invoke(app, ["ingest", str(other)]).exit_code == 0
    paper = workspace / "paper.tex"
    text = _paper("Late caffeine delays sleep onset in adults \\cite{lee2021}.")
    paper.write_text(text, encoding="utf-8")
    uri = _open(client, paper, text)
    (lacks,) = _by_code(await _diagnostics(client, uri))["bib-lacks"]
    assert _span(lacks) == (2, 49, 2, 56)
    actions = await _actions(client, uri, lacks)
    assert actions is not None
    (add,) = [
        a for a in actions if isinstance(a, types.CodeAction) and a.title == "Add lee2021 to refs.bib from the library"
    ]
    assert add.edit is not None and add.edit.changes is not None
    (edit,) = add.edit.changes[(workspace / "refs.bib").as_uri()]
    assert (
        edit.new_text.lstrip().startswith("@article{lee2021,") and "Caffeine and the timing of sleep" in edit.new_text
    )
    end = len(BIB.split("\n")) - 1
    assert edit.range.start == types.Position(line=end, character=0)


@pytest.mark.asyncio
async def test_hostile_documents_get_a_diagnostic_never_a_crash(client: LanguageClient, workspace: Path) -> None:
    outside = workspace.parent / "secret.tex"
    outside.write_text("Secret words \\cite{smith2020}.\n", encoding="utf-8")
    paper = workspace / "hostile.tex"
    text = _paper("\\input{/etc/passwd}", f"\\input{{{outside}}}", "Fine \\cite{x}.", "\\bibliography{../../etc/x}")
    uri = _open(client, paper, text)
    found = await _diagnostics(client, uri)
    refused = [d for d in found if "outside the workspace" in d.message]
    assert {d.range.start.line for d in refused} == {2, 3}
    assert not any("Secret" in d.message for d in found)
    assert any("outside the workspace" in m.message for m in client.log_messages)

    big = workspace / "big.tex"
    assert "more than a manuscript" in (await _diagnostics(client, _open(client, big, "x" * 10_000_000)))[0].message
    garbage = workspace / "garbage.md"
    noise = bytes(range(256)).decode("latin-1") * 400
    assert "binary" in (await _diagnostics(client, _open(client, garbage, noise)))[0].message
    # ... and the server still answers, here a Quarto document naming its bibliography in its front matter.
    quarto = "---\nbibliography: refs.bib\n---\n\nDrinking coffee after noon reduces sleep quality [@smith2020].\n"
    (cited,) = [d for d in await _diagnostics(client, _open(client, workspace / "notes.qmd", quarto)) if d.code]
    assert _span(cited) == (4, 51, 4, 60)
    hovered = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
    )
    assert hovered is None


@pytest.mark.parametrize(
    ("line", "prefix"),
    [
        ("as shown \\cite{", ""),
        ("as shown \\citep{smi", "smi"),
        ("as shown \\citet*{yuan2022, sm", "sm"),
        ("as shown \\parencite[see][12]{yuan2022,", ""),
        ("as shown \\textcite{do", "do"),
        ("as shown \\autocite{", ""),
        ("as shown \\cites{yuan2022}{sm", "sm"),
    ],
)
def test_a_key_is_being_written_inside_every_latex_citation_form(line: str, prefix: str) -> None:
    found = key_in_progress([f"Coffee after noon harms sleep, {line}"], 0, len(line) + 31, latex=True)
    assert found is not None and found.prefix == prefix
    assert found.sentence.startswith("Coffee after noon harms sleep")


def test_a_key_is_being_written_after_pandoc_at_signs_and_nowhere_else() -> None:
    for typed, prefix in (("Sleep suffers [@", ""), ("Sleep suffers [see @smi", "smi"), ("As @yua", "yua"),
                          ("Sleep suffers [@yuan2022; @", "")):  # fmt: skip
        found = key_in_progress([typed], 0, len(typed), latex=False)
        assert found is not None and found.prefix == prefix, typed
    assert key_in_progress(["write to me@example"], 0, 19, latex=False) is None
    assert key_in_progress(["no citation here {"], 0, 18, latex=True) is None


def test_ranges_count_utf16_code_units_as_lsp_does() -> None:
    # "𝛽" is one code point (rag.manuscripts' column) but two UTF-16 code units (LSP's character).
    lines = ["The 𝛽 rule \\cite{smith2020}."]
    cite = Cite("smith2020", "p.tex", 1, lines[0].index("smith2020") + 1)
    where = cite_range(lines, cite, PositionCodec())
    assert (where.start.line, where.start.character, where.end.character) == (0, 18, 27)
    assert key_span(lines, cite) == (0, 17, 26)


def test_fail_on_makes_what_it_names_an_error() -> None:
    assert severity(Verdict.WRONG_PAPER, FailOn.NONE) == types.DiagnosticSeverity.Warning
    assert severity(Verdict.WRONG_PAPER, FailOn.PROBLEMS) == types.DiagnosticSeverity.Error
    assert severity(Verdict.WRONG_PAPER, FailOn.MISSING) == types.DiagnosticSeverity.Warning
    assert severity(Verdict.MISSING_KEY, FailOn.MISSING) == types.DiagnosticSeverity.Error
    assert severity(Verdict.FITS_NOT_STATED, FailOn.PROBLEMS) == types.DiagnosticSeverity.Hint


NVIM_SCRIPT = r"""
local thesis, root, out = unpack(vim.fn.argv())  -- the files after --, as nvim was given them
vim.cmd('edit ' .. vim.fn.fnameescape(thesis))
local buf = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({cmd = {%s}, root_dir = root})
vim.lsp.buf_attach_client(buf, client)
local ok = vim.wait(%d * 1000, function() return #vim.diagnostic.get(buf) > 0 end, 200)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(lines, string.format('%%d:%%d:%%d %%s', d.lnum, d.col, d.end_col,
    d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ''))
end
vim.fn.writefile(lines, out)
vim.lsp.stop_client(client)
vim.cmd(ok and 'qall!' or 'cquit!')
"""


@needs_model
@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim not installed (Debian: apt-get install neovim)")
@pytest.mark.skipif(not REAL_THESIS.is_dir(), reason="../shared/real/manuscripts is not beside the checkout")
def test_neovim_receives_the_diagnostics_of_a_real_thesis(tmp_path: Path) -> None:
    root = tmp_path / "thesis"
    shutil.copytree(REAL_THESIS, root)
    chapter = root / "2background.tex"  # its chapter with most citations (the main file only inputs chapters)
    command = ", ".join(f"'{part}'" for part in SERVER)
    script = tmp_path / "check.lua"
    script.write_text(NVIM_SCRIPT % (command, WAIT_SECONDS), encoding="utf-8")
    out = tmp_path / "diagnostics.txt"
    done = subprocess.run(
        ["nvim", "--headless", "--clean", "-c", f"luafile {script}", "--", str(chapter), str(root), str(out)],
        capture_output=True, text=True, timeout=WAIT_SECONDS + 60, env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = out.read_text(encoding="utf-8").splitlines()
    assert len(found) > 10
    lines = chapter.read_text(encoding="utf-8", errors="replace").split("\n")
    for diagnostic in found:
        place, code = diagnostic.split(" ", 1)
        line, column, end = (int(n) for n in place.split(":"))
        assert code and re.fullmatch(r"[\w:.-]+", lines[line][column:end])  # a key's exact range, its verdict
