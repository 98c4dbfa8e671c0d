"""Checked sentences as the model writes them: each complete sentence of the stream goes through the same check
as the whole reply (rag.check.answers) and, if it would be shown, is handed on at once, so a reader sees
checked text within seconds instead of the raw stream or nothing. The answer shown at the end is the whole
reply checked again (renumbered, with the fallbacks), so what streamed is a preview of it, never more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.check.answers import Checked, check_claims
from rag.check.claims import Claim, claims_from_text
from rag.check.reading import prepare
from rag.check.replies import complete_sentences, structured_claims
from rag.check.sentences import CitedSentence
from rag.records import Paper

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
        checks = check_claims([claim], self.given, shown=self.kept, prepared=self.prepared)
        if id(claim) in checks.screened:
            return  # a fragment, a title or a repeat: never shown
        self.kept.append(claim)
        result = checks.results[0]
        if isinstance(result, Checked):
            self.on_sentence(result.sentence, result.papers)
