"""Checked means checked: model-like sentences made from SciFact evidence sentences, checked as an answer's.

Each evidence (rationale) sentence of the labelled pairs is copied, reworded, or changed on purpose (a number,
the direction of an effect, a negation, the population/place/design, or cited to the wrong paper:
rag/evaluation/perturbations.py). Each is checked exactly as a model's sentence citing [1] is
(rag.check.answers.check_reply, answer policy, offline), and the share that keeps the top label is reported
per kind: faithful ones should keep it, changed ones lose it. Goals (issue "checked means checked"): faithful
>= 95% passed; numbers >= 95%, negation >= 90%, direction >= 85%, populations/places >= 80%, wrong source
>= 95% kept from the top label.

    python benchmarks/perturbations.py [TRAIN.jsonl HARD_NEGATIVES.jsonl] [--show N]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from rag.check.answers import check_reply
from rag.evaluation.perturbations import Kind, Perturbed, make_perturbations
from rag.evaluation.support import wilson
from rag.llm.types import Completion, Usage
from rag.records import Paper

ROOT = Path(__file__).resolve().parent.parent
SUPPORT_DIR = ROOT.parent / "shared" / "eval" / "support"


def top_label(item: Perturbed) -> tuple[bool, str]:
    """Whether the sentence, citing its paper as [1], is shown whole with the top label (an evidence "sentence"
    of SciFact's may be two of ours: each must be); and why not."""
    paper = Paper(id="cited", text=item.abstract, title=item.title)
    answer = check_reply("", Completion(f"{item.sentence} [1]"), [paper], Usage())
    if answer.dropped:
        return False, answer.dropped[0].detail or answer.dropped[0].reason
    labels = [s.support for s in answer.sentences if not s.conflict]
    top = bool(labels) and len(labels) == len(answer.sentences) and all(s is not None and s.is_top for s in labels)
    return top, ", ".join(str(s.support) + (" (conflict)" if s.conflict else "") for s in answer.sentences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="?", type=Path, default=SUPPORT_DIR / "train.jsonl")
    parser.add_argument("hard", nargs="?", type=Path, default=SUPPORT_DIR / "train_hard_negatives.jsonl")
    parser.add_argument("--show", type=int, default=0, help="print this many misjudged sentences per kind")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    hard = [json.loads(line) for line in args.hard.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = make_perturbations(rows, hard)
    kept: Counter[Kind] = Counter()
    total: Counter[Kind] = Counter()
    wrong: dict[Kind, list[tuple[Perturbed, str]]] = {}
    started = time.perf_counter()
    for item in items:
        top, why = top_label(item)
        total[item.kind] += 1
        if top == item.kind.faithful:
            kept[item.kind] += 1
        else:
            wrong.setdefault(item.kind, []).append((item, why))
    seconds = time.perf_counter() - started
    print(f"{len(items)} sentences from {len(rows)} pairs, {1000 * seconds / len(items):.1f} ms per sentence\n")
    print("| kind | sentences | judged right | 95% CI |\n|---|---|---|---|")
    for kind in Kind:
        low, high = wilson(kept[kind], total[kind])
        goal = "passed" if kind.faithful else "kept from the top label"
        print(f"| {kind.value} ({goal}) | {total[kind]} | {kept[kind] / total[kind]:.3f} | [{low:.3f}, {high:.3f}] |")
    rng = random.Random(0)
    for kind, misses in wrong.items() if args.show else ():
        print(f"\n{kind.value}: {len(misses)} misjudged")
        for item, why in rng.sample(misses, min(args.show, len(misses))):
            print(f"- {item.sentence}\n  was: {item.original}\n  ({why})")


if __name__ == "__main__":
    main()
