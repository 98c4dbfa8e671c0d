"""How well the citation check tells a cited paper that backs a claim from one that does not.

Labelled pairs (the format of SciFact's claim/abstract pairs): ``claim``, ``title``,
``abstract``, ``label`` SUPPORT / CONTRADICT / NEI, and optionally ``kind``
(``hard_negative``: a similar but wrong paper). Each pair is checked the way an
answer's sentence is, and the top label is compared with the gold one.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import InputError

GOLD_LABELS = ("SUPPORT", "CONTRADICT", "NEI")
HARD_NEGATIVE = "hard_negative"
POSITIVE = "SUPPORT"
REQUIRED_FIELDS = ("claim", "abstract", "label")
# 95% two-sided normal quantile, for Wilson intervals.
Z_95 = 1.959963984540054


@dataclass
class LabelledPair:
    line: int
    claim: str
    title: str | None
    abstract: str
    gold: str  # SUPPORT, CONTRADICT, NEI or hard_negative (an NEI pair whose paper is similar but wrong)


@dataclass
class PairResult:
    gold: str
    label: str  # the check's label (rag.check.sentences.Support value)
    score: float
    top: bool  # the check gave its top label: it would show the citation as backed


@dataclass
class SupportReport:
    metrics: dict[str, float | list[float]]
    confusion: dict[str, dict[str, int]]
    pairs: list[PairResult] = field(default_factory=list)


def _gold(row: dict[str, object]) -> str:
    label = str(row["label"]).strip().upper()
    if label not in GOLD_LABELS:
        raise ValueError(f"unknown label {row['label']!r} (expected {', '.join(GOLD_LABELS)})")
    return HARD_NEGATIVE if row.get("kind") == HARD_NEGATIVE else label


def _text(row: dict[str, object], name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{name}' is missing or empty")
    return value.strip()


def load_pairs(path: Path) -> tuple[list[LabelledPair], list[str]]:
    """Good pairs, and a ``file:line: why`` warning per line that is not one (skipped)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); re-save the file as UTF-8"
        ) from None
    pairs: list[LabelledPair] = []
    warnings: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict):
                raise ValueError("not a JSON object")
            title = row.get("title")
            pairs.append(
                LabelledPair(
                    number,
                    _text(row, "claim"),
                    title.strip() if isinstance(title, str) and title.strip() else None,
                    _text(row, "abstract"),
                    _gold(row),
                )
            )
        except (ValueError, KeyError, RecursionError) as exc:
            warnings.append(f"{path}:{number}: skipped ({exc})")
    if not pairs:
        raise InputError(
            f"{path}: no labelled pairs ({len(warnings)} bad lines); each line is a JSON object with "
            f"{', '.join(REQUIRED_FIELDS)} ({'/'.join(GOLD_LABELS)}) and optionally title and kind"
        )
    return pairs, warnings


def wilson(successes: int, total: int) -> list[float]:
    """95% Wilson score interval of a proportion: sensible at 0 and at 1, unlike the normal one."""
    if total == 0:
        return [0.0, 0.0]
    p, z2 = successes / total, Z_95 * Z_95
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = Z_95 * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def roc_auc(positive: Sequence[float], negative: Sequence[float]) -> float | None:
    """Probability that a positive outscores a negative (ties count half); None without both kinds."""
    if not positive or not negative:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positive for n in negative)
    return round(wins / (len(positive) * len(negative)), 4)


def report(results: Sequence[PairResult]) -> SupportReport:
    """Confusion matrix, precision / recall / F1 of the top label, and the share of each gold class given it."""
    confusion: dict[str, Counter[str]] = {}
    for result in results:
        confusion.setdefault(result.gold, Counter())[result.label] += 1
    true_pos = sum(1 for r in results if r.top and r.gold == POSITIVE)
    called = sum(1 for r in results if r.top)
    positives = sum(1 for r in results if r.gold == POSITIVE)
    precision = true_pos / called if called else 0.0
    recall = true_pos / positives if positives else 0.0
    metrics: dict[str, float | list[float]] = {
        "precision": round(precision, 4),
        "precision_ci95": wilson(true_pos, called),
        "recall": round(recall, 4),
        "recall_ci95": wilson(true_pos, positives),
        "f1": round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0,
    }
    for gold in (*GOLD_LABELS, HARD_NEGATIVE):
        members = [r for r in results if r.gold == gold]
        if members:
            given = sum(1 for r in members if r.top)
            metrics[f"{gold.lower()}_given_top_label"] = round(given / len(members), 4)
            metrics[f"{gold.lower()}_given_top_label_ci95"] = wilson(given, len(members))
    support = [r.score for r in results if r.gold == POSITIVE]
    aucs = {
        "auc_support_vs_contradict": roc_auc(support, [r.score for r in results if r.gold == "CONTRADICT"]),
        "auc_support_vs_rest": roc_auc(support, [r.score for r in results if r.gold != POSITIVE]),
    }
    metrics.update({name: auc for name, auc in aucs.items() if auc is not None})
    return SupportReport(metrics, {gold: dict(counts) for gold, counts in confusion.items()}, list(results))
