"""Checked sentences as the model writes them: each complete sentence of the stream goes through the same check
as the whole reply (rag.writing.checking) and, if it would be shown, is handed on at once, so a reader sees
checked text within seconds instead of the raw stream or nothing. The answer shown at the end is the whole
reply checked again (renumbered, with the fallbacks), so what streamed is a preview of it, never more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.llm.types import Usage
from rag.records import Paper
from rag.writing.answer import CitedSentence
from rag.writing.checking import (
    Checked,
    check_claim,
    screen_claims,
    structured_claims,
    title_only_unsupported,
)
from rag.writing.citation_check import prepare
from rag.writing.citations import Claim, claims_from_text
from rag.writing.structured import complete_sentences
from rag.writing.verification import score_against_sources

# A shown sentence and the papers it cites (numbered as the model was given them).
OnSentence = Callable[[CitedSentence, list[Paper]], None]


class SentenceFeed:
    """Fed the model's tokens; calls ``on_sentence`` for each complete sentence the check would show."""

    def __init__(self, given: Sequence[Paper], on_sentence: OnSentence, structured: bool) -> None:
        self.given = given
        self.on_sentence = on_sentence
        self.structured = structured
        self.prepared = prepare(given)
        self.text = ""
        self.seen = 0
        self.kept: list[Claim] = []

    def __call__(self, token: str) -> None:
        self.text += token
        self._check_new(finished=False)

    def finish(self) -> None:
        """The stream ended by itself: its last sentence is complete too."""
        self._check_new(finished=True)

    def _check_new(self, finished: bool) -> None:
        if self.structured and self.text.lstrip().startswith("{"):
            claims = structured_claims(complete_sentences(self.text)[0])  # only objects closed so far
        else:
            claims = claims_from_text(self.text)
            claims = claims if finished else claims[:-1]  # plain text: the last sentence may still be growing
        for claim in claims[self.seen :]:
            self._check(claim)
        self.seen = max(self.seen, len(claims))

    def _check(self, claim: Claim) -> None:
        kept, _ = screen_claims([*self.kept, claim], self.given)
        if len(kept) == len(self.kept):
            return  # a fragment, a title or a repeat: never shown
        self.kept.append(claim)
        scores = title_only_unsupported(score_against_sources([claim.text], self.given), self.given)[0]
        result = check_claim(claim, scores, self.given, self.prepared, Usage())
        if isinstance(result, Checked):
            self.on_sentence(result.sentence, result.papers)
