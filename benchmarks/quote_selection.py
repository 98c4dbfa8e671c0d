"""Which sentence an extractive bullet quotes: is it the one that answers? Measured on SciFact's rationales.

Each SUPPORT/CONTRADICT pair of ``../shared/eval/support/train.jsonl`` is a claim (asked as the question), its cited
abstract and the indexes of the sentences annotators marked as the evidence. A selector picks the sentence(s) to
quote from the abstract; a claim counts as answered when a quoted sentence is an evidence sentence.

    python benchmarks/quote_selection.py            # every selector, the shipped one marked
    python benchmarks/quote_selection.py PAIRS.jsonl --model-dir MINILM_DIR   # e.g. from a git worktree
    python benchmarks/quote_selection.py --json out.json

Selectors: ``before`` is the extractive answer's rule before issue #19 (cosine + 0.5 x term coverage); ``selector``
is the support check's evidence selector (rag/check/support_model.py); ``shipped`` is what extractive answers
quote (rag.writing.evidence_sentences: the selector's best sentence, and the runner-up when it is rated nearly as
high). The selector was fitted on these pairs, so in-sample numbers flatter it: the CV rows refit it in grouped
5-fold CV by claim (the folds of benchmarks/support_check.py), so every claim is scored by a selector that never
saw it; those are the numbers to compare with the goal (>= 75%). Sentence vectors are cached as in
benchmarks/support_check.py (the first run embeds ~8k sentences, minutes on 2 cores)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import support_check as fitting
from fulltext import claim_groups

from rag.check import support_model as sc
from rag.text import split_sentences, term_coverage, tokenize
from rag.writing import evidence_sentences

# (claim, sentences, claim vector, sentence vectors) -> indexes of the sentences quoted, best first.
Selector = Callable[[str, Sequence[str], np.ndarray, np.ndarray], list[int]]


def load_rows(path: Path) -> list[dict[str, Any]]:
    """SUPPORT/CONTRADICT pairs whose rationale indexes match rag's sentence split."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [
        r
        for r in rows
        if r["label"] in ("SUPPORT", "CONTRADICT")
        and r["rationale"]
        and len(split_sentences(r["abstract"])) == len(r.get("abstract_sentences", []))
    ]


def before(claim: str, sentences: Sequence[str], q: np.ndarray, vectors: np.ndarray) -> list[int]:
    scores = vectors @ q + 0.5 * np.array([term_coverage(claim, s) for s in sentences])
    return [int(np.argmax(scores))]


def selector_of(model: sc.LogisticModel, idf: sc.Idf, rule: Callable[[np.ndarray], list[int]]) -> Selector:
    def select(claim: str, sentences: Sequence[str], q: np.ndarray, vectors: np.ndarray) -> list[int]:
        terms = list(dict.fromkeys(tokenize(claim)))
        logits = model.logits(sc.sentence_table(terms, sentences, idf, np.asarray(vectors @ q, dtype=np.float64)))
        order = [i for i in rule(logits)]
        return sorted(order, key=lambda i: -logits[i])  # best first, so "first quote" is the selector's choice

    return select


def best_only(logits: np.ndarray) -> list[int]:
    return [int(np.argmax(logits))]


def shipped(claim: str, sentences: Sequence[str], q: np.ndarray, vectors: np.ndarray) -> list[int]:
    logits = evidence_sentences.selector_logits(claim, sentences, q, vectors)
    return sorted(evidence_sentences.quoted_sentences(logits), key=lambda i: -logits[i])


def measure(rows: Sequence[dict[str, Any]], select: Selector, vecs: dict[str, np.ndarray]) -> dict[str, float]:
    hits, first, quoted = [], [], []
    for r in rows:
        sentences = split_sentences(r["abstract"])
        chosen = select(r["claim"], sentences, vecs[r["claim"]], np.array([vecs[s] for s in sentences]))
        hits.append(any(i in r["rationale"] for i in chosen))
        first.append(chosen[0] in r["rationale"])
        quoted.append(len(chosen))
    return {
        "answered": round(float(np.mean(hits)), 3),
        "first_quote_is_evidence": round(float(np.mean(first)), 3),
        "sentences_quoted": round(float(np.mean(quoted)), 2),
    }


def paper_folds(rows: Sequence[dict[str, Any]], seed: int = 13) -> np.ndarray:
    """Folds in which no claim and no paper is on both sides: claims citing a common paper, and papers cited by a
    common claim, go together (connected groups of the claim-paper graph)."""
    judged: dict[str, dict[str, int]] = {}
    for r in rows:
        judged.setdefault(str(r["claim_id"]), {})[str(r["doc_id"])] = 1
    groups = claim_groups(judged)
    order = np.random.default_rng(seed).permutation(len(groups))
    fold = {claim: k % fitting.FOLDS for k, i in enumerate(order) for claim in groups[i][0]}
    return np.array([fold[str(r["claim_id"])] for r in rows])


def cross_validated(rows: Sequence[dict[str, Any]], make: Callable[[list[dict[str, Any]]], Selector],
                    vecs: dict[str, np.ndarray], by_paper: bool = True) -> dict[str, float]:  # fmt: skip
    """``make`` fitted on 4 folds, measured on the fifth, for each fold (grouped so that no claim's paper is both
    fitted and measured; ``by_paper`` False: grouped by claim only, as before)."""
    folds = paper_folds(rows) if by_paper else fitting.fold_of(rows)
    results = []
    for k in range(fitting.FOLDS):
        train = [r for r, f in zip(rows, folds, strict=True) if f != k]
        test = [r for r, f in zip(rows, folds, strict=True) if f == k]
        results.append((len(test), measure(test, make(train), vecs)))
    total = sum(n for n, _ in results)
    return {key: round(sum(n * m[key] for n, m in results) / total, 3) for key in results[0][1]}


def refit_selector(
    train: list[dict[str, Any]],
    vecs: dict[str, np.ndarray],
    rule: Callable[[np.ndarray], list[int]],
    l2: float = fitting.L2,
) -> Selector:
    idf = sc.build_idf(list({r["doc_id"]: r["abstract"] for r in train}.values()))
    data = fitting.selector_data(train, idf, vecs)
    model = fitting.as_model(sc.SELECTOR_EMBEDDING, fitting.fit_logistic(*data, l2))
    return selector_of(model, idf, rule)


def margin_rule(margin: float) -> Callable[[np.ndarray], list[int]]:
    def rule(logits: np.ndarray) -> list[int]:
        order = [int(i) for i in np.argsort(-logits, kind="stable")]
        return order[:2] if len(order) > 1 and logits[order[0]] - logits[order[1]] < margin else order[:1]

    return rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="?", type=Path, default=fitting.SUPPORT_DIR / "train.jsonl")
    parser.add_argument("--model-dir", type=Path, default=fitting.MODEL_DIR)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    rows = load_rows(args.pairs)
    texts = list(dict.fromkeys(t for r in rows for t in (r["claim"], *split_sentences(r["abstract"]))))
    vecs = fitting.cached_vectors(texts, args.model_dir)
    shipped_model = sc.load_support_model()
    print(f"{len(rows)} pairs ({len({r['claim_id'] for r in rows})} claims) with rationales")
    quoted = evidence_sentences.quoted_sentences
    results = {
        "before (cosine + 0.5 coverage)": measure(rows, before, vecs),
        "selector, best sentence (in-sample)": measure(
            rows, selector_of(shipped_model.embedding.selector, shipped_model.idf, best_only), vecs
        ),
        "selector, best sentence, grouped 5-fold CV": cross_validated(
            rows, lambda t: refit_selector(t, vecs, best_only), vecs
        ),
        "shipped: best + close runner-up (in-sample)": measure(rows, shipped, vecs),
        "shipped: best + close runner-up, CV grouped by claim": cross_validated(
            rows, lambda t: refit_selector(t, vecs, quoted), vecs, by_paper=False
        ),
        "shipped: best + close runner-up, CV grouped by claim and paper": cross_validated(
            rows, lambda t: refit_selector(t, vecs, quoted), vecs
        ),
    }
    for margin in (0.5, 0.75, 1.0):
        for l2 in (1.0, 10.0, 100.0):
            name = f"margin {margin}, L2 {l2:g}, CV grouped by claim and paper"
            results[name] = cross_validated(
                rows, lambda t, m=margin, c=l2: refit_selector(t, vecs, margin_rule(m), c), vecs
            )
    for name, numbers in results.items():
        print(f"{name:<54} " + "  ".join(f"{k} {v}" for k, v in numbers.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
