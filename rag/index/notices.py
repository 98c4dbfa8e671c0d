"""Notices a library's user is given once (per library, on this machine), then never again."""

from __future__ import annotations

import contextlib
from pathlib import Path

from rag.records import Notify


def tell_once(said: Path, key: str, message: str, notify: Notify) -> None:
    """``message`` unless the notice ``key`` is noted in the file ``said`` already; noted once given. A note
    that cannot be written only means the notice comes again."""
    try:
        if key in said.read_text(encoding="utf-8").split():
            return
    except OSError:
        pass  # never told yet (or unreadable: telling again is harmless)
    notify(message)
    with contextlib.suppress(OSError):
        said.parent.mkdir(parents=True, exist_ok=True)
        with said.open("a", encoding="utf-8") as file:
            file.write(f"{key}\n")
