"""The Python API a script uses: `import rag`, open a library, search, ask, ingest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import HETEROGENEOUS_QUESTION

import rag
from rag.check import AnswerMode


def test_search_and_ask_from_a_script(seeded: Path) -> None:
    library = rag.open()
    hits = library.search("heterogeneous GPUs", k=3).hits
    assert [h.rank for h in hits] == [1, 2, 3]
    answer = rag.ask(HETEROGENEOUS_QUESTION)
    assert answer.mode is AnswerMode.EXTRACTIVE and answer.citations
    assert isinstance(library, rag.Library)


def test_ingest_into_a_named_library(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Sparse experts on small GPUs\n\nWe route tokens to experts that fit in little memory.\n")
    result = rag.ingest([note], collection="mine")
    assert (result.added, result.total_papers) == (1, 1)
    assert rag.open(collection="mine").papers().papers[0].title == "Sparse experts on small GPUs"


def test_import_rag_is_cheap() -> None:
    """`import rag` loads no index, model or client: the CLI pays for --help only."""
    heavy = "('chromadb', 'openai', 'llama_index', 'rag.')"
    code = f"import sys, rag; print(sorted(m for m in sys.modules if m.startswith({heavy})))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
