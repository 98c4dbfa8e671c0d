"""Server mode against a real `chroma run` on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, SEEDS, needs_model
from watched_backends import CountingServer

from rag.config import load_settings
from rag.errors import NotFoundError, StoreError
from rag.services import Context, SearchRequest
from rag.services import ingest as ingest_service
from rag.services import read as read_service

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
    hits = read_service.search(Context(settings, notify=notices.append), SearchRequest(HETEROGENEOUS_QUESTION, 3)).hits
    assert any("bundled corpus" in n for n in notices)
    assert hits and hits[0].dense is not None
    assert len(read_service.papers(Context(settings)).papers) == 39
    report = ingest_service.ingest(Context(settings), [SEEDS])
    assert (report.added, report.updated, report.total_papers) == (0, 0, 39)
    view = read_service.show(Context(settings), "yang2023holmes")
    paper, lists = view.paper, view.lists
    assert len(paper.sources) == 2 and len(lists) == 2


def test_server_collections_are_separate(chroma_url: str) -> None:
    settings = load_settings(chroma_url=chroma_url, collection="lab-shared")
    ingest_service.ingest(Context(settings), [SEEDS / "002_1079d4b498cf8dd9.txt"])
    assert len(read_service.papers(Context(settings)).papers) == 20


def test_unreachable_server_is_one_clear_error() -> None:
    settings = load_settings(chroma_url=f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(StoreError, match="cannot reach the Chroma server"):
        read_service.papers(Context(settings))


def test_server_reindex_keeps_a_local_copy_first(chroma_url: str, tmp_path: Path) -> None:
    settings = load_settings(chroma_url=chroma_url, collection="lab-reindex")
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt"])
    notices: list[str] = []
    assert ingest_service.reindex(Context(settings, notify=notices.append)).papers == 20
    snapshot = settings.data_dir / "server-snapshots" / "lab-reindex.json"
    assert snapshot.exists() and any(str(snapshot) in n for n in notices)
    assert len(read_service.papers(Context(settings)).papers) == 20


def test_server_library_with_a_second_embedding_model(chroma_url: str) -> None:
    from fake_openai import FakeOpenAI

    base = load_settings(chroma_url=chroma_url, collection="lab-models")
    ingest_service.ingest(Context(base), [SEEDS / "002_1079d4b498cf8dd9.txt"])
    with FakeOpenAI() as fake:
        other = load_settings(chroma_url=chroma_url, collection="lab-models", embed_base_url=fake.url, embed_model="e5")
        assert len(read_service.papers(Context(other)).papers) == 20, (
            "the same library, re-embedded for the other model"
        )
        assert fake.embedding_requests


def test_queries_do_not_load_an_unchanged_server_library(chroma_url: str) -> None:
    settings = load_settings(chroma_url=chroma_url, collection="lab-lazy")
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt"])
    first = read_service.search(
        Context(settings), SearchRequest(HETEROGENEOUS_QUESTION, 5)
    ).hits  # saves BM25 for this version
    watched = CountingServer(settings)
    full_reads, watching = watched.full_reads, partial(Context, settings, backend=watched)
    again = read_service.search(watching(), SearchRequest(HETEROGENEOUS_QUESTION, 5)).hits
    assert [h.paper.id for h in again] == [h.paper.id for h in first]
    assert [h.paper.title for h in again] == [h.paper.title for h in first]
    assert full_reads == [], "an unchanged library is searched without reading all its papers"
    filtered = read_service.search(watching(), SearchRequest("training", 20, year_min=2023)).hits
    assert filtered and all((h.paper.year or 0) >= 2023 for h in filtered)
    assert full_reads == []
    ingest_service.ingest(Context(settings), [SEEDS / "002_1079d4b498cf8dd9.txt"])  # another write: a new version
    full_reads.clear()
    grown = read_service.search(watching(), SearchRequest("mixture of experts training", 5)).hits
    assert full_reads, "a changed library is read once to rebuild its index"
    assert any("002_1079d4b498cf8dd9.txt" in h.paper.lists for h in grown)


def test_server_passages_are_found_and_fetched_by_id(chroma_url: str, tmp_path: Path) -> None:
    from test_fulltext import BODY_ONLY_QUESTION, METHOD_PAGE, RESULTS_PAGE, TITLE, _pdf

    settings = load_settings(chroma_url=chroma_url, collection="lab-fulltext")
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt", tmp_path / "pdfs"])
    for _ in range(2):  # the first query builds and saves the index, the second fetches records by id
        hits = read_service.search(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 5)).hits
        assert hits[0].paper.title == TITLE and hits[0].passage is not None and hits[0].passage.page == 2
        assert len({h.paper.id for h in hits}) == len(hits)
    listed = [p for p in read_service.papers(Context(settings)).papers if p.title == TITLE]
    assert len(listed) == 1 and [p.page for p in listed[0].passages] == [1, 2, 3]
    _pdf(tmp_path / "pdfs", METHOD_PAGE)
    assert ingest_service.ingest(Context(settings), [tmp_path / "pdfs"]).updated == 1
    listed = [p for p in read_service.papers(Context(settings)).papers if p.title == TITLE]
    assert [p.page for p in listed[0].passages] == [1, 2], "the old version's passages are gone from the server"


def test_two_clients_giving_one_citekey_at_once_settle_on_unique_keys(chroma_url: str) -> None:
    from rag.corpus import content_id
    from rag.records import Paper

    settings = load_settings(chroma_url=chroma_url, collection="lab-race")

    def twin(text: str) -> Paper:  # same author, year and title: the same citekey stem
        return Paper(content_id(text), text, title="Scheduling GPUs", authors=["Ann Roe"], year=2023, sources=[text])

    ingest_service.ingest(Context(settings), [SEEDS / "002_1079d4b498cf8dd9.txt"])
    with (
        Context(settings).reader() as first,
        Context(settings).reader() as second,
    ):
        assert len(first.catalog.papers) == len(second.catalog.papers) == 20  # each reads before either writes
        kept = first.add([twin("one abstract on gpu scheduling")], []).warnings
        moved = second.add([twin("another abstract on gpu scheduling")], []).warnings
    keys = [p.citekey for p in read_service.papers(Context(settings)).papers]
    assert len(keys) == len(set(keys)) == 22
    assert {"roe2023scheduling", "roe2023schedulingb"} <= set(keys)
    assert kept == [] and len(moved) == 1 and "'roe2023schedulingb'" in moved[0]
    assert read_service.show(Context(settings), "roe2023schedulingb").paper.text == "another abstract on gpu scheduling"


def test_show_and_remove_by_id_or_citekey_read_only_that_paper(
    chroma_url: str,
) -> None:
    from rag.services import remove

    settings = load_settings(chroma_url=chroma_url, collection="lab-lookup")
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt"])
    watched = CountingServer(settings)
    full_reads, watching = watched.full_reads, partial(Context, settings, backend=watched)
    view = read_service.show(watching(), "yuan2022decentralized")
    paper, lists = view.paper, view.lists
    assert paper.title and paper.title.startswith("Decentralized Training") and len(lists) == 1
    assert read_service.show(watching(), paper.id).paper.citekey == "yuan2022decentralized"
    assert full_reads == [], "a lookup by citekey or id fetches that paper only"
    by_source = read_service.show(watching(), "000_e22c73655386b99b.txt#8").paper  # sources need one full read
    assert by_source.citekey == "shi2023tapas" and full_reads == [1]
    with pytest.raises(NotFoundError):
        read_service.show(watching(), "nobody2099nothing")
    assert [p.citekey for p in remove(Context(settings), ["yuan2022decentralized"]).removed] == [
        "yuan2022decentralized"
    ]
    with pytest.raises(NotFoundError):
        read_service.show(watching(), "yuan2022decentralized")


def test_an_alias_finds_its_paper_on_a_server_without_reading_the_library(chroma_url: str, tmp_path: Path) -> None:
    bib = tmp_path / "zotero.bib"
    entry = "title = {Emergent Language Generalization and Acquisition Speed}, abstract = {Agents talk.}"
    bib.write_text(f"@misc{{kharitonov_emergent_2020, {entry}}}\n@misc{{kharitonov_emergent_2020-1, {entry}}}\n")
    settings = load_settings(chroma_url=chroma_url, collection="lab-aliases")
    ingest_service.ingest(Context(settings), [bib])
    watched = CountingServer(settings)
    full_reads, watching = watched.full_reads, partial(Context, settings, backend=watched)
    paper = read_service.show(watching(), "kharitonov_emergent_2020-1").paper
    assert paper.citekey == "kharitonov_emergent_2020" and paper.aliases == ["kharitonov_emergent_2020-1"]
    assert full_reads == [], "the alias is found by a filter on the server, not by reading every paper"
