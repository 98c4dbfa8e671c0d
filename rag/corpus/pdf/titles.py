"""A PDF's title, authors and year, from what it says about itself and where it lies.

PDF metadata is often wrong: "untitled", a URL, a typesetter's job name ("418578_1_En_BookFrontmatter
1..11"), "Front Matter", or the journal's name. The first page's title block (its largest-font lines
near the top) is read next, and a Zotero storage file name ("Author et al. - 2017 - Title.pdf") settles
between them and is the fallback: Zotero wrote it from the item's own record.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rag.corpus.identity import ascii_fold, normalize_text

# Title lines are at least this much larger than the page's body text, and in the top part of the page.
TITLE_SIZE_RATIO = 1.15
TOP_SHARE = 0.4
MAX_TITLE_LINES = 3
MAX_TITLE_CHARS = 300
# Runs this much smaller than their line's largest are footnote marks and superscripts.
SUPERSCRIPT_RATIO = 0.8
# The folded prefix of a file-name title that must open the title it confirms.
CONFIRM_CHARS = 30
# Zotero 5/6 name attachments "{%c - }{%y - }{%t{50}}", Zotero 7 "{{ firstCreator }} - {{ year }} - {{ title }}".
_ZOTERO_NAME = re.compile(r"^(?P<authors>[^-]+?) - (?P<year>\d{4}) - (?P<title>.+)$")
_ALSO = re.compile(r"\s+(?:et al\.?|and|&)\s+|,\s*")
_URL = re.compile(r"^(?:https?://|www\.)|\.(?:com|org|net|edu|pdf)\b|/\S*/", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(?:docx?|dvi|tex|ps|pdf|indd|qxd)$|^microsoft word - |_\w*_|\d\.\.\d", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^(?:untitled|front matter|title|no title|none|unknown|document\d*|slide \d+)\b", re.I)
_VENUE = re.compile(
    r"\b(?:journal of|proceedings of|transactions on|letters?\b|vol\.|volume \d|pp\.|issn|doi\b|arxiv:|preprint\b"
    r"|springer (?:texts|briefs|series)|lecture notes in|in press|accepted manuscript)",
    re.IGNORECASE,
)
_ARXIV_STAMP = re.compile(r"^arXiv:\d{4}\.\d{4,5}", re.IGNORECASE)
_NAME_WORD = re.compile(r"^(?:[A-Z][\w'’.-]*|van|von|de|der|den|da|di|du|dos|del|la|le|y)$")
_NOT_NAMES = re.compile(
    r"universit|department|institut|laborator|school|college|centre|center|series|editor|edition|press|springer"
    r"|abstract|volume|chapter|journal|proceedings|@|\d",
    re.IGNORECASE,
)
_FOOTNOTE_MARKS = re.compile(r"[∗*†‡§¶✩⋆]+")


@dataclass
class TitleBlock:
    """The first page's largest-font lines near the top, and the line right after them (the authors, often)."""

    lines: list[str] = field(default_factory=list)
    after: str = ""

    @property
    def title(self) -> str:
        return normalize_text(" ".join(self.lines))[:MAX_TITLE_CHARS]


@dataclass
class _Line:
    y: float
    size: float
    runs: list[tuple[float, str]]  # (font size, text)

    @property
    def text(self) -> str:
        kept = [text for size, text in self.runs if size >= self.size * SUPERSCRIPT_RATIO]
        return normalize_text(_FOOTNOTE_MARKS.sub(" ", " ".join(kept)))


def title_block(page: Any) -> TitleBlock:
    """The title block of a pypdf page, from the font size of each piece of text (rotated text, such as
    arXiv's margin stamp, left out); empty when no line stands out from the body text."""
    runs: list[tuple[float, float, str]] = []

    def visit(text: str, cm: Sequence[float], tm: Sequence[float], font: Any, size: float) -> None:
        a, b = tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3]
        c, d = tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3]
        if text.strip() and abs(b) < 1e-6 and abs(c) < 1e-6 and a > 0:
            runs.append((tm[4] * cm[1] + tm[5] * cm[3] + cm[5], size * math.sqrt(abs(a * d - b * c)), text))

    try:
        page.extract_text(visitor_text=visit)
        height = float(page.mediabox.height)
    except Exception:  # a damaged page: the other clues decide
        return TitleBlock()
    return _block(_lines(runs), height)


def _lines(runs: Sequence[tuple[float, float, str]]) -> list[_Line]:
    """Runs grouped into lines from the top down (a superscript, a little higher, joins its line)."""
    lines: list[_Line] = []
    for y, size, text in runs:
        line = next((ln for ln in lines if abs(ln.y - y) <= max(ln.size, size) * 0.5), None)
        if line is None:
            lines.append(_Line(y, size, [(size, text)]))
        else:
            line.runs.append((size, text))
            line.size = max(line.size, size)
    return sorted(lines, key=lambda ln: -ln.y)


def _block(lines: Sequence[_Line], height: float) -> TitleBlock:
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[round(line.size, 1)] += len(line.text)
    if not sizes:
        return TitleBlock()
    body = sizes.most_common(1)[0][0]
    top = [ln for ln in lines if ln.y >= height * TOP_SHARE and len(re.findall(r"[^\W\d_]", ln.text)) >= 3]
    top = [ln for ln in top if not _ARXIV_STAMP.match(ln.text)]
    if not top:
        return TitleBlock()
    largest = max(ln.size for ln in top)
    if largest < body * TITLE_SIZE_RATIO:
        return TitleBlock()
    start = next(i for i, ln in enumerate(lines) if ln in top and abs(ln.size - largest) < 0.5)
    block: list[str] = []
    for line in lines[start:]:
        if abs(line.size - largest) >= 0.5 or len(block) == MAX_TITLE_LINES:
            break
        block.append(line.text)
    after = lines[start + len(block)].text if start + len(block) < len(lines) else ""
    return TitleBlock(block, after)


def _folded(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ascii_fold(text).lower())


def from_file_name(file_name: str) -> tuple[list[str], int | None, str] | None:
    """A Zotero storage name's first authors' surnames, year and (maybe shortened) title; None otherwise."""
    match = _ZOTERO_NAME.match(PurePath(file_name).stem)
    if match is None:
        return None
    authors = re.sub(r"\s+et al\.?$", "", match.group("authors").strip())
    names = [name.strip() for name in _ALSO.split(authors) if name.strip()]
    return names, int(match.group("year")), normalize_text(match.group("title"))


def is_junk_title(title: str, running: Collection[str] = ()) -> bool:
    """Metadata or a first line that names no work: a placeholder, a URL, a file or job name, the venue,
    the arXiv stamp, or a line that runs along the top of the pages."""
    text = normalize_text(title)
    if len(re.findall(r"[^\W\d_]", text)) < 4 or _PLACEHOLDER.match(text) or _ARXIV_STAMP.match(text):
        return True
    if _URL.search(text) or _FILE_NAME.search(text) or _VENUE.search(text):
        return True
    return re.sub(r"\d+", "#", text.casefold()) in running


def _names(line: str) -> list[str]:
    """The authors on a title block's next line ('A. Smith, B. Jones and C. Wu'); [] when it is not names."""
    chunks = [c.strip() for c in re.split(r",|\band\b|•|;|&", line) if c.strip()]
    if not chunks or _NOT_NAMES.search(line):
        return []
    names = []
    for chunk in chunks:
        words = chunk.split()
        if not 2 <= len(words) <= 5 or not all(_NAME_WORD.match(w) for w in words):
            return []
        names.append(" ".join(words))
    return names


@dataclass
class PdfIdentity:
    title: str | None
    authors: list[str]
    year: int | None


def identify(
    meta_title: str,
    meta_authors: list[str],
    block: TitleBlock,
    first_lines: Sequence[str],
    file_name: str,
    running: Collection[str] = (),
) -> PdfIdentity:
    """The title (metadata, else the title block, else a first line; a Zotero file name confirms one of
    them or replaces them), the authors (metadata, the line under the title, the file name) and the year
    (the file name's)."""
    named = from_file_name(file_name)
    candidates = [t for t in (normalize_text(meta_title), block.title) if t and not is_junk_title(t, running)]
    title: str | None = candidates[0] if candidates else None
    if named is not None:
        title = _confirmed(named[2], candidates, first_lines)
    elif title is None:
        title = next((line for line in first_lines if not is_junk_title(line, running)), None)
    authors = meta_authors or _names(block.after) or (named[0] if named else [])
    return PdfIdentity(title, authors, named[1] if named else None)


def _confirmed(file_title: str, candidates: Sequence[str], first_lines: Sequence[str]) -> str:
    """The candidate the file name's title opens (Zotero shortens it), else a first-page line (or two)
    that opens with it, else the file name's title itself."""
    wanted = _folded(file_title)[:CONFIRM_CHARS]
    for candidate in candidates:
        if _folded(candidate).startswith(wanted):
            return candidate
    for i, line in enumerate(first_lines):
        for joined in (line, f"{line} {first_lines[i + 1]}" if i + 1 < len(first_lines) else line):
            if _folded(joined).startswith(_folded(file_title)):
                return normalize_text(joined)
    return file_title
