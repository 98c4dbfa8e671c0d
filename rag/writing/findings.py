"""Papers of a theme grouped by what they found: one sentence for papers that report the same finding, one
that contrasts opposite ones, and a connective only where the two sentences it joins bear it out.

Each paper's sentence (its finding, already checked alone: rag.writing.extractive_draft) is compared with the
others of its theme by the cosine of their embeddings and the direction of effect they state (the check's
own reading of "increase"/"decrease" and negation, rag.check.rules.polarity):

- the same finding (cosine >= SAME_FINDING_COSINE, same direction): "A (2020) and B (2021) both find that X
  [1][2]", X in the leading paper's words, offered only when X passes the check against the other paper alone
  (it states it too); else "A find that X, and B show that Y [1][2]". Each sentence pairs with the closest
  later one that can share a sentence with it: two papers a sentence, since a list of names reads as a list;
- opposite directions (cosine >= SIMILAR_COSINE): "A find that X, whereas B find that Y [1][2]";
- a sentence on its own opens with "Similarly," or "In contrast," only when it is that close to the sentence
  before it, with the same or the opposite direction.

This module only proposes; the caller checks every sentence under the answer policy and keeps the first
option that passes (a single sentence per paper is always the last option).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from rag.check.rules.polarity import direction, words
from rag.check.screen import no_news_terms
from rag.records import Paper
from rag.text import tokenize
from rag.writing.voice import Turned, Voice, turn

# Two finding sentences state the same finding from this cosine on (MiniLM; sentences restating one result in
# other words score 0.65-0.85, sentences of one field on different results 0.3-0.55)...
SAME_FINDING_COSINE = 0.6
# ...and are close enough to be contrasted, or joined by "Similarly,", from this one.
SIMILAR_COSINE = 0.5
# A sentence joining two papers' own sentences stays readable up to this many words.
JOINED_MAX_WORDS = 60
# ...and when they share this share of their words beyond the topic's (of the shorter one's): two sentences on
# one topic are close in meaning whatever they found ("similarity measures topic, not truth").
SHARED_TERMS = 0.3
# A finding stated for two papers ("both find that X") holds at least this share of the words of X beyond the
# topic's (two at least) in the other paper's own sentence, which states the same direction of effect, besides
# passing the check against it.
SHARED_FINDING_TERMS = 0.5
MIN_FINDING_TERMS = 2
SIMILARLY = "Similarly,"
IN_CONTRAST = "In contrast,"


@dataclass(frozen=True)
class Said:
    """A paper's sentence that passed the check alone: the paper's own sentence and how the draft writes it."""

    paper: int  # index into the papers given to the draft
    source: str
    turned: Turned
    text: str


@dataclass
class Option:
    """One way of writing some of a theme's papers: the sentence, the papers it cites (in order), and further
    claims that must pass too (the shared finding against each other paper alone)."""

    text: str
    papers: list[int]
    kind: str  # "single", "shared", "joined", "contrast"
    sources: list[str]
    changes: list[tuple[str, str]] = field(default_factory=list)
    also: list[tuple[str, int]] = field(default_factory=list)
    label: str | None = None  # the in-text citation the sentence opens with (one paper's)


def _terms(text: str, topic: frozenset[str]) -> set[str]:
    return set(tokenize(text)) - topic - no_news_terms()


def shared_share(text_a: str, text_b: str, topic: frozenset[str]) -> float:
    """The share of the shorter sentence's terms beyond the topic's that the other holds too."""
    first, second = _terms(text_a, topic), _terms(text_b, topic)
    return len(first & second) / max(1, min(len(first), len(second)))


def relation(
    a: npt.NDArray[np.float32], b: npt.NDArray[np.float32], text_a: str, text_b: str, topic: frozenset[str]
) -> tuple[float, int]:
    """The cosine of two sentences and their relation: +1 the same direction, -1 opposite, 0 not close (in
    meaning and in the words beyond the topic's)."""
    cosine = float(a @ b)
    if cosine < SIMILAR_COSINE or shared_share(text_a, text_b, topic) < SHARED_TERMS:
        return cosine, 0
    first, second = direction(words(text_a)), direction(words(text_b))
    return cosine, -1 if first * second < 0 else 1


def slots(
    said: Sequence[Said], vectors: npt.NDArray[np.float32], papers: Sequence[Paper], topic: str
) -> list[list[Option]]:
    """The theme's sentences as slots, each a list of options best first: groups of the same finding, then
    contrasted pairs, then each remaining paper alone (with the connective its predecessor bears out, then
    without). ``said`` in the order the theme shows its papers; ``vectors`` their unit embeddings."""
    count = len(said)
    terms = frozenset(tokenize(topic))
    links = [
        [relation(vectors[i], vectors[j], said[i].source, said[j].source, terms) for j in range(count)]
        for i in range(count)
    ]
    used: set[int] = set()
    grouped: list[list[Option]] = []
    for i in range(count):
        if i in used:
            continue
        # The closest later sentence that states the same finding, or the opposite, and can share a sentence.
        partners = sorted((j for j in range(i + 1, count) if j not in used), key=lambda j: -links[i][j][0])
        for j in partners:
            cosine, kind = links[i][j]
            if kind == 0 or (kind == 1 and cosine < SAME_FINDING_COSINE):
                continue
            options = _group_options([said[i], said[j]], papers, terms, contrast=kind == -1)
            if len(options) > 1:  # more than the fallback
                grouped.append(options)
                used.update((i, j))
                break
    singles: list[list[Option]] = []
    previous: int | None = None
    for i in (k for k in range(count) if k not in used):
        options = [_single(said[i])]
        close = previous is not None and links[previous][i][0] >= SAME_FINDING_COSINE
        if (
            previous is not None
            and (close or links[previous][i][1] == -1)
            and links[previous][i][1] != 0
            and _named_first(said[i])
        ):
            connective = SIMILARLY if links[previous][i][1] == 1 else IN_CONTRAST
            options.insert(0, _single(said[i], connective))
        singles.append(options)
        previous = i
    return grouped + singles


def _single(item: Said, connective: str | None = None) -> Option:
    """The paper's sentence alone; with ``connective`` where it opens with the paper's name (lowering the first
    letter of another opening could change a name)."""
    changes = list(item.turned.changes)
    text = item.text
    if connective is not None and _named_first(item):
        text = f"{connective} {text}"
        changes.append(("", connective))
    return Option(text, [item.paper], "single", [item.source], changes, label=item.turned.label)


def _named_first(item: Said) -> bool:
    """The sentence opens with its paper's name (kept capitalised after a connective)."""
    return item.turned.label is not None and item.text.startswith(item.turned.label)


def _group_options(members: list[Said], papers: Sequence[Paper], topic: frozenset[str], contrast: bool) -> list[Option]:
    """The ways of writing ``members`` in one sentence, best first; then each alone (a slot of its own each is
    the caller's last resort: an empty list here means none)."""
    options: list[Option] = []
    if not contrast and (shared := _shared(members, papers, topic)) is not None:
        options.append(shared)
    joined = _joined(members, ", whereas " if contrast else ", and ")
    if joined is not None:
        options.append(joined)
    return [*options, _fallback(members)]


def _fallback(members: list[Said]) -> Option:
    """Marks the end of a group's options: the caller writes each member alone."""
    return Option("", [m.paper for m in members], "apart", [m.source for m in members])


def _shared(members: list[Said], papers: Sequence[Paper], topic: frozenset[str]) -> Option | None:
    """'A (2020) and B (2021) both find that X': the leading paper's sentence, its subject all the members and
    its verb agreeing with them; X checked against each other member alone."""
    lead = members[0]
    labels = [m.turned.label for m in members]
    if lead.turned.voice is not Voice.CITING or any(label is None for label in labels):
        return None
    paper = papers[lead.paper]
    plural = turn(lead.source, replace(paper, authors=[*paper.authors, "others"]) if len(paper.authors) == 1 else paper)
    label = plural.label
    if label is None or not plural.text.startswith(f"{label} ") or plural.voice is not Voice.CITING:
        return None
    rest = plural.text[len(label) + 1 :]
    verb, _, clause = rest.partition(" that ")
    if not clause or " " in verb.strip() or not verb.isalpha():
        return None
    names = [str(n) for n in labels]
    subject = f"{' and '.join(names)} both"
    text = f"{subject} {verb} that {clause}"
    finding = clause[:1].upper() + clause[1:]
    mine, way = _terms(finding, topic), direction(words(finding))
    for other in members[1:]:
        held = mine & _terms(other.source, topic)
        if (
            len(held) < max(MIN_FINDING_TERMS, SHARED_FINDING_TERMS * len(mine))
            or direction(words(other.source)) != way
        ):
            return None
    changes = [*lead.turned.changes, (lead.turned.label or "", subject)]
    also = [(finding, m.paper) for m in members[1:]]
    return Option(text, [m.paper for m in members], "shared", [m.source for m in members], changes, also)


def _joined(members: list[Said], glue: str) -> Option | None:
    """'A find that X, and B show that Y' (or ', whereas'): each paper's sentence as it passed alone, each
    opening with its paper's name so that who found what stays plain."""
    if not all(_named_first(m) for m in members):
        return None
    parts = [m.text.rstrip(".") for m in members]
    if any(p.endswith(("?", "!", "…", "”")) for p in parts):
        return None
    text = ", ".join(parts[:-1]) + glue + parts[-1] + "."
    if len(text.split()) > JOINED_MAX_WORDS:
        return None
    changes = [change for m in members for change in m.turned.changes] + [("", glue.strip(", "))]
    kind = "contrast" if "whereas" in glue else "joined"
    return Option(text, [m.paper for m in members], kind, [m.source for m in members], changes)
