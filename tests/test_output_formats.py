"""Output formats come from one table (rag.formats.registry): the CLI, the Python API and export agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import rag
from rag.cli import app
from rag.errors import InputError
from rag.formats import BIBLIOGRAPHIES, DOCUMENTS, bibliography_for, document_format

runner = CliRunner()


def test_every_table_entry_is_offered_and_explained_by_the_cli() -> None:
    draft_help = runner.invoke(app, ["draft", "--help"], env={"COLUMNS": "200"}).stdout
    export_help = runner.invoke(app, ["export", "--help"], env={"COLUMNS": "200"}).stdout
    assert all(f"{name}:" in draft_help for name in DOCUMENTS)
    assert all(f"{name}:" in export_help for name in BIBLIOGRAPHIES)
    assert all(f"FILE{f.suffix}" in draft_help for f in BIBLIOGRAPHIES.values() if f.suffix)


def test_names_and_endings_are_looked_up_in_the_tables() -> None:
    assert document_format(" LaTeX ") is DOCUMENTS["latex"]
    assert bibliography_for(Path("refs.BIB")) is BIBLIOGRAPHIES["bibtex"]
    with pytest.raises(InputError, match="markdown, latex or pandoc"):
        document_format("docx")
    with pytest.raises(InputError, match=r"FILE\.bib \(BibTeX\) or FILE\.json \(CSL JSON\)"):
        bibliography_for(Path("refs.ris"))


def test_an_unknown_format_is_refused_before_any_work(seeded: Path) -> None:
    result = runner.invoke(app, ["draft", "mixture of experts", "--format", "docx"])
    assert result.exit_code == 2 and "'docx' is not one of markdown, latex, pandoc" in result.stderr
    export = runner.invoke(app, ["export", "--format", "ris"])
    assert export.exit_code == 1 and "use bibtex, csljson or jsonl" in export.stderr


def test_the_python_api_drafts_in_any_format_and_writes_the_bibliography(seeded: Path, tmp_path: Path) -> None:
    library = rag.open()
    bib = tmp_path / "refs.json"
    draft = library.draft("mixture of experts", output_format="pandoc", bib=bib)
    assert draft.format == "pandoc" and "[@" in draft.document
    cited = {c.paper.citekey for c in draft.answer.citations}
    assert draft.bibliography == bib and {item["id"] for item in json.loads(bib.read_text())} == cited


def test_the_cli_says_what_it_wrote(seeded: Path, tmp_path: Path) -> None:
    bib = tmp_path / "related.bib"
    result = runner.invoke(app, ["draft", "mixture of experts", "--format", "latex", "--bib", str(bib), "--json"])
    payload = json.loads(result.stdout)
    assert payload["format"] == "latex" and "\\cite{" in payload["latex"] and payload["bibliography"] == str(bib)
    entries = len(payload["citations"])
    assert f"wrote {entries} entries (BibTeX) to {bib}" in result.stderr
    assert len(re.findall(r"^@(?!comment)\w+\{", bib.read_text(), flags=re.M)) == entries  # beside rag's records
