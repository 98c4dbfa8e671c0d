"""Every path inside a data directory, named once: what the writers write is what doctor and the MCP server read.

```
DATA_DIR/
  .rag.lock                    one writer at a time (embedded mode)
  .seeding                     the first command is indexing the bundled corpus (others wait for it)
  chroma/                      Chroma's embedded store (chroma.sqlite3 + one folder per vector segment)
  <library>/papers.json        the papers themselves, the source of truth (embedded mode)
  <library>/lexical/           the saved BM25 index of that library
  <library>/.said              the one-time notices given about that library (rag.index.notices)
  lexical/server-<url hash>/<library>/   the saved BM25 index of a server library, per server
  server-snapshots/<library>.json        a copy of a server library taken before `rag reindex` drops it
  llm-cache/                   model answers, by prompt
  pdf-cache/                   what each PDF read was parsed into, by path (rag.corpus.pdf.cache)
  llm-endpoints.json           what each model endpoint was found to accept
  history.sqlite               past questions, drafts and checks (`rag log`)
  .model-download-failed       when the embedding model last failed to download (rag.embed.choice)
```
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

CATALOG_FILE = "papers.json"
CHROMA_SUBDIR = "chroma"
# Chroma's embedded database and its write-ahead log (when SQLite keeps one), inside CHROMA_SUBDIR.
CHROMA_DB = "chroma.sqlite3"
CHROMA_WAL = "chroma.sqlite3-wal"
LEXICAL_DIR = "lexical"
LOCK_FILE = ".rag.lock"
SEEDING_MARKER = ".seeding"
LLM_CACHE_DIR = "llm-cache"
PDF_CACHE_DIR = "pdf-cache"
CAPABILITIES_FILE = "llm-endpoints.json"
HISTORY_FILE = "history.sqlite"
SNAPSHOTS_DIR = "server-snapshots"
SERVER_PREFIX = "server-"
# Hex digits of the server URL's hash that name its lexical folder.
SERVER_KEY_CHARS = 12


@dataclass(frozen=True)
class DataDir:
    """The paths of one data directory. Nothing here touches the disk except ``library_names``."""

    root: Path

    @property
    def lock(self) -> Path:
        return self.root / LOCK_FILE

    @property
    def seeding(self) -> Path:
        return self.root / SEEDING_MARKER

    @property
    def chroma(self) -> Path:
        return self.root / CHROMA_SUBDIR

    @property
    def chroma_db(self) -> Path:
        return self.chroma / CHROMA_DB

    @property
    def chroma_wal(self) -> Path:
        return self.chroma / CHROMA_WAL

    @property
    def llm_cache(self) -> Path:
        return self.root / LLM_CACHE_DIR

    @property
    def pdf_cache(self) -> Path:
        return self.root / PDF_CACHE_DIR

    @property
    def endpoint_capabilities(self) -> Path:
        return self.root / CAPABILITIES_FILE

    @property
    def vector_cache(self) -> Path:
        """Vectors of texts embedded before (a manuscript's sentences), kept between runs (rag.embed.disk_cache)."""
        return self.root / "vector_cache.sqlite"

    @property
    def judge_cache(self) -> Path:
        """What the citation check's judge read before (sentence, passage pairs), kept between runs."""
        return self.root / "judge_cache.sqlite"

    @property
    def judge_figures(self) -> Path:
        """What `rag eval-support --verify llm` measured of each model as judge (rag.services.judges)."""
        return self.root / "judge_figures.json"

    @property
    def history(self) -> Path:
        return self.root / HISTORY_FILE

    def library(self, name: str) -> Path:
        return self.root / name

    def catalog(self, name: str) -> Path:
        return self.library(name) / CATALOG_FILE

    def lexical(self, name: str) -> Path:
        return self.library(name) / LEXICAL_DIR

    def server_lexical(self, server_url: str, name: str) -> Path:
        """A server library's saved BM25 index: per server, so two servers' libraries of one name never mix."""
        server = hashlib.sha256(server_url.encode()).hexdigest()[:SERVER_KEY_CHARS]
        return self.root / LEXICAL_DIR / f"{SERVER_PREFIX}{server}" / name

    def snapshot(self, name: str) -> Path:
        return self.root / SNAPSHOTS_DIR / f"{name}.json"

    def library_names(self) -> list[str]:
        """The libraries that have a papers file here (embedded mode), by name."""
        return sorted(path.parent.name for path in self.root.glob(f"*/{CATALOG_FILE}"))
