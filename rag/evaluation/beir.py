"""BEIR benchmark folders: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

Each document becomes a ``Paper`` whose source reference is ``corpus.jsonl#<_id>``,
so rankings can be reported in BEIR's own ids.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.corpus.identity import TRUNCATION_MARK, content_id, normalize_text
from rag.corpus.merging import merge_paper
from rag.errors import InputError
from rag.evaluation.metrics import LabelledQuestion
from rag.records import Paper

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_DIR = "qrels"
SOURCE_PREFIX = f"{CORPUS_FILE}#"


@dataclass
class BeirSet:
    name: str
    papers: list[Paper]
    questions: list[LabelledQuestion]


def is_beir_folder(path: Path) -> bool:
    return path.is_dir() and (path / CORPUS_FILE).exists()


def beir_ids(paper: Paper) -> list[str]:
    return [s[len(SOURCE_PREFIX) :] for s in paper.sources if s.startswith(SOURCE_PREFIX)]


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise InputError(f"{path}: missing (a BEIR folder has {CORPUS_FILE}, {QUERIES_FILE} and {QRELS_DIR}/SPLIT.tsv)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read as UTF-8 text ({exc})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or "_id" not in row:
                raise ValueError("no '_id'")
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{path}:{number}: malformed JSON line ({type(exc).__name__}: {exc})") from None
        yield number, row


def load_beir(folder: Path, split: str) -> BeirSet:
    """Read a BEIR folder; every problem names its file and line."""
    papers: dict[str, Paper] = {}
    known: set[str] = set()
    corpus_path = folder / CORPUS_FILE
    for number, row in _json_lines(corpus_path):
        text = normalize_text(str(row.get("text") or ""))
        title = normalize_text(str(row.get("title") or "")) or None
        if not text and not title:
            raise InputError(f"{corpus_path}:{number}: document '{row['_id']}' has neither title nor text")
        doc_id = str(row["_id"])
        known.add(doc_id)
        paper = Paper(
            id=content_id(text or title or doc_id),
            text=text,
            title=title,
            truncated=text.endswith(TRUNCATION_MARK),
            sources=[f"{SOURCE_PREFIX}{doc_id}"],
            lists=[folder.name],
        )
        merge_paper(papers, paper)
    queries = {str(row["_id"]): str(row.get("text", "")) for _, row in _json_lines(folder / QUERIES_FILE)}
    qrels_path = folder / QRELS_DIR / f"{split}.tsv"
    if not qrels_path.is_file():
        available = sorted(p.stem for p in (folder / QRELS_DIR).glob("*.tsv")) if (folder / QRELS_DIR).is_dir() else []
        raise InputError(f"{qrels_path}: missing; splits here: {', '.join(available) or 'none'} (--split)")
    relevant: dict[str, dict[str, int]] = {}
    try:
        qrels_text = qrels_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{qrels_path}: cannot read as UTF-8 text ({exc})") from None
    reader = csv.reader(io.StringIO(qrels_text, newline=""), delimiter="\t")
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise InputError(f"{qrels_path}:{reader.line_num}: not a valid TSV row ({exc})") from None
    for number, cells in enumerate(rows, start=1):
        if not cells or (number == 1 and cells[0] == "query-id"):
            continue
        try:
            query_id, doc_id, grade = cells[0], cells[1], int(cells[2])
        except (IndexError, ValueError, OverflowError):
            raise InputError(f"{qrels_path}:{number}: expected 'query-id<TAB>corpus-id<TAB>score'") from None
        if doc_id not in known:
            raise InputError(f"{qrels_path}:{number}: corpus id '{doc_id}' is not in {CORPUS_FILE}")
        if query_id not in queries:
            raise InputError(f"{qrels_path}:{number}: query id '{query_id}' is not in {QUERIES_FILE}")
        relevant.setdefault(query_id, {})[doc_id] = grade
    if not relevant:
        raise InputError(f"{qrels_path}: no relevance judgements")
    questions = [LabelledQuestion(qid, queries[qid], grades) for qid, grades in relevant.items()]
    return BeirSet(folder.name, list(papers.values()), questions)
