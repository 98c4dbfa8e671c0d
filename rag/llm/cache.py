"""On-disk cache of model answers, keyed by everything that shapes the answer.

Keys never include credentials. Entries are written whole (temp file, then an
atomic rename), so an interrupted stream never leaves a half answer behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rag.llm.types import Completion, Usage


def cache_key(**parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return Completion(
                text=data["text"],
                usage=Usage(**data["usage"]),
                cached=True,
                structured=bool(data.get("structured", False)),
                stopped=data.get("stopped"),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, completion: Completion) -> None:
        path = self._path(key)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            record = {
                "text": completion.text,
                "usage": asdict(completion.usage),
                "structured": completion.structured,
                "stopped": completion.stopped,
            }
            tmp.write_text(json.dumps(record), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            tmp.unlink(missing_ok=True)  # a cache that cannot be written is only slower

    def size(self) -> tuple[int, int]:
        """(entries, bytes)."""
        files = list(self.folder.glob("*/*.json")) if self.folder.exists() else []
        return len(files), sum(f.stat().st_size for f in files)
