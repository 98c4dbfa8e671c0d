"""The files of a manuscript: read (any encoding, with a warning when it is not UTF-8) and found where its
build finds them. Nothing is ever written.

A name a manuscript gives (``\\input{chapters/intro}``, ``\\bibliography{refs}``) is looked for as LaTeX's
own search does: in the folder the build runs in first (``latexmk -cd`` runs it in the main file's folder;
``latexmk src/main.tex`` from a repository root runs it there), then beside the file that names it, then
beside the main file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import InputError

# Past this a file is not a manuscript (a whole book is a few MB of TeX).
MAX_MANUSCRIPT_BYTES = 8_000_000
# How far above the main file's folder a name it gives is looked for (src/main.tex, thesis/tex/main.tex).
MAX_ANCESTORS = 3


def shown(path: Path) -> str:
    """A path as the user gave it, normalised (``a/./b/../c`` -> ``a/c``), never made absolute."""
    return os.path.normpath(str(path))


def decode(data: bytes, file: str) -> tuple[str, str | None]:
    """The text (a byte-order mark dropped) and, when it is not UTF-8, a warning naming the first bad line:
    such a file is read as Windows-1252 (Latin-1 where that has no character), as LaTeX's inputenc would."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte-order mark (Windows editors)
        try:
            return data.decode("utf-16"), None
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        try:
            text, encoding = data.decode("cp1252"), "Windows-1252"
        except UnicodeDecodeError:
            text, encoding = data.decode("latin-1"), "Latin-1"
        return text, f"{file}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); read as {encoding}"


def read_source(path: Path, name: str) -> tuple[str, list[str]]:
    """A manuscript file's text and its warnings; InputError (one line naming it) when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_MANUSCRIPT_BYTES:
            raise InputError(f"{name}: {size:,} bytes is more than a manuscript ({MAX_MANUSCRIPT_BYTES:,} at most)")
        text, warning = decode(path.read_bytes(), name)
    except IsADirectoryError:
        raise InputError(f"{name}: is a folder; give the manuscript's main file or the folder itself") from None
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    return text, [warning] if warning else []


@dataclass
class Finder:
    """Finds and reads the files a manuscript names, each read once; None in its place (a manuscript given as
    text) means no file is ever opened."""

    build_dir: Path
    main_dir: Path
    texts: dict[str, str] = field(default_factory=dict)
    extra: tuple[Path, ...] = ()  # looked in last (the folder given to `rag check DIR`)

    def folders(self, including: str, first: Path | None = None) -> list[Path]:
        candidates = [first] if first is not None else []
        candidates += [self.build_dir, Path(including).parent, self.main_dir, *self.extra, *self._repository()]
        return list(dict.fromkeys(candidates))

    def _repository(self) -> list[Path]:
        """The main file's enclosing folders up to its repository's root (a build run from the root, e.g.
        ``latexmk src/main.tex``, when rag was not told so), at most MAX_ANCESTORS up."""
        found, folder = [], self.main_dir
        for _ in range(MAX_ANCESTORS):
            if (folder / ".git").exists() or folder.resolve() == folder.resolve().parent:
                break
            folder = folder / ".."
            found.append(folder)
        return found

    def find(self, names: Sequence[str], including: str, first: Path | None = None) -> Path | None:
        """The first of ``names`` that exists, looked for in each folder of the build's search in turn."""
        for folder in self.folders(including, first):
            for name in names:
                path = Path(name) if Path(name).is_absolute() else folder / name
                if path.is_file():
                    return path
        return None

    def looked(self, names: Sequence[str], including: str, first: Path | None = None) -> str:
        above = self._repository()
        folders = [folder for folder in self.folders(including, first) if folder not in above]
        return ", ".join(shown(folder / names[0]) for folder in folders) + (" and the folders above" if above else "")

    def read(self, path: Path) -> tuple[str, str, list[str]]:
        """(the file as shown, its text, warnings); the text is read once however often it is named."""
        name = shown(path)
        if name in self.texts:
            return name, self.texts[name], []
        text, warnings = read_source(path, name)
        self.texts[name] = text
        return name, text, warnings


def find_bibliographies(
    names: Sequence[str], where: str, including: str, finder: Finder | None
) -> tuple[list[Path], list[str]]:
    """The bibliography files ``names`` name, found like inputs; a warning for each not found (and for each,
    when the manuscript was given as text: then none is read)."""
    found: list[Path] = []
    warnings: list[str] = []
    for name in names:
        if finder is None:
            warnings.append(f"{where}: bibliography {name} not read (a manuscript given as text never reads files)")
            continue
        path = finder.find([name], including)
        if path is None:
            warnings.append(f"{where}: bibliography {name} not found (looked for {finder.looked([name], including)})")
        elif path not in found:
            found.append(path)
    return found, warnings
