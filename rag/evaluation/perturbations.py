"""Model-like sentences made from labelled evidence sentences, some faithful and some wrong on purpose.

A small model writing from a source copies or rewords one of its sentences and, too often, changes a number,
flips a direction of effect, adds or drops a negation, swaps the population, place or study design, or cites
the sentence to the wrong paper. Each kind is made here by a rule from the annotated evidence (rationale)
sentences of SciFact-style pairs, so the citation check can be measured per kind: a faithful sentence must keep
the top label, every other kind must lose it. Seeded: the same rows give the same set.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    FAITHFUL = "faithful"  # the evidence sentence as written
    PARAPHRASE = "paraphrase"  # reworded without changing what it says
    NUMBER = "number"  # one number changed to one the source never gives
    DIRECTION = "direction"  # increase <-> decrease and the like
    NEGATION = "negation"  # a negation added or removed
    POPULATION = "population"  # population, organism, place or study design swapped
    WRONG_SOURCE = "wrong_source"  # the faithful sentence cited to another (similar) paper

    @property
    def faithful(self) -> bool:
        return self in (Kind.FAITHFUL, Kind.PARAPHRASE)


@dataclass(frozen=True)
class Perturbed:
    group: str  # the claim the evidence came from: folds keep a group together
    kind: Kind
    sentence: str
    title: str | None  # the paper the sentence is cited to
    abstract: str
    original: str  # the evidence sentence it was made from


# An abstract's section label before its first sentence ("RESULTS", "Conclusions and Relevance").
_SECTION = re.compile(
    r"^(?:(?:[A-Z]{3,}[A-Z /&-]*|Conclusions? and Relevance|Conclusions?|Results?|Findings|Interpretation|"
    r"Background|Methods?|Objectives?|Design|Setting|Main outcome measures?)[:.]?\s+)+(?=[A-Z0-9(])"
)
MIN_WORDS = 6
_NUMBER = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)(?![\w]|\.\d)")

_PARAPHRASES = (
    (r"\bWe (found|show|showed|demonstrate|demonstrated|report|observed|identified|conclude)\b", r"The authors \1"),
    (r"\bwe (found|show|showed|demonstrate|demonstrated|report|observed|identified|conclude)\b", r"the authors \1"),
    (r"\bOur (results|findings|data)\b", r"The \1"),
    (r"\bour (results|findings|data)\b", r"the \1"),
    (r"^In conclusion, (\w)", r"\1"),
    (r"^Overall, (\w)", r"\1"),
    (r"\bdemonstrated\b", "showed"),
    (r"\bshowed\b", "demonstrated"),
    (r"\bsuggest that\b", "indicate that"),
    (r"\bindicate that\b", "suggest that"),
    (r"\bwas associated with\b", "was linked to"),
    (r"\bwere associated with\b", "were linked to"),
    (r"\bis associated with\b", "is linked to"),
    (r"\bare associated with\b", "are linked to"),
    (r"\bapproximately\b", "about"),
    (r"\bsubjects\b", "participants"),
    (r"\butilized\b", "used"),
)
_DIRECTIONS = (
    ("increased", "decreased"), ("increases", "decreases"), ("increase", "decrease"), ("increasing", "decreasing"),
    ("higher", "lower"), ("greater", "smaller"), ("more", "less"), ("improved", "worsened"),
    ("improves", "worsens"), ("improve", "worsen"), ("enhanced", "reduced"), ("enhances", "reduces"),
    ("promotes", "inhibits"), ("promoted", "inhibited"), ("promote", "inhibit"), ("activates", "inhibits"),
    ("activated", "inhibited"), ("elevated", "reduced"), ("positively", "negatively"), ("positive", "negative"),
    ("upregulated", "downregulated"), ("up-regulated", "down-regulated"), ("upregulation", "downregulation"),
    ("induces", "suppresses"), ("induced", "suppressed"), ("raised", "lowered"), ("accelerated", "slowed"),
    ("gain", "loss"), ("rise", "fall"), ("larger", "smaller"), ("longer", "shorter"), ("faster", "slower"),
    ("reduced", "increased"), ("reduces", "increases"), ("reduction", "increase"), ("declined", "rose"),
    ("lower", "higher"), ("fewer", "more"), ("inhibits", "promotes"), ("inhibited", "promoted"),
    ("suppresses", "induces"), ("suppressed", "induced"), ("decreased", "increased"), ("decreases", "increases"),
    ("decrease", "increase"), ("impaired", "improved"), ("attenuated", "enhanced"), ("prevents", "causes"),
)  # fmt: skip
_AUXILIARIES = re.compile(r"\b(is|are|was|were|can|could|may|might|will|would|should|has|have|had|does|do|did)\b")
_NEGATIONS = (
    (r"\b(is|are|was|were|did|does|do|can|could|may|might|will|would|should|has|have|had) not\b", r"\1"),
    (r"\b(is|are|was|were|did|does|do|ca|could|would|should|has|have|had)n't\b", r"\1"),
    (r"\bno significant\b", "a significant"),
    (r"\bnot significantly\b", "significantly"),
    (r"\bno (difference|association|effect|change|correlation|relationship|benefit|evidence)\b", r"a \1"),
    (r"\bwithout\b", "with"),
)
# Same-kind alternatives: a sentence's member is replaced by another member the source never mentions.
_SWAPS = (
    ("mice", "rats", "zebrafish", "pigs", "monkeys"),
    ("mouse", "rat", "zebrafish", "pig", "monkey"),
    ("children", "adults", "elderly people", "adolescents", "infants"),
    ("women", "men"),
    ("men", "women"),
    ("boys", "girls"),
    ("patients", "healthy volunteers"),
    ("humans", "mice"),
    ("China", "Germany", "Brazil", "Canada", "Japan", "Sweden"),
    ("Chinese", "German", "Brazilian", "Canadian", "Japanese", "Swedish"),
    ("United States", "United Kingdom", "Australia", "India"),
    ("US", "UK", "Australia", "India"),
    ("UK", "US", "France", "Italy"),
    ("Denmark", "Spain", "Korea", "Finland"),
    ("Danish", "Spanish", "Korean", "Finnish"),
    ("Sweden", "Norway", "Taiwan", "Mexico"),
    ("Swedish", "Norwegian", "Taiwanese", "Mexican"),
    ("Japan", "Netherlands", "Israel", "Nigeria"),
    ("Japanese", "Dutch", "Israeli", "Nigerian"),
    ("randomized", "observational", "retrospective"),
    ("randomised", "observational", "retrospective"),
    ("meta-analysis", "case-control study", "cross-sectional study"),
    ("cohort", "case-control", "cross-sectional"),
    ("prospective", "retrospective"),
    ("retrospective", "prospective"),
    ("double-blind", "open-label"),
    ("placebo-controlled", "uncontrolled"),
    ("in vitro", "in vivo"),
    ("in vivo", "in vitro"),
)


def strip_section(sentence: str) -> str:
    """The sentence without the section label an abstract put before it ("RESULTS Of the ...")."""
    return _SECTION.sub("", sentence.strip()).strip()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+(?:[-.][a-z0-9]+)*", text.lower()))


def paraphrase(sentence: str) -> str | None:
    """The sentence reworded by the first rules that apply (at most two); None when none applies."""
    out, applied = sentence, 0
    for pattern, replacement in _PARAPHRASES:
        changed = re.sub(pattern, replacement, out, count=1)
        if changed != out:
            out, applied = changed, applied + 1
            if applied == 2:
                break
    return out[0].upper() + out[1:] if applied else None


def _other_number(value: str, rng: random.Random, taken: set[str]) -> str:
    for _ in range(50):
        if "." in value:
            whole, decimals = value.split(".")
            digits = list(decimals)
            at = rng.randrange(len(digits))
            digits[at] = str((int(digits[at]) + rng.randint(2, 7)) % 10)
            if at == 0 and rng.random() < 0.5:
                whole = str(int(whole) + rng.randint(1, 3))
            candidate = f"{whole}.{''.join(digits)}"
        else:
            number = int(value)
            candidate = str(number + rng.choice([-1, 1]) * rng.randint(max(1, number // 4), max(2, number // 2 + 2)))
            if candidate.startswith("-") or candidate == "0":
                candidate = str(number + rng.randint(2, 9))
        if candidate not in taken and candidate != value:
            return candidate
    return value


def change_number(sentence: str, abstract: str, rng: random.Random) -> str | None:
    """One number (not a year-like 4-digit identifier part) changed to one the abstract never gives."""
    found = [
        m for m in _NUMBER.finditer(sentence) if not (len(m.group(1)) == 4 and m.group(1).startswith(("19", "20")))
    ]
    if not found:
        return None
    match = rng.choice(found)
    taken = set(_NUMBER.findall(abstract)) | set(re.findall(r"\d+(?:\.\d+)?", abstract))
    new = _other_number(match.group(1), rng, taken)
    if new == match.group(1):
        return None
    return sentence[: match.start(1)] + new + sentence[match.end(1) :]


def _replace_word(sentence: str, old: str, new: str) -> str | None:
    match = re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", sentence, re.IGNORECASE)
    if match is None:
        return None
    written = match.group(0)
    new = new[0].upper() + new[1:] if written[0].isupper() else new
    return sentence[: match.start()] + new + sentence[match.end() :]


def flip_direction(sentence: str, rng: random.Random) -> str | None:
    """One word of direction (increase, higher, improves, promotes ...) turned into its opposite."""
    present = [(a, b) for a, b in _DIRECTIONS if re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", sentence, re.I)]
    if not present:
        return None
    old, new = rng.choice(present)
    return _replace_word(sentence, old, new)


def flip_negation(sentence: str, rng: random.Random) -> str | None:
    """A negation removed when the sentence has one, else "not" added after its first auxiliary verb."""
    for pattern, replacement in _NEGATIONS:
        changed = re.sub(pattern, replacement, sentence, count=1, flags=re.IGNORECASE)
        if changed != sentence:
            return changed
    auxiliary = _AUXILIARIES.search(sentence)
    if auxiliary is None:
        return None
    return sentence[: auxiliary.end()] + " not" + sentence[auxiliary.end() :]


def swap_population(sentence: str, abstract: str, rng: random.Random) -> str | None:
    """A population, organism, place or study design replaced by one of its kind the abstract never names."""
    words = _words(abstract)
    options = []
    for group in _SWAPS:
        member, *others = group
        if re.search(rf"(?<![\w-]){re.escape(member)}(?![\w-])", sentence, re.IGNORECASE):
            fresh = [o for o in others if not (_words(o) & words)]
            options += [(member, o) for o in fresh]
    if not options:
        return None
    old, new = rng.choice(options)
    return _replace_word(sentence, old, new)


def _evidence_sentences(row: dict[str, Any]) -> Iterator[str]:
    sentences = row.get("abstract_sentences") or []
    for index in row.get("rationale") or []:
        if 0 <= index < len(sentences):
            sentence = strip_section(sentences[index])
            if len(sentence.split()) >= MIN_WORDS:
                yield sentence


def make_perturbations(
    rows: Sequence[dict[str, Any]], hard_negatives: Iterable[dict[str, Any]] = (), seed: int = 13
) -> list[Perturbed]:
    """Every kind that applies to each evidence sentence of the SUPPORT and CONTRADICT rows (the evidence of a
    contradicted claim is still what its source says), in row order. ``hard_negatives`` (rows with
    ``claim_id`` and an abstract) give each claim's similar-but-wrong paper for the wrong-source kind; without
    one, the next row's paper stands in."""
    rng = random.Random(seed)
    wrong_paper = {str(r["claim_id"]): r for r in hard_negatives}
    usable = [r for r in rows if r.get("label") in ("SUPPORT", "CONTRADICT") and r.get("rationale")]
    out: list[Perturbed] = []
    for position, row in enumerate(usable):
        group, title, abstract = str(row["claim_id"]), row.get("title"), row["abstract"]
        for original in _evidence_sentences(row):
            made = {
                Kind.FAITHFUL: original,
                Kind.PARAPHRASE: paraphrase(original),
                Kind.NUMBER: change_number(original, abstract, rng),
                Kind.DIRECTION: flip_direction(original, rng),
                Kind.NEGATION: flip_negation(original, rng),
                Kind.POPULATION: swap_population(original, abstract, rng),
            }
            for kind, sentence in made.items():
                if sentence is not None and (kind is Kind.FAITHFUL or sentence != original):
                    out.append(Perturbed(group, kind, sentence, title, abstract, original))
            other = wrong_paper.get(group) or usable[(position + len(usable) // 2) % len(usable)]
            if other["abstract"] != abstract:
                out.append(
                    Perturbed(group, Kind.WRONG_SOURCE, original, other.get("title"), other["abstract"], original)
                )
    return out
