"""`rag check`: a manuscript's citations checked against the library (rag.check.manuscript).

Orchestration only: read the manuscripts; add the bibliographies they name (and --bib) to the library, as
ingest merges them, so a key finds the library's copy of its paper; resolve the keys and score the sentences
against every paper while the library is open; with --verify llm the model judges after it is closed, so a
slow model never holds the store open.
"""

from __future__ import annotations

import contextlib
import difflib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rag.check.judge import keep_readings
from rag.check.library_view import LibraryView
from rag.check.manuscript import ManuscriptChecker
from rag.check.paper_fit import ManuscriptScores, surnames_of
from rag.corpus.bib_keys import bib_keys
from rag.errors import InputError, NotFoundError
from rag.index.paper_scores import score_sentences
from rag.index.session import LibrarySession
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.reading import ManuscriptFormat, read_path, read_text
from rag.records import Paper
from rag.services.context import Context
from rag.services.history import record_check
from rag.services.ingest import ingest
from rag.services.requests import CheckRequest, WritingOptions
from rag.services.results import CheckReport
from rag.text import plural

TEXT_NAME = "<text>"
# Beside a library's papers file: the bibliography files a check added, as they were (size, time).
STAMPS_FILE = "bibliography_stamps.json"
# "Did you mean": keys this close to one the library lacks (difflib's ratio), at most this many.
NEAR_KEY_CUTOFF = 0.8
MAX_NEAR_KEYS = 3


def _manuscript(request: CheckRequest) -> Manuscript:
    if request.text is not None:
        name = request.text_name or TEXT_NAME
        if request.text_format is None:
            return read_text(request.text, None, name)  # the format told by the content
        try:
            chosen = ManuscriptFormat(request.text_format.strip().lower())
        except ValueError:
            known = ", ".join(f.value for f in ManuscriptFormat)
            raise InputError(f"unknown manuscript format '{request.text_format}' (known: {known})") from None
        return read_text(request.text, chosen, name)
    if not request.paths:
        raise InputError("give the manuscript files to check, e.g. rag check paper.tex --bib refs.bib")
    manuscript, unread = Manuscript(), []
    for path in request.paths:
        try:
            manuscript.extend(read_path(path))
        except InputError as exc:  # one unreadable file of several: the others are still checked
            unread.append(str(exc))
    if len(unread) == len(request.paths):
        raise InputError("; ".join(unread))
    manuscript.warnings[:0] = [f"{why}; not checked" for why in unread]
    return manuscript


def _bibliographies(manuscript: Manuscript, request: CheckRequest) -> list[Path]:
    """The bibliography files to add: those the manuscript names (never for a manuscript given as text:
    a document must not make rag read the user's files), then --bib, each once."""
    named = [] if request.text is not None else [Path(b) for b in manuscript.bibliographies]
    return list(dict.fromkeys([*named, *request.bibs]))


def add_bibliographies(ctx: Context, files: Sequence[Path]) -> list[str]:
    """Add the bibliographies to the library as ingest does, unless the library already holds them as they
    are: a check run again (a pre-commit hook) does not parse an unchanged .bib again."""
    if not files:
        return []
    names = ", ".join(str(f) for f in files)
    stamps = _Stamps(ctx)
    if (entries := stamps.unchanged(files)) is not None:
        ctx.notify(f"{names}: unchanged since it was last read ({plural(entries, 'entry', 'entries')})")
        return []
    result = ingest(ctx, list(files))  # bad entries are reported as file:line by the loader, the rest kept
    ctx.notify(f"{names}: {plural(result.papers_found, 'entry', 'entries')} read, {result.added} new in the library")
    stamps.keep(files, result.papers_found)
    return result.warnings


class _Stamps:
    """The size and time of each bibliography file a check last added, and of the library's papers file then:
    both the same, the library holds the file as it is (kept beside the papers file; none on a server)."""

    def __init__(self, ctx: Context) -> None:
        layout = ctx.storage().layout
        self.catalog = layout.catalog(ctx.settings.collection)
        self.file = self.catalog.parent / STAMPS_FILE

    @staticmethod
    def _of(path: Path) -> list[int]:
        found = path.stat()
        return [found.st_size, found.st_mtime_ns]

    def _key(self, files: Sequence[Path]) -> str:
        return "\n".join(str(f.resolve()) for f in files)

    def unchanged(self, files: Sequence[Path]) -> int | None:
        """How many entries the files gave when last read, if nothing changed since; else None."""
        try:
            kept = json.loads(self.file.read_text(encoding="utf-8")).get(self._key(files))
            now = [self._of(f) for f in files] + [self._of(self.catalog)]
        except (OSError, ValueError, AttributeError):
            return None
        return int(kept["entries"]) if isinstance(kept, dict) and kept.get("stamps") == now else None

    def keep(self, files: Sequence[Path], entries: int) -> None:
        if not self.catalog.is_file():
            return
        try:
            kept = json.loads(self.file.read_text(encoding="utf-8")) if self.file.is_file() else {}
        except (OSError, ValueError):
            kept = {}
        kept[self._key(files)] = {"stamps": [*(self._of(f) for f in files), self._of(self.catalog)], "entries": entries}
        with contextlib.suppress(OSError):
            self.file.write_text(json.dumps(kept), encoding="utf-8")


def _paper(library: LibrarySession, key: str) -> Paper | None:
    try:
        return library.paper(key)
    except (NotFoundError, InputError):
        return None


def _near_keys(library: LibrarySession) -> dict[str, list[str]]:
    """Every key of the library (aliases too) by its lower-case form, for "did you mean"."""
    keys: dict[str, list[str]] = {}
    for paper in library.catalog.ordered():
        for key in paper.keys:
            keys.setdefault(key.lower(), []).append(key)
    return keys


def _did_you_mean(known: dict[str, list[str]], key: str) -> list[str]:
    """Keys like ``key``: the same but for case, else the closest spellings."""
    if (same := known.get(key.lower())) is not None:
        return same[:MAX_NEAR_KEYS]
    close = difflib.get_close_matches(key.lower(), list(known), n=MAX_NEAR_KEYS, cutoff=NEAR_KEY_CUTOFF)
    return [known[c][0] for c in close]


def library_view(library: LibrarySession, manuscript: Manuscript, bibliographies: Sequence[Path] = ()) -> LibraryView:
    """The library as the checker weighs the manuscript's citations against it, read while it is open: any
    key of the library resolves (so a benchmark may put another key in a citation's place); a key one of the
    ``bibliographies`` holds is never missing, whatever rag could read of its entry."""
    by_key = {key: paper for paper in library.catalog.ordered() for key in paper.keys}
    papers = {cite.key: by_key.get(cite.key) or _paper(library, cite.key) for cite in manuscript.cites}
    by_key.update({key: paper for key, paper in papers.items() if paper is not None})
    known = _near_keys(library) if None in papers.values() else {}
    scored = score_sentences(library, [s.reading for s in manuscript.sentences])
    scores = ManuscriptScores(
        scored.lexical,
        [p.title or "" for p in scored.papers],
        [p.searchable_text() for p in scored.papers],
        [p.no_abstract for p in scored.papers],
        scored.sentence_vectors,
        scored.paper_vectors,
        [surnames_of(p.authors) for p in scored.papers],
        [p.year for p in scored.papers],
    )
    column = {p.id: j for j, p in enumerate(scored.papers)}
    listed = set().union(*(bib_keys(b) or set() for b in bibliographies)) if None in papers.values() else set()
    return LibraryView(
        by_key.get, lambda key: _did_you_mean(known, key), scores, column, scored.papers, listed.__contains__
    )


def check(ctx: Context, request: CheckRequest) -> CheckReport:
    """Every citation of the manuscript(s) checked, in document order."""
    # A check run again (a pre-commit hook) embeds only the sentences that changed.
    ctx = replace(ctx, remember_embeddings=True, keep_embeddings=True) if ctx.embedder is None else ctx
    keep_readings(ctx.storage().layout.judge_cache)  # ...and the judge reads only the pairs it has not read
    manuscript = _manuscript(request)
    warnings = list(manuscript.warnings)
    for warning in warnings:
        ctx.notify(warning)
    bibliographies = _bibliographies(manuscript, request)
    warnings += add_bibliographies(ctx, bibliographies)
    judge = ctx.chat_model(WritingOptions(verify_llm=True, cache=request.cache)) if request.verify_llm else None
    with ctx.reader() as library:
        view = library_view(library, manuscript, bibliographies)
    checker = ManuscriptChecker(view, judge, progress=ctx.progress)
    checks = checker.check(manuscript.sentences)
    name = f"llm judge ({judge.name})" if judge is not None else "offline"
    report = CheckReport(checks, warnings, name, manuscript.files, checker.usage if judge else None)
    if request.log:
        record_check(ctx, report)
    return report
