"""Tiny real PDFs for tests: a text layer in Helvetica, no dependencies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_pdf(
    path: Path,
    lines: list[str],
    title: str | None = None,
    more_pages: Sequence[list[str]] = (),
    author: str | None = None,
    big_lines: Sequence[str] = (),
) -> Path:
    """A PDF whose first page's text layer holds ``lines`` (after ``big_lines`` in a 20-point font, a title
    block), each of ``more_pages`` one more page (and /Title metadata when given)."""
    pages = [lines, *more_pages]
    font = 3 + 2 * len(pages)
    objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    for i, page in enumerate(pages):
        big = " ".join(f"({_escape(line)}) Tj T*" for line in big_lines) if i == 0 and big_lines else ""
        body = " ".join(f"({_escape(line)}) Tj T*" for line in page)
        stream = f"BT /F1 20 Tf 24 TL 72 760 Td {big} /F1 11 Tf 14 TL {body} ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info_fields = {"Title": title, "Author": author}
    if any(info_fields.values()):
        objects.append("<< " + " ".join(f"/{k} ({_escape(v)})" for k, v in info_fields.items() if v) + " >>")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    info = f" /Info {len(objects)} 0 R" if any(info_fields.values()) else ""
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)
    return path
