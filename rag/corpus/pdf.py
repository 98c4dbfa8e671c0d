"""PDFs with pypdf: title and abstract from the first pages."""

from __future__ import annotations

import re
from pathlib import Path

from rag.corpus.identity import content_id, normalize_text
from rag.errors import InputError
from rag.models import Paper

FIRST_PAGES = 2
# An abstract longer than this has run into the body text.
MAX_ABSTRACT_CHARS = 3000
_ABSTRACT_START = re.compile(r"\babstract\b[\s.:—-]*", re.IGNORECASE)
_ABSTRACT_END = re.compile(
    r"\n\s*(?:(?:1|I)\.?\s+)?(?:introduction|keywords|index terms|ccs concepts)\b", re.IGNORECASE
)


def parse_pdf(path: Path, file_name: str) -> Paper:
    """One paper from a PDF: its metadata title (or first line) and the text after 'Abstract'."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise InputError(f"{file_name}: encrypted PDF; decrypt it first (e.g. qpdf --decrypt in.pdf out.pdf)")
        text = "\n".join((page.extract_text() or "") for page in reader.pages[:FIRST_PAGES])
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except InputError:
        raise
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{file_name}: unreadable PDF ({type(exc).__name__}: {exc})") from None
    if not text.strip():
        raise InputError(f"{file_name}: no text layer (a scanned, image-only PDF); run OCR first (e.g. ocrmypdf)")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    title = normalize_text(meta_title) or (lines[0] if lines else None)
    abstract = ""
    if start := _ABSTRACT_START.search(text):
        rest = text[start.end() :]
        end = _ABSTRACT_END.search(rest)
        abstract = normalize_text(rest[: end.start() if end else MAX_ABSTRACT_CHARS])[:MAX_ABSTRACT_CHARS]
    return Paper(
        id=content_id(abstract or f"{title}\n{text[:500]}"),
        text=abstract or normalize_text(text)[:MAX_ABSTRACT_CHARS],
        title=title,
        sources=[f"{file_name}#1"],
        lists=[file_name],
        no_abstract=not abstract,
    )
