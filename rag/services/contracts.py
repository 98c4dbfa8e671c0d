"""The ``--json`` contracts of DESIGN.md, as plain dicts: one typed function per result type.

Shared by every adapter (the CLI's --json, the MCP server's structured results), so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rag.check.sentences import Answer, Citation, CitedSentence, Provenance
from rag.check.verdicts import CitationCheck
from rag.evaluation.metrics import EvalReport
from rag.records import Hit, LogEntry, Paper
from rag.services.configuration import ConfigView
from rag.services.results import (
    CheckReport,
    Collections,
    DoctorReport,
    Draft,
    EvalRun,
    IngestResult,
    Listing,
    PaperView,
    RemoveResult,
    SearchResult,
    SupportEvalRun,
)


def hit_json(hit: Hit) -> dict[str, Any]:
    paper = hit.paper
    return {
        "id": paper.id,
        "rank": hit.rank,
        "score": hit.score,
        # Cosine similarity of query and paper: comparable across queries, unlike the per-query fused score.
        "relevance": hit.dense,
        "title": paper.title,
        "year": paper.year,
        "citekey": paper.citekey,
        "text": paper.text,
        "sources": paper.sources,
        "retracted": paper.retracted,
        # The full-text passage that matched best, when it beat the abstract (PDFs ingested with full text).
        "passage": asdict(hit.passage) if hit.passage else None,
    }


def search_json(result: SearchResult) -> dict[str, Any]:
    return {"query": result.query, "hits": [hit_json(h) for h in result.hits]}


def _sentence_json(answer: Answer, sentence: CitedSentence) -> dict[str, Any]:
    evidence = sentence.evidence
    papers = {c.n: c.paper for c in answer.citations}
    return {
        "text": sentence.text,
        "citations": sentence.citations,
        "support": sentence.support.value if sentence.support else None,
        "score": sentence.score,
        # rag added the citation: the model gave none, or one that does not back the sentence.
        "attributed": sentence.attributed,
        "evidence": None
        if evidence is None
        else {
            "n": evidence.source,
            "id": papers[evidence.source].id if evidence.source in papers else None,
            "position": evidence.position,
            "text": evidence.text,
        },
        "conflict": sentence.conflict,
        # A vague subject ("The paper") rag named: the citation number of the paper it names, or null.
        "subject_source": sentence.subject_source,
        # A paper named as the sentence's subject ("Hazra et al. (2021) propose ..."): its citation number, which
        # LaTeX writes as \citet and Pandoc as @key there; and the words naming it.
        "in_text_source": sentence.in_text_source,
        "in_text": sentence.in_text,
        # Sentences rag wrote without a model: the paper's sentence it was built from and what was changed.
        "provenance": None if sentence.provenance is None else _provenance_json(sentence.provenance),
    }


def _provenance_json(provenance: Provenance) -> dict[str, Any]:
    return {
        "voice": provenance.voice,
        "source": provenance.source,
        "changes": [{"from": old, "to": new} for old, new in provenance.changes],
    }


def _citation_json(citation: Citation) -> dict[str, Any]:
    paper = citation.paper
    return {
        "n": citation.n,
        "id": paper.id,
        "title": paper.title,
        "citekey": paper.citekey,
        "first_author": paper.first_author,
        "year": paper.year,
        "arxiv": paper.arxiv,
        "sources": paper.sources,
        "retracted": paper.retracted,
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "answer": answer.text,
        "mode": answer.mode.value,
        "citations": [_citation_json(c) for c in answer.citations],
        "hits": [hit_json(h) for h in answer.hits],
        "sentences": [_sentence_json(answer, s) for s in answer.sentences],
        "removed_citations": answer.removed_citations,
        "dropped_sentences": [{"text": d.text, "reason": d.reason, "detail": d.detail} for d in answer.dropped],
        "notes": answer.notes,
        "uncited": [{"id": p.id, "title": p.title, "citekey": p.citekey} for p in answer.uncited],
        "model": answer.model,
        "model_text": answer.model_text,
        "usage": asdict(answer.usage) if answer.usage else None,
        # Quotes shown under a model answer that kept fewer supported sentences than there are quotes: bullet
        # lines whose [n] are in "citations" or, for papers the answer does not cite, in "more_citations".
        "more_from_papers": answer.more_from_papers,
        "more_citations": [_citation_json(c) for c in answer.more_citations],
        # Papers found that have no abstract: never quoted, listed as "related, no abstract".
        "related": [{"id": p.id, "title": p.title, "citekey": p.citekey, "year": p.year} for p in answer.related],
    }


def log_json(entries: list[LogEntry]) -> dict[str, Any]:
    fields = ("id", "at", "kind", "library", "model", "mode", "question")
    return {"entries": [{name: getattr(entry, name) for name in fields} for entry in entries]}


def config_json(view: ConfigView) -> dict[str, Any]:
    return {"file": str(view.file), "settings": [asdict(setting) for setting in view.settings]}


def draft_json(draft: Draft) -> dict[str, Any]:
    """The answer's fields, the format asked for and the document in it (under the format's name)."""
    written = str(draft.bibliography) if draft.bibliography is not None else None
    return {**answer_json(draft.answer), "format": draft.format, draft.format: draft.document, "bibliography": written}


def paper_json(paper: Paper) -> dict[str, Any]:
    return paper.to_dict()


def listing_json(listing: Listing) -> dict[str, Any]:
    # A listing counts each paper's full-text passages; `show --json` gives them.
    return {
        "papers": [{**paper_json(p), "passages": len(p.passages)} for p in listing.papers],
        "lists": [s.to_dict() for s in listing.lists],
    }


def show_json(view: PaperView) -> dict[str, Any]:
    return {**paper_json(view.paper), "list_subjects": {s.file: s.subject for s in view.lists}}


def eval_report_json(report: EvalReport) -> dict[str, Any]:
    return {
        "metrics": report.metrics,
        "questions": [
            {"query_id": q.query_id, "question": q.question, "ranked": q.ranked, "metrics": q.metrics}
            for q in report.questions
        ],
    }


def eval_json(run: EvalRun) -> dict[str, Any]:
    """One method: the report itself; several: {"methods": {name: report}}."""
    if len(run.reports) == 1:
        return eval_report_json(next(iter(run.reports.values())))
    return {"methods": {name: eval_report_json(report) for name, report in run.reports.items()}}


def doctor_json(report: DoctorReport) -> dict[str, Any]:
    return {"healthy": report.healthy, "checks": [asdict(check) for check in report.checks]}


def collections_json(found: Collections) -> dict[str, Any]:
    return {"collections": [asdict(info) for info in found.collections]}


def support_eval_json(run: SupportEvalRun) -> dict[str, Any]:
    """DESIGN.md's contract: metrics, and one entry per input pair in input order."""
    return {
        "dataset": run.dataset,
        "checker": run.checker,
        "metrics": run.report.metrics,
        "confusion": run.report.confusion,
        "skipped_lines": run.skipped,
        "pairs": [{"label": p.gold, "check": p.label, "score": p.score, "supported": p.top} for p in run.report.pairs],
        "usage": asdict(run.usage) if run.usage else None,
    }


def ingest_json(result: IngestResult) -> dict[str, Any]:
    return asdict(result)


def remove_json(result: RemoveResult) -> dict[str, Any]:
    papers = [{"id": p.id, "citekey": p.citekey, "title": p.title} for p in result.removed]
    return {"removed": [] if result.dry_run else papers, "would_remove": papers if result.dry_run else []}


def _citation_check_json(check: CitationCheck) -> dict[str, Any]:
    cite, paper = check.cite, check.paper
    return {
        "file": cite.file,
        "line": cite.line,
        "column": cite.column,
        "key": cite.key,
        "sentence": check.sentence,
        "label": check.label.value,
        "verdict": check.verdict.value,
        "reason": check.reason,
        "flagged": check.flagged,
        "score": check.score,
        "fit": check.fit,
        "evidence": check.evidence,
        "suggestions": [
            {
                "citekey": s.paper.citekey,
                "label": s.label.value,
                "score": s.score,
                "stated": s.stated,
                "title": s.paper.title,
                "evidence": s.evidence,
            }
            for s in check.suggestions
        ],
        "written": cite.written,
        "paper": None if paper is None else {"id": paper.id, "citekey": paper.citekey, "title": paper.title},
    }


def check_json(report: CheckReport) -> dict[str, Any]:
    """DESIGN.md's contract: the summary, and every citation in document order."""
    return {
        "summary": report.summary(),
        "citations": [_citation_check_json(c) for c in report.checks],
        "checker": report.checker,
        "files": report.files,
        "warnings": report.warnings,
        "usage": asdict(report.usage) if report.usage else None,
    }
