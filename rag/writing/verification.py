"""How well each cited sentence is supported by the abstracts it cites.

The offline floor combines embedding similarity (sentence vs. each sentence of
the cited abstract) with term overlap; ``--verify llm`` asks the model to judge.
"""

from __future__ import annotations

import numpy as np

from rag.embed.types import Embedder
from rag.llm.prompts import load_prompt
from rag.llm.types import ChatModel, Usage
from rag.text import split_sentences, term_coverage
from rag.writing.answer import CitedText, Support
from rag.writing.citations import CITATION_GROUP
from rag.writing.sources import source_block

# Combined score = weight * best cosine + (1 - weight) * term coverage.
SIMILARITY_WEIGHT = 0.6
SUPPORTED_AT = 0.5
WEAK_AT = 0.35
# Without a model, term coverage alone decides.
LEXICAL_SUPPORTED_AT = 0.5
LEXICAL_WEAK_AT = 0.3


def _label(score: float, supported_at: float, weak_at: float) -> Support:
    if score >= supported_at:
        return Support.SUPPORTED
    return Support.WEAK if score >= weak_at else Support.UNSUPPORTED


def verify_offline(cited: CitedText, embedder: Embedder | None) -> None:
    """Label every sentence in place."""
    checked = [s for s in cited.sentences if s.citations]
    for sentence in cited.sentences:
        if not sentence.citations:
            sentence.support = Support.UNCITED
    if not checked:
        return
    evidence = {n: split_sentences(cited.papers[n - 1].searchable_text()) for s in checked for n in s.citations}
    claims = {id(s): CITATION_GROUP.sub("", s.text) for s in checked}  # the claim without its [n] markers
    vectors: dict[str, np.ndarray] = {}
    if embedder is not None:
        texts = list(dict.fromkeys([*claims.values(), *(e for parts in evidence.values() for e in parts)]))
        vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    for sentence in checked:
        claim = claims[id(sentence)]
        best = 0.0
        for n in sentence.citations:
            coverage = term_coverage(claim, cited.papers[n - 1].searchable_text())
            if embedder is None:
                best = max(best, coverage)
                continue
            similarity = max(float(vectors[claim] @ vectors[part]) for part in evidence[n])
            best = max(best, SIMILARITY_WEIGHT * similarity + (1 - SIMILARITY_WEIGHT) * coverage)
        sentence.score = round(best, 3)
        thresholds = (SUPPORTED_AT, WEAK_AT) if embedder is not None else (LEXICAL_SUPPORTED_AT, LEXICAL_WEAK_AT)
        sentence.support = _label(best, *thresholds)


def verify_with_model(cited: CitedText, model: ChatModel, usage: Usage) -> None:
    """Ask the model to judge each cited sentence against its cited abstracts."""
    system = load_prompt("system").template
    judge = load_prompt("verify")
    verdicts = {"SUPPORTED": Support.SUPPORTED, "PARTIAL": Support.WEAK, "UNSUPPORTED": Support.UNSUPPORTED}
    for sentence in cited.sentences:
        if not sentence.citations:
            sentence.support = Support.UNCITED
            continue
        evidence = "\n".join(source_block(n, cited.papers[n - 1]) for n in sentence.citations)
        reply = model.complete(system, judge.render(claim=sentence.text, evidence=evidence))
        usage.add(reply.usage)
        word = reply.text.strip().split()[0].strip(".:*").upper() if reply.text.strip() else ""
        sentence.support = verdicts.get(word, Support.WEAK)
