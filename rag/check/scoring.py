"""How well each sentence is backed by the sources it was given.

``score_against_sources`` rates every claim against every source offline (what
the citation check and attribution both need); ``--verify llm`` asks the model
to judge instead, with a verdict that can say "contradicted".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.sentences import Support
from rag.check.support_model import load_support_model
from rag.records import Paper
from rag.text import split_sentences


@dataclass
class SourceScore:
    """One claim against one source: how well it is backed, and by which sentence of it."""

    score: float
    support: Support
    position: int
    sentence: str
    conflict: bool = False


def score_against_sources(claims: Sequence[str], papers: Sequence[Paper]) -> list[list[SourceScore]]:
    """``result[i][j]``: claim ``i`` against source ``j``, by the offline check (rag.check.support_model).

    The lexical weights are used: with MiniLM the check is 0.03 more precise on labelled claims but
    embeds every source sentence, ~100x slower per answer (benchmarks/support_check.py)."""
    if not claims or not papers:
        return [[] for _ in claims]
    texts = [p.searchable_text() for p in papers]
    flat = load_support_model().score([c for c in claims for _ in texts], [t for _ in claims for t in texts])
    table = []
    for i in range(len(claims)):
        row = []
        for result in flat[i * len(texts) : (i + 1) * len(texts)]:
            position = max(result.evidence_index, 0)
            support = result.label
            row.append(SourceScore(result.score, support, position, result.evidence_text, result.contradiction))
        table.append(row)
    return table


def score_against_group(claim: str, papers: Sequence[Paper]) -> tuple[SourceScore, int]:
    """A claim citing several papers, against their texts read together (each may back one half of it);
    the score, and which of ``papers`` holds the best evidence sentence."""
    parts = [split_sentences(p.searchable_text()) for p in papers]
    # Each sentence closed with a full stop, so a snippet cut with '…' does not run into the next paper's text.
    joined = " ".join(s if s.endswith((".", "!", "?")) else f"{s}." for sentences in parts for s in sentences)
    result = load_support_model().score([claim], [joined])[0]
    owner, position = _locate(result.evidence_text, parts)
    support = result.label
    return SourceScore(result.score, support, position, result.evidence_text, result.contradiction), owner


def _locate(evidence: str, parts: Sequence[Sequence[str]]) -> tuple[int, int]:
    """(paper, sentence) the evidence sentence came from, found by its text rather than by counting sentences
    (the joined text can split differently, e.g. before a sentence that starts in lower case)."""
    for exact in (True, False):
        for owner, sentences in enumerate(parts):
            for position, sentence in enumerate(sentences):
                if sentence == evidence if exact else evidence.startswith(sentence):
                    return owner, position
    return 0, 0


# A source a sentence is not scored against, or one known by its title alone: it backs nothing.
NO_EVIDENCE = SourceScore(0.0, Support.UNSUPPORTED, 0, "")
