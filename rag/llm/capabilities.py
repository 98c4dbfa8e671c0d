"""What an endpoint was found to accept, remembered across commands (per base URL and model).

A server that refuses a JSON schema in ``response_format`` is asked in text from
then on, without paying for a refused request on every command.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

SCHEMA_KEY = "schema"


class EndpointMemory:
    def __init__(self, path: Path) -> None:
        self.path = path

    @staticmethod
    def _key(base_url: str, model: str) -> str:
        return f"{base_url.rstrip('/')}|{model}"

    def _read(self) -> dict[str, dict[str, bool]]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return {str(k): dict(v) for k, v in data.items() if isinstance(v, dict)}
        return {}

    def accepts_schema(self, base_url: str, model: str) -> bool:
        """False only when this endpoint refused a schema before (unknown endpoints are tried)."""
        return self._read().get(self._key(base_url, model), {}).get(SCHEMA_KEY, True) is not False

    def refused_schema(self, base_url: str, model: str) -> None:
        data = self._read()
        data.setdefault(self._key(base_url, model), {})[SCHEMA_KEY] = False
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:  # the memo only saves a refused request next time; never fail a command over it
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
