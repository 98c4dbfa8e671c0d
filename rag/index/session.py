"""An open library for one command: its papers, their vectors and the lexical index (opened by
rag.index.opener). The services use a session and never print: notices go through ``notify``, long work
reports through ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np

from rag.config import Settings
from rag.embed.types import Embedder, Vectors
from rag.errors import InputError, NotFoundError, StoreError
from rag.index.backend import Backend
from rag.index.bm25 import load_or_build
from rag.index.catalog import CLEANER_MARK, Catalog, UpsertReport, cleaner_of
from rag.index.chroma import VectorStore
from rag.index.hybrid import Filters, HybridRetriever, LocalUnits, UnitSource
from rag.index.units import all_units, passage_id, unit_count
from rag.records import Hit, Notify, Paper, ProgressFn, SeedList, silent
from rag.text import tokenize

T = TypeVar("T")

# Papers embedded and stored per step while indexing: Ctrl-C or a kill loses at most this many vectors.
SYNC_CHUNK = 64
# A word extending a field word by an ending of at most this many letters is the field in another form:
# "detector" of a library on deepfake detection, where "detect" is held by most papers (the stemmer keeps the two
# apart); the root has MIN_FIELD_ROOT letters at least.
MAX_FIELD_ENDING = 3
MIN_FIELD_ROOT = 4
# A word that more than this share of a library's papers hold (title and abstract) names the library's field, not
# a subject a question asks about beside it: "Petri" in "How has the blood coagulation cascade been modelled with
# Petri nets?" asked of a library on Petri nets in systems biology (87% of its papers) says nothing of whether a
# paper answers it (rag.writing.extractive's key terms leave such words out).
FIELD_SHARE = 0.5
# ...in a library of at least this many papers: in a handful, half of them share most words of any one.
FIELD_MIN_PAPERS = 10
# A search for papers to read looks at most this many times deeper than its k for papers with an abstract: a
# library with many entries known by their title alone (a third of a 1,678-entry Zotero export) would otherwise
# fill an answer's five slots with titles it cannot quote.
READABLE_REACH = 4


class SearchSpec(Protocol):
    """What a search asks for (rag.services.requests.SearchRequest): ``k`` None means the configured top-k."""

    query: str
    k: int | None
    year_min: int | None
    year_max: int | None
    lists: Sequence[str]


@dataclass
class LibrarySession:
    """An open library: its papers, and the vector store when dense retrieval is on.

    A library whose store holds exactly its papers (always on a server; embedded, when the store was last
    written with the papers file as it is) is not read whole until something needs every paper: searches
    and lookups by id or citekey fetch only the records they show.
    """

    settings: Settings
    backend: Backend
    embedder: Embedder | None
    store: VectorStore | None
    notify: Notify = silent
    progress: ProgressFn | None = None
    _catalog: Catalog | None = None
    _retriever: HybridRetriever | None = field(default=None, init=False)
    _refs: dict[str, Paper] | None = field(default=None, init=False)
    _query: tuple[str, Vectors] | None = field(default=None, init=False)
    _said_busy: bool = field(default=False, init=False)

    @property
    def name(self) -> str:
        return self.settings.collection

    @property
    def catalog(self) -> Catalog:
        """Every paper of the library (read now if it was not yet)."""
        if self._catalog is None:
            self._catalog = self.backend.load_catalog(self.name, self.store, self.notify)
            self._retriever = self._refs = None
        return self._catalog

    @property
    def fetches_as_needed(self) -> bool:
        """Whether papers are still on the server, fetched a record at a time as they are read."""
        return self._catalog is None

    @property
    def lists(self) -> dict[str, SeedList]:
        """The seed lists, by file (without reading every paper of a server library)."""
        if self._catalog is None and self.store is not None:
            return {s.file: s for s in self.store.lists()}
        return self.catalog.lists

    @property
    def mode(self) -> str:
        return "hybrid" if self.embedder is not None and self.store is not None else "lexical"

    def query_vector(self, query: str) -> Vectors:
        """The query's vector, embedded once per query (search and the relevance of its hits share it)."""
        assert self.embedder is not None
        if self._query is None or self._query[0] != query:
            self._query = (query, np.asarray(self.embedder.embed([query])[0], dtype=np.float32))
        return self._query[1]

    def retriever(self) -> HybridRetriever:
        if self._retriever is None:
            dense = None
            if self.embedder is not None and self.store is not None:
                store = self.store

                def dense(query: str, n: int) -> list[tuple[str, float]]:
                    nothing: list[tuple[str, float]] = []
                    return self._unless_being_written(lambda: store.query(self.query_vector(query), n), nothing)

            folder = self.backend.lexical_dir(self.name)
            units: UnitSource
            if self._catalog is None and self.store is not None:
                from rag.index.server_view import remote_index

                lexical, units = remote_index(self.store, folder)
            else:
                local = LocalUnits.of(self.catalog.ordered())
                lexical = load_or_build(folder, [f"{u.id}\t{u.paper.title or ''}" for u in local.units], local.texts)
                units = local
            self._retriever = HybridRetriever(
                units, dense, self.settings.dense_weight, self.settings.fusion_depth, lexical
            )
        return self._retriever

    def field_words(self, text: str) -> frozenset[str]:
        """The words of ``text`` (as rag.text.tokenize makes them) that name the library's field: held by more
        than FIELD_SHARE of its papers, or such a word with an ending ("detector" where "detect" is one)."""
        retriever = self.retriever()
        if retriever.paper_count < FIELD_MIN_PAPERS:
            return frozenset()
        return frozenset(
            t for t in set(tokenize(text)) if any(retriever.paper_share(r) > FIELD_SHARE for r in _roots(t))
        )

    def search(self, spec: SearchSpec) -> list[Hit]:
        """The papers ``spec`` asks for, best first, its year and list filters applied."""
        return self._search(spec, self._k(spec))

    def _k(self, spec: SearchSpec) -> int:
        return self.settings.top_k if spec.k is None else spec.k

    def _search(self, spec: SearchSpec, k: int) -> list[Hit]:
        filters = Filters(spec.year_min, spec.year_max, self.resolve_lists(spec.lists))
        query = spec.query.strip()
        hits = self.retriever().search(query, k, filters)
        if not hits and filters.active and self.retriever().search(query, 1):
            raise InputError(f"no paper here matches {filters.described(spec.lists)}: drop or widen the filter")
        self._fill_relevance(query, hits)
        return hits

    def search_readable(self, spec: SearchSpec) -> list[Hit]:
        """As ``search``, but only papers with an abstract count toward its k: those known by their title alone
        that rank among them are kept (an answer lists them as related) without taking a slot. Looks no deeper
        than READABLE_REACH times k."""
        k = self._k(spec)
        depth = k
        while True:
            hits = self._search(spec, depth)
            readable = [i for i, hit in enumerate(hits) if not hit.paper.no_abstract]
            if len(readable) >= k:
                return hits[: readable[k - 1] + 1]
            if len(hits) < depth or depth >= k * READABLE_REACH:
                return hits
            depth = min(depth + 2 * (k - len(readable)), k * READABLE_REACH)

    def _unless_being_written(self, read: Callable[[], T], words_only: T) -> T:
        """A vector read; while another process writes the embedded store, Chroma may fail to read segments it
        has not flushed yet: the query then goes on by words (said once) instead of failing."""
        try:
            return read()
        except StoreError:
            if not self.backend.writer_busy():
                raise
            if not self._said_busy:
                self.notify("another rag process is writing this library's vectors: this query is answered by words")
                self._said_busy = True
            return words_only

    def _fill_relevance(self, query: str, hits: Sequence[Hit]) -> None:
        """Every hit gets its cosine to the query (``Hit.dense``), the one score that means the same whatever
        found it: a hit BM25 alone ranked gets its stored vector fetched (never re-embedded), so the absolute
        relevance floor (rag.writing.evidence_sentences.is_evidence) applies to it too."""
        missing = {_unit_id(h): h for h in hits if h.dense is None}
        if not missing or self.embedder is None or self.store is None:
            return
        store = self.store
        nothing: dict[str, Vectors] = {}
        stored = self._unless_being_written(lambda: store.vectors(list(missing)), nothing)
        query_vector = self.query_vector(query)
        for unit_id, vector in stored.items():
            row = np.asarray(vector, dtype=np.float32)
            norms = float(np.linalg.norm(row) * np.linalg.norm(query_vector)) or 1.0
            missing[unit_id].dense = round(float(row @ query_vector) / norms, 4)

    def add(
        self,
        papers: Sequence[Paper],
        lists: Sequence[SeedList],
        replace_files: Sequence[str] = (),
        copies: AbstractSet[str] = frozenset(),
    ) -> UpsertReport:
        """Upsert papers (``copies``: read from rag's own exports): saved to the catalog first, then vectors for
        new text only."""
        catalog = self.catalog
        report = catalog.upsert(papers, lists, replace_files, copies)
        self.backend.save_catalog(self.name, catalog)
        if self.store is not None and self.embedder is not None:
            gone = [*report.updated, *report.removed]
            if gone:  # an updated paper may have fewer passages now: its old units go first
                self.store.delete(gone)
        self.sync_vectors()
        if self.store is not None:
            added = [catalog.papers[i] for i in report.added]
            known = {p.citekey for p in catalog.papers.values()} - {p.citekey for p in added}
            report.warnings += self.backend.settle_new_keys(self.store, added, known)
            # Last: it marks the new version, and that the store matches the library again.
            self.store.save_lists(list(catalog.lists.values()), self.marks())
        self._retriever = self._refs = None
        return report

    def remove(self, ids: Sequence[str]) -> None:
        """Forget papers: from the papers file first, then their vectors."""
        if self._catalog is not None:  # a server library read as needed holds nothing here to forget
            for paper_id in ids:
                self._catalog.papers.pop(paper_id, None)
            self.backend.save_catalog(self.name, self._catalog)
        if self.store is not None:
            self.store.delete(list(ids))
            self.store.save_lists(list(self.lists.values()), self.marks())
        self._retriever = self._refs = None

    def marks(self) -> dict[str, str]:
        """What a writer notes in the store: the backend's marks, and the text cleaner of the papers it holds."""
        marks = self.backend.sync_marks(self.name)
        if self._catalog is not None:
            marks[CLEANER_MARK] = str(self._catalog.cleaner)
        return marks

    def cleaner(self) -> int | None:
        """The text cleaner the library's papers went through; None for an empty library."""
        if self._catalog is not None:
            return self._catalog.cleaner if self._catalog.papers else None
        if self.store is not None and self.store.count():
            return cleaner_of(self.store)
        return None

    def missing_units(self) -> int:
        """Papers and passages saved without a vector (an interrupted ingest, or no model then)."""
        if self.embedder is None or self.store is None:
            return 0
        return max(0, unit_count(self.catalog.papers.values()) - self.store.count())

    def sync_vectors(self) -> int:
        """Embed papers and passages that have no vector yet (new, changed, or indexed while
        the model was missing); returns how many papers were completed."""
        if self.embedder is None or self.store is None:
            return 0
        if self.store.count() == unit_count(self.catalog.papers.values()):
            return 0
        stored = self.store.ids()
        missing = [u for u in all_units(self.catalog.ordered()) if u.id not in stored]
        # Stored chunk by chunk: a run killed halfway keeps what it embedded, a re-run does the rest.
        for start in range(0, len(missing), SYNC_CHUNK):
            chunk = missing[start : start + SYNC_CHUNK]
            vectors = self.embedder.embed([u.text for u in chunk], self._progress_from(start, len(missing)))
            self.store.upsert(chunk, vectors)
        return len({u.paper.id for u in missing})

    def _progress_from(self, offset: int, total: int) -> ProgressFn | None:
        """The progress callback, counting a chunk's items from ``offset`` out of ``total``."""
        report = self.progress
        if report is None:
            return None
        return lambda what, done, _chunk_total: report(what, offset + done, total)

    def paper(self, ref: str) -> Paper:
        """A paper by id, citekey or source reference ``file#n``."""
        ref = ref.strip()
        if not ref:
            raise InputError("give a paper id, citekey or source reference (file#n)")
        if self._catalog is None and self.store is not None:
            found = self.store.find_paper(ref)  # by id or citekey, without reading the library
            if found is not None:
                return found
            # A source reference is inside a list field Chroma cannot filter on: the library is read once.
        if self._refs is None:
            refs: dict[str, Paper] = {}
            for paper in self.catalog.papers.values():
                for key in (paper.id, *paper.keys, *paper.sources):
                    refs.setdefault(key, paper)
            self._refs = refs
        if ref in self._refs:
            return self._refs[ref]
        raise NotFoundError(f"no paper with id, citekey or source '{ref}'; `rag papers` lists them")

    def resolve_lists(self, names: Sequence[str]) -> frozenset[str]:
        """Seed-list files from names given by the user: file name, its prefix, or subject words."""
        known = self.lists
        chosen: set[str] = set()
        for name in names:
            wanted = name.strip().lower()
            matches = [
                s.file
                for s in known.values()
                if s.file.lower().startswith(wanted) or (len(wanted) > 3 and wanted in s.subject.lower())
            ]
            if not matches:
                listed = ", ".join(sorted(known)) or "none"
                raise InputError(f"no seed list matches '{name}' (known lists: {listed})")
            chosen.update(matches)
        return frozenset(chosen)


def _unit_id(hit: Hit) -> str:
    """The indexed unit a hit was found by: its paper, or the passage that matched."""
    return passage_id(hit.paper.id, hit.passage.n) if hit.passage is not None else hit.paper.id


def _roots(term: str) -> list[str]:
    """``term`` and the words it may extend by an ending (MAX_FIELD_ENDING, MIN_FIELD_ROOT)."""
    shortest = max(MIN_FIELD_ROOT, len(term) - MAX_FIELD_ENDING)
    return [term, *(term[:end] for end in range(len(term) - 1, shortest - 1, -1))]
