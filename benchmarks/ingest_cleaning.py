"""Debris in the text rag ingests from real files, before and after the ingest-time cleaning (issue 28).

Every reference-manager file of ``../shared/real`` (BibTeX, CSL JSON, RIS, CSV, MEDLINE, Web of Science, the
Zotero databases with their PDFs) is read with rag's own readers twice: by the code of a base revision
(``--before``, default ``main``; exported with ``git archive`` into a temporary folder, run in a subprocess)
and by this tree. Counted in titles, abstracts and PDF passages:

- ligature tokens (ﬁ ﬂ ﬀ ﬃ ﬄ), soft hyphens and zero-width characters, Windows-1252 control characters;
- copyright notices (©, "Copyright ©", "(c) 2012", "Copyright of X is the property of");
- "x- y" pairs (suspended hyphens such as "intra- and" excluded): words broken at a line end ("communi-
  cation", "fine- grained"), but also dashes typed as hyphens ("sources- actual speech"), which stay;
- line-number runs and section headings glued onto a sentence, as rag.corpus.cleaning detects them (so
  "after" is 0 by construction: the "before" column says how common they are);
- arXiv margin stamps inside PDF passages.

And the titles of the Zotero storage PDFs read as a folder of PDFs (as a user with no Zotero database would):
how many are missing, "untitled", a URL, a file or job name, a venue or running header, and how many agree
with the title of the Zotero item each PDF is attached to (the truth), first authors likewise.

    python benchmarks/ingest_cleaning.py [--before REV] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "real"
SUFFIXES = {".bib", ".json", ".sqlite", ".ris", ".csv", ".txt", ".nbib", ".ciw"}
STORAGE = REAL / "zotero" / "hsteinshiromoto__bibliography"

LIGATURE = re.compile(r"\w*[\ufb00-\ufb06]\w*")
INVISIBLE = re.compile("[\u00ad\u200b\u2060]")
C1 = re.compile("[\u0080-\u009f]")
COPYRIGHT = re.compile(r"©|\bcopyright\s*(?:©|\(c\)|of\b|\d{4})|\([cC]\)\s*(?:19|20)\d\d", re.IGNORECASE)
BROKEN = re.compile(r"\b[^\W\d_]+- (?!(?:and|or|to|nor|vs|versus|but|as|than)\b)[a-z]")
ARXIV_STAMP = re.compile(r"arXiv:\d{4}\.\d{4,5}v\d+\s+\[")

COLLECT = """
import json, sys
from pathlib import Path
from rag.corpus.loader import load_paths
out = {"texts": [], "titles": {}}
for name in sys.argv[1:]:
    path = Path(name)
    try:
        papers = load_paths([path]).papers.values()
    except Exception as exc:
        print(f"skipped {path.name}: {exc}", file=sys.stderr)
        continue
    for paper in papers:
        out["texts"].append(["title", paper.title or ""])
        if not paper.no_abstract:
            out["texts"].append(["abstract", paper.text])
        out["texts"].extend(["passage", p.text] for p in paper.passages)
        if path.suffix == ".pdf":
            out["titles"][path.name] = [paper.title, paper.authors[:1]]
print(json.dumps(out))
"""


def _files() -> list[Path]:
    return [
        path
        for path in sorted(REAL.rglob("*"))
        if path.is_file()
        and path.suffix.lower() in SUFFIXES
        and path.name != "better-bibtex.sqlite"
        and "manuscripts" not in path.parts
        and path.name != "AuthorIDs.bib"  # @string macros only
    ]


def _collect(python_path: Path, files: list[Path]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", COLLECT, *map(str, files)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),  # not the checkout: `python -c` puts the working folder first on sys.path
        env={"PYTHONPATH": str(python_path), "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir()},
    )
    return dict(json.loads(done.stdout))


def _counts(texts: list[list[str]]) -> dict[str, int]:
    from rag.corpus.cleaning import strip_glued_headings, strip_line_numbers

    counts: Counter[str] = Counter()
    vocabulary: set[str] = set()
    for kind, text in {tuple(t) for t in texts}:  # a text met in several files (one collection exported twice) once
        ligatures = LIGATURE.findall(text)
        counts["ligature tokens"] += len(ligatures)
        vocabulary.update(ligatures)
        counts["soft hyphens, zero-width characters"] += len(INVISIBLE.findall(text))
        counts["Windows-1252 control characters"] += len(C1.findall(text))
        counts[f"{kind}s with a copyright notice"] += bool(COPYRIGHT.search(text))
        counts["'x- y' pairs (broken words, dashes)"] += len(BROKEN.findall(text))
        counts["texts with a line-number run"] += strip_line_numbers(text) != text
        counts["texts with a glued section heading"] += kind != "title" and strip_glued_headings(text) != text
        counts["arXiv stamps in passages"] += kind == "passage" and bool(ARXIV_STAMP.search(text))
    counts["distinct ligature tokens (vocabulary)"] = len(vocabulary)
    counts["texts"] = len({tuple(t) for t in texts})
    return dict(counts)


def _truth() -> dict[str, tuple[str, str]]:
    """Each storage PDF's Zotero item: its title and first creator's last name."""
    uri = f"{(STORAGE / 'zotero.sqlite').as_uri()}?mode=ro&immutable=1"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute(
            """SELECT a.path, v.value, (SELECT c.lastName FROM itemCreators ic JOIN creators c USING (creatorID)
                   WHERE ic.itemID = a.parentItemID ORDER BY ic.orderIndex LIMIT 1)
               FROM itemAttachments a JOIN itemData d ON d.itemID = a.parentItemID
               JOIN fieldsCombined f ON f.fieldID = d.fieldID AND f.fieldName = 'title'
               JOIN itemDataValues v ON v.valueID = d.valueID WHERE a.path LIKE 'storage:%'"""
        ).fetchall()
    return {str(path).removeprefix("storage:"): (str(title), str(last or "")) for path, title, last in rows}


def _folded(text: str | None) -> str:
    return re.sub(r"[^a-z0-9]", "", (text or "").lower())


def _title_kinds(titles: dict[str, list[Any]], truth: dict[str, tuple[str, str]]) -> dict[str, int]:
    from rag.corpus.pdf.titles import is_junk_title

    counts: Counter[str] = Counter()
    for name, (title, first_author) in titles.items():
        text = title or ""
        if not text:
            counts["missing"] += 1
        elif text.lower().startswith("untitled"):
            counts["untitled"] += 1
        elif re.search(r"https?://|www\.", text):
            counts["a URL"] += 1
        elif is_junk_title(text):
            counts["a venue, stamp, file or job name"] += 1
        true_title, true_author = truth.get(name, ("", ""))
        counts["agree with the Zotero item's title"] += bool(text) and _folded(text) == _folded(true_title)
        # The item's last name within the name found ("Stein Shiromoto" in "Humberto Stein Shiromoto").
        found = _folded(first_author[0] if first_author else "")
        counts["first author agrees"] += bool(found and true_author) and _folded(true_author) in found
    counts["PDFs"] = len(titles)
    return dict(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="main", help="the revision whose readers give the 'before' column")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not REAL.is_dir():
        sys.exit(f"{REAL} is missing: this benchmark reads the real files of ../shared/real")
    files = _files()
    pdfs = sorted((STORAGE / "storage").rglob("*.pdf"))
    with tempfile.TemporaryDirectory() as base:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before, "rag"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
        before = _collect(Path(base), [*files, *pdfs])
    after = _collect(ROOT, [*files, *pdfs])
    truth = _truth()
    rows = {
        "debris": {"before": _counts(before["texts"]), "after": _counts(after["texts"])},
        "pdf titles": {"before": _title_kinds(before["titles"], truth), "after": _title_kinds(after["titles"], truth)},
        "titles": {"before": before["titles"], "after": after["titles"]},
    }
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for table in ("debris", "pdf titles"):
        print(f"\n{table}: before ({args.before}) -> after")
        keys = sorted({*rows[table]["before"], *rows[table]["after"]})
        for key in keys:
            print(f"  {key:45s} {rows[table]['before'].get(key, 0):>7} -> {rows[table]['after'].get(key, 0):>7}")
    print("\nPDF titles (before | after):")
    for name in sorted(after["titles"]):
        print(f"  {name[:60]}\n      {before['titles'].get(name, [None])[0]!r}\n    | {after['titles'][name][0]!r}")


if __name__ == "__main__":
    main()
