"""Pairs for the judge made from real abstracts: each a (passage, sentence, label) where the sentence restates
one or two of the passage's sentences faithfully (entailment), or with one error of the kinds a careless model
makes: a direction flipped, a negation added or dropped, a number changed (contradiction); a population,
species or place swapped, a hedge dropped or an association made a cause, a detail the abstract never gives,
another paper's finding (neutral: the passage does not state it).

Faithful sentences are edited too (attribution, a clause dropped, two sentences joined, "we" made "the
authors"), so a change of words alone never marks an error. Libraries of the judge's written held-out set
and of the theses the check is measured on are refused (``HELD_OUT``).

    python training/perturb.py --real ../shared/real --out pairs.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.corpus.loader import load_paths  # noqa: E402

ENTAIL, CONTRADICT, NEUTRAL = 0, 1, 2
# The written held-out sentences' libraries and every library behind a thesis in shared/real/manuscripts.
HELD_OUT = (
    "AIML",
    "chrisjbillington",
    "elliotmartin92",
    "fatihserta",
    "ErikBjare",
    "bentharnist",
    "diegoferigo",
    "morteza",
    "manuscripts",
)
MIN_WORDS, MAX_WORDS = 8, 45
LIBRARY_SUFFIXES = {".bib", ".json", ".ris", ".txt", ".csv", ".nbib", ".ciw", ".enw", ".sqlite"}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
LABELLED = re.compile(r"^(?:[A-Z][A-Za-z ]{2,30}:)\s*")

DIRECTIONS = [
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("increasing", "decreasing"),
    ("higher", "lower"),
    ("improved", "worsened"),
    ("improves", "worsens"),
    ("reduced", "increased"),
    ("reduces", "increases"),
    ("faster", "slower"),
    ("better", "worse"),
    ("positive", "negative"),
    ("positively", "negatively"),
    ("greater", "smaller"),
    ("larger", "smaller"),
    ("more", "less"),
    ("longer", "shorter"),
    ("outperforms", "underperforms"),
    ("outperformed", "underperformed"),
    ("above", "below"),
    ("superior", "inferior"),
    ("enhanced", "impaired"),
    ("promotes", "inhibits"),
    ("promoted", "inhibited"),
    ("gain", "loss"),
    ("rise", "fall"),
    ("strengthens", "weakens"),
    ("upregulated", "downregulated"),
    ("up-regulated", "down-regulated"),
    ("benefit", "harm"),
    ("lowest", "highest"),
    ("most", "least"),
    ("easier", "harder"),
    ("stronger", "weaker"),
]
POPULATIONS = [
    ["children", "adults", "older adults", "adolescents", "infants"],
    ["mice", "rats", "zebrafish", "humans", "dogs"],
    ["men", "women"],
    ["boys", "girls"],
    ["patients", "healthy volunteers"],
    ["students", "teachers"],
    ["China", "India", "Brazil", "Germany", "Kenya", "Canada", "Japan"],
    ["Chinese", "Indian", "Brazilian", "German", "Kenyan", "Canadian", "Japanese"],
    ["urban", "rural"],
    ["primary", "secondary"],
    ["English", "Spanish", "French"],
    ["CNN", "LSTM", "transformer", "random forest"],
    ["ImageNet", "CIFAR-10", "MNIST", "COCO"],
    ["randomized", "observational"],
    ["cross-sectional", "longitudinal"],
    ["qualitative", "quantitative"],
]
OVERCLAIMS = [
    (r"\bmay (\w+)", r"\1s"),
    (r"\bmight (\w+)", r"\1s"),
    (r"\bcould (\w+)", r"\1s"),
    (r"\bsuggests? that\b", "proves that"),
    (r"\bindicates? that\b", "proves that"),
    (r"\b(is|are|was|were) associated with\b", "causes"),
    (r"\bcorrelated with\b", "caused by"),
    (r"\bsome\b", "all"),
    (r"\bmost\b", "all"),
    (r"\bpotentially\s+", ""),
    (r"\blikely\s+", "certainly "),
    (r"\bappears? to\s+", ""),
    (r"\bpartially\b", "fully"),
    (r"\bpreliminary\b", "conclusive"),
    (r"\bmany\b", "all"),
    (r"\boften\b", "always"),
    (r"\bcan\b", "always"),
]
DETAILS = [
    " in a randomized controlled trial of 1,200 participants",
    " across 14 countries",
    " over a ten-year follow-up",
    " using deep reinforcement learning",
    " in a cohort of elderly women",
    " with a 95% confidence interval",
    " in patients with type 2 diabetes",
    " on a national registry of 2 million people",
    " after adjusting for socioeconomic status",
    " in a double-blind design",
    " within six months",
]
ATTRIBUTIONS = ["The authors report that ", "The study finds that ", "According to this work, ", "They show that "]
OPENERS = re.compile(
    r"^(?:In this (?:study|paper|work|article),?|Here,?|We (?:found|show|find|demonstrate) that|"
    r"Our (?:results|findings) (?:show|suggest|indicate) that|Results:?)\s+",
    re.I,
)
# Rewordings that keep the meaning, above all words of direction said the same way: a faithful sentence need not
# share its source's words, and the judge must learn that "rose" restates "increased" while "fell" reverses it.
SYNONYMS = [
    ("increased", "rose"),
    ("increase", "rise"),
    ("decreased", "declined"),
    ("decrease", "decline"),
    ("reduced", "lowered"),
    ("reduction", "decrease"),
    ("improved", "enhanced"),
    ("higher", "greater"),
    ("showed", "demonstrated"),
    ("show", "demonstrate"),
    ("found", "observed"),
    ("examined", "investigated"),
    ("associated with", "linked to"),
    ("approximately", "about"),
    ("compared with", "relative to"),
    ("compared to", "relative to"),
    ("results", "findings"),
    ("method", "approach"),
    ("use", "employ"),
    ("used", "employed"),
    ("suggest", "indicate"),
    ("significantly", "markedly"),
    ("important", "key"),
    ("large", "substantial"),
    ("participants", "subjects"),
    ("however", "yet"),
    ("therefore", "thus"),
]
PARENTHESES = re.compile(r"\s*\([^()]{1,80}\)")
LEADING_PHRASE = re.compile(r"^(?:In|Using|Among|For|With|After|During|Across|Based on|Compared with)\b[^,]{3,60},\s+")
DECIMAL = re.compile(r"(?<![\w.])(\d+)\.(\d{2,})(?![\w.])")
HEDGES = ["The results suggest that ", "The findings indicate that ", "It appears that "]
NEGATABLE = re.compile(r"\b(is|are|was|were|can|could|did|does|do|has|have|will|should)\b(?! not)")
NEGATED = re.compile(r"\b(is|are|was|were|can|could|did|does|do|has|have|will|should) not\b|\bno\b|\bnot\b")
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.]*\d{3})(\s?%|\s?(?:ms|s|mg|kg|years|patients|participants))?")


def sentences_of(text: str) -> list[str]:
    return [LABELLED.sub("", s) for s in SENTENCE_END.split(text.strip()) if s]


def usable(sentence: str) -> bool:
    return MIN_WORDS <= len(sentence.split()) <= MAX_WORDS


def _sub_word(sentence: str, old: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(old)}\b", new, sentence, count=1)


def flip_direction(sentence: str, rng: random.Random) -> str | None:
    pairs = DIRECTIONS[:]
    rng.shuffle(pairs)
    for a, b in pairs:
        for old, new in ((a, b), (b, a)):
            if re.search(rf"\b{re.escape(old)}\b", sentence):
                return _sub_word(sentence, old, new)
    return None


def flip_negation(sentence: str, rng: random.Random) -> str | None:
    if NEGATED.search(sentence):
        found = NEGATED.search(sentence)
        assert found is not None
        text = found.group(0)
        replacement = found.group(1) if found.group(1) else ("a" if text.lower() == "no" else "")
        return re.sub(r"\s{2,}", " ", sentence[: found.start()] + replacement + sentence[found.end() :])
    found = NEGATABLE.search(sentence)
    if found is None:
        return None
    return sentence[: found.end()] + " not" + sentence[found.end() :]


def change_number(sentence: str, rng: random.Random) -> str | None:
    numbers = [m for m in NUMBER.finditer(sentence) if not (1900 <= float(m.group(1)) <= 2100)]
    if not numbers:
        return None
    found = rng.choice(numbers)
    value = float(found.group(1))
    factor = rng.choice((0.5, 0.6, 1.5, 2.0, 3.0))
    new = value * factor if value else rng.choice((3.0, 12.0))
    shown = f"{new:.{len(found.group(1).split('.')[1])}f}" if "." in found.group(1) else str(round(new))
    if shown == found.group(1):
        return None
    return sentence[: found.start(1)] + shown + sentence[found.end(1) :]


def swap_entity(sentence: str, rng: random.Random) -> str | None:
    groups = POPULATIONS[:]
    rng.shuffle(groups)
    for group in groups:
        present = [w for w in group if re.search(rf"\b{re.escape(w)}\b", sentence)]
        if present:
            old = present[0]
            return _sub_word(sentence, old, rng.choice([w for w in group if w != old]))
    return None


def overclaim(sentence: str, rng: random.Random) -> str | None:
    edits = OVERCLAIMS[:]
    rng.shuffle(edits)
    for pattern, replacement in edits:
        if re.search(pattern, sentence):
            return re.sub(pattern, replacement, sentence, count=1)
    return None


def add_detail(sentence: str, rng: random.Random) -> str | None:
    body = sentence.rstrip(".")
    return body + rng.choice(DETAILS) + "."


def reworded(text: str, rng: random.Random) -> str:
    """The same statement in other words: synonyms, a parenthesis or a leading phrase left out, a number
    rounded; each with some chance, so that many faithful sentences share few words with their source."""
    pairs = SYNONYMS[:]
    rng.shuffle(pairs)
    for old, new in pairs[:8]:
        if rng.random() < 0.6 and re.search(rf"\b{re.escape(old)}\b", text):
            text = _sub_word(text, old, new)
    if rng.random() < 0.5:
        text = PARENTHESES.sub("", text)
    if rng.random() < 0.4 and len(LEADING_PHRASE.sub("", text).split()) >= MIN_WORDS:
        text = LEADING_PHRASE.sub("", text)
        text = text[:1].upper() + text[1:]
    if rng.random() < 0.5:
        text = DECIMAL.sub(lambda m: f"{m.group(1)}.{m.group(2)[0]}", text, count=1)
    return text


def faithful(sentence: str, rng: random.Random) -> str:
    text = OPENERS.sub("", sentence)
    text = re.sub(r"\bwe\b", "the authors", text[:1].upper() + text[1:])
    text = re.sub(r"^We\b", "The authors", text)
    text = re.sub(r"\bour\b", "their", text)
    if rng.random() < 0.7:
        text = reworded(text, rng)
    choice = rng.random()
    if choice < 0.25 and ", and " in text:
        head = text.split(", and ")[0]
        if len(head.split()) >= MIN_WORDS:
            text = head.rstrip(".") + "."
    elif choice < 0.55:
        text = rng.choice(ATTRIBUTIONS) + text[:1].lower() + text[1:]
    elif choice < 0.65:
        text = rng.choice(HEDGES) + text[:1].lower() + text[1:]
    return text


ERRORS: list[tuple[str, int, Callable[[str, random.Random], str | None]]] = [
    ("direction", CONTRADICT, flip_direction),
    ("negation", CONTRADICT, flip_negation),
    ("number", CONTRADICT, change_number),
    ("entity", NEUTRAL, swap_entity),
    ("overclaim", NEUTRAL, overclaim),
    ("unstated", NEUTRAL, add_detail),
]


def pairs_of(abstract: list[str], others: list[list[str]], rng: random.Random) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    candidates = [i for i, s in enumerate(abstract) if usable(s)]
    rng.shuffle(candidates)
    for i in candidates[:3]:
        window = " ".join(abstract[max(i - 1, 0) : i + 2])
        sentence = abstract[i]
        out.append({"passage": window, "sentence": faithful(sentence, rng), "label": ENTAIL, "kind": "faithful"})
        if i + 1 < len(abstract) and usable(abstract[i + 1]) and rng.random() < 0.3:
            joined = sentence.rstrip(".") + ", and " + abstract[i + 1][:1].lower() + abstract[i + 1][1:]
            out.append({"passage": window, "sentence": joined, "label": ENTAIL, "kind": "joined"})
        kinds = ERRORS[:]
        rng.shuffle(kinds)
        made = 0
        for kind, label, edit in kinds:
            changed = edit(sentence, rng)
            if changed and changed != sentence:
                if rng.random() < 0.5:
                    changed = faithful(changed, rng)
                out.append({"passage": window, "sentence": changed, "label": label, "kind": kind})
                made += 1
            if made == 2:
                break
    if others:
        other = rng.choice(others)
        picks = [s for s in other if usable(s)]
        if picks and abstract:
            start = rng.randrange(len(abstract))
            window = " ".join(abstract[start : start + 3])
            out.append({"passage": window, "sentence": rng.choice(picks), "label": NEUTRAL, "kind": "other paper"})
    return out


def library_files(real: Path) -> list[Path]:
    files = []
    for path in sorted(real.rglob("*")):
        held_out = any(name in str(path.relative_to(real)) for name in HELD_OUT)
        if path.is_file() and not held_out and path.suffix.lower() in LIBRARY_SUFFIXES:
            files.append(path)
    return files


def abstracts_of(files: list[Path]) -> list[list[str]]:
    seen: set[str] = set()
    out = []
    for path in files:
        try:
            papers = load_paths([path], full_text=False).papers.values()
        except Exception as error:  # a file rag cannot read is skipped, as ingest would
            print(f"skipped {path.name}: {error}", file=sys.stderr)
            continue
        for paper in papers:
            if paper.no_abstract or paper.text[:200] in seen or len(paper.text.split()) < 60:
                continue
            seen.add(paper.text[:200])
            out.append(sentences_of(paper.text))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", type=Path, required=True, help="shared/real")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-abstracts", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    abstracts = abstracts_of(library_files(args.real))
    rng.shuffle(abstracts)
    abstracts = abstracts[: args.max_abstracts]
    rows = []
    for abstract in abstracts:
        rows += pairs_of(abstract, [a for a in rng.sample(abstracts, 2) if a is not abstract], rng)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    print(f"{len(abstracts)} abstracts, {len(rows)} pairs:", dict(Counter(str(r["kind"]) for r in rows)))


if __name__ == "__main__":
    main()
