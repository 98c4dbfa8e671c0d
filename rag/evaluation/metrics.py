"""Retrieval metrics the IR field reports: nDCG@10, recall@k, MRR@10.

Gains are linear in the graded relevance (as trec_eval and BEIR compute them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import InputError

NDCG_DEPTH = 10
RECALL_DEPTHS = (10, 100)
MRR_DEPTH = 10


@dataclass
class LabelledQuestion:
    query_id: str
    question: str
    relevant: dict[str, int]


@dataclass
class QuestionResult:
    query_id: str
    question: str
    ranked: list[str]
    metrics: dict[str, float]


@dataclass
class EvalReport:
    metrics: dict[str, float]
    questions: list[QuestionResult] = field(default_factory=list)


def load_questions(path: Path) -> list[LabelledQuestion]:
    """A JSONL file of {"question", "relevant": {key: grade}}; errors name file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read question file ({exc})") from None
    questions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            question, relevant = row["question"], row["relevant"]
            if not isinstance(question, str) or not isinstance(relevant, dict):
                raise TypeError("'question' must be text and 'relevant' an object")
            grades = {str(key): int(grade) for key, grade in relevant.items()}
        except (ValueError, KeyError, TypeError, OverflowError, RecursionError) as exc:
            raise InputError(f"{path}:{number}: not a labelled question ({type(exc).__name__}: {exc})") from None
        questions.append(LabelledQuestion(str(row.get("id", number)), question, grades))
    if not questions:
        raise InputError(f"{path}: no questions in the file")
    return questions


def ndcg(ranked: Sequence[str], relevant: dict[str, int], depth: int = NDCG_DEPTH) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:depth]))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:depth]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(ranked: Sequence[str], relevant: dict[str, int], depth: int) -> float:
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    return len(wanted & set(ranked[:depth])) / len(wanted) if wanted else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: dict[str, int], depth: int = MRR_DEPTH) -> float:
    for i, doc in enumerate(ranked[:depth]):
        if relevant.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def question_metrics(ranked: Sequence[str], relevant: dict[str, int]) -> dict[str, float]:
    metrics = {f"ndcg@{NDCG_DEPTH}": ndcg(ranked, relevant)}
    metrics.update({f"recall@{d}": recall(ranked, relevant, d) for d in RECALL_DEPTHS})
    metrics[f"mrr@{MRR_DEPTH}"] = reciprocal_rank(ranked, relevant)
    return metrics


def evaluate(questions: Sequence[LabelledQuestion], rank: Callable[[str], list[str]]) -> EvalReport:
    """Run ``rank`` (question -> ids, best first) on every question; mean of each metric."""
    results = []
    for q in questions:
        ranked = rank(q.question)
        results.append(QuestionResult(q.query_id, q.question, ranked, question_metrics(ranked, q.relevant)))
    names = results[0].metrics if results else {}
    means = {name: sum(r.metrics[name] for r in results) / len(results) for name in names}
    return EvalReport(means, results)
