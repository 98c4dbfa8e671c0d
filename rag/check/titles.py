"""What a paper's title says: its topic alone ("Translational Control in Germline Stem Cell Development"), which
states nothing a sentence could be read against, or something asserted ("Rok1p Is a Putative RNA Helicase
Required for rRNA Processing"), which may."""

from __future__ import annotations

import re


def names_only_its_topic(passage: str, title: str | None) -> bool:
    """Whether the ``passage`` read is the paper's ``title``, asserting nothing: what the paper is about."""
    if not title:
        return False
    return _bare(passage) == _bare(title) and not asserts(title)


def _bare(text: str) -> str:
    return " ".join(text.split()).rstrip(".").casefold()


# A title asserting something: a verb of its own ("Rok1p Is a Putative RNA Helicase", "... Controls Germline Stem
# Cell Differentiation", "... does not improve ..."), or what its subject is ("Brax - A Differentiable Physics
# Engine", "PyRoboLearn: A Python Framework ..."). After a plural subject the verb has no "s" ("RANK signals ...
# regulate development of ..."): read so only where the word is no noun too ("Translational Control in ...") and
# no infinitive ("Learning to Predict by the Methods of Temporal Differences").
_ASSERTING_TITLE = re.compile(
    r"\b(?:is|are|was|were|does|do|did|has|have|can|cannot|may|might|not|no|"
    r"(?:control|cause|drive|affect|increase|decrease|link|show)s|"
    r"(?<!\bto\s)(?:regulate|predict|promote|inhibit|determine|require|mediate|modulate|enhance|reduce|improve|impair|"
    r"prevent|protect|suppress|induce|alter|underlie|explain|reveal|outperform)s?)\b"
    r"|^[^:–—]{1,60}(?::|\s[–—-])\s*(?:a|an|the)\s",
    re.IGNORECASE,
)


def asserts(title: str) -> bool:
    """Whether the title asserts something (a verb of its own, or what its subject is)."""
    return bool(_ASSERTING_TITLE.search(title))


def without_title(text: str, title: str | None) -> str:
    """``text`` (a paper's searchable text: its title, then its abstract) without a title that only names its
    topic."""
    if not title or asserts(title) or not text.startswith(title):
        return text
    return text[len(title) :].lstrip(". ")
