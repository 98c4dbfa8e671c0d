"""Server mode against a real `chroma run` on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, SEEDS, needs_model

from rag import api
from rag.api import SearchRequest
from rag.config import load_settings
from rag.errors import NotFoundError, StoreError

pytestmark = [pytest.mark.server, needs_model]
SERVER_START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = Path(sys.executable).parent / "chroma"
    if not binary.exists():
        pytest.skip("the `chroma` command is not installed beside this Python")
    port = _free_port()
    folder = tmp_path_factory.mktemp("chroma-server")
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [str(binary), "run", "--path", str(folder / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"chroma server did not start: {(folder / 'server.log').read_text()[-500:]}")
            time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=10)
    log.close()


def test_server_bootstraps_searches_and_ingests_idempotently(chroma_url: str) -> None:
    settings = load_settings(chroma_url=chroma_url)
    notices: list[str] = []
    hits = api.search(settings, SearchRequest(HETEROGENEOUS_QUESTION, 3), notify=notices.append).hits
    assert any("bundled corpus" in n for n in notices)
    assert hits and hits[0].dense is not None
    assert len(api.papers(settings).papers) == 39
    report = api.ingest(settings, [SEEDS])
    assert (report.added, report.updated, report.total_papers) == (0, 0, 39)
    paper, lists = api.show(settings, "yang2023holmes")
    assert len(paper.sources) == 2 and len(lists) == 2


def test_server_collections_are_separate(chroma_url: str) -> None:
    settings = load_settings(chroma_url=chroma_url, collection="lab-shared")
    api.ingest(settings, [SEEDS / "002_1079d4b498cf8dd9.txt"])
    assert len(api.papers(settings).papers) == 20


def test_unreachable_server_is_one_clear_error() -> None:
    settings = load_settings(chroma_url=f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(StoreError, match="cannot reach the Chroma server"):
        api.papers(settings)


def test_server_reindex_keeps_a_local_copy_first(chroma_url: str, tmp_path: Path) -> None:
    settings = load_settings(chroma_url=chroma_url, collection="lab-reindex")
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt"])
    notices: list[str] = []
    assert api.reindex(settings, notify=notices.append) == 20
    snapshot = settings.data_dir / "server-snapshots" / "lab-reindex.json"
    assert snapshot.exists() and any(str(snapshot) in n for n in notices)
    assert len(api.papers(settings).papers) == 20


def test_server_library_with_a_second_embedding_model(chroma_url: str) -> None:
    from fake_openai import FakeOpenAI

    base = load_settings(chroma_url=chroma_url, collection="lab-models")
    api.ingest(base, [SEEDS / "002_1079d4b498cf8dd9.txt"])
    with FakeOpenAI() as fake:
        other = load_settings(chroma_url=chroma_url, collection="lab-models", embed_base_url=fake.url, embed_model="e5")
        assert len(api.papers(other).papers) == 20, "the same library, re-embedded for the other model"
        assert fake.embedding_requests


def test_queries_do_not_load_an_unchanged_server_library(chroma_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.store import VectorStore

    settings = load_settings(chroma_url=chroma_url, collection="lab-lazy")
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt"])
    first = api.search(settings, SearchRequest(HETEROGENEOUS_QUESTION, 5)).hits  # saves BM25 for this version
    full_reads: list[int] = []
    original = VectorStore.papers
    monkeypatch.setattr(VectorStore, "papers", lambda self: full_reads.append(1) or original(self))
    again = api.search(settings, SearchRequest(HETEROGENEOUS_QUESTION, 5)).hits
    assert [h.paper.id for h in again] == [h.paper.id for h in first]
    assert [h.paper.title for h in again] == [h.paper.title for h in first]
    assert full_reads == [], "an unchanged library is searched without reading all its papers"
    filtered = api.search(settings, SearchRequest("training", 20, year_min=2023)).hits
    assert filtered and all((h.paper.year or 0) >= 2023 for h in filtered)
    assert full_reads == []
    api.ingest(settings, [SEEDS / "002_1079d4b498cf8dd9.txt"])  # another write: a new version
    full_reads.clear()
    grown = api.search(settings, SearchRequest("mixture of experts training", 5)).hits
    assert full_reads, "a changed library is read once to rebuild its index"
    assert any("002_1079d4b498cf8dd9.txt" in h.paper.lists for h in grown)


def test_server_passages_are_found_and_fetched_by_id(chroma_url: str, tmp_path: Path) -> None:
    from test_fulltext import BODY_ONLY_QUESTION, METHOD_PAGE, RESULTS_PAGE, TITLE, _pdf

    settings = load_settings(chroma_url=chroma_url, collection="lab-fulltext")
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt", tmp_path / "pdfs"])
    for _ in range(2):  # the first query builds and saves the index, the second fetches records by id
        hits = api.search(settings, SearchRequest(BODY_ONLY_QUESTION, 5)).hits
        assert hits[0].paper.title == TITLE and hits[0].passage is not None and hits[0].passage.page == 2
        assert len({h.paper.id for h in hits}) == len(hits)
    listed = [p for p in api.papers(settings).papers if p.title == TITLE]
    assert len(listed) == 1 and [p.page for p in listed[0].passages] == [1, 2, 3]
    _pdf(tmp_path / "pdfs", METHOD_PAGE)
    assert api.ingest(settings, [tmp_path / "pdfs"]).updated == 1
    listed = [p for p in api.papers(settings).papers if p.title == TITLE]
    assert [p.page for p in listed[0].passages] == [1, 2], "the old version's passages are gone from the server"


def test_two_clients_giving_one_citekey_at_once_settle_on_unique_keys(chroma_url: str) -> None:
    from rag.corpus.identity import content_id
    from rag.library import open_library
    from rag.models import Paper

    settings = load_settings(chroma_url=chroma_url, collection="lab-race")

    def twin(text: str) -> Paper:  # same author, year and title: the same citekey stem
        return Paper(content_id(text), text, title="Scheduling GPUs", authors=["Ann Roe"], year=2023, sources=[text])

    api.ingest(settings, [SEEDS / "002_1079d4b498cf8dd9.txt"])
    with (
        open_library(settings) as first,
        open_library(settings) as second,
    ):  # each reads the library before either writes
        kept = first.add([twin("one abstract on gpu scheduling")], []).warnings
        moved = second.add([twin("another abstract on gpu scheduling")], []).warnings
    keys = [p.citekey for p in api.papers(settings).papers]
    assert len(keys) == len(set(keys)) == 22
    assert {"roe2023scheduling", "roe2023schedulingb"} <= set(keys)
    assert kept == [] and len(moved) == 1 and "'roe2023schedulingb'" in moved[0]
    assert api.show(settings, "roe2023schedulingb")[0].text == "another abstract on gpu scheduling"


def test_show_and_remove_by_id_or_citekey_read_only_that_paper(
    chroma_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.manage import remove
    from rag.store import VectorStore

    settings = load_settings(chroma_url=chroma_url, collection="lab-lookup")
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt"])
    full_reads: list[int] = []
    original = VectorStore.papers
    monkeypatch.setattr(VectorStore, "papers", lambda self: full_reads.append(1) or original(self))
    paper, lists = api.show(settings, "yuan2022decentralized")
    assert paper.title and paper.title.startswith("Decentralized Training") and len(lists) == 1
    assert api.show(settings, paper.id)[0].citekey == "yuan2022decentralized"
    assert full_reads == [], "a lookup by citekey or id fetches that paper only"
    by_source = api.show(settings, "000_e22c73655386b99b.txt#8")[0]  # sources need one full read
    assert by_source.citekey == "shi2023tapas" and full_reads == [1]
    with pytest.raises(NotFoundError):
        api.show(settings, "nobody2099nothing")
    assert [p.citekey for p in remove(settings, ["yuan2022decentralized"])] == ["yuan2022decentralized"]
    with pytest.raises(NotFoundError):
        api.show(settings, "yuan2022decentralized")
