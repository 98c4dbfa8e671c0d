"""What a rule is: a code, what kind of fact it reads, whether its finding reverses the source, how it finds
and how it tells a reader, with the examples it must find and must pass (proselint's example table, flake8's
codes). Rules read text only: a sentence and what its cited sources state, never a model or an index."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from rag.check.markers import CITATION_GROUP
from rag.check.rules.alignment import MIN_ALIGNED_SHARE, align_tokens, aligned_share
from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding

# A stretch of at most this many words put in place of another is a substitution, not a clause rewritten.
MAX_SWAPPED_WORDS = 3
# The sentence is read against its source's words of direction (and statements of no change) where it shares
# this share of its content words with the stretch it restates, or with any sentence of its source (the
# word-for-word rules need MIN_ALIGNED_SHARE of the one stretch): the words around the two words of direction,
# shared, say what is moved. On SciFact's labelled pairs, 0.5 reads a reversal in 4 more contradicted claims
# ("Antidepressants increase the severity of migraines" for "... effective in preventing migraines";
# "Radioiodine treatment ... increases thyroid volume" for a result sentence reporting its reduction, the title
# sharing more words) and in 3 more neither-nor ones, none supported; lower finds no more.
MOVED_ALIGNED_SHARE = 0.5


class Stage(StrEnum):
    """When a rule reads: what the sentence names that its sources lack (``PRESENCE``), or what it changes in
    the stretch of the source it restates word for word (``ALIGNED``)."""

    PRESENCE = "presence"
    ALIGNED = "aligned"


@dataclass(frozen=True)
class Edit:
    """One difference between a sentence and the stretch of its source it restates, aligned word by word:
    ``said`` in the sentence where the source has ``replaced`` (difflib's opcodes, one per edit)."""

    op: str
    said: tuple[str, ...]
    replaced: tuple[str, ...]
    source_at: int  # where ``replaced`` starts in the source's words
    sentence_at: int

    @property
    def substituted(self) -> bool:
        """A few words put in place of as many (a number, a word of direction, a denial swapped), not a clause
        rewritten."""
        return self.op == "replace" and max(len(self.said), len(self.replaced)) <= MAX_SWAPPED_WORDS


@dataclass(frozen=True)
class Comparison:
    """A sentence (citation markers removed) with what its cited sources state, what other given sources state,
    and the stretch of the cited text it restates most closely (empty when none): everything a rule reads."""

    sentence: str
    cited: Sequence[SourceFacts]
    others: Sequence[SourceFacts] = ()
    restates: str = ""

    @classmethod
    def of(
        cls, sentence: str, cited: Sequence[SourceFacts], others: Sequence[SourceFacts] = (), restates: str = ""
    ) -> Comparison:
        return cls(CITATION_GROUP.sub("", sentence), cited, others, restates)

    @cached_property
    def sentence_words(self) -> list[str]:
        return align_tokens(self.sentence)

    @cached_property
    def source_words(self) -> list[str]:
        return align_tokens(self.restates)

    @cached_property
    def edits(self) -> list[Edit]:
        """The sentence's edits of what it restates; none when it restates nothing closely enough."""
        if not self.restates or aligned_share(self.sentence, self.restates) < MIN_ALIGNED_SHARE:
            return []
        matcher = difflib.SequenceMatcher(None, self.sentence_words, self.source_words, autojunk=False)
        edits = [
            Edit(op, tuple(self.sentence_words[i1:i2]), tuple(self.source_words[j1:j2]), j1, i1)
            for op, i1, i2, j1, j2 in matcher.get_opcodes()
        ]
        return edits if any(e.op == "equal" for e in edits) else []

    @cached_property
    def restated_loosely(self) -> tuple[str, ...]:
        """The stretches of the source the sentence restates, loosely: the one it restates most closely and every
        sentence of its cited sources holding MOVED_ALIGNED_SHARE of its content words (a result may be restated
        from another sentence than the one sharing most words, such as the title). Read once for every rule."""
        close = aligned_share(self.sentence, self.restates) >= MOVED_ALIGNED_SHARE if self.restates else False
        stretches = [self.restates] if close else []
        for facts in self.cited:
            stretches += [s for s in facts.sentences if aligned_share(self.sentence, s) >= MOVED_ALIGNED_SHARE]
        return tuple(dict.fromkeys(stretches))

    @cached_property
    def restated_span(self) -> tuple[int, int]:
        """First and last word of the source the sentence restates (between its first and last shared word)."""
        shared = [e for e in self.edits if e.op == "equal"]
        if not shared:
            return (0, 0)
        return shared[0].source_at, shared[-1].source_at + len(shared[-1].replaced)


@dataclass(frozen=True)
class Example:
    """A sentence and the source it cites, for a rule's table of examples."""

    sentence: str
    source: str


@dataclass(frozen=True)
class Rule:
    code: str  # what a finding is called: "unstated-number", "reversed-direction"
    reverses: bool  # a finding says the opposite of the source (a contradiction), not something it lacks
    stage: Stage
    find: Callable[[Comparison], list[Finding]]
    describe: Callable[[Finding, str, str | None], str]  # (finding, the cited sources, another source) -> text
    must_find: tuple[Example, ...] = field(default=())
    must_pass: tuple[Example, ...] = field(default=())
