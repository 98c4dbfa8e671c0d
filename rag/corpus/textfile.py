"""A file read as text, or one clear line saying why it cannot be."""

from __future__ import annotations

from pathlib import Path

from rag.errors import InputError

# How much of a file is sniffed for NUL bytes to call it binary.
BINARY_SNIFF_BYTES = 8192
# Byte-order marks of UTF-16 files (Web of Science's "Win UTF-16" export writes them).
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def read_text_file(path: Path) -> str:
    """The file as text (UTF-8, or UTF-16 with its byte-order mark), or an ``InputError`` saying why it
    is not usable text."""
    return _read(path, legacy=False)[0]


def read_export_file(path: Path) -> tuple[str, list[str]]:
    """An export as text: like ``read_text_file``, but a file that is not UTF-8 is read as Windows-1252
    (what database exports on Windows write), with a warning saying so."""
    return _read(path, legacy=True)


def _read(path: Path, legacy: bool) -> tuple[str, list[str]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if data.startswith(_UTF16_BOMS):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not valid UTF-16 text (offset {exc.start})") from None
        if not text.strip():
            raise InputError(f"{path}: file is empty")
        return text, []
    if not data.strip():
        raise InputError(f"{path}: file is empty")
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(f"{path}: binary file, not text")
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        if legacy:
            return _legacy(data, path, exc.start)
        raise InputError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            f"re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8"
        ) from None


def _legacy(data: bytes, path: Path, offset: int) -> tuple[str, list[str]]:
    """Windows-1252, what Windows exporters (Ovid, older EndNote) write; Latin-1 where a byte is not one."""
    try:
        text, name = data.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        text, name = data.decode("latin-1"), "Latin-1"  # any byte is a Latin-1 character
    warning = (
        f"{path.name}: not UTF-8 (byte 0x{data[offset]:02x} at offset {offset}); read as {name}, "
        "so check its accents, or re-save it as UTF-8"
    )
    return text, [warning]
