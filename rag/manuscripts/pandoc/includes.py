"""Files a Pandoc manuscript reads into itself: Quarto's ``{{< include _part.qmd >}}`` and R Markdown's
child documents (```` ```{r, child="part.Rmd"} ````), read where they are written, as the build reads them.

A name is looked for beside the including file first (Quarto's rule; ``/name`` is from the project's
folder), then in the build folder. A missing file, a cycle, too deep a chain or a manuscript given as text
(nothing is read) is a warning with file:line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rag.errors import InputError
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.sources import Finder

MAX_DEPTH = 16
_SHORTCODE = re.compile(r"^[ \t]*\{\{<\s*include\s+(?P<name>[^\s>]+)\s*>\}\}", re.MULTILINE)
_CHILD = re.compile(r"^[ \t]*`{3,}\s*\{r[^}\n]*\bchild\s*=\s*[\"'](?P<name>[^\"']+)[\"']", re.MULTILINE)

# (text, file as shown, finder, the files being read) -> that file's manuscript
Reader = Callable[[str, str, Finder | None, tuple[str, ...]], Manuscript]


@dataclass(frozen=True, order=True)
class Include:
    line: int  # 1-based, of the shortcode or chunk
    name: str


def includes(text: str) -> list[Include]:
    found = [*_SHORTCODE.finditer(text), *_CHILD.finditer(text)]
    return sorted(Include(text.count("\n", 0, m.start()) + 1, m.group("name")) for m in found)


def with_includes(
    manuscript: Manuscript, text: str, file: str, finder: Finder | None, reading: tuple[str, ...], read: Reader
) -> Manuscript:
    """``manuscript`` (read from ``text``) with each file it includes read in its place: the included
    sentences come after the sentences written before the include."""
    for include in includes(text):
        where = f"{file}:{include.line}"
        if finder is None:
            manuscript.warnings.append(
                f"{where}: include {include.name} not followed (a manuscript given as text never reads files)"
            )
            continue
        if len(reading) >= MAX_DEPTH:
            manuscript.warnings.append(
                f"{where}: include {include.name} not followed: more than {MAX_DEPTH} files deep"
            )
            continue
        name = include.name.lstrip("/")
        path = finder.find([name], file, None if include.name.startswith("/") else Path(file).parent)
        if path is None:
            manuscript.warnings.append(f"{where}: include {include.name} not followed: no such file (looked for "
                                       f"{finder.looked([name], file, Path(file).parent)})")  # fmt: skip
            continue
        try:
            shown, included_text, warnings = finder.read(path)
        except InputError as exc:
            manuscript.warnings.append(f"{where}: include {include.name} not followed: {exc}")
            continue
        if shown in reading:
            manuscript.warnings.append(
                f"{where}: include {include.name} not followed: {shown} is already being read (a cycle)"
            )
            continue
        included = read(included_text, shown, finder, (*reading, shown))
        included.warnings[:0] = warnings
        before = [
            n for n, sentence in enumerate(manuscript.sentences)
            if sentence.cites and sentence.cites[0].file == file and sentence.cites[0].line < include.line
        ]  # fmt: skip
        at = before[-1] + 1 if before else 0
        manuscript.sentences[at:at] = included.sentences
        manuscript.warnings += included.warnings
        manuscript.files += [f for f in included.files if f not in manuscript.files]
        manuscript.bibliographies += [b for b in included.bibliographies if b not in manuscript.bibliographies]
    return manuscript
