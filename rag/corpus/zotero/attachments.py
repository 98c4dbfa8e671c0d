"""The PDFs attached to Zotero items: where each file is, and what it gives its item.

An imported attachment (a file Zotero keeps) is ``storage/<attachment key>/<name>`` in the data
directory, its path in the database ``storage:<name>``; a linked file is anywhere on disk, at an
absolute path or one relative to the "linked attachment base directory", a Zotero preference
rag cannot see. The item's first readable PDF gives its full-text passages, and its abstract when
the item has none; the paper stays the Zotero item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rag.corpus.identity import content_id
from rag.corpus.pdf.cache import PdfCache
from rag.corpus.zotero.database import IMPORTED_FILE, IMPORTED_URL, LINKED_FILE, Attachment, ZoteroItem
from rag.errors import InputError
from rag.records import Paper

STORAGE_DIR = "storage"
STORAGE_PREFIX = "storage:"
# Missing PDFs named one by one; beyond this many, one line counts the rest.
MAX_LISTED_MISSING = 20


def pdf_file(folder: Path, attachment: Attachment) -> Path | None:
    """Where an attachment's PDF is: in storage/<key>/ (imported), or at its absolute path (linked);
    None for a path relative to the linked-attachment base directory."""
    if attachment.link_mode in (IMPORTED_FILE, IMPORTED_URL) and attachment.path.startswith(STORAGE_PREFIX):
        name = attachment.path.removeprefix(STORAGE_PREFIX)
        return folder / STORAGE_DIR / attachment.key / name if name and Path(name).name == name else None
    if attachment.link_mode == LINKED_FILE and Path(attachment.path).is_absolute():
        return Path(attachment.path)
    return None


@dataclass
class AttachedPdfs:
    """Reads the items' PDFs of the data directory ``folder`` through ``pdfs``, keeping what went wrong."""

    folder: Path
    full_text: bool
    pdfs: PdfCache
    warnings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def add_full_text(self, paper: Paper, item: ZoteroItem) -> None:
        """Passages from the item's first readable PDF (its abstract too, when the item has none);
        every PDF attachment that is not there is said."""
        if not self.full_text and not paper.no_abstract:
            return  # nothing a PDF could add
        read = False
        for attachment in (a for a in item.attachments if a.is_pdf):
            file = pdf_file(self.folder, attachment)
            if file is None:
                self.warnings.append(
                    f"{paper.sources[0]}: PDF {attachment.path} is linked relative to Zotero's base directory for "
                    "linked files, which rag cannot see; ingest that folder's PDFs on their own"
                )
                continue
            shown = str(file.relative_to(self.folder)) if file.is_relative_to(self.folder) else str(file)
            if not file.is_file():
                self.missing.append(
                    f"{paper.sources[0]}: PDF {shown} is missing; the item is kept without its full text"
                )
            elif not read:  # a second PDF present is not read: the item's full text came from the first
                read = self._read(paper, file, shown)

    def _read(self, paper: Paper, file: Path, shown: str) -> bool:
        try:
            pdf = self.pdfs.parse(file, shown, self.full_text)
        except InputError as exc:
            self.warnings.append(f"{paper.sources[0]}: {exc}; the item is kept without its full text")
            return False
        paper.passages = pdf.passages
        if paper.no_abstract and not pdf.no_abstract:
            paper.id, paper.text, paper.no_abstract = content_id(pdf.text), pdf.text, False
        return True

    def report(self) -> list[str]:
        """The warnings, missing PDFs last (the first ones by name, then how many more)."""
        listed = self.missing[:MAX_LISTED_MISSING]
        if rest := len(self.missing) - len(listed):
            listed.append(f"... and {rest} more PDF attachments missing (not synced, or deleted)")
        return [*self.warnings, *listed]
