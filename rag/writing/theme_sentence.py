"""The sentence that opens a theme's paragraph, claiming no more than its papers share.

"Several works address Riemannian geometry and covariance matrices [1][2][4]." The phrases are the papers'
own words (word sequences each cited paper writes, in its title or abstract), chosen for being shared by the
theme's papers and rare in the others; only the papers that write both phrases are cited. The frame ("Several
works address") is fixed and asserts nothing beyond that the papers deal with those words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.check.screen import restates_title
from rag.records import Paper
from rag.text import stopwords, tokenize


def _words(text: str) -> frozenset[str]:
    """A set of words written as one string (a long list reads better as prose)."""
    return frozenset(text.split())


MAX_PHRASE_WORDS = 3
# A theme sentence cites at least this many papers: one paper is not "several works".
MIN_SHARED_PAPERS = 2
# Longer phrases say more ("spatial covariance matrices" over "matrices").
PHRASE_LENGTH_WEIGHT = {1: 1.0, 2: 1.6, 3: 1.8}
# How many sentences are offered to the check, best first, before the theme goes without one; made of the
# best phrases only.
MAX_CANDIDATES = 6
MAX_PHRASES = 16
# A phrase's worth grows with how much it belongs to this theme (share of its papers that are in it) from this...
OWN_THEME_FLOOR = 0.5
# ...and is this much more for being in a title: titles name things ("covariance matrices"), where an abstract's
# phrase may be a verb's ("control soil erosion")...
TITLE_WEIGHT = 1.5
# ...and a second phrase adds this much of its worth: "X and Y" says more than "X" only when both are good.
PAIR_WEIGHT = 0.5
# Words of academic prose that say nothing of a theme ("results", "based", "proposed").
_FILLER = _words(
    "result results study studies paper papers work works method methods approach approaches data "
    "analysis analyses based using used use new novel different various several proposed propose show "
    "shows shown however also two three one first second well may can within among including high low "
    "higher lower large small significant significantly effect effects case cases paper present presented "
    "provide provides total potential important main found find general specific related recent current "
    "review findings research article articles existing aim aims objective purpose conclusion conclusions "
    "background methods introduction many number numbers level levels way ways part set order terms type "
    "types model models variety group groups region regions area areas system systems interface "
    "interfaces performance process processes structure factor factors condition conditions change "
    "changes time times year years outcome outcomes quality rate rates value values field fields "
    "information evidence development application applications problem problems impact impacts role "
    "response responses species approach practice practices strategy strategies technique techniques tool "
    "tools task tasks sample samples measure measures feature features experiment experiments "
    "participants subjects people individuals patients one two three four five six seven eight nine ten "
    "could would should might must may can will shall yet best better good across multiple several due "
    "help helps"
)
# Word endings of adjectives, participles and adverbs: a phrase names a thing, so it does not end on one
# ("cognitive", "degraded", "significantly").
_NOT_A_NAME = re.compile(r"(?:ed|ive|ous|al|ic|able|ible|ate|ly|ful|less|ify|ize|ise)$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
_CHUNK_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”‘’/]|\s[-–—]\s")


@dataclass(frozen=True)
class ThemeSentence:
    """A theme's opening sentence: its text (no citations) and which of the theme's papers it cites."""

    text: str
    cited: tuple[int, ...]  # indexes into the theme's papers
    phrases: tuple[str, ...]


def _phrases(paper: Paper) -> dict[tuple[str, ...], str]:
    return _phrases_of(paper.text, paper.title or "")


@lru_cache(maxsize=1024)
def _phrases_of(abstract: str, title: str) -> dict[tuple[str, ...], str]:
    """Every 1-3 word phrase of the paper not crossing punctuation, keyed by its stems, with how it is written:
    as the abstract writes it (a title capitalises its words), in lower case where it is written both ways."""
    stop = stopwords()
    found: dict[tuple[str, ...], str] = {}
    for text in (abstract, title):
        seen_here = set(found)
        shouting = text.isupper()
        for chunk in _CHUNK_BREAK.split(text.lower() if shouting else text):
            words = list(_WORD.finditer(chunk))
            for size in range(1, MAX_PHRASE_WORDS + 1):
                for start in range(len(words) - size + 1):
                    phrase = [m.group(0) for m in words[start : start + size]]
                    if any(_not_an_end(w, stop) for w in (phrase[0], phrase[-1])):
                        continue
                    if size == 1 and not phrase[0].isupper():
                        continue  # one common word names no theme ("fidelity", "urban"); an acronym may ("EEG")
                    if _NOT_A_NAME.search(phrase[-1].lower()) and not phrase[-1].isupper():
                        continue
                    key = tuple(tokenize(" ".join(phrase)))
                    if not key or len(key) != len([w for w in phrase if w.lower() not in stop]) or key in seen_here:
                        continue
                    # As written, whatever joins the words ("brain–computer interfaces").
                    written = " ".join(chunk[words[start].start() : words[start + size - 1].end()].split())
                    if key not in found or (found[key] != found[key].lower() and written == written.lower()):
                        found[key] = written
    return found


def _not_an_end(word: str, stop: frozenset[str]) -> bool:
    """A phrase neither starts nor ends on a stop word, a filler word or a short one ("of", "in"); a short one
    in capitals is a name ("class II", "CT")."""
    lower = word.lower()
    return lower in stop or lower in _FILLER or (len(word) < 3 and not word.isupper())


def _overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return bool(set(a) & set(b))


def theme_sentences(theme: Sequence[Paper], others: Sequence[Paper]) -> list[ThemeSentence]:
    """Candidate opening sentences for ``theme``, best first: "Several works address X and Y." citing the papers
    that write both, or "Several works address X." citing those that write X; none for a single paper. A
    candidate is as good as the share of the theme it cites, the length of its phrases and how much they belong
    to this theme rather than to the other papers."""
    if len(theme) < MIN_SHARED_PAPERS:
        return []
    inside = [_phrases(p) for p in theme]
    outside = [set(_phrases(p)) for p in others]
    holders: dict[tuple[str, ...], set[int]] = {}
    written: dict[tuple[str, ...], Counter[str]] = {}
    for index, phrases in enumerate(inside):
        for key, form in phrases.items():
            holders.setdefault(key, set()).add(index)
            written.setdefault(key, Counter())[form] += 1
    titled = {key for paper in theme for key in _phrases_of("", paper.title or "")}
    quality: dict[tuple[str, ...], float] = {}
    for key, papers in holders.items():
        if len(papers) >= MIN_SHARED_PAPERS:
            elsewhere = sum(1 for phrases in outside if key in phrases)
            own = OWN_THEME_FLOOR + len(papers) / (len(papers) + elsewhere)
            quality[key] = PHRASE_LENGTH_WEIGHT[len(key)] * own * (TITLE_WEIGHT if key in titled else 1.0)
    ranked = _without_parts(sorted(quality, key=lambda k: (-quality[k] * len(holders[k]), k)))[:MAX_PHRASES]
    scored: list[tuple[float, ThemeSentence]] = []
    for i, first in enumerate(ranked):
        form = _form(written[first])
        scored.append((quality[first] * len(holders[first]), _sentence((form,), holders[first])))
        for second in ranked[i + 1 :]:
            shared = holders[first] & holders[second]
            if not _overlaps(first, second) and len(shared) >= MIN_SHARED_PAPERS:
                pair = (form, _form(written[second]))
                score = (quality[first] + PAIR_WEIGHT * quality[second]) * len(shared)
                scored.append((score, _sentence(pair, shared)))
    scored.sort(key=lambda item: -item[0])
    # The check drops a sentence that says no more than a title (rag.check.screen): such phrases are
    # a title's words, not what the papers share beyond their titles.
    titles = [p.title for p in [*theme, *others] if p.title]
    return [sentence for _, sentence in scored if not restates_title(sentence.text, titles)][:MAX_CANDIDATES]


def _sentence(phrases: tuple[str, ...], cited: set[int]) -> ThemeSentence:
    return ThemeSentence(f"Several works address {' and '.join(phrases)}.", tuple(sorted(cited)), phrases)


def _form(forms: Counter[str]) -> str:
    """How the papers write a phrase most often; lower case when as often as capitalised."""
    return max(forms, key=lambda f: (forms[f], f == f.lower()))


def _without_parts(ranked: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """A phrase inside a better-ranked one says nothing more ("matrices" after "covariance matrices")."""
    kept: list[tuple[str, ...]] = []
    for key in ranked:
        if not any(set(key) <= set(better) for better in kept):
            kept.append(key)
    return kept
