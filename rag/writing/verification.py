"""How well each sentence is backed by the sources it was given.

``score_against_sources`` rates every claim against every source offline (what
the citation check and attribution both need); ``--verify llm`` asks the model
to judge instead, with a verdict that can say "contradicted".
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from rag.errors import SchemaRefusedError
from rag.llm.prompts import load_prompt
from rag.llm.types import ChatModel, Usage
from rag.records import Paper
from rag.text import split_sentences
from rag.writing.answer import Support
from rag.writing.sources import source_block
from rag.writing.support_check import SupportLabel, load_support_model

# The judge's one-word verdicts; anything else counts as weak, never as supported.
VERDICTS = {
    "SUPPORTED": Support.SUPPORTED,
    "CONTRADICTED": Support.CONTRADICTED,
    "NOT ENOUGH INFO": Support.UNSUPPORTED,
    "NOT_ENOUGH_INFO": Support.UNSUPPORTED,
    "NEI": Support.UNSUPPORTED,
}
_OFFLINE_LABELS = {
    SupportLabel.EVIDENCE_FOUND: Support.EVIDENCE,
    SupportLabel.RELATED: Support.WEAK,
    SupportLabel.NOT_FOUND: Support.UNSUPPORTED,
}


@dataclass
class SourceScore:
    """One claim against one source: how well it is backed, and by which sentence of it."""

    score: float
    support: Support
    position: int
    sentence: str
    conflict: bool = False


def score_against_sources(claims: Sequence[str], papers: Sequence[Paper]) -> list[list[SourceScore]]:
    """``result[i][j]``: claim ``i`` against source ``j``, by the offline check (rag.writing.support_check).

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
            support = _OFFLINE_LABELS[result.label]
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
    support = _OFFLINE_LABELS[result.label]
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


VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["SUPPORTED", "CONTRADICTED", "NOT ENOUGH INFO"]}},
    "required": ["verdict"],
    "additionalProperties": False,
}


def judge_with_model(claim: str, cited: Sequence[tuple[int, Paper]], model: ChatModel, usage: Usage) -> Support:
    """The model's verdict on ``claim`` against the papers it cites (numbered as cited); structured output
    where the endpoint takes a schema, so a small model cannot answer anything but a verdict."""
    evidence = "\n".join(source_block(n, paper) for n, paper in cited)
    system, prompt = load_prompt("system").template, load_prompt("verify").render(claim=claim, evidence=evidence)
    reply = None
    if model.accepts_schema:
        with contextlib.suppress(SchemaRefusedError):  # asked again in text below; the endpoint is remembered
            reply = model.complete(system, prompt, schema=VERDICT_SCHEMA, checking=True)
    if reply is None:
        reply = model.complete(system, prompt, checking=True)
    usage.add(reply.usage)
    text = reply.text
    if reply.structured:
        with contextlib.suppress(ValueError, AttributeError):  # a server that ignored the schema wrote plain text
            text = str(json.loads(reply.text).get("verdict", ""))
    return parse_verdict(text)


def parse_verdict(text: str) -> Support:
    """'SUPPORTED', 'Contradicted.', '**NOT ENOUGH INFO**' ... -> the label; unreadable -> weak."""
    words = text.strip().upper().replace("*", "").replace(".", " ").split()
    for length in (3, 1):  # "NOT ENOUGH INFO" first, then one word
        verdict = " ".join(words[:length])
        if verdict in VERDICTS:
            return VERDICTS[verdict]
    return Support.WEAK
