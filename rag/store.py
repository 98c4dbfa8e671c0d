"""Chroma: the embedded ``PersistentClient`` or a server through ``HttpClient``.

Vectors are computed by ``rag.embeddings`` and passed in, so Chroma never
loads (or downloads) an embedding function of its own.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from rag.errors import EmbeddingMismatchError, StoreError
from rag.models import Paper, ProgressFn, SeedList

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    from rag.embeddings import Vectors

CHROMA_SUBDIR = "chroma"
EMBED_MODEL_KEY = "rag_embed_model"
# Server mode keeps the seed lists' subjects in the collection's own metadata.
LISTS_KEY = "rag_lists"
# JSON-encoded list fields: Chroma metadata values are flat scalars.
_LIST_FIELDS = ("authors", "sources", "lists")


def paper_metadata(paper: Paper) -> dict[str, str | int | bool]:
    meta: dict[str, str | int | bool] = {"citekey": paper.citekey, "truncated": paper.truncated}
    if paper.title:
        meta["title"] = paper.title
    if paper.year is not None:
        meta["year"] = paper.year
    if paper.arxiv:
        meta["arxiv"] = paper.arxiv
    for name in _LIST_FIELDS:
        meta[name] = json.dumps(getattr(paper, name), ensure_ascii=False)
    return meta


def paper_from_record(paper_id: str, document: str, meta: dict[str, Any]) -> Paper:
    return Paper(
        id=paper_id,
        text=document,
        title=meta.get("title"),
        year=meta.get("year"),
        arxiv=meta.get("arxiv"),
        citekey=str(meta.get("citekey", "")),
        truncated=bool(meta.get("truncated", False)),
        **{name: json.loads(str(meta.get(name, "[]"))) for name in _LIST_FIELDS},
    )


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
    try:
        return chromadb.PersistentClient(path=str(data_dir / CHROMA_SUBDIR), settings=chroma_settings)
    except Exception as exc:
        raise StoreError(
            f"cannot open the Chroma index in {data_dir / CHROMA_SUBDIR} ({exc}); "
            "run `rag reindex` to rebuild it from the saved papers"
        ) from None


class VectorStore:
    """One Chroma collection holding one vector per paper, tagged with its model."""

    def __init__(self, client: ClientAPI, name: str, model: str, check_model: bool = True) -> None:
        self.client = client
        self.check_model = check_model
        self.name = name
        self.model = model
        self._collection: Collection | None = None

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

    def count(self) -> int:
        return int(self.collection.count())

    def ids(self) -> set[str]:
        return set(self.collection.get(include=[])["ids"])

    def upsert(self, papers: Sequence[Paper], vectors: Vectors, progress: ProgressFn | None = None) -> None:
        batch = max(1, self.client.get_max_batch_size())
        for start in range(0, len(papers), batch):
            chunk = papers[start : start + batch]
            self.collection.upsert(
                ids=[p.id for p in chunk],
                embeddings=vectors[start : start + batch],
                documents=[p.text for p in chunk],
                metadatas=[paper_metadata(p) for p in chunk],
            )
            if progress:
                progress("storing", min(start + batch, len(papers)), len(papers))

    def update_metadata(self, papers: Sequence[Paper]) -> None:
        """New sources or metadata for papers whose text (and so vector) is unchanged."""
        if papers:
            self.collection.update(
                ids=[p.id for p in papers],
                documents=[p.text for p in papers],
                metadatas=[paper_metadata(p) for p in papers],
            )

    def lists(self) -> list[SeedList]:
        raw = (self.collection.metadata or {}).get(LISTS_KEY, "[]")
        return [SeedList(**item) for item in json.loads(str(raw))]

    def save_lists(self, lists: Sequence[SeedList]) -> None:
        metadata = dict(self.collection.metadata or {})
        metadata[LISTS_KEY] = json.dumps([s.to_dict() for s in lists], ensure_ascii=False)
        metadata.pop("hnsw:space", None)  # Chroma refuses to change HNSW settings via modify
        self.collection.modify(metadata=metadata)

    def query(self, vector: Vectors, n: int) -> list[tuple[str, float]]:
        """The ``n`` nearest papers as (id, cosine similarity), best first."""
        total = self.count()
        if total == 0:
            return []
        result = self.collection.query(
            query_embeddings=[vector.tolist()], n_results=min(n, total), include=["distances"]
        )
        distances = (result["distances"] or [[]])[0]
        return [(pid, 1.0 - float(d)) for pid, d in zip(result["ids"][0], distances, strict=True)]

    def papers(self) -> list[Paper]:
        got = self.collection.get(include=["documents", "metadatas"])
        documents = got["documents"] or []
        metadatas = got["metadatas"] or []
        return [
            paper_from_record(pid, doc, dict(meta or {}))
            for pid, doc, meta in zip(got["ids"], documents, metadatas, strict=True)
        ]

    def drop(self) -> None:
        with contextlib.suppress(Exception):  # absent already: nothing to drop
            self.client.delete_collection(self.name)
        self._collection = None
