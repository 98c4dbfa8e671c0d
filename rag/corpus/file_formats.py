"""The files rag reads, by name and ending: what ``ingest --help`` lists and what ``rag.corpus.readers``
dispatches on (each format there is one reader beside one of these). Data only, cheap to import."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileFormat:
    name: str  # as the help lists it
    endings: tuple[str, ...]  # lower-case, with the dot

    def described(self) -> str:
        return f"{self.name} ({', '.join(self.endings)})"


# A .txt file is recognised by what it holds (rag.corpus.readers.TEXT_SNIFFERS), else read as one paper.
TEXT = FileFormat("seed lists (papers.tsv beside them), RIS, Web of Science or MEDLINE text, or plain text", (".txt",))
MARKDOWN = FileFormat("Markdown", (".md", ".markdown"))
BIBTEX = FileFormat("BibTeX/biblatex", (".bib",))
PDF = FileFormat("PDF", (".pdf",))
RECORDS = FileFormat(
    "JSONL/CSV/TSV exports (arXiv, OpenAlex, Semantic Scholar, Scopus, Web of Science, PubMed, rag's own)",
    (".jsonl", ".csv", ".tsv"),
)
JSON = FileFormat("CSL JSON (Zotero, Pandoc) or a JSON export", (".json",))
RIS = FileFormat("RIS", (".ris",))
WOS = FileFormat("Web of Science plain text", (".ciw",))
MEDLINE = FileFormat("PubMed/MEDLINE", (".nbib",))
ZOTERO = FileFormat("a Zotero database, or the data directory holding it (e.g. ~/Zotero)", (".sqlite",))
FORMATS = (TEXT, MARKDOWN, BIBTEX, PDF, RECORDS, JSON, RIS, WOS, MEDLINE, ZOTERO)


def described_formats() -> str:
    """Every format as the help lists it: 'BibTeX/biblatex (.bib), PDF (.pdf), ...'."""
    return "; ".join(file_format.described() for file_format in FORMATS)
