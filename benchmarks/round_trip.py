"""Every real reference-manager file through every export format and back: what a library keeps.

    python benchmarks/round_trip.py [--shared ../shared] [--only NAME] [--json out.json]

Each file is ingested into a fresh library (lexical only: identity and fields do not depend on the vectors).
For each export format the library is exported, the export ingested again into the same library (goal: every
paper unchanged, nothing added or updated) and into a fresh library (goal: the same papers, aliases, abstracts
and collections as before). Also counts the merged papers whose venue, volume, issue, pages and publisher do not
all come from one of the records merged (goal 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.config import load_settings  # noqa: E402
from rag.errors import RagError  # noqa: E402
from rag.formats.registry import BIBLIOGRAPHIES  # noqa: E402
from rag.records import Paper  # noqa: E402
from rag.services import ingest as ingest_service  # noqa: E402
from rag.services import manage  # noqa: E402
from rag.services import read as read_service  # noqa: E402
from rag.services.context import Context  # noqa: E402

SUFFIXES = {".bib", ".json", ".ris", ".csv", ".txt", ".ciw", ".nbib", ".tsv", ".sqlite"}
VENUE_FIELDS = ("venue", "volume", "issue", "pages", "publisher")
# CSL JSON does not carry the user's own BibTeX entries (rag.formats.csl): a fresh library builds its own.
LEFT_OUT = {"csljson": ("bibtex",)}
ENDINGS = {"bibtex": ".bib", "csljson": ".json", "jsonl": ".jsonl"}


def _context(data_dir: Path, collection: str) -> Context:
    return Context(load_settings(data_dir=data_dir, collection=collection, embed_model="none"))


def counts(papers: list[Paper]) -> dict[str, int]:
    return {
        "papers": len(papers),
        "aliases": sum(len(p.aliases) for p in papers),
        "abstracts": sum(1 for p in papers if not p.no_abstract),
        "collections": sum(len(p.collections) for p in papers),
    }


class VenueWatch:
    """Every merge of two records (``Paper.adopt_metadata``), and those whose venue fields came out as neither
    record's: a merged paper citing one record's journal with another's pages."""

    def __init__(self) -> None:
        self.mixed: list[str] = []
        self._adopt = Paper.adopt_metadata

    def __enter__(self) -> VenueWatch:
        adopt = self._adopt
        mixed = self.mixed

        def watched(paper: Paper, preferred: Paper, fallback: Paper, details: Paper | None = None) -> None:
            options = {_venue(preferred), _venue(fallback)}
            adopt(paper, preferred, fallback, details)
            if _venue(paper) not in options:
                mixed.append(paper.citekey or paper.id)

        Paper.adopt_metadata = watched  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        Paper.adopt_metadata = self._adopt  # type: ignore[method-assign]


def _venue(paper: Paper) -> tuple[str | None, ...]:
    return tuple(getattr(paper, name) for name in VENUE_FIELDS)


def differing(snapshot: dict[str, dict[str, Any]], copied: list[Paper], left_out: tuple[str, ...]) -> list[str]:
    """Papers of the fresh library not as the original held them (where they were read, and what the format
    leaves out on purpose, aside)."""
    where = ("sources", "lists", "passages", *left_out)
    mine = {p.id: {k: v for k, v in p.to_dict().items() if k not in where} for p in copied}
    theirs = {pid: {k: v for k, v in d.items() if k not in where} for pid, d in snapshot.items()}
    return [pid for pid in theirs.keys() | mine.keys() if mine.get(pid) != theirs.get(pid)]


def measure(path: Path, folder: Path) -> dict[str, Any]:
    target = path.parent if path.name == "zotero.sqlite" else path
    original = _context(folder, "original")
    try:
        with VenueWatch() as watch:
            ingest_service.ingest(original, [target])
    except RagError as exc:
        return {"file": str(path), "error": str(exc)}
    before = read_service.papers(original).papers
    row: dict[str, Any] = {"file": str(path), "before": counts(before), "formats": {}}
    snapshot = {p.id: p.to_dict() for p in before}
    for name in BIBLIOGRAPHIES:
        export = folder / f"export-{name}{ENDINGS[name]}"
        export.write_text(manage.export(original, name), encoding="utf-8")
        again = ingest_service.ingest(original, [export])
        after_same = {p.id: p.to_dict() for p in read_service.papers(original).papers}
        fresh = _context(folder, f"fresh-{name}")
        ingest_service.ingest(fresh, [export])
        copied = read_service.papers(fresh).papers
        row["formats"][name] = {
            "same_library": {"added": again.added, "updated": again.updated, "unchanged": again.unchanged},
            "same_library_identical": after_same == snapshot,
            "fresh_library": counts(copied),
            "fresh_differing": sorted(differing(snapshot, copied, LEFT_OUT.get(name, ()))),
        }
        if after_same != snapshot:  # the next format starts from the library as it was
            original = _context(folder, f"original-{name}")
            ingest_service.ingest(original, [target])
            snapshot = {p.id: p.to_dict() for p in read_service.papers(original).papers}
    row["mixed_venues"] = watch.mixed
    return row


def _line(counted: dict[str, int]) -> str:
    return "/".join(str(counted[k]) for k in ("papers", "aliases", "abstracts", "collections"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--only", help="only files whose path contains this")
    parser.add_argument("--json", type=Path, help="write every row here too")
    args = parser.parse_args()
    real = args.shared / "real"
    files = sorted(
        p
        for p in real.rglob("*")
        if p.is_file()
        and p.suffix in SUFFIXES
        and "storage" not in p.parts
        and p.name != "better-bibtex.sqlite"
        and (args.only is None or args.only in str(p))
    )
    print("papers/aliases/abstracts/collections before; per format: same library (added+updated/unchanged), fresh")
    rows = []
    for path in files:
        with tempfile.TemporaryDirectory() as folder:
            row = measure(path, Path(folder))
        rows.append(row)
        name = str(path.relative_to(real))[-56:]
        if "error" in row:
            print(f"{name:56} error: {row['error'][:80]}")
            continue
        cells = []
        for fmt, got in row["formats"].items():
            same = got["same_library"]
            mark = "" if got["same_library_identical"] else "!"
            changed = same["added"] + same["updated"]
            odd = len(got["fresh_differing"])
            cells.append(
                f"{fmt} {changed}/{same['unchanged']}{mark} {_line(got['fresh_library'])}{f' ~{odd}' if odd else ''}"
            )
        print(f"{name:56} {_line(row['before']):>18} | {' | '.join(cells)} | mixed {len(row['mixed_venues'])}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
