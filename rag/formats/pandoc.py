"""Cited text as Pandoc Markdown: ``[n]`` runs become ``[@key; @key]``, for ``pandoc --citeproc`` and Quarto.

The rest stays Markdown; only what Pandoc would misread as markup is escaped: ``@`` (a citation),
``[``/``]`` (a citation, link or footnote) and ``\\`` (raw TeX such as ``\\emph{}``, which Pandoc
drops from non-LaTeX output). Inline math (``$...$``) and code spans are left exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.check.claims import rewrite_citation_runs
from rag.check.markers import CITATION_GROUP
from rag.check.sentences import Answer
from rag.check.subjects import cited_subjects
from rag.writing.in_text import mark_in_text, split_marked

# Adjacent groups ("[1][2]", "[1] [3]", "[1, 2]") are one run: Pandoc groups them as "[@a; @b]".
_RUN_OF_CITATIONS = re.compile(rf"(?:{CITATION_GROUP.pattern})(?:[ \t]*(?:{CITATION_GROUP.pattern}))*")
# Spans Pandoc reads verbatim, where a backslash escape would show: $$display$$, $inline$ math (an
# opening $ before a non-space, a closing $ after a non-space and not before a digit), `code`.
_VERBATIM = re.compile(r"\$\$.+?\$\$|\$(?=\S)(?:[^$\\\n]|\\.)*?(?<=\S)\$(?!\d)|`[^`\n]+`")
_MARKUP = re.compile(r"([\\@\[\]])")
# A key Pandoc reads bare: alphanumerics with single internal punctuation; any other key needs braces.
_BARE_KEY = re.compile(r"\w+(?:[:.#$%&+?<>~/-]\w+)*")
# A list needs a blank line before it in Pandoc Markdown, or it is read as part of the paragraph.
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _outside_verbatim(text: str, convert: Callable[[str], str]) -> str:
    """``convert`` applied to the text between math and code spans; the spans are kept as written."""
    out, last = [], 0
    for match in _VERBATIM.finditer(text):
        out.append(convert(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(convert(text[last:]))
    return "".join(out)


def _escape_markup(text: str) -> str:
    return _MARKUP.sub(r"\\\1", text)


def citation_key(key: str) -> str:
    """``@key``, or ``@{key}`` where Pandoc would otherwise stop the key early (``a--b``, ``key.``)."""
    return f"@{key}" if _BARE_KEY.fullmatch(key) else f"@{{{key}}}"


def _with_blank_line_before_lists(text: str) -> str:
    lines: list[str] = []
    for line in text.split("\n"):
        if _LIST_ITEM.match(line) and lines and lines[-1].strip() and not _LIST_ITEM.match(lines[-1]):
            lines.append("")
        lines.append(line)
    return "\n".join(lines)


def to_pandoc(answer: Answer) -> str:
    """[n] runs become [@key; ...] (numbers without a paper are dropped); the rest is escaped Markdown."""
    keys = {c.n: c.paper.citekey for c in answer.citations}

    def cite(numbers: list[int]) -> str:
        cited = [citation_key(keys[n]) for n in numbers if n in keys]
        return f"[{'; '.join(cited)}]" if cited else ""

    def segment_to_pandoc(segment: str) -> str:
        return "".join(
            citation_key(keys[piece])
            if isinstance(piece, int)
            else rewrite_citation_runs(piece, _RUN_OF_CITATIONS, _escape_markup, cite)
            for piece in split_marked(segment)
        )

    # Citation runs are looked for outside math and code only, so "$[0, 1]$" stays math.
    # A vague subject rag named ("The paper (Hazra, 2021)") cites its paper there: "The paper [@hazra]"; a paper
    # named in the text ("Hazra et al. (2021) propose Y [3].") is an in-text citation: "@hazra propose Y.".
    marked = mark_in_text(cited_subjects(answer), answer)
    return _with_blank_line_before_lists(_outside_verbatim(marked, segment_to_pandoc))
