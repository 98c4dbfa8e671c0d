"""Ingest throughput by format: BibTeX and PDF (parse + embed + store), end to end.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/ingest_formats.py

Builds a .bib of SciFact abstracts and a folder of one-page PDFs (title, authors,
abstract, introduction) from the same abstracts, then times `rag ingest` on each
into a fresh library, and parsing alone.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pdf_fixture import write_pdf

from rag.config import load_settings
from rag.corpus.loader import load_paths
from rag.services.context import Context
from rag.services.ingest import ingest

SCIFACT = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
BIB_ENTRIES = 1000
PDFS = 200
PDF_LINE_CHARS = 90


def _wrap(text: str) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if len(line) + len(word) > PDF_LINE_CHARS:
            lines.append(line)
            line = ""
        line += word + " "
    return [*lines, line]


def main() -> None:
    rows = [json.loads(line) for line in SCIFACT.open(encoding="utf-8")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        entries = []
        for i, row in enumerate(rows[:BIB_ENTRIES]):
            title = row["title"].replace("{", "(").replace("}", ")")
            abstract = row["text"].replace("{", "(").replace("}", ")")
            entries.append(f"@article{{key{i},\n  title = {{{title}}},\n  author = {{Doe, Jane and Roe, Ann}},\n"
                           f"  year = {{2020}},\n  abstract = {{{abstract}}}\n}}\n")  # fmt: skip
        (folder / "library.bib").write_text("\n".join(entries), encoding="utf-8")
        pdf_dir = folder / "pdfs"
        pdf_dir.mkdir()
        for i, raw in enumerate(rows[BIB_ENTRIES : BIB_ENTRIES + PDFS]):
            # The fixture writes Helvetica (Latin-1) text.
            row = {k: str(raw[k]).encode("latin-1", "replace").decode("latin-1") for k in ("title", "text")}
            lines = [row["title"][:PDF_LINE_CHARS], "Jane Doe, Ann Roe", "Abstract", *_wrap(row["text"])]
            write_pdf(pdf_dir / f"paper{i}.pdf", [*lines, "1 Introduction", "Body."], title=row["title"])
        print("| format | documents | parse docs/s | ingest docs/s (parse + embed + store) |")
        print("|---|---|---|---|")
        for name, path, count in (("BibTeX", folder / "library.bib", BIB_ENTRIES), ("PDF", pdf_dir, PDFS)):
            started = time.perf_counter()
            parsed = load_paths([path])
            parse_rate = len(parsed.papers) / (time.perf_counter() - started)
            settings = load_settings(data_dir=folder / f"data-{name}", collection="formats")
            started = time.perf_counter()
            result = ingest(Context(settings), [path])
            rate = result.added / (time.perf_counter() - started)
            print(f"| {name} | {count} | {parse_rate:.0f} | {rate:.1f} |")


if __name__ == "__main__":
    main()
