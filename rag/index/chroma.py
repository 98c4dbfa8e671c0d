"""Chroma: the embedded ``PersistentClient`` or a server through ``HttpClient``.

Vectors are computed by ``rag.embed`` and passed in, so Chroma never
loads (or downloads) an embedding function of its own.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from rag.errors import EmbeddingMismatchError, RagError, StoreError
from rag.index.layout import DataDir
from rag.index.units import Unit, split_unit_id
from rag.records import STRING_LIST_FIELDS, TEXT_FIELDS, Paper, Passage, ProgressFn, SeedList

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection
    from chromadb.api.types import Where
    from chromadb.base_types import InclusionExclusionOperator

    from rag.embed.types import Vectors

EMBED_MODEL_KEY = "rag_embed_model"
# Server mode keeps the seed lists' subjects in the collection's own metadata.
LISTS_KEY = "rag_lists"
# Records per read: well under SQLite's limit on variables in one statement.
READ_PAGE = 5000
VERSION_KEY = "rag_version"
# A passage record names its paper and its place in it.
PARENT_KEY = "rag_parent"
PASSAGE_KEY = "rag_passage"
PAGE_KEY = "rag_page"
# Every citekey of a paper with aliases, as a list Chroma can search (`$contains`), so an alias finds its paper.
KEYS_KEY = "rag_keys"
# When a server client first wrote a paper (ns): two clients giving one citekey to two papers at once
# settle it by this order (rag.index.server_citekeys).
WRITTEN_KEY = "rag_written"


@contextlib.contextmanager
def chroma_errors(action: str) -> Iterator[None]:
    """Any Chroma failure becomes one explained StoreError."""
    try:
        yield
    except RagError:
        raise
    except Exception as exc:
        raise StoreError(
            f"Chroma failed to {action} ({type(exc).__name__}: {exc}); if the index is damaged, "
            "`rag reindex` rebuilds it from the saved papers; for a server, check that it is running"
        ) from None


def paper_metadata(paper: Paper) -> dict[str, str | int | bool]:
    """Chroma metadata values are flat scalars: lists of strings are stored JSON-encoded, optional text fields
    only when present."""
    meta: dict[str, str | int | bool] = {"citekey": paper.citekey, "truncated": paper.truncated}
    for name in TEXT_FIELDS:
        if value := getattr(paper, name):
            meta[name] = value
    if paper.year is not None:
        meta["year"] = paper.year
    if paper.no_abstract:
        meta["no_abstract"] = True
    if paper.retracted:
        meta["retracted"] = True
    if paper.aliases:
        meta[KEYS_KEY] = paper.keys  # type: ignore[assignment]  # Chroma 1.5 stores lists of strings
    for name in STRING_LIST_FIELDS:
        meta[name] = json.dumps(getattr(paper, name), ensure_ascii=False)
    return meta


def _among(field: str, values: Iterable[str]) -> Where:
    """A Chroma filter: ``field`` is one of ``values``."""
    choices: list[str | int | float | bool] = list(values)
    operator: dict[InclusionExclusionOperator, list[str | int | float | bool]] = {"$in": choices}
    return {field: operator}


def unit_metadata(unit: Unit) -> dict[str, str | int | bool]:
    if unit.passage is None:
        return paper_metadata(unit.paper)
    meta: dict[str, str | int | bool] = {PARENT_KEY: unit.paper.id, PASSAGE_KEY: unit.passage.n}
    if unit.passage.page is not None:
        meta[PAGE_KEY] = unit.passage.page
    return meta


def record_from_chroma(record_id: str, document: str, meta: dict[str, Any]) -> Paper | Passage:
    """A stored record back as the paper or passage it was made from."""
    if PARENT_KEY in meta:
        page = meta.get(PAGE_KEY)
        return Passage(n=int(meta[PASSAGE_KEY]), text=document, page=int(page) if page is not None else None)
    fields: dict[str, Any] = {name: meta.get(name) for name in TEXT_FIELDS}
    fields.update({name: json.loads(str(meta.get(name, "[]"))) for name in STRING_LIST_FIELDS})
    return Paper(
        id=record_id,
        text=document,
        year=meta.get("year"),
        citekey=str(meta.get("citekey", "")),
        truncated=bool(meta.get("truncated", False)),
        no_abstract=bool(meta.get("no_abstract", False)),
        retracted=bool(meta.get("retracted", False)),
        **fields,
    )


def _records(got: Any) -> list[tuple[str, Paper | Passage]]:
    """A Chroma ``get()`` result as (id, the paper or passage stored under it)."""
    documents, metadatas = got["documents"] or [], got["metadatas"] or []
    return [
        (record_id, record_from_chroma(record_id, doc, dict(meta or {})))
        for record_id, doc, meta in zip(got["ids"], documents, metadatas, strict=True)
    ]


def connect(data_dir: Path, chroma_url: str | None) -> ClientAPI:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        url = urlparse(chroma_url if "://" in chroma_url else f"http://{chroma_url}")
        if not url.hostname:
            raise StoreError(f"RAG_CHROMA_URL '{chroma_url}' has no host; use e.g. http://localhost:8000")
        try:
            return chromadb.HttpClient(
                host=url.hostname,
                port=url.port or (443 if url.scheme == "https" else 8000),
                ssl=url.scheme == "https",
                settings=chroma_settings,
            )
        except Exception as exc:  # chromadb raises plain ValueError/ConnectError here
            raise StoreError(
                f"cannot reach the Chroma server at {chroma_url} ({exc}); "
                "start it with `chroma run --path DIR` or unset RAG_CHROMA_URL"
            ) from None
    folder = DataDir(data_dir).chroma
    try:
        return chromadb.PersistentClient(path=str(folder), settings=chroma_settings)
    except Exception as exc:
        raise StoreError(
            f"cannot open the Chroma index in {folder} ({exc}); run `rag reindex` to rebuild it from the saved papers"
        ) from None


class VectorStore:
    """One Chroma collection: a vector per paper and per passage (rag.index.units), tagged with its model."""

    def __init__(
        self, client: ClientAPI, name: str, model: str, check_model: bool = True, page_size: int = READ_PAGE
    ) -> None:
        self.client = client
        self.page_size = page_size
        self.check_model = check_model
        self.name = name
        self.model = model
        self._collection: Collection | None = None
        self._count: int | None = None

    @property
    def collection(self) -> Collection:
        if self._collection is None:
            try:
                collection = self.client.get_or_create_collection(
                    self.name,
                    embedding_function=None,
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={EMBED_MODEL_KEY: self.model},
                )
            except Exception as exc:
                raise StoreError(f"cannot open collection '{self.name}' ({exc})") from None
            built_with = (collection.metadata or {}).get(EMBED_MODEL_KEY)
            if built_with != self.model and self.check_model:
                raise EmbeddingMismatchError(
                    f"collection '{self.name}' was built with embedding model '{built_with}', "
                    f"not '{self.model}'; run `rag reindex` to rebuild it with '{self.model}', "
                    "or choose another collection (RAG_COLLECTION)"
                )
            self._collection = collection
        return self._collection

    def built_with(self) -> str | None:
        """The embedding model (and build) the collection's vectors were made with; None when there is none yet."""
        try:
            collection = self.client.get_collection(self.name)
        except Exception:  # Chroma raises NotFoundError or ValueError depending on the client
            return None
        value = (collection.metadata or {}).get(EMBED_MODEL_KEY)
        return str(value) if value is not None else None

    def exists(self) -> bool:
        """Whether the collection is there already (without creating it)."""
        try:
            self.client.get_collection(self.name)
        except Exception:  # Chroma raises NotFoundError or ValueError depending on the client
            return False
        return True

    def count(self) -> int:
        if self._count is None:  # one count per command, not one per query
            with chroma_errors("count papers"):
                self._count = int(self.collection.count())
        return self._count

    def forget_count(self) -> None:
        """Count again on next use: another process wrote to the collection."""
        self._count = None

    def ids(self) -> set[str]:
        return {paper_id for page in self._pages([]) for paper_id in page["ids"]}

    def _pages(self, include: list[str]) -> Iterator[Any]:
        """Every record, a page at a time: one huge get() overflows SQLite's variable limit."""
        offset = 0
        while True:
            with chroma_errors("read papers"):
                page = self.collection.get(include=include, limit=self.page_size, offset=offset)  # type: ignore[arg-type]
            if not page["ids"]:
                return
            yield page
            offset += len(page["ids"])

    def upsert(self, units: Sequence[Unit], vectors: Vectors, progress: ProgressFn | None = None) -> None:
        """Store papers and passages (see rag.index.units) with their vectors, replacing same-id records."""
        self._count = None
        with chroma_errors("store papers"):
            batch = max(1, self.client.get_max_batch_size())
        for start in range(0, len(units), batch):
            chunk = units[start : start + batch]
            with chroma_errors("store papers"):
                self.collection.upsert(
                    ids=[u.id for u in chunk],
                    embeddings=vectors[start : start + batch],
                    documents=[u.passage.text if u.passage else u.paper.text for u in chunk],
                    metadatas=[unit_metadata(u) for u in chunk],
                )
            if progress:
                progress("storing", min(start + batch, len(units)), len(units))

    def delete(self, paper_ids: Sequence[str]) -> None:
        """Forget papers and every passage of theirs."""
        self._count = None
        with chroma_errors("delete papers"):
            self.collection.delete(ids=list(paper_ids))
            self.collection.delete(where=_among(PARENT_KEY, paper_ids))
        self._update_metadata({})

    def update_papers(self, changes: Mapping[str, Mapping[str, str | int]]) -> None:
        """Change some metadata fields of papers, leaving the rest (and their vectors) as they are."""
        ids = list(changes)
        with chroma_errors("update papers"):
            batch = max(1, self.client.get_max_batch_size())
            for start in range(0, len(ids), batch):
                chunk = ids[start : start + batch]
                self.collection.update(ids=chunk, metadatas=[dict(changes[i]) for i in chunk])

    def citekey_owners(self, keys: Iterable[str]) -> dict[str, list[tuple[int, str]]]:
        """For each of ``keys``, the papers holding it as (time of their first write, id)."""
        wanted = sorted(set(keys))
        owners: dict[str, list[tuple[int, str]]] = {}
        for start in range(0, len(wanted), self.page_size):
            with chroma_errors("read citekeys"):
                got = self.collection.get(
                    where=_among("citekey", wanted[start : start + self.page_size]), include=["metadatas"]
                )
            for paper_id, meta in zip(got["ids"], got["metadatas"] or [], strict=True):
                written = (meta or {}).get(WRITTEN_KEY)
                stamp = written if isinstance(written, int) else 0  # papers from before stamps came first
                owners.setdefault(str((meta or {}).get("citekey")), []).append((stamp, paper_id))
        return owners

    def lists(self) -> list[SeedList]:
        raw = (self.collection.metadata or {}).get(LISTS_KEY, "[]")
        return [SeedList(**item) for item in json.loads(str(raw))]

    def save_lists(self, lists: Sequence[SeedList], marks: Mapping[str, str] | None = None) -> None:
        """Keep the seed lists (and ``marks``: what the backend notes of a finished write), as a new version."""
        self._update_metadata(
            {LISTS_KEY: json.dumps([s.to_dict() for s in lists], ensure_ascii=False), **(marks or {})}
        )

    def mark(self, key: str) -> str | None:
        """A value ``save_lists`` kept in the collection's metadata, or None."""
        value = (self.collection.metadata or {}).get(key)
        return str(value) if value is not None else None

    def version(self) -> str | None:
        """Changes on every write by rag, so clients can tell whether their saved indexes are current."""
        value = (self.collection.metadata or {}).get(VERSION_KEY)
        return str(value) if value else None

    def _update_metadata(self, changes: dict[str, str]) -> None:
        metadata = dict(self.collection.metadata or {})
        metadata.update(changes)
        metadata[VERSION_KEY] = uuid.uuid4().hex
        metadata.pop("hnsw:space", None)  # Chroma refuses to change HNSW settings via modify
        with chroma_errors("update the collection"):
            self.collection.modify(metadata=metadata)

    def get_records(self, ids: Sequence[str]) -> dict[str, Paper | Passage]:
        """Some papers and passages by id (the rest of the library stays on the server);
        a passage's paper record is not fetched with it."""
        if not ids:
            return {}
        with chroma_errors("read papers"):
            got = self.collection.get(ids=list(ids), include=["documents", "metadatas"])
        return dict(_records(got))

    def find_paper(self, ref: str) -> Paper | None:
        """The paper whose id or citekey is ``ref``, with its passages; None when there is none."""
        aliases: Where = {KEYS_KEY: {"$contains": ref}}  # type: ignore[dict-item]
        for where in ({"ids": [ref]}, {"where": _among("citekey", [ref])}, {"where": aliases}):
            with chroma_errors("read papers"):
                got = self.collection.get(**where, include=["documents", "metadatas"])
            for _, record in _records(got):
                if isinstance(record, Paper):
                    record.passages = self._passages_of(record.id)
                    return record
        return None

    def _passages_of(self, paper_id: str) -> list[Passage]:
        with chroma_errors("read passages"):
            got = self.collection.get(where=_among(PARENT_KEY, [paper_id]), include=["documents", "metadatas"])
        return sorted((r for _, r in _records(got) if isinstance(r, Passage)), key=lambda p: p.n)

    def query(self, vector: Vectors, n: int) -> list[tuple[str, float]]:
        """The ``n`` nearest papers as (id, cosine similarity), best first."""
        total = self.count()
        if total == 0:
            return []
        with chroma_errors("search"):
            result = self.collection.query(
                query_embeddings=[vector.tolist()], n_results=min(n, total), include=["distances"]
            )
        distances = (result["distances"] or [[]])[0]
        return [(pid, 1.0 - float(d)) for pid, d in zip(result["ids"][0], distances, strict=True)]

    def vectors(self, ids: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of some papers and passages, by unit id (ids without a vector are left out)."""
        if not ids:
            return {}
        with chroma_errors("read vectors"):
            got = self.collection.get(ids=list(dict.fromkeys(ids)), include=["embeddings"])
        embeddings = got["embeddings"]
        if embeddings is None:
            return {}
        return dict(zip(got["ids"], embeddings, strict=True))

    def paper_vectors(self) -> dict[str, Vectors]:
        """Each paper's own vector (not its passages'), by paper id."""
        found: dict[str, Vectors] = {}
        for page in self._pages(["embeddings"]):
            embeddings = page["embeddings"]
            assert embeddings is not None
            for record_id, vector in zip(page["ids"], embeddings, strict=True):
                if split_unit_id(record_id)[1] == 0:
                    found[record_id] = vector
        return found

    def papers(self) -> list[Paper]:
        """Every paper, its passages attached."""
        papers: list[Paper] = []
        passages: dict[str, list[Passage]] = {}
        for page in self._pages(["documents", "metadatas"]):
            for record_id, record in _records(page):
                if isinstance(record, Paper):
                    papers.append(record)
                else:
                    passages.setdefault(split_unit_id(record_id)[0], []).append(record)
        for paper in papers:
            paper.passages = sorted(passages.get(paper.id, []), key=lambda p: p.n)
        return papers

    def drop(self) -> None:
        with contextlib.suppress(Exception):  # absent already: nothing to drop
            self.client.delete_collection(self.name)
        self._collection = self._count = None
