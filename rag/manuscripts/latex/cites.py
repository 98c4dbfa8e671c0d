"""biblatex's multicites (``\\parencites(pre)(post)[p]{a}[q]{b}``) made one key list, without moving a
character, so the prose reader reads them as one citation of several keys, each where it is written."""

from __future__ import annotations

import re
from itertools import pairwise

from rag.manuscripts.latex.commands import MULTICITE_COMMANDS
from rag.manuscripts.latex.scan import Incomplete, mandatory, optional, skip_space
from rag.manuscripts.prose import blank

_MULTICITE = re.compile(r"\\(" + "|".join(sorted(MULTICITE_COMMANDS, key=len, reverse=True)) + r")(?![a-zA-Z@])")


def _groups(text: str, pos: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The key groups after a multicite command (their brace offsets) and the notes between them."""
    notes: list[tuple[int, int]] = []
    groups: list[tuple[int, int]] = []
    try:
        return _more_groups(text, pos, groups, notes)
    except Incomplete:  # the text ends: what was read is the citation
        return groups, notes


def _more_groups(
    text: str, pos: int, groups: list[tuple[int, int]], notes: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    for opening in "((":
        note = optional(text, pos, opening, ")")
        if note is None:
            break
        notes.append((note.outer_start, note.outer_end))
        pos = note.outer_end
    while True:
        pending, after = [], pos  # a group's notes count only when its {keys} follow them
        for _ in range(2):
            note = optional(text, after)
            if note is None:
                break
            pending.append((note.outer_start, note.outer_end))
            after = note.outer_end
        start = skip_space(text, after)
        if start >= len(text) or text[start] != "{":
            return groups, notes
        notes += pending
        group = mandatory(text, start)
        groups.append((group.outer_start, group.outer_end - 1))
        pos = group.outer_end


def multicites_merged(text: str) -> str:
    """``\\parencites[p]{a}[q]{b}`` -> ``\\parencite    {a,    b}`` (same length): one command, one key list."""
    spans, edits = [], []
    for match in _MULTICITE.finditer(text):
        groups, notes = _groups(text, match.end())
        if not groups:
            continue
        edits.append((match.end() - 1, " "))  # \parencites -> \parencite
        spans += notes
        for (_, close), (following_open, _) in pairwise(groups):
            edits.append((close, ","))
            spans.append((close + 1, following_open + 1))
    out = list(blank(text, spans))
    for offset, char in edits:
        out[offset] = char
    return "".join(out)
