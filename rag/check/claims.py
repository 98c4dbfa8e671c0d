"""The citation protocol applied to every generated text.

Map ``[n]`` to the papers the model was shown; drop numbers it was not given
(and report them); renumber by first appearance; split into sentences that
carry their citations, ready to be verified.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.check.markers import CITATION_GROUP, expand
from rag.check.sentences import CitedSentence
from rag.text import split_prose


def split_cited_sentences(text: str) -> list[CitedSentence]:
    """Sentences with their citation numbers; a citation after the full stop stays with its sentence."""
    pieces: list[str] = []
    for paragraph in text.split("\n"):
        for piece in split_prose(" ".join(paragraph.split())):
            if pieces and re.fullmatch(r"(\[\d+\]\s*)+[.,;]?", piece.strip()):
                pieces[-1] += " " + piece.strip()
            elif piece.strip():
                pieces.append(piece.strip())
    return [
        CitedSentence(piece, list(dict.fromkeys(n for g in CITATION_GROUP.findall(piece) for n in expand(g))))
        for piece in pieces
    ]


# Citations a model writes that are not [n]: "source 2", "(Source 3)", "[Source 1]", a sign ("[-1]").
_PROSE_CITATION = re.compile(r"\[?\(?\b(?:sources?|refs?\.?|references?)\s+(\d{1,3})\b\)?\]?", re.IGNORECASE)
_SIGNED_GROUP = re.compile(r"\[\s*-\s*(\d{1,6})\s*\]")
_TRAILING_PUNCTUATION = re.compile(r"\s*([.!?:;,]*)\s*$")


@dataclass
class Claim:
    """One sentence as the model wrote it, without citation markers, and the source numbers it gave."""

    text: str
    numbers: list[int]
    paragraph: int = 0


def claims_from_text(raw: str) -> list[Claim]:
    """The sentences of a text reply with the numbers each cites, in any of the ways models write them;
    the numbers are not checked against the sources here (see ``keep_given``)."""
    # "as source 2 shows" -> "as a source [2] shows": the sentence still reads, the number is checked.
    text = _PROSE_CITATION.sub(_prose_to_marker, raw.replace("\x00", ""))
    text = _SIGNED_GROUP.sub("[0]", text)  # a negative number is never a source given: reported like [0]
    claims: list[Claim] = []
    for paragraph, block in enumerate(p for p in re.split(r"\n\s*\n|\n", text) if p.strip()):
        for sentence in split_cited_sentences(block):
            bare = CITATION_GROUP.sub("", sentence.text)
            bare = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", bare)).strip()
            if re.search(r"\w", bare):
                claims.append(Claim(bare, sentence.citations, paragraph))
    return claims


def _prose_to_marker(match: re.Match[str]) -> str:
    starts_sentence = not match.string[: match.start()].strip() or match.string[: match.start()].rstrip()[-1] in ".!?"
    return f"{'A' if starts_sentence else 'a'} source [{match.group(1)}]"


def keep_given(numbers: Sequence[int], given: int) -> tuple[list[int], list[int]]:
    """(numbers that name one of the ``given`` sources, numbers that do not), each once, in order."""
    valid = [n for n in dict.fromkeys(numbers) if 1 <= n <= given]
    invalid = [n for n in dict.fromkeys(numbers) if not 1 <= n <= given]
    return valid, invalid


def with_citations(text: str, numbers: Sequence[int]) -> str:
    """'Claim.' + [1, 3] -> 'Claim [1][3].' (citations before the final punctuation)."""
    if not numbers:
        return text
    match = _TRAILING_PUNCTUATION.search(text)
    end = match.start() if match else len(text)
    punctuation = match.group(1) if match else ""
    return f"{text[:end]} {''.join(f'[{n}]' for n in numbers)}{punctuation}"


def rewrite_citation_runs(
    text: str, run: re.Pattern[str], escape: Callable[[str], str], cite: Callable[[list[int]], str]
) -> str:
    """``text`` for another format (LaTeX, Pandoc): each run of citation groups (matched by ``run``) becomes
    ``cite(numbers)``, ranges expanded and each number once; the text between runs goes through ``escape``."""
    out, last = [], 0
    for match in run.finditer(text):
        out.append(escape(text[last : match.start()]))
        numbers = [n for group in CITATION_GROUP.findall(match.group(0)) for n in expand(group)]
        out.append(cite(list(dict.fromkeys(numbers))))
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)
