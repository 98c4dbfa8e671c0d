"""A manuscript's prose -> the sentences that cite, split where a reader would split them
(``rag.text.split_prose``, with the citation marks of rag.manuscripts.prose): not after ``et al.``,
``e.g.``, ``Fig.``, ``vs.``, initials or inside numbers; a citation written after the full stop
(``shown.\\footcite{x} Next``) stays with the sentence it ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.manuscripts.citing import CitingSentence, Context, written_in_text
from rag.manuscripts.prose import FOOTNOTE_CLOSE, FOOTNOTE_OPEN, Marks, context_of, is_mark
from rag.manuscripts.tidy import tidied
from rag.text import split_prose

_MARK_CHARS = "\U000f0000-\U0010fffd"
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_FOOTNOTE = re.compile(f"{FOOTNOTE_OPEN}([^{FOOTNOTE_OPEN}{FOOTNOTE_CLOSE}]*){FOOTNOTE_CLOSE}")


def split_sentences(paragraph: str) -> list[str]:
    """One paragraph (whitespace already collapsed) -> its sentences, marks kept in place."""
    return split_prose(paragraph, _MARK_CHARS)


def paragraphs(prose: str) -> Iterator[tuple[Context, str]]:
    """Paragraphs with whitespace collapsed and what each is; each footnote read as a paragraph of its own
    after its own."""
    for raw in _PARAGRAPH.split(prose):
        context, raw = context_of(raw)
        notes = _FOOTNOTE.findall(raw)
        for text, where in ((_FOOTNOTE.sub(" ", raw), context), *((note, Context.FOOTNOTE) for note in notes)):
            collapsed = " ".join(text.replace(FOOTNOTE_OPEN, " ").replace(FOOTNOTE_CLOSE, " ").split())
            if collapsed:
                yield where, collapsed


def shown(sentence: str, marks: Marks | None = None) -> str:
    """The sentence as shown: citation marks removed, with the brackets and spaces they leave, but (with the
    ``marks``) a citation standing for its authors in the text written as the author wrote it ("To study this,
    @west2018 found that ...", not "To study this, found that ..."); CitingSentence.reading takes it out again."""
    kept = []
    for char in sentence:
        if not is_mark(char):
            kept.append(char)
        elif marks is not None and (cites := marks.group(char)) and all(cite.in_text for cite in cites):
            kept.append(written_in_text(cites))
    return tidied("".join(kept))


def citing_sentences(prose: str, marks: Marks) -> list[CitingSentence]:
    """Every sentence of ``prose`` that holds a citation mark, with the keys it cites; a list item going on from
    the sentence before its list ("... of interest for many areas of research, including:" then "psychological
    well-being, such as depression [x]") is read with that sentence as its ``lead_in``."""
    found = []
    lead_in = ""
    for context, paragraph in paragraphs(prose):
        sentences = split_sentences(paragraph)
        if context is not Context.LIST and context is not Context.FOOTNOTE:
            lead_in = sentences[-1] if sentences and sentences[-1].rstrip().endswith(":") else ""
        for index, sentence in enumerate(sentences):
            cites = marks.cites_in(sentence)
            if cites:
                text = shown(sentence, marks)
                goes_on = context is Context.LIST and index == 0 and lead_in and text[:1].islower()
                found.append(CitingSentence(text, cites, context, lead_in=shown(lead_in) if goes_on else ""))
    return found
