"""In-text citations: a paper named as part of a sentence, "Hazra et al. (2021) propose Y [3].".

An answer's text is written for reading and for the check: the author-year as words and the [n] at the end of
the sentence, like every other citation (the check sees the [n]; Markdown shows both). LaTeX and Pandoc name
the paper by its citation instead (``\\citet{hazra2021}`` / ``@hazra2021``), and the [n] goes, since it would
cite the paper twice. ``mark_in_text`` puts a marker where the author-year was and takes the [n] out;
``split_marked`` gives each format the text between markers and the paper each marker names.
"""

from __future__ import annotations

import re

from rag.check.markers import CITATION_GROUP, expand
from rag.check.sentences import Answer, CitedSentence
from rag.records import Paper
from rag.writing.voice import in_text_label

# Private-use characters: never in what a reader typed, and removed from the text before marking.
_OPEN, _CLOSE = "\ue000", "\ue001"
_MARKER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
# The citations that end a sentence, before its final punctuation.
_FINAL_RUN = re.compile(rf"\s*(?P<run>(?:{CITATION_GROUP.pattern}\s*)+)(?P<end>[.!?]*[”\"’']?)\s*$")


def _without(sentence: str, n: int) -> str:
    """``sentence`` without [n] in the citations that end it ("X [3][5]." -> "X [5].")."""
    match = _FINAL_RUN.search(sentence)
    if match is None:
        return sentence
    numbers = [k for group in CITATION_GROUP.findall(match.group("run")) for k in expand(group) if k != n]
    kept = f" {''.join(f'[{k}]' for k in dict.fromkeys(numbers))}" if numbers else ""
    return sentence[: match.start()] + kept + match.group("end")


def mark_in_text(text: str, answer: Answer) -> str:
    """``text`` (the answer's, or it as another step rewrote it) with each in-text citation a marker and its
    sentence's own [n] taken out."""
    text = text.replace(_OPEN, "").replace(_CLOSE, "")
    papers = {c.n: c.paper for c in answer.citations}
    cursor = 0
    for sentence in answer.sentences:
        named = _named(sentence, papers)
        at = text.find(sentence.text, cursor)
        if not named or at < 0:
            continue
        marked = sentence.text
        for label, n in named:
            marked = _without(marked.replace(label, f"{_OPEN}{n}{_CLOSE}", 1), n)
        text = text[:at] + marked + text[at + len(sentence.text) :]
        cursor = at + len(marked)
    return text


def _named(sentence: CitedSentence, papers: dict[int, Paper]) -> list[tuple[str, int]]:
    """The papers a sentence names as part of its text: its in-text citation, and (a sentence citing several
    papers: "A (2020) and B (2021) both find ...") each cited paper whose author-year it writes."""
    named = []
    if sentence.in_text is not None and sentence.in_text_source is not None and sentence.in_text in sentence.text:
        named.append((sentence.in_text, sentence.in_text_source))
    if len(sentence.citations) > 1:
        for n in sentence.citations:
            label = in_text_label(papers[n]) if n in papers else None
            if label and label in sentence.text and all(m != n for _, m in named):
                named.append((label, n))
    return named


def split_marked(text: str) -> list[str | int]:
    """The marked text as pieces: text between markers, and the citation number each marker names."""
    pieces: list[str | int] = []
    last = 0
    for match in _MARKER.finditer(text):
        pieces += [text[last : match.start()], int(match.group(1))]
        last = match.end()
    pieces.append(text[last:])
    return [p for p in pieces if p != ""]
