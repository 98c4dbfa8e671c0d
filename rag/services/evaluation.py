"""`rag eval`: retrieval metrics for a labelled question file or a BEIR folder, one report per method."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rag.check.model_judge import judge_with_model
from rag.check.policy import answer_label
from rag.errors import InputError, NotFoundError
from rag.evaluation.beir import beir_ids, is_beir_folder, load_beir
from rag.evaluation.metrics import LabelledQuestion, evaluate, load_questions
from rag.evaluation.support import LabelledPair, PairResult, load_pairs, report
from rag.index.session import LibrarySession
from rag.llm.types import ChatModel, Usage
from rag.records import Method, Paper, ProgressFn
from rag.services.context import Context
from rag.services.judges import keep_figures
from rag.services.requests import EvalRequest, SupportEvalRequest, WritingOptions
from rag.services.results import EvalRun, SupportEvalRun

# Bad lines of a pairs file shown one by one; the rest are counted.
SHOWN_WARNINGS = 5
# Rankings are kept this deep: recall@100 is the deepest reported metric.
EVAL_DEPTH = 100
MAX_COLLECTION_NAME = 63


def _eval_collection(name: str) -> str:
    """'scifact' -> 'eval-scifact': a benchmark never mixes with the user's own library."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._") or "beir"
    return f"eval-{cleaned}"[:MAX_COLLECTION_NAME]


def _resolve_labels(library: LibrarySession, questions: Sequence[LabelledQuestion], path: Path) -> None:
    """Turn each label key (id, citekey or source reference) into a paper id."""
    for question in questions:
        grades: dict[str, int] = {}
        for key, grade in question.relevant.items():
            try:
                paper_id = library.paper(key).id
            except NotFoundError:
                raise InputError(
                    f"{path}: question {question.query_id}: '{key}' is not in collection "
                    f"'{library.settings.collection}' (labels are ids, citekeys or file#n sources)"
                ) from None
            grades[paper_id] = max(grade, grades.get(paper_id, 0))
        question.relevant = grades


def evaluate_retrieval(ctx: Context, request: EvalRequest) -> EvalRun:
    """Retrieval metrics for a labelled question file or a BEIR folder, one report per method."""
    if not request.path.exists():
        raise InputError(f"no such file or folder: {request.path}")
    beir = load_beir(request.path, request.split) if is_beir_folder(request.path) else None
    if beir is not None:
        settings = ctx.settings.model_copy(update={"collection": _eval_collection(beir.name)})
        ctx = replace(ctx, settings=settings)
    questions = beir.questions if beir is not None else load_questions(request.path)
    # A BEIR folder is ingested into its own library; labelled questions are asked of the configured one.
    with ctx.writer(create=True) if beir is not None else ctx.reader() as library:
        if beir is not None:
            library.add(beir.papers, [])
        else:
            _resolve_labels(library, questions, request.path)
        if library.embedder is None and any(m is not Method.LEXICAL for m in request.methods):
            raise InputError("dense and hybrid evaluation need the embedding model; use --method lexical")
        retriever = library.retriever()

        def ranking(method: Method) -> Callable[[str], list[str]]:
            def rank(question: str) -> list[str]:
                hits = retriever.search(question, EVAL_DEPTH, method=method)
                if beir is None:
                    return [h.paper.id for h in hits]
                return [doc for h in hits for doc in beir_ids(h.paper)][:EVAL_DEPTH]

            return rank

        reports = {m.value: evaluate(questions, ranking(m)) for m in request.methods}
        return EvalRun(
            beir.name if beir else request.path.name, ctx.settings.collection, retriever.paper_count, reports
        )


def check_pairs(
    pairs: Sequence[LabelledPair], judge: ChatModel | None, usage: Usage, progress: ProgressFn | None = None
) -> list[PairResult]:
    """Each pair checked as an answer's sentence would be (the answer policy): offline, or by the model as judge."""
    results = []
    for done, pair in enumerate(pairs, start=1):
        paper = Paper(id=f"pair{pair.line}", text=pair.abstract, title=pair.title)
        if judge is None:
            label, score = answer_label(pair.claim, paper)
        else:
            label = judge_with_model(pair.claim, [(1, paper)], judge, usage)
            score = 1.0 if label.is_top else 0.0
        results.append(PairResult(pair.gold, label.value, score, label.is_top))
        if progress:
            progress("checking pairs", done, len(pairs))
    return results


def evaluate_support(ctx: Context, request: SupportEvalRequest) -> SupportEvalRun:
    """The citation check (offline, or the model as judge) against labelled claim/paper pairs."""
    pairs, warnings = load_pairs(request.path)
    for warning in warnings[:SHOWN_WARNINGS]:
        ctx.notify(warning)
    if len(warnings) > SHOWN_WARNINGS:
        ctx.notify(f"... and {len(warnings) - SHOWN_WARNINGS} more bad lines skipped")
    if request.limit is not None:
        if request.limit < 1:
            raise InputError(f"--limit must be at least 1 (got {request.limit})")
        pairs = pairs[: request.limit]
    judge = ctx.chat_model(WritingOptions(verify_llm=True, cache=request.cache)) if request.verify_llm else None
    usage = Usage()
    results = check_pairs(pairs, judge, usage, ctx.progress)
    checker = f"llm judge ({judge.name})" if judge is not None else "offline"
    measured = report(results)
    if judge is not None:  # what a later --verify llm with this model quotes (rag.services.judges)
        keep_figures(ctx.storage().layout.judge_figures, judge.name, measured.metrics, len(results))
    return SupportEvalRun(request.path.name, checker, measured, len(warnings), usage if judge else None)
