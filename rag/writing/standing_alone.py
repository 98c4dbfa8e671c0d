"""Quotes that stand alone: a sentence whose subject or connective points back ("The former uses ...", "However,
...", "in this region") is quoted with the sentences it leans on (rag.writing.evidence_sentences quotes them so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.text import tokenize

# A leaning sentence takes at most this many sentences before it ("This phenomenon ... Consequently, ...").
MAX_LEANING_BACK = 2

# A sentence whose subject or connective points back ("The former uses ...", "This approach ...", "They ...",
# "However, ...", "After that, ...") does not stand alone: it is quoted with the sentence before it.
_LEANS_BACK = re.compile(
    r"^(?:(?:the\s+)?(?:former|latter)\b|(?:this|these|those|such|both|each|its|their)\s+\w+|(?:they|it|he|she|"
    r"this|these|those)\b|(?:however|in contrast|by contrast|conversely|nevertheless|nonetheless|instead|moreover|"
    r"furthermore|in addition(?!\s+to\b)|additionally|likewise|similarly|"
    r"on the other hand|in turn|thereby|hence|thus|therefore|consequently|as a result|after that|afterwards|"
    r"subsequently|thereafter)\b)",
    re.IGNORECASE,
)


def leans_back(sentence: str) -> bool:
    """Whether ``sentence`` needs the one before it to be understood (its subject or connective points back)."""
    return bool(_LEANS_BACK.match(sentence.lstrip("\"'“(")))


# Inside a sentence too, "this region", "these patients" or "those stocks" point back when the sentence has not
# named them before ("Gas hydrates exist only at water depths greater than ~550 m in this region"); the paper
# itself ("in this study"), set phrases ("to this end", "those of") and an opening phrase ("With this perspective,
# a consortium ...": what follows its comma stands alone) do not.
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those)\s+([A-Za-z][\w-]*)", re.IGNORECASE)
_OPENING_PHRASE = re.compile(
    r"^(?:(?:in|with|for|to|on|at|from|by|under|given|after|before|within|across|among|despite|through|as)\b"
    r"|\w+ing\b)[^,]{0,120},",
    re.IGNORECASE,
)
_NOT_POINTING_BACK = re.compile(
    r"stud(?:y|ies)|papers?|work|article|review|analysis|report|trial|research|investigation|survey|thesis|chapter"
    r"|manuscript|letter|project|book|volume|issue|editorial|commentary|overview|tutorial|workshop|symposium"
    r"|conference|session|course|essay|literature|end|purpose|regard|respect"
    # "those who ...", "those without diarrhea": the sentence says who.
    r"|who|whom|whose|which|where|when|without|within|receiving|treated|given|having|living|exposed",
    re.IGNORECASE,
)


def points_back_inside(sentence: str) -> bool:
    """Whether a demonstrative inside ``sentence`` (past its opening phrase) names something the sentence has not
    named before it."""
    opening = _OPENING_PHRASE.match(sentence)
    for match in _DEMONSTRATIVE.finditer(sentence, opening.end() if opening else 1):
        word = match.group(1)
        if _NOT_POINTING_BACK.fullmatch(word) or not (named := tokenize(word)):
            continue
        if not set(named) & set(tokenize(sentence[: match.start()])):
            return True
    return False


def _leaned_on(sentences: Sequence[str], i: int, start: int) -> list[int]:
    """The sentences before ``sentences[i]`` (back to ``start``, MAX_LEANING_BACK at most) that it leans on,
    nearest first. Where the chain stops on a sentence that points back only inside (``points_back_inside``), the
    sentences that one needs are taken too when they open on one that stands alone (no pointer at its start or
    inside): otherwise the quote would open on a pointer of its own."""

    def back_from(at: int) -> list[int]:  # the sentences before ``at`` its leaning start reaches
        chain = []
        while at > start and i - at < MAX_LEANING_BACK and leans_back(sentences[at]):
            at -= 1
            chain.append(at)
        return chain

    taken = back_from(i)
    at = taken[-1] if taken else i
    if at > start and i - at < MAX_LEANING_BACK and points_back_inside(sentences[at]):
        pointed = [at - 1, *back_from(at - 1)]
        if not leans_back(sentences[pointed[-1]]) and not points_back_inside(sentences[pointed[-1]]):
            taken += pointed
    return taken


def self_standing(sentences: Sequence[str], quoted: Sequence[int], abstract: int) -> list[int]:
    """``quoted`` (indexes into ``sentences``) with what each leaning sentence needs: the sentences before it
    that it leans on (in the same part: abstract or passage; ``_leaned_on``), and the one after a quote that leaves
    a bracket open. A leaning sentence with nothing before it is left out when others are quoted."""
    chosen = set(quoted)
    for i in quoted:
        start = 0 if i < abstract else abstract
        taken = _leaned_on(sentences, i, start)
        chosen.update(taken)
        at = taken[-1] if taken else i
        if leans_back(sentences[at]) and at == start and len(chosen) > 1:
            chosen.discard(at)
    text = " ".join(sentences[i] for i in sorted(chosen))
    last = max(chosen)
    end = abstract if last < abstract else len(sentences)
    if (text.count("(") > text.count(")") or text.count("[") > text.count("]")) and last + 1 < end:
        chosen.add(last + 1)
    return sorted(chosen)
