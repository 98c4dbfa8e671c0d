"""The citation protocol applied to every generated text.

Map ``[n]`` to the papers the model was shown; drop numbers it was not given
(and report them); renumber by first appearance; split into sentences that
carry their citations, ready to be verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.records import Paper
from rag.writing.answer import CitedSentence, CitedText

# [3], [1, 2], [1-3], [1–3]; the model's way of grouping does not matter.
CITATION_GROUP = re.compile(r"\[(\s*\d{1,6}(?:\s*(?:[,;]|[-–])\s*\d{1,6})*\s*)\]")
MAX_RANGE = 20
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[(\"'])")


def expand(group: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"[,;]", group):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= MAX_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return numbers


def split_cited_sentences(text: str) -> list[CitedSentence]:
    """Sentences with their citation numbers; a citation after the full stop stays with its sentence."""
    pieces: list[str] = []
    for paragraph in text.split("\n"):
        for piece in _SENTENCE_BREAK.split(paragraph.strip()):
            if pieces and re.fullmatch(r"(\[\d+\]\s*)+[.,;]?", piece.strip()):
                pieces[-1] += " " + piece.strip()
            elif piece.strip():
                pieces.append(piece.strip())
    return [
        CitedSentence(piece, list(dict.fromkeys(n for g in CITATION_GROUP.findall(piece) for n in expand(g))))
        for piece in pieces
    ]


def apply_citations(raw: str, given: Sequence[Paper]) -> CitedText:
    """Check, renumber and normalize the citations in ``raw`` against the ``given`` sources."""
    order: dict[int, int] = {}
    removed: list[int] = []

    def rewrite(match: re.Match[str]) -> str:
        kept = []
        for number in expand(match.group(1)):
            if 1 <= number <= len(given):
                order.setdefault(number, len(order) + 1)
                kept.append(order[number])
            elif number not in removed:
                removed.append(number)
        # Placeholders, so a group that removing another one happens to form ('[[9]2]') is not taken for ours.
        return "".join(f"\x00{n}\x01" for n in dict.fromkeys(kept))

    text = CITATION_GROUP.sub(rewrite, raw.replace("\x00", "").replace("\x01", ""))
    text = CITATION_GROUP.sub("", text).replace("\x00", "[").replace("\x01", "]")
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)  # space left before punctuation by a removed citation
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    papers = [given[old - 1] for old, _ in sorted(order.items(), key=lambda item: item[1])]
    return CitedText(text, papers, split_cited_sentences(text), removed)
