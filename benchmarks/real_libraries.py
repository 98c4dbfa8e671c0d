"""Real reference-manager files through `rag ingest`: what is read, merged and kept, and whether every citekey
of the input resolves afterwards (`rag show KEY`).

    python benchmarks/real_libraries.py [--shared ../shared] [--embed] [--json out.json]

Each file is ingested into a fresh library of its own (lexical only unless --embed: identity does not depend
on the vectors, and embedding 6,000 abstracts takes minutes). The citekeys of the input are read from the
file itself (BibTeX entry keys, CSL JSON ids, Zotero Better BibTeX keys when the Zotero reader is present),
independently of rag's readers, so a key lost anywhere shows as unresolved.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.config import load_settings  # noqa: E402
from rag.errors import NotFoundError, RagError  # noqa: E402
from rag.services import ingest as ingest_service  # noqa: E402
from rag.services import read as read_service  # noqa: E402
from rag.services.context import Context  # noqa: E402

SUFFIXES = {".bib", ".json", ".ris", ".csv", ".txt", ".ciw", ".nbib", ".tsv", ".sqlite"}
_BIB_KEY = re.compile(r"^\s*@\s*(\w+)\s*[{(]\s*([^,\s]+)\s*,", re.M)
_NOT_ENTRIES = {"string", "comment", "preamble"}


def input_keys(path: Path) -> list[str] | None:
    """The citekeys the file itself gives, or None for formats without keys."""
    if path.suffix == ".bib":
        text = path.read_text(encoding="utf-8", errors="replace")
        return list(dict.fromkeys(key for kind, key in _BIB_KEY.findall(text) if kind.lower() not in _NOT_ENTRIES))
    if path.suffix == ".json":
        try:
            items = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            return None
        if isinstance(items, list):
            return list(dict.fromkeys(str(i["id"]) for i in items if isinstance(i, dict) and i.get("id")))
    if path.name == "zotero.sqlite":
        bbt = path.with_name("better-bibtex.sqlite")
        if bbt.exists():
            with sqlite3.connect(f"{bbt.resolve().as_uri()}?immutable=1", uri=True) as db:
                tables = {row[0] for row in db.execute("select name from sqlite_master where type='table'")}
                if "citationkey" in tables:
                    return [row[0] for row in db.execute("select citationKey from citationkey")]
    return None


def measure(path: Path, data_dir: Path, embed: bool) -> dict[str, Any]:
    overrides: dict[str, Any] = {"data_dir": data_dir, "collection": "real"}
    if not embed:
        overrides["embed_model"] = "none"
    settings = load_settings(**overrides)
    notices: list[str] = []
    started = time.perf_counter()
    target = path.parent if path.name == "zotero.sqlite" else path
    try:
        result = ingest_service.ingest(Context(settings, notify=notices.append), [target])
    except RagError as exc:
        return {"file": str(path), "error": str(exc)}
    seconds = time.perf_counter() - started
    listing = read_service.papers(Context(settings))
    keys = input_keys(path)
    unresolved: list[str] = []
    for key in keys or []:
        try:
            read_service.show(Context(settings), key)
        except NotFoundError:
            unresolved.append(key)
    return {
        "file": str(path),
        "papers_found": result.papers_found,
        "papers": result.total_papers,
        "title_only": sum(1 for p in listing.papers if p.no_abstract),
        "merged": len(result.merged),
        "aliases": sum(len(p.aliases) for p in listing.papers),
        "warnings": len(result.warnings) + len(notices),
        "input_keys": None if keys is None else len(keys),
        "resolved": None if keys is None else len(keys) - len(unresolved),
        "unresolved": unresolved[:10],
        "seconds": round(seconds, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--embed", action="store_true", help="embed with the real model (RAG_EMBED_MODEL_DIR)")
    parser.add_argument("--json", type=Path, help="write every row here too")
    args = parser.parse_args()
    real = args.shared / "real"
    files = sorted(
        p
        for p in real.rglob("*")
        if p.is_file() and p.suffix in SUFFIXES and "storage" not in p.parts and p.name != "better-bibtex.sqlite"
    )
    rows = []
    header = f"{'file':60} {'found':>6} {'papers':>6} {'title':>5} {'merged':>6} {'alias':>5} {'keys':>9} {'s':>6}"
    print(header)
    for path in files:
        with tempfile.TemporaryDirectory() as folder:
            row = measure(path, Path(folder), args.embed)
        rows.append(row)
        name = str(path.relative_to(real))[-60:]
        if "error" in row:
            print(f"{name:60} error: {row['error'][:80]}")
            continue
        keys = "-" if row["input_keys"] is None else f"{row['resolved']}/{row['input_keys']}"
        print(
            f"{name:60} {row['papers_found']:>6} {row['papers']:>6} {row['title_only']:>5} {row['merged']:>6} "
            f"{row['aliases']:>5} {keys:>9} {row['seconds']:>6}"
        )
    keyed = [r for r in rows if r.get("input_keys")]
    total, resolved = sum(r["input_keys"] for r in keyed), sum(r["resolved"] for r in keyed)
    print(f"citekeys resolved: {resolved}/{total} ({100 * resolved / max(total, 1):.1f}%) over {len(keyed)} files")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
