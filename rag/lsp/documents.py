"""Each open document's check, kept between edits: an edit re-checks only the sentences whose text (or keys)
changed, against the library rows scored for them alone; every other citation keeps its verdict and moves
to where it now stands. The check itself is `rag check`'s (rag.services.check's library view and
bibliographies, rag.check's manuscript checker)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from rag.check.judge import keep_readings
from rag.check.library_view import LibraryView
from rag.check.manuscript import ManuscriptChecker
from rag.check.paper_fit import ManuscriptScores
from rag.check.verdicts import CitationCheck
from rag.errors import RagError
from rag.lsp.ranking import Ranker
from rag.lsp.reading import Reading, fallback_bibliographies, read_document
from rag.manuscripts.citing import CitingSentence, Manuscript
from rag.services.check import add_bibliographies, library_view
from rag.services.context import Context

Signature = tuple[str, str, tuple[str, ...]]
# Citing sentences checked between two publications of a document's diagnostics while it is first checked.
PART_SENTENCES = 40


@dataclass
class DocumentCheck:
    """One document's reading and its checks, sentence by sentence."""

    path: Path
    reading: Reading
    checks: list[list[CitationCheck]]
    view: LibraryView | None
    checker: ManuscriptChecker | None
    bibliographies: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # warnings of the bibliographies' reading
    rechecked: int = 0  # sentences checked by the last update (all of them on a full check)

    @property
    def sentences(self) -> list[CitingSentence]:
        return self.reading.manuscript.sentences

    @property
    def all_checks(self) -> list[CitationCheck]:
        return [check for checks in self.checks for check in checks]


def _signature(sentence: CitingSentence) -> Signature:
    return sentence.text, sentence.context.value, tuple(cite.key for cite in sentence.cites)


def _moved(checks: list[CitationCheck], sentence: CitingSentence) -> list[CitationCheck]:
    """The same sentence's checks with each citation where it now stands."""
    return [replace(check, cite=cite) for check, cite in zip(checks, sentence.cites, strict=True)]


def _rows(old: np.ndarray, new: np.ndarray | None, sources: Sequence[tuple[bool, int]]) -> np.ndarray:
    """A matrix of the new manuscript's rows: each taken from the old scores (True, i) or the new ones."""
    picked = []
    for from_old, i in sources:
        if from_old:
            picked.append(old[i])
        elif new is not None:
            picked.append(new[i])
    return np.stack(picked).astype(np.float32) if picked else np.zeros((0, old.shape[1]), dtype=np.float32)


class Checks:
    """The check of every open document, over one Context (its embedder and library), run by one thread."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        keep_readings(ctx.storage().layout.judge_cache)  # the judge reads only the pairs it has not read
        self.ranker: Ranker | None = None

    def full(
        self,
        path: Path,
        text: str,
        roots: Sequence[Path],
        open_texts: dict[str, str],
        on_part: Callable[[DocumentCheck], None] | None = None,
    ) -> DocumentCheck:
        """The document read and every citation checked; its bibliographies added to the library first (as
        `rag check` adds them: nothing is read again when unchanged). ``on_part`` hears the check so far after
        each PART_SENTENCES sentences: a long thesis shows its first diagnostics before the last is read."""
        reading = read_document(path, text, roots, open_texts)
        bibliographies = reading.manuscript.bibliographies or fallback_bibliographies(path, roots)
        notes: list[str] = []
        try:
            notes = add_bibliographies(self.ctx, bibliographies)
        except RagError as exc:  # a writer holds the library, a bad file: the check runs on what it holds
            notes = [f"bibliographies not added: {exc}"]
        sentences = reading.manuscript.sentences
        if not sentences:
            return DocumentCheck(path, reading, [], None, None, bibliographies, notes)
        with self.ctx.reader() as library:
            view = library_view(library, reading.manuscript, bibliographies)
            self._warm(view, library.embedder.embed if library.embedder is not None else None)
        checker = ManuscriptChecker(view)
        checks: list[list[CitationCheck]] = [[] for _ in sentences]
        for start in range(0, len(sentences), PART_SENTENCES):
            end = min(start + PART_SENTENCES, len(sentences))
            for i, found in checker.check_some(sentences, range(start, end)).items():
                checks[i] = found
            if on_part is not None and end < len(sentences):
                on_part(DocumentCheck(path, reading, list(checks), view, checker, bibliographies, [], end))
        return DocumentCheck(path, reading, checks, view, checker, bibliographies, notes, len(sentences))

    def update(self, old: DocumentCheck, text: str, roots: Sequence[Path], open_texts: dict[str, str]) -> DocumentCheck:
        """The document after an edit: only the sentences that changed are checked."""
        if old.view is None or old.view.scores is None or old.checker is None:
            return self.full(old.path, text, roots, open_texts)
        reading = read_document(old.path, text, roots, open_texts)
        new = reading.manuscript.sentences
        matcher = difflib.SequenceMatcher(
            None, [_signature(s) for s in old.sentences], [_signature(s) for s in new], autojunk=False
        )
        blocks = matcher.get_matching_blocks()
        was = {b + n: a + n for a, b, size in blocks for n in range(size)}  # new sentence -> the same one before
        changed = [j for j in range(len(new)) if j not in was]
        view = self._view(old.view, new, was, changed)
        if view is None:  # the library changed under the document: check it all again
            return self.full(old.path, text, roots, open_texts)
        old.checker.library = view
        found = old.checker.check_some(new, changed) if changed else {}
        checks = [_moved(old.checks[was[j]], s) if j in was else found[j] for j, s in enumerate(new)]
        # The bibliographies' notes were told when they were read (open, save): not again on each edit.
        return DocumentCheck(old.path, reading, checks, view, old.checker, old.bibliographies, [], len(changed))

    def _view(
        self, old: LibraryView, new: list[CitingSentence], was: dict[int, int], changed: list[int]
    ) -> LibraryView | None:
        """The library view of the edited manuscript: the kept sentences' rows, the changed ones scored now."""
        assert old.scores is not None
        added: LibraryView | None = None
        if changed:
            with self.ctx.reader() as library:
                added = library_view(library, Manuscript(sentences=[new[j] for j in changed]))
            if added.scores is None or [p.id for p in added.papers] != [p.id for p in old.papers]:
                return None
        position = {j: k for k, j in enumerate(changed)}
        sources = [(True, was[j]) if j in was else (False, position[j]) for j in range(len(new))]
        fresh = added.scores if added is not None else None
        scores = replace(
            old.scores,
            lexical=_rows(old.scores.lexical, fresh.lexical if fresh else None, sources),
            sentence_vectors=_vectors(old.scores, fresh, sources),
        )
        if added is None:
            return replace(old, scores=scores)
        resolve_new, resolve_old = added.resolve, old.resolve
        return LibraryView(
            lambda key: resolve_new(key) or resolve_old(key), added.near, scores, old.column, old.papers, old.listed
        )

    def _warm(self, view: LibraryView, embed: object) -> None:
        """Keep the library's papers and vectors for completion (the first check pays for them)."""
        vectors = view.scores.paper_vectors if view.scores is not None else None
        self.ranker = Ranker(view.papers, vectors, embed if callable(embed) else None)

    def ranker_for(self, sentence: str) -> Ranker:
        """The warm ranker, made on first use when no document with citations was checked yet."""
        if self.ranker is None:
            with self.ctx.reader() as library:
                view = library_view(library, Manuscript(sentences=[CitingSentence(sentence or "paper", [])]))
                self._warm(view, library.embedder.embed if library.embedder is not None else None)
        assert self.ranker is not None
        return self.ranker


def _vectors(
    old: ManuscriptScores, fresh: ManuscriptScores | None, sources: Sequence[tuple[bool, int]]
) -> np.ndarray | None:
    if old.sentence_vectors is None:
        return None
    if fresh is not None and fresh.sentence_vectors is None:
        return None
    return _rows(old.sentence_vectors, fresh.sentence_vectors if fresh is not None else None, sources)
