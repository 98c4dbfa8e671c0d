"""A language model as the check's judge (`--verify llm`): its one-word verdict on a claim against the papers
it cites, where the offline judge would read the pair itself."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence

from rag.check.sentences import Support
from rag.check.sources import source_block
from rag.errors import SchemaRefusedError
from rag.llm.prompts import load_prompt
from rag.llm.types import ChatModel, Usage
from rag.records import Paper

# The judge's one-word verdicts; anything else counts as weak, never as supported.
VERDICTS = {
    "SUPPORTED": Support.SUPPORTED,
    "CONTRADICTED": Support.CONTRADICTED,
    "NOT ENOUGH INFO": Support.UNSUPPORTED,
    "NOT_ENOUGH_INFO": Support.UNSUPPORTED,
    "NEI": Support.UNSUPPORTED,
}


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
