"""Prose -> sentences, split where a reader would split them.

Not after ``et al.``, ``e.g.``, ``i.e.``, ``Fig.``, ``Eq.``, ``cf.``, ``vs.``, initials (``J. Smith``) or
inside numbers (``3.5``); a citation written after the full stop (``shown.\\footcite{x} Next``) stays with
the sentence it ends. Kept apart from ``rag.text.split_sentences``, which the support check was fitted
with: changing that one would change the check's measured numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.manuscripts.citing import CitingSentence
from rag.manuscripts.prose import FOOTNOTE_CLOSE, FOOTNOTE_OPEN, Marks, is_mark

# Words that end with a full stop without ending the sentence (compared lower-cased, without the stop).
ABBREVIATIONS = frozenset(
    {
        "al", "e.g", "i.e", "cf", "vs", "viz", "approx", "resp", "ca", "ph.d",
        "fig", "figs", "eq", "eqs", "eqn", "eqns", "sec", "secs", "sect", "ch", "chap", "tab", "tbl",
        "ref", "refs", "no", "nos", "vol", "vols", "p", "pp", "thm", "lem", "def", "prop", "cor", "alg", "app", "appx",
        "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "dept", "univ", "ed", "eds",
    }
)  # fmt: skip
_MARK_CHARS = "\U000f0000-\U0010fffd"
# A sentence may end at . ! ? or … followed by closing brackets or quotes, then citation marks.
_END = re.compile(rf"(?P<stop>[.!?…]+)(?P<close>[)\]\"'’”]*)(?P<marks>(?:\s?[{_MARK_CHARS}])*)\s+(?=(?P<next>\S))")
# An initial (J. Smith) or letters with stops (e.g., U.S.); a lone lower-case letter ends sentences ("set x.").
_INITIALS = re.compile(r"[A-Z]|(?:[^\W\d_]\.)+[^\W\d_]")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_FOOTNOTE = re.compile(f"{FOOTNOTE_OPEN}([^{FOOTNOTE_OPEN}{FOOTNOTE_CLOSE}]*){FOOTNOTE_CLOSE}")
_OPENERS = "([\"'“‘"
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]")
_SPACE_BEFORE = re.compile(r"\s+([.,;:!?)\]])(?![?!])")  # not before "??", LaTeX's unresolved reference
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\s+\.(?!\.)")  # "et al. \cite{x}." leaves "al. ."
_SPACE_AFTER = re.compile(r"([(\[])\s+")


def is_abbreviation(word: str) -> bool:
    """``word`` (the text before a full stop) is an abbreviation or an initial, not a sentence's last word."""
    word = word.lstrip(_OPENERS)
    return bool(_INITIALS.fullmatch(word)) or word.lower() in ABBREVIATIONS


def _starts_sentence(char: str) -> bool:
    return char.isupper() or char.isdigit() or char in _OPENERS or is_mark(char)


def split_sentences(paragraph: str) -> list[str]:
    """One paragraph (whitespace already collapsed) -> its sentences, marks kept in place."""
    sentences, start = [], 0
    for match in _END.finditer(paragraph):
        if match.group("stop") == "." and is_abbreviation(paragraph[start : match.start()].rsplit(" ", 1)[-1]):
            continue
        following = match.group("next")
        if match.group("marks") and not _starts_sentence(following):
            end = match.start("marks")  # "... good. \citet{x} found that": the citation opens the next one
        elif _starts_sentence(following):
            end = match.end("marks")
        else:
            continue
        sentences.append(paragraph[start:end].strip())
        start = end
    sentences.append(paragraph[start:].strip())
    return [s for s in sentences if s]


def paragraphs(prose: str) -> Iterator[str]:
    """Paragraphs with whitespace collapsed; each footnote read as a paragraph of its own after its own."""
    for raw in _PARAGRAPH.split(prose):
        notes = _FOOTNOTE.findall(raw)
        for text in (_FOOTNOTE.sub(" ", raw), *notes):
            collapsed = " ".join(text.replace(FOOTNOTE_OPEN, " ").replace(FOOTNOTE_CLOSE, " ").split())
            if collapsed:
                yield collapsed


def shown(sentence: str) -> str:
    """The sentence as checked and shown: citation marks removed, with the brackets and spaces they leave."""
    text = "".join(char for char in sentence if not is_mark(char))
    text = _DOUBLE_STOP.sub(".", _EMPTY_BRACKETS.sub("", " ".join(text.split())))
    text = _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", text))
    return text.strip().lstrip(",;: ").strip()


def citing_sentences(prose: str, marks: Marks) -> list[CitingSentence]:
    """Every sentence of ``prose`` that holds a citation mark, with the keys it cites."""
    found = []
    for paragraph in paragraphs(prose):
        for sentence in split_sentences(paragraph):
            cites = marks.cites_in(sentence)
            if cites:
                found.append(CitingSentence(shown(sentence), cites))
    return found
