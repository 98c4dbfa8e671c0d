"""Fit rag/corpus/roles.json: the role of each abstract sentence (background, aim, method, result, conclusion).

The labelled sentences come from the structured abstracts of the real libraries under ``../shared/real``
(PubMed, Web of Science, Scopus, Embase, Cochrane exports, RIS, CSV, BibTeX), read with rag's own loader and
split with rag's own sentence splitter, so the model sees what `rag ask` quotes. A label ("BACKGROUND:",
"Materials and methods:") gives the role of every sentence up to the next label; labels naming two roles
("Background and purpose") and sentences before an abstract's first label are left out; the label is stripped
before the features are read (at run time most abstracts have none).

Libraries are whole units: every score below is for libraries the model never saw. ``AIML``,
``chrisjbillington``, ``elliotmartin92`` and ``fatihserta`` are never fitted on (other evaluations hold them
out); an abstract also found in one of them is dropped from the fitting data. Reported: leave-one-library-out
accuracy per role over the fitting libraries, and the final model's on the held-out AIML library.

    python training/roles.py                 # fit, report, write rag/corpus/roles.json
    python training/roles.py --dry-run       # report only
    python training/roles.py --json out.json # the numbers too
    python training/roles.py --quotes        # result quotes of `rag ask --no-llm`, findings first or not

``--quotes`` asks the judged questions of ``eval/real_questions`` (benchmarks/real_answers.py's libraries) with
and without the preference for findings (rag.writing.evidence_sentences.prefer_findings), and counts the bullets
whose quote holds a finding (a result or conclusion sentence: the label's role in a structured abstract, else the
model's) among those whose paper states one; and the graded shares on topic and answering.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.corpus import roles  # noqa: E402
from rag.corpus.loader import load_paths  # noqa: E402
from rag.text import split_prose  # noqa: E402

REAL = REPO.parent / "shared" / "real"
KINDS = ("exports", "bibtex", "csl-json", "zotero")
HELD_OUT = ("AIML", "chrisjbillington", "elliotmartin92", "fatihserta")
REPORTED = "BharatBlade__AIML"
BUCKETS = 4096
# L2 strength (sklearn's C: smaller is stronger); chosen by leave-one-library-out accuracy among 0.1 (74.3%),
# 0.3 (74.2%) and 1 (73.9%).
REGULARIZATION_C = 0.1
# Weights are written as integers of this scale: a third of the JSON, no measurable loss.
WEIGHT_SCALE = 1000
# An abstract counts as structured with at least this many labelled sentences.
MIN_LABELS = 2


@dataclass
class Abstract:
    library: str
    sentences: list[str]  # as split, labels still on
    roles: list[roles.Role | None]  # None: not labelled with one role


def labelled(text: str, library: str) -> Abstract | None:
    """The abstract's sentences with the roles their labels give, or None when it is not structured."""
    sentences = split_prose(" ".join(text.split()))
    found: list[roles.Role | None] = []
    current: roles.Role | None = None
    seen_label, labels = False, 0
    for sentence in sentences:
        label = roles.section_label(sentence)
        if label is not None:
            current, seen_label, labels = label[1], True, labels + 1
        found.append(current if seen_label else None)
    return Abstract(library, sentences, found) if labels >= MIN_LABELS else None


def read_libraries() -> tuple[list[Abstract], list[Abstract]]:
    """(fitting abstracts, held-out ones): one abstract text once, the held-out libraries' first."""
    folders = sorted((kind, d) for kind in KINDS for d in (REAL / kind).iterdir() if d.is_dir())
    folders.sort(key=lambda item: not any(h in item[1].name for h in HELD_OUT))
    seen: set[str] = set()
    fitting, held = [], []
    for _, folder in folders:
        try:
            papers = load_paths([folder], full_text=False).papers.values()
        except Exception as failed:  # a library rag cannot read adds nothing here
            print(f"skipped {folder.name}: {failed}", file=sys.stderr)
            continue
        for paper in papers:
            key = " ".join(paper.text.lower().split())
            if paper.no_abstract or not key or key in seen:
                continue
            seen.add(key)
            abstract = labelled(paper.text, folder.name)
            if abstract is not None:
                (held if any(h in folder.name for h in HELD_OUT) else fitting).append(abstract)
    return fitting, held


def matrix(abstracts: Sequence[Abstract]) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    """Features (sparse: the hashed words are; a dense fit takes minutes), role indexes and libraries of the
    sentences labelled with one role."""
    rows, targets, groups = [], [], []
    for abstract in abstracts:
        x = roles.features([roles.strip_label(s) for s in abstract.sentences], BUCKETS)
        for i, role in enumerate(abstract.roles):
            if role is not None:
                rows.append(x[i])
                targets.append(roles.ROLES.index(role))
                groups.append(abstract.library)
    return sparse.csr_matrix(np.array(rows)), np.array(targets), np.array(groups)


def fit(x: sparse.csr_matrix, y: np.ndarray) -> LogisticRegression:
    model = LogisticRegression(C=REGULARIZATION_C, max_iter=2000, class_weight="balanced")
    return model.fit(x, y)


def per_role(truth: np.ndarray, predicted: np.ndarray) -> dict[str, Any]:
    """Accuracy overall and per true role (recall), with the number of sentences of each."""
    out: dict[str, Any] = {"accuracy": round(float((truth == predicted).mean()), 3), "sentences": len(truth)}
    for index, role in enumerate(roles.ROLES):
        mask = truth == index
        if mask.any():
            out[role.value] = {"accuracy": round(float((predicted[mask] == index).mean()), 3), "n": int(mask.sum())}
    # What quoting uses: a finding (result or conclusion) or not.
    findings = [roles.ROLES.index(role) for role in roles.FINDINGS]
    out["finding_or_not"] = round(float((np.isin(truth, findings) == np.isin(predicted, findings)).mean()), 3)
    return out


def leave_one_library_out(x: sparse.csr_matrix, y: np.ndarray, groups: np.ndarray) -> dict[str, Any]:
    predicted = np.full_like(y, -1)
    for library in sorted(set(groups)):
        test = groups == library
        if len(set(y[~test])) < len(roles.ROLES):
            continue
        predicted[test] = fit(x[~test], y[~test]).predict(x[test])
    scored = predicted >= 0
    return per_role(y[scored], predicted[scored])


def payload(model: LogisticRegression, counts: dict[str, int]) -> dict[str, Any]:
    weights = np.rint(model.coef_ * WEIGHT_SCALE).astype(int)
    return {
        "roles": [r.value for r in roles.ROLES],
        "dense": list(roles.DENSE_FEATURES),
        "buckets": BUCKETS,
        "scale": WEIGHT_SCALE,
        "weights": weights.tolist(),
        "intercepts": [round(float(v), 4) for v in model.intercept_],
        "fitted_on": counts,
    }


def _holds_finding(paper_text: str, quote: str) -> tuple[bool, bool]:
    """(the abstract states a finding, the quote holds one of its findings)."""
    from rag.writing.evidence_sentences import FINDING_AT, _sentences_of

    labelled_sentences = _sentences_of(paper_text, labelled=True)
    shares = roles.findings_share(labelled_sentences)
    findings = [roles.strip_label(s) for s, p in zip(labelled_sentences, shares, strict=True) if p >= FINDING_AT]
    return bool(findings), any(f in quote for f in findings)


def quote_shares() -> dict[str, Any]:
    """Result quotes and graded shares of `rag ask --no-llm` on the judged real questions, before and after."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import real_answers as bench

    from rag.config import load_settings
    from rag.services import ingest as ingest_service
    from rag.services import read as read_service
    from rag.services.context import Context
    from rag.writing import evidence_sentences

    wants_findings = evidence_sentences.asks_for_findings
    report: dict[str, Any] = {}
    for name, questions in bench.load_questions(bench.QUESTIONS).items():
        with bench.tempfile.TemporaryDirectory(prefix="rag-roles-") as tmp:
            ctx = Context(load_settings(data_dir=Path(tmp), collection="real"), remember_embeddings=True)
            ingest_service.ingest(ctx, [bench.SHARED / "real" / questions[0].library])
            papers = {bench.paper_key(p): p for p in read_service.papers(ctx).papers}
            for variant, rule in (("before", lambda _q: False), ("after", wants_findings)):
                evidence_sentences.asks_for_findings = rule  # type: ignore[assignment]
                results, has, holds = [], 0, 0
                for q in questions:
                    bullets = bench.bullets_of(bench._ask(ctx, q.question, None))
                    answer = bench.Result(q, bullets, bench.answer_faults(bullets), False, [], [])
                    results.append(answer)
                    for b in bullets if q.answerable else []:
                        stated, held = _holds_finding(papers[b.key].text, b.quote)
                        has, holds = has + stated, holds + (stated and held)
                shares = bench.measure(results, ctx.settings.top_k)
                report.setdefault(name, {})[variant] = {
                    "result_quote_share": round(holds / has, 3) if has else None,
                    "bullets_with_a_finding_stated": has,
                    **{k: shares[k] for k in ("bullets", "on_topic_share", "answers_share", "unclean_bullets")},
                }
            evidence_sentences.asks_for_findings = wants_findings
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="report only; do not write roles.json")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument("--quotes", action="store_true", help="measure result quotes of ask, before and after")
    args = parser.parse_args(argv)
    if args.quotes:
        print(json.dumps(quote_shares(), indent=1))
        return
    fitting, held = read_libraries()
    x, y, groups = matrix(fitting)
    counts = dict(sorted(Counter(str(g) for g in groups).items()))
    print(f"fitting sentences per library: {counts}")
    print(f"role counts: {dict(Counter(roles.ROLES[i].value for i in y))}")
    report: dict[str, Any] = {"leave_one_library_out": leave_one_library_out(x, y, groups)}
    model = fit(x, y)
    reported = [a for a in held if a.library == REPORTED]
    if reported:
        hx, hy, _ = matrix(reported)
        report[REPORTED] = per_role(hy, model.predict(hx))
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if not args.dry_run:
        roles.MODEL_FILE.write_text(json.dumps(payload(model, counts), separators=(",", ":")) + "\n")
        print(f"wrote {roles.MODEL_FILE} ({roles.MODEL_FILE.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
