"""Structured citations: the model returns sentences with their source numbers as JSON, rag writes the [n].

A schema (a grammar, on llama.cpp) holds the model to the shape even when it
ignores instructions: at most a few sentences, each with one to a few source
numbers drawn from those it was given. What it says is still checked afterwards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.claims import Claim, claims_from_text
from rag.check.markers import CITATION_GROUP, expand
from rag.llm.types import Completion, JsonSchema, OnToken
from rag.text import split_prose

MAX_SOURCES_PER_SENTENCE = 3
MAX_SENTENCE_CHARS = 400
# A JSON sentence object as grammar-constrained servers write it (keys in schema order), complete or not.
_SENTENCE_OBJECT = re.compile(r'\{\s*"text"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"sources"\s*:\s*\[([^\]]*)\]', re.S)
_OPEN_TEXT = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)$', re.S)
_CLOSED_TEXT = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)"', re.S)


@dataclass
class ModelSentence:
    text: str
    sources: list[int]


def citation_schema(source_count: int, max_sentences: int) -> JsonSchema:
    """Sentences, each citing 1-3 of the ``source_count`` given sources by number."""
    return {
        "type": "object",
        "properties": {
            "sentences": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_sentences,
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "minLength": 1, "maxLength": MAX_SENTENCE_CHARS},
                        "sources": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": MAX_SOURCES_PER_SENTENCE,
                            "items": {"type": "integer", "enum": list(range(1, source_count + 1))},
                        },
                    },
                    "required": ["text", "sources"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["sentences"],
        "additionalProperties": False,
    }


def _unescape(raw: str) -> str:
    try:
        return str(json.loads(f'"{raw}"'))
    except ValueError:
        return raw.replace('\\"', '"')


def _numbers(raw: str) -> list[int]:
    return [int(n) for n in re.findall(r"-?\d+", raw)]


def parse_structured(text: str) -> list[ModelSentence] | None:
    """The sentences of a structured reply; a cut-off reply keeps its complete sentences.
    None when the text is not the JSON asked for (a server that ignored the schema)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("sentences"), list):
        sentences = []
        for item in data["sentences"]:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                raw_sources = item.get("sources")
                numbers = [n for n in raw_sources if isinstance(n, int)] if isinstance(raw_sources, list) else []
                sentences.append(ModelSentence(item["text"].strip(), numbers))
        return [s for s in sentences if s.text]
    found, _ = complete_sentences(text)
    if not found and text.lstrip().startswith("{"):
        # The JSON asked for, cut off before its first sources list: its whole "text" values are its sentences
        # (without sources: attributed or dropped), never its braces and keys read as prose.
        found = [ModelSentence(_unescape(m.group(1)).strip(), []) for m in _CLOSED_TEXT.finditer(text)]
    return [s for s in found if s.text] or None


def complete_sentences(text: str) -> tuple[list[ModelSentence], int]:
    """The sentence objects of a JSON reply closed so far (text and sources both written), and where they end."""
    complete = list(_SENTENCE_OBJECT.finditer(text))
    found = [ModelSentence(_unescape(m.group(1)).strip(), _numbers(m.group(2))) for m in complete]
    return [s for s in found if s.text], complete[-1].end() if complete else 0


def readable_stream(on_token: OnToken) -> OnToken:
    """Shows a JSON reply as it streams the way it will read: sentence texts, not braces and quotes."""
    received: list[str] = []
    shown = ""

    def feed(token: str) -> None:
        nonlocal shown
        received.append(token)
        text = "".join(received)
        if text.strip() and not text.lstrip().startswith("{"):
            on_token(token)  # a server that ignored the schema streams plain text: show it as it comes
            return
        complete = list(_SENTENCE_OBJECT.finditer(text))
        tail = text[complete[-1].end() :] if complete else text
        open_text = _OPEN_TEXT.search(tail)
        pieces = [_unescape(m.group(1)) for m in complete]
        if open_text:
            pieces.append(_unescape(open_text.group(1)))
        readable = " ".join(pieces)
        if readable.startswith(shown) and len(readable) > len(shown):
            on_token(readable[len(shown) :])
            shown = readable

    return feed


def read_claims(reply: Completion) -> list[Claim]:
    """The model's sentences: from its JSON when it was asked for JSON (and wrote it), else from [n] text."""
    if reply.structured and (sentences := parse_structured(reply.text)) is not None:
        return structured_claims(sentences)
    return claims_from_text(reply.text)


def structured_claims(sentences: Sequence[ModelSentence]) -> list[Claim]:
    """A "text" value may hold several sentences: each is checked (and deduplicated) on its own. A model that
    also wrote [n] inside its text cites those numbers too: they leave the text and join its sources (checked
    like any other: one it was not given is removed and reported)."""
    claims = []
    for sentence in sentences:
        for part in split_prose(" ".join(sentence.text.split())):
            written = [n for group in CITATION_GROUP.findall(part) for n in expand(group)]
            bare = " ".join(CITATION_GROUP.sub(" ", part).split()).replace(" .", ".")
            if bare:
                claims.append(Claim(bare, list(dict.fromkeys([*sentence.sources, *written]))))
    return claims
