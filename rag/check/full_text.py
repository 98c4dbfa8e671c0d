"""A paper as the check reads it for one sentence: its abstract and, when the library holds its full text, the
passages closest to the sentence."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from rag.check.support_model import load_support_model
from rag.records import Paper, Passage
from rag.text import tokenize

# Passages of a paper's full text (those sharing most terms with the sentence) read beside its abstract.
FULL_TEXT_PASSAGES = 2


def with_full_text(paper: Paper, sentence: str) -> tuple[Paper, list[Passage]]:
    """``paper`` as the check reads it for ``sentence``: its abstract and, when the library holds its full text,
    the FULL_TEXT_PASSAGES passages sharing most (IDF-weighted) terms with the sentence; and those passages."""
    if not paper.passages:
        return paper, []
    idf = load_support_model().idf
    terms = set(tokenize(sentence))
    weight = {p.n: sum(idf(t) for t in terms & _passage_terms(p.text)) for p in paper.passages}
    chosen = [p for p in sorted(paper.passages, key=lambda p: -weight[p.n])[:FULL_TEXT_PASSAGES] if weight[p.n] > 0]
    if not chosen:
        return paper, []
    text = " ".join([paper.text, *(p.text for p in chosen)])
    return replace(paper, text=text, passages=[], no_abstract=False), chosen


@lru_cache(maxsize=4096)
def _passage_terms(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))
