"""What goes out comes back: a library through every export format and back, into itself (nothing changes) and
into a fresh library (the same papers: ids, keys and aliases, abstracts, collections, item types, details)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from zotero_fixture import ZoteroFixture

from rag.cli import app
from rag.config import load_settings
from rag.formats import BIBLIOGRAPHIES
from rag.records import Paper
from rag.services import Context, manage
from rag.services import ingest as ingest_service
from rag.services.read import papers as list_papers

runner = CliRunner()
REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real"
ENDINGS = {"bibtex": ".bib", "csljson": ".json", "jsonl": ".jsonl"}
# Where a paper was read belongs to the library reading it; CSL JSON leaves out the user's own BibTeX entry.
NOT_COPIED = {"sources", "lists", "passages"}
LEFT_OUT = {"csljson": {"bibtex"}}

BIB = r"""@inproceedings{roe2021sparse,
  title = {Sparse Experts on Small {GPUs}},
  author = {Roe, Ann and van der Berg, Jr., Jan},
  booktitle = {Proceedings of SysConf},
  year = {2021},
  doi = {10.1000/sparse},
  abstract = {We route tokens to experts that fit in memory: $\beta$-routing cuts costs by 40\%.}
}

@article{roe2021sparse-1,
  title = {Sparse experts on small GPUs},
  author = {Roe, Ann},
  journal = {Journal of Systems},
  volume = {12},
  number = {3},
  pages = {101--119},
  year = {2021},
  doi = {10.1000/SPARSE}
}

@book{poe1959clusters,
  title = {A Book of Clusters and Their Schedules},
  author = {Poe, Bo},
  publisher = {Wiley},
  year = {1959}
}
"""
CSL = [
    {
        "id": "who2019guidelines",
        "type": "manuscript",
        "title": "Guidelines for Training on Mixed Clusters",
        "author": [{"literal": "World Health Organization"}],
        "issued": {"date-parts": [[2019]]},
        "abstract": "Mixed clusters need <i>careful</i> placement &amp; fair queues.",
        "URL": "https://example.org/who",
    },
    {
        "id": "kim2020pipes",
        "type": "article-magazine",
        "title": "Pipes for Long Contexts",
        "author": [{"family": "Kim", "given": "Lee", "suffix": "Jr."}],
        "issued": {"date-parts": [[2020]]},
        "container-title": "Systems Monthly",
        "issue": "7",
        "abstract": "Long sequences are cut into chunks and piped through stages.",
    },
]


def _library(folder: Path) -> list[Path]:
    """A Zotero library with collections, a .bib with a merged duplicate (an alias) and a title-only book, and
    CSL JSON with types and names BibTeX and CSL say differently."""
    zotero = ZoteroFixture(folder / "Zotero")
    item = zotero.item(
        "ZOT00001",
        "conferencePaper",
        [("Mia", "Cho")],
        title="Scheduling Mixture of Experts Across Heterogeneous GPUs",
        abstractNote="We place experts on GPUs of different speeds {and} balance their load.",
        date="2022-05-01",
        proceedingsTitle="Proceedings of HetConf",
        pages="5-9",
        citationKey="cho2022scheduling",
    )
    body = [
        "Scheduling Mixture of Experts Across Heterogeneous GPUs",
        "Abstract",
        "We place experts on GPUs.",
        "1 Introduction",
    ]
    zotero.pdf(
        item, "PDF00001", [*body, *(f"Experts on slow GPUs wait for the fast ones, case {n}." for n in range(60))]
    )
    systems = zotero.collection("Systems", None, item)
    zotero.collection("GPUs", systems, item)
    zotero.close()
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    (folder / "items.json").write_text(json.dumps(CSL), encoding="utf-8")
    return [folder / "Zotero", folder / "refs.bib", folder / "items.json"]


def _context(collection: str) -> Context:
    return Context(load_settings(collection=collection, embed_model="none"))


def _held(papers: list[Paper], left_out: Collection[str] = ()) -> dict[str, dict[str, Any]]:
    return {p.id: {k: v for k, v in p.to_dict().items() if k not in left_out} for p in papers}


def _ingested(sources: list[Path], full_text: bool = True) -> Context:
    library = _context("original")
    ingest_service.ingest(library, sources, full_text=full_text)
    return library


def _round_trip(original: Context, folder: Path) -> None:
    """Export the library in each format, read the export into it (nothing changes) and into a fresh library
    (the same papers)."""
    before = list_papers(original).papers
    for name, ending in ENDINGS.items():
        export = folder / f"library{ending}"
        export.write_text(manage.export(original, name), encoding="utf-8")
        again = ingest_service.ingest(original, [export])
        assert (again.added, again.updated, again.unchanged) == (0, 0, len(before)), name
        assert _held(list_papers(original).papers) == _held(before), f"{name}: the library is as it was"
        fresh = _context(f"fresh-{name}")
        ingest_service.ingest(fresh, [export])
        left_out = NOT_COPIED | LEFT_OUT.get(name, set())
        assert _held(list_papers(fresh).papers, left_out) == _held(before, left_out), name
        settled = ingest_service.ingest(fresh, [export])
        assert (settled.added, settled.updated, settled.unchanged) == (0, 0, len(before)), f"{name}: read back too"


def test_a_library_goes_out_in_every_format_and_comes_back_whole(tmp_path: Path) -> None:
    assert ENDINGS.keys() == BIBLIOGRAPHIES.keys(), "every export format"
    original = _ingested(_library(tmp_path))
    before = {p.citekey: p for p in list_papers(original).papers}
    assert before["roe2021sparse"].aliases == ["roe2021sparse-1"] and before["poe1959clusters"].no_abstract
    assert before["cho2022scheduling"].collections == ["Systems", "Systems/GPUs"]
    assert before["cho2022scheduling"].passages, "its PDF's passages, which stay with the paper read back"
    _round_trip(original, tmp_path)


def test_the_cli_says_nothing_changed_and_the_exports_hold_what_the_format_cannot(tmp_path: Path) -> None:
    sources = _library(tmp_path)
    lexical = {"RAG_EMBED_MODEL": "none"}
    assert runner.invoke(app, ["--collection", "mine", "ingest", *map(str, sources)], env=lexical).exit_code == 0
    for name, ending in ENDINGS.items():
        export = tmp_path / f"out{ending}"
        exported = runner.invoke(
            app, ["--collection", "mine", "export", "--format", name, "-o", str(export)], env=lexical
        )
        assert exported.exit_code == 0, exported.stderr
        again = runner.invoke(app, ["--collection", "mine", "ingest", str(export)], env=lexical)
        assert "0 added, 0 updated, 5 unchanged" in again.stdout, again.stdout + again.stderr
    items = {item["id"]: item for item in json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))}
    assert items["roe2021sparse"]["custom"]["rag"]["aliases"] == ["roe2021sparse-1"]
    assert items["cho2022scheduling"]["custom"]["rag"]["collections"] == ["Systems", "Systems/GPUs"]
    assert "bibtex" not in items["roe2021sparse"]["custom"]["rag"], "the user's entry stays out of CSL JSON"
    bib = (tmp_path / "out.bib").read_text(encoding="utf-8")
    cho = bib[bib.index("@inproceedings{cho2022scheduling") :].split("\n}\n")[0]
    assert "abstract = {We place experts on GPUs" in cho and "booktitle = {Proceedings of HetConf}" in cho
    roe = bib[bib.index("@inproceedings{roe2021sparse") :].split("\n}\n")[0]
    assert "ids = {roe2021sparse-1}" in roe and "$\\beta$-routing" in roe, "the user's own entry, with its alias"
    assert re.search(r'^@comment\{rag: \{"id":"p[0-9a-f]{12}","key":"roe2021sparse"', bib, re.M)


def test_biblatex_ids_of_any_bib_file_are_aliases(tmp_path: Path) -> None:
    (tmp_path / "mine.bib").write_text("@article{new2020, ids = {old2019, older}, title = {Pipes for Long Contexts}}\n")
    library = _context("mine")
    ingest_service.ingest(library, [tmp_path / "mine.bib"])
    (paper,) = list_papers(library).papers
    assert paper.keys == ["new2020", "old2019", "older"]


def _edit_export(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_edited_export_updates_its_paper_and_a_broken_record_is_one_warning(tmp_path: Path) -> None:
    sources = _library(tmp_path)
    library = _context("mine")
    ingest_service.ingest(library, sources)
    export = tmp_path / "edited.bib"
    export.write_text(manage.export(library, "bibtex"), encoding="utf-8")
    _edit_export(export, "title = {{Guidelines for Training on Mixed Clusters}}", "title = {{Guidelines, Revised}}")
    edited = ingest_service.ingest(library, [export])
    assert (edited.added, edited.updated) == (0, 1)
    who = next(p for p in list_papers(library).papers if p.citekey == "who2019guidelines")
    assert who.title == "Guidelines, Revised" and "edited.bib#who2019guidelines" in who.sources
    csl = tmp_path / "broken.json"
    items = json.loads(manage.export(library, "csljson"))
    items[0]["custom"]["rag"]["aliases"] = 7
    items[1]["custom"]["rag"]["id"] = "not-an-id"
    csl.write_text(json.dumps(items), encoding="utf-8")
    notices: list[str] = []
    broken = ingest_service.ingest(Context(library.settings, notify=notices.append), [csl])
    assert broken.added == 0 and broken.total_papers == 5
    assert any("broken.json:item 1: rag's record of this entry has unusable aliases" in w for w in broken.warnings)
    assert any("broken.json:item 2: rag's record of this entry names no paper id" in w for w in broken.warnings)


def test_a_damaged_bibtex_record_leaves_an_ordinary_entry(tmp_path: Path) -> None:
    sources = _library(tmp_path)
    library = _context("mine")
    ingest_service.ingest(library, sources)
    export = tmp_path / "damaged.bib"
    export.write_text(manage.export(library, "bibtex").replace('@comment{rag: {"id"', '@comment{rag: {"id" ]', 1))
    read = ingest_service.ingest(library, [export])
    assert read.added == 0 and read.total_papers == 5, "read as an entry of a paper already there, not a new one"


REAL_FILES = [
    "zotero/hsteinshiromoto__bibliography/zotero.sqlite",
    "manuscripts/chrisjbillington__thesis/zotero.bib",
    "csl-json/danjustice2__Dan-Justice-s-Thesis/My Library.json",
]


@pytest.mark.skipif(not REAL.is_dir(), reason=f"no real reference-manager files at {REAL}")
@pytest.mark.parametrize("path", REAL_FILES)
def test_real_libraries_come_back_whole(tmp_path: Path, path: str) -> None:
    """A Zotero library with collections (its PDFs left unread: parsing them takes 20 s), a thesis's .bib with
    merged duplicates, a Better CSL JSON file."""
    source = REAL / path
    _round_trip(_ingested([source.parent if source.name == "zotero.sqlite" else source], full_text=False), tmp_path)
