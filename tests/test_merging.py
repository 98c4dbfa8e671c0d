"""Merged records stay whole: where a work appeared (venue, volume, issue, pages, publisher, type) comes from one
record, the published version; editions and reprints of other years stay apart; the merge line names the lead."""

from __future__ import annotations

import json
from pathlib import Path

from rag.config import load_settings
from rag.corpus.merging import Merge, merged_line
from rag.formats import csl_item, where_published
from rag.records import Paper
from rag.services import Context
from rag.services import ingest as ingest_service
from rag.services.read import papers as list_papers

TITLE = "Emergence of Language with Multi-agent Games: Learning to Communicate with Sequences of Symbols"
ABSTRACT = "Learning to communicate through interaction, rather than relying on explicit supervision, is often seen."
# Zotero's arXiv item (a journal article in "arXiv:ID [cs]") and the NeurIPS item of the same paper.
HAVRYLOV = f"""@article{{havrylov_emergence_2017,
  title = {{{TITLE}}},
  author = {{Havrylov, Serhii and Titov, Ivan}},
  journal = {{arXiv:1705.11192 [cs]}},
  year = {{2017}},
  abstract = {{{ABSTRACT}}}
}}

@inproceedings{{havrylov_emergence_2017-1,
  title = {{{TITLE}}},
  author = {{Havrylov, Serhii and Titov, Ivan}},
  booktitle = {{Advances in Neural Information Processing Systems}},
  volume = {{30}},
  pages = {{2146--2156}},
  publisher = {{Curran Associates, Inc.}},
  year = {{2017}}
}}
"""
REPRINT = """@book{hockett_origin_1960,
  title = {The Origin of Speech and the Design of Language},
  author = {Hockett, Charles F.},
  publisher = {Wiley},
  year = {1959}
}

@book{hockett_origin_1960b,
  title = {The Origin of Speech and the Design of Language},
  author = {Hockett, Charles F.},
  publisher = {Dover},
  year = {1997}
}
"""


def _ingest(tmp_path: Path, name: str, text: str) -> tuple[list[Paper], list[str]]:
    (tmp_path / name).write_text(text, encoding="utf-8")
    notices: list[str] = []
    context = Context(load_settings(collection="merging", embed_model="none"), notify=notices.append)
    ingest_service.ingest(context, [tmp_path / name])
    return list_papers(context).papers, notices


def test_a_merged_paper_cites_one_record_the_published_version_whole(tmp_path: Path) -> None:
    (paper,), notices = _ingest(tmp_path, "thesis.bib", HAVRYLOV)
    assert paper.citekey == "havrylov_emergence_2017" and paper.text == ABSTRACT, "the record with the abstract"
    assert (paper.venue, paper.volume, paper.pages, paper.publisher, paper.item_type) == (
        "Advances in Neural Information Processing Systems",
        "30",
        "2146-2156",
        "Curran Associates, Inc.",
        "paper-conference",
    )
    assert "arXiv" not in (where_published(paper) or "")
    item = csl_item(paper)
    assert (
        item["container-title"] == "Advances in Neural Information Processing Systems" and item["page"] == "2146-2156"
    )
    line = next(n for n in notices if "merged" in n)
    assert "havrylov_emergence_2017-1 -> havrylov_emergence_2017 (details from havrylov_emergence_2017-1)" in line


def test_the_other_order_gives_the_same_paper(tmp_path: Path) -> None:
    first, second = HAVRYLOV.split("\n\n")
    (paper,), _ = _ingest(tmp_path, "thesis.bib", f"{second}\n\n{first}")
    assert (paper.venue, paper.pages, paper.text) == (
        "Advances in Neural Information Processing Systems",
        "2146-2156",
        ABSTRACT,
    )


def test_a_preprint_alone_keeps_its_own_listing(tmp_path: Path) -> None:
    (paper,), _ = _ingest(tmp_path, "one.bib", HAVRYLOV.split("\n\n")[0])
    assert paper.venue == "arXiv:1705.11192 [cs]"


def test_a_reprint_of_another_year_stays_apart(tmp_path: Path) -> None:
    papers, notices = _ingest(tmp_path, "books.bib", REPRINT)
    assert sorted((p.year, p.publisher, p.citekey) for p in papers) == [
        (1959, "Wiley", "hockett_origin_1960"),
        (1997, "Dover", "hockett_origin_1960b"),
    ]
    assert not any("merged" in n for n in notices)
    again, _ = _ingest(tmp_path, "books.bib", REPRINT)
    assert sorted(p.id for p in again) == sorted(p.id for p in papers), "read again: the same two papers"


def test_a_reprint_read_after_its_original_stays_apart_and_an_edited_year_is_an_edit(tmp_path: Path) -> None:
    original, reprint = REPRINT.split("\n\n")
    _ingest(tmp_path, "original.bib", original)
    papers, _ = _ingest(tmp_path, "reprint.bib", reprint)
    assert sorted(p.year for p in papers if p.year) == [1959, 1997]
    edited, _ = _ingest(tmp_path, "original.bib", original.replace("1959", "1960"))
    assert sorted(p.year for p in edited if p.year) == [1960, 1997], "the same entry read again: its year changed"


def test_editions_sharing_an_abstract_stay_apart_but_a_preprint_and_its_version_merge(tmp_path: Path) -> None:
    items = [
        {"id": "ed1", "type": "book", "title": "Clusters", "issued": {"date-parts": [[2001]]}, "abstract": ABSTRACT},
        {"id": "ed2", "type": "book", "title": "Clusters", "issued": {"date-parts": [[2011]]}, "abstract": ABSTRACT},
        {
            "id": "pre",
            "type": "article",
            "title": TITLE,
            "issued": {"date-parts": [[2016]]},
            "number": "arXiv:1705.11192",
            "abstract": "A preprint abstract.",
        },
        {
            "id": "pub",
            "type": "paper-conference",
            "title": TITLE,
            "issued": {"date-parts": [[2017]]},
            "URL": "https://arxiv.org/abs/1705.11192",
            "container-title": "NeurIPS",
            "abstract": "A preprint abstract.",
        },
    ]
    papers, _ = _ingest(tmp_path, "items.json", json.dumps(items))
    keys = sorted(p.citekey for p in papers)
    assert keys == ["ed1", "ed2", "pre"], keys
    merged = next(p for p in papers if p.citekey == "pre")
    assert merged.aliases == ["pub"] and merged.venue == "NeurIPS", "the same arXiv id: one work, its published venue"


LONG_ABSTRACT = (
    "Motoric cognitive risk syndrome combines slow gait with subjective cognitive complaints. We pooled 22 cohorts "
    "of adults aged 60 years and older from 17 countries. Pooled prevalence of MCR was found to be 10% (95% CI "
    "8%-12%), and it predicted incident dementia over five years of follow-up in the participants' own words."
)


def test_one_abstract_under_two_keys_is_one_paper(tmp_path: Path) -> None:
    """A preprint and its journal version (other key, title and year), its abstract exported with curly quotes
    and an en dash: one paper, one voice, both keys resolving."""
    curly = LONG_ABSTRACT.replace("participants'", "participants’").replace("8%-12%", "8%–12%")
    bib = f"""@article{{verghese2014,
  title = {{Motoric cognitive risk syndrome: prevalence in 17 countries}},
  author = {{Verghese, Joe}}, year = {{2014}}, journal = {{Neurology}},
  abstract = {{{LONG_ABSTRACT}}}
}}

@article{{verghese2013preprint,
  title = {{Prevalence of MCR across the world}},
  author = {{Verghese, Joe}}, year = {{2013}},
  abstract = {{{curly}}}
}}

@article{{other2014,
  title = {{Gait speed in older adults}},
  author = {{Other, Ann}}, year = {{2014}},
  abstract = {{{LONG_ABSTRACT.replace("10%", "12%")}}}
}}
"""
    papers, _ = _ingest(tmp_path, "refs.bib", bib)
    assert len(papers) == 2  # a changed number is another paper's abstract
    merged = next(p for p in papers if "verghese2014" in p.keys)
    assert set(merged.keys) >= {"verghese2014", "verghese2013preprint"}


def test_a_key_merged_twice_is_named_once_with_where_it_ended() -> None:
    """ryali-2 merged into its file's duplicate ryali-1, then both into the library's ryali: one line each, and
    the count is of entries, not of merges."""
    first = Paper(id="p1", text="Sparse logistic regression.", citekey="ryali_sparse_2010-1")
    kept = Paper(id="p2", text="Sparse logistic regression for fMRI.", citekey="ryali_sparse_2010")
    merges = [Merge(first, ("ryali_sparse_2010-2",)), Merge(kept, ("ryali_sparse_2010-1", "ryali_sparse_2010-2"))]
    assert merged_line(merges, 5) == (
        "2 duplicate entries merged: ryali_sparse_2010-2 -> ryali_sparse_2010, ryali_sparse_2010-1 -> "
        "ryali_sparse_2010 (each key still finds its paper)"
    )
