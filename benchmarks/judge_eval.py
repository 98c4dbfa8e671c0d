"""The citation check's judge, measured, and its combination with the fitted score fitted (``--save`` writes
rag/check/judge/combine.json).

Pairs (a sentence, the abstract it cites), each with what the abstract does with it:

- SciFact train claims in the groups training/train_judge.py held out (by claim and paper, its seed and share):
  supported, contradicted, neither (NEI and the hard negatives). The judge never trained on them.
- Sentences written for this benchmark over real libraries (``--sets``: judge_tune.jsonl, judge_heldout.jsonl;
  each names its library under shared/real and the cited key, and never holds the abstract): faithful
  (attribution, paraphrase, two sentences of one abstract, hedged) and with one error each (a number, a
  direction, a negation, an entity, an unstated detail, an overclaim, or another paper's finding). The
  libraries of the two files are disjoint.

The combination is fitted on the tune sentences and half of the SciFact groups, and measured on the held-out
sentences and the other half (then the halves swap): no library, claim or paper is both fitted and measured.
Reported, under the answer policy (the label a model's sentence would get, rules included): the share of
faithful sentences that get the top label, the share of each error kind that does not, SciFact precision and
recall of the top label, AUCs; and, for comparison, the same without the judge.

    python benchmarks/judge_eval.py --sets DIR [--save] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "training"))

from scifact_split import held_out_groups, read_rows  # noqa: E402

from rag.check import judge as judge_module  # noqa: E402
from rag.check import scoring  # noqa: E402
from rag.check.judge import Judgement  # noqa: E402
from rag.check.policy import ANSWER, conflict_of  # noqa: E402
from rag.check.reading import CitedText, Reading, read_against  # noqa: E402
from rag.check.support_model import SupportScore  # noqa: E402
from rag.corpus.loader import load_paths  # noqa: E402
from rag.records import Paper  # noqa: E402

SHARED = REPO.parent / "shared"
SUPPORT_DIR = SHARED / "eval" / "support"
COMBINE_FILE = judge_module.JUDGE_DIR / "combine.json"
# How much less of one kind of error the combination may catch than the fitted score and rules alone.
KIND_SLACK = 0.15
STATED_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)
FITTED_WITH_JUDGE_GRID = (0.0, 0.1, 0.2, 0.3)
FITTED_ALONE_GRID = (0.4, 0.5, 0.6, 0.7, 2.0)
CONTRADICTION_GRID = (0.1, 0.2, 0.3, 0.4, 0.5)
ERROR_KINDS = ("number", "direction", "negation", "entity", "unstated", "overclaim", "wrong_source")


@dataclass
class Pair:
    sentence: str
    paper: Paper
    kind: str  # faithful / an error kind / scifact_support, scifact_contradict, scifact_neither
    group: str  # library (written sets) or claim group (SciFact)
    split: str  # "tune" / "heldout" / "a" / "b" (SciFact halves)
    fitted: SupportScore | None = None
    judgement: Judgement | None = None

    @property
    def stated(self) -> bool:
        return self.kind in ("faithful", "scifact_support")


def scifact_pairs(seed: int, holdout: float) -> list[Pair]:
    """The SciFact pairs in the groups the judge's training held out (its own split, redone)."""
    rows = read_rows(SUPPORT_DIR)
    group_of, held = held_out_groups(rows, seed, holdout)
    half = {g: ("a" if i % 2 == 0 else "b") for i, g in enumerate(held)}
    kinds = {"SUPPORT": "scifact_support", "CONTRADICT": "scifact_contradict", "NEI": "scifact_neither"}
    pairs = []
    for row in rows:
        group = group_of[f"c{row['claim_id']}"]
        if group in half:
            paper = Paper(id=str(row["doc_id"]), text=row["abstract"], title=row.get("title"))
            pairs.append(Pair(row["claim"], paper, kinds[row["label"]], group, half[group]))
    return pairs


def written_pairs(sets: Path) -> list[Pair]:
    libraries: dict[str, dict[str, Paper]] = {}
    pairs = []
    for split in ("tune", "heldout"):
        for line in (sets / f"judge_{split}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            library = row["library"]
            if library not in libraries:
                path = Path(library) if Path(library).is_absolute() else SHARED / "real" / library
                loaded = load_paths([path]).papers.values()
                libraries[library] = {key: p for p in loaded for key in [p.id, p.citekey, *p.aliases] if key}
            paper = libraries[library].get(row["key"])
            if paper is None or paper.no_abstract:
                continue
            pairs.append(Pair(row["sentence"], paper, row["kind"], library, split))
    return pairs


def read_all(pairs: Sequence[Pair]) -> None:
    """The fitted score and the judge's reading of every pair (the judge on, whatever combine.json says)."""
    texts = [p.paper.searchable_text() for p in pairs]
    fitted = scoring.load_support_model().score([p.sentence for p in pairs], texts)
    judged = judge_module.judge_texts([p.sentence for p in pairs], texts)
    for pair, result, judgement in zip(pairs, fitted, judged, strict=True):
        pair.fitted, pair.judgement = result, judgement


def features(pair: Pair) -> list[float]:
    assert pair.fitted is not None and pair.judgement is not None
    logit = scoring.logit
    return [logit(pair.fitted.score), logit(pair.judgement.stated), logit(pair.judgement.contradicted)]


def fit(pairs: Sequence[Pair]) -> scoring.Combination | None:
    """The logistic weights of the probability (stated vs not), then the labels' rule: of a grid of thresholds,
    the one that gives the top label to most stated pairs while catching, on average over the kinds of error,
    at least as many as the fitted score and the rules do alone, and each kind within KIND_SLACK of what they
    catch (keep the old check where the new one is worse); weak at 95% recall of stated pairs."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([features(p) for p in pairs])
    y = np.array([p.stated for p in pairs])
    weights = {True: 0.5 / max(y.mean(), 1e-9), False: 0.5 / max(1 - y.mean(), 1e-9)}
    model = LogisticRegression(C=1.0, class_weight=weights).fit(x, y)
    (a, b, c), d = model.coef_[0], float(model.intercept_[0])
    weak = float(np.quantile(model.predict_proba(x)[:, 1][y], 0.05))
    readings = [read_against(p.sentence, [CitedText.of(p.paper)]) for p in pairs]
    baseline = _pass_and_caught(pairs, [label_of(p, None, r)[0] for p, r in zip(pairs, readings, strict=True)])
    chosen, best = None, (-1.0, -1.0)
    for grid in itertools.product(STATED_GRID, FITTED_WITH_JUDGE_GRID, FITTED_ALONE_GRID, CONTRADICTION_GRID):
        candidate = scoring.Combination(float(a), float(b), float(c), d, *grid[:3], weak, grid[3])
        tops = [label_of(p, candidate, r)[0] for p, r in zip(pairs, readings, strict=True)]
        passed, caught, kinds = _pass_and_caught(pairs, tops)
        kept = all(kinds[k] >= baseline[2][k] - KIND_SLACK for k in kinds)
        if kept and caught >= baseline[1] and (passed, caught) > best:
            chosen, best = candidate, (passed, caught)
    return chosen  # None: no operating point keeps the errors caught; the check reads without the judge


def _pass_and_caught(pairs: Sequence[Pair], tops: Sequence[bool]) -> tuple[float, float, dict[str, float]]:
    """(share of stated pairs given the top label, averaged over written and SciFact ones; share of each kind
    of error not given it, averaged over the kinds; and by kind)."""
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for pair, top in zip(pairs, tops, strict=True):
        by_kind[pair.kind].append(top)
    stated = [float(np.mean(by_kind[k])) for k in ("faithful", "scifact_support") if by_kind[k]]
    errors = {k: 1 - float(np.mean(v)) for k, v in by_kind.items() if k not in ("faithful", "scifact_support")}
    return float(np.mean(stated)), float(np.mean(list(errors.values()))), errors


def label_of(pair: Pair, combination: scoring.Combination | None, reading: Reading | None = None) -> tuple[bool, float]:
    """(top label under the answer policy, score) as the check gives them with ``combination`` (None: without
    the judge)."""
    assert pair.fitted is not None and pair.judgement is not None
    scored = scoring.source_score(pair.fitted, pair.judgement, combination)
    reading = reading or read_against(pair.sentence, [CitedText.of(pair.paper)])
    return ANSWER.label(scored.support, reading, conflict_of(scored, reading, pair.sentence)).is_top, scored.score


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    if not positive or not negative:
        return math.nan
    scores = np.array([*positive, *negative])
    ranks = scores.argsort().argsort() + 1
    return float(
        (ranks[: len(positive)].sum() - len(positive) * (len(positive) + 1) / 2) / (len(positive) * len(negative))
    )


def report(pairs: Sequence[Pair], combination: scoring.Combination | None) -> dict[str, Any]:
    shown: dict[str, list[bool]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    for pair in pairs:
        top, score = label_of(pair, combination)
        shown[pair.kind].append(top)
        scores[pair.kind].append(score)
    out: dict[str, Any] = {}
    if shown["faithful"]:
        out["faithful_pass"] = round(float(np.mean(shown["faithful"])), 3)
        for kind in ERROR_KINDS:
            if shown[kind]:
                out[f"{kind}_caught"] = round(1 - float(np.mean(shown[kind])), 3)
        errors = [s for k in ERROR_KINDS for s in scores[k]]
        out["auc_faithful_vs_errors"] = round(auc(scores["faithful"], errors), 3)
    if shown["scifact_support"]:
        called = [(k, t) for k in ("scifact_support", "scifact_contradict", "scifact_neither") for t in shown[k]]
        true_positive = sum(t for k, t in called if k == "scifact_support")
        out["scifact_precision"] = round(true_positive / max(sum(t for _, t in called), 1), 3)
        out["scifact_recall"] = round(true_positive / len(shown["scifact_support"]), 3)
        rest = scores["scifact_contradict"] + scores["scifact_neither"]
        out["scifact_auc_support_vs_rest"] = round(auc(scores["scifact_support"], rest), 3)
        out["scifact_auc_support_vs_contradict"] = round(
            auc(scores["scifact_support"], scores["scifact_contradict"]), 3
        )
    out["pairs"] = {k: len(v) for k, v in shown.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=Path, required=True, help="folder of judge_tune.jsonl and judge_heldout.jsonl")
    parser.add_argument("--save", action="store_true", help="fit on every tune pair and write combine.json")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    training = json.loads((judge_module.JUDGE_DIR / "training.json").read_text(encoding="utf-8"))
    seed, holdout = int(training["args"]["seed"]), float(training["args"]["holdout"])
    judge_module.use_judge(True)
    pairs = written_pairs(args.sets) + scifact_pairs(seed, holdout)
    read_all(pairs)
    results: dict[str, Any] = {}
    for fitted_on, measured_on in (("a", "b"), ("b", "a")):
        combination = fit([p for p in pairs if p.split in ("tune", fitted_on)])
        measured = [p for p in pairs if p.split in ("heldout", measured_on)]
        results[f"judge (fitted on tune + scifact {fitted_on})"] = report(measured, combination)
    results["without the judge (heldout + all scifact held out)"] = report(
        [p for p in pairs if p.split != "tune"], None
    )
    final = fit([p for p in pairs if p.split in ("tune", "a", "b")])
    results["shipped combination"] = vars(final) if final else "none: no operating point keeps the errors caught"
    if args.save and final is None and COMBINE_FILE.exists():
        COMBINE_FILE.unlink()  # the check then reads with the fitted score and the rules alone
    if args.save and final is not None:
        COMBINE_FILE.write_text(
            json.dumps({"about": "fitted by benchmarks/judge_eval.py --save", "combination": vars(final),
                        "measured": results}, indent=1) + "\n", encoding="utf-8",
        )  # fmt: skip
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
