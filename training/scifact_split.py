"""SciFact train split by claim and paper groups: the judge trains on some groups and is measured on the rest
(training/train_judge.py, benchmarks/judge_eval.py), so no claim or paper is on both sides. Plain Python: the
benchmark imports it without torch."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any


def read_rows(folder: Path) -> list[dict[str, Any]]:
    """The labelled pairs and the hard negatives of shared/eval/support."""
    rows = []
    for name in ("train.jsonl", "train_hard_negatives.jsonl"):
        rows += [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines()]
    return rows


def held_out_groups(rows: list[dict[str, Any]], seed: int, share: float) -> tuple[dict[str, str], list[str]]:
    """Each claim's group ("c<claim id>" -> group: claims and papers joined when one cites the other), and the
    held-out groups, ``share`` of them, in the seeded order."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for row in rows:
        parent[find(f"c{row['claim_id']}")] = find(f"d{row['doc_id']}")
    group_of = {f"c{r['claim_id']}": find(f"c{r['claim_id']}") for r in rows}
    groups = sorted(set(group_of.values()))
    random.Random(seed).shuffle(groups)
    return group_of, groups[: int(len(groups) * share)]
