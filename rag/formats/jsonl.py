"""Papers as JSON Lines: one record per paper, as `rag ingest` reads it back."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rag.records import Paper


def jsonl(papers: Sequence[Paper]) -> str:
    # Full-text passages stay with the PDFs they came from.
    records = ({k: v for k, v in p.to_dict().items() if k != "passages"} for p in papers)
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
