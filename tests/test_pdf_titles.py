"""PDF titles and authors: metadata that names no work is passed over for the first page's title block,
and a Zotero storage name ("Author - Year - Title.pdf") confirms a title or stands in for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdf_fixture import write_pdf

from rag.corpus import from_file_name, is_junk_title, parse_pdf

BODY = ["Ada Lovelace and Charles Babbage", "Abstract", "We study engines that compute numbers.", "Introduction"]
BLOCK = ["Notes on the Analytical", "Engine and its Programs"]
TITLE = "Notes on the Analytical Engine and its Programs"


@pytest.mark.parametrize(
    "metadata",
    [
        "untitled",
        "Untitled-3",
        "https://www.example.org/paper.pdf",
        "Microsoft Word - draft_v3.docx",
        "418578_1_En_BookFrontmatter 1..11",
        "Front Matter",
        "Journal of Computing Machinery, Vol. 3",
    ],
)
def test_metadata_that_names_no_work_gives_way_to_the_title_block(tmp_path: Path, metadata: str) -> None:
    paper = parse_pdf(write_pdf(tmp_path / "x.pdf", BODY, metadata, big_lines=BLOCK), "x.pdf")
    assert paper.title == TITLE
    assert paper.authors == ["Ada Lovelace", "Charles Babbage"]


def test_good_metadata_is_kept(tmp_path: Path) -> None:
    paper = parse_pdf(write_pdf(tmp_path / "x.pdf", BODY, "Sketch of the Engine", big_lines=BLOCK), "x.pdf")
    assert paper.title == "Sketch of the Engine"


def test_a_running_header_is_no_title(tmp_path: Path) -> None:
    header = "Annals of Engines 12"
    pages = [[f"Annals of Engines {n}", f"Text of page {n} is long enough to be prose of a page."] for n in (2, 3, 4)]
    pdf = write_pdf(tmp_path / "x.pdf", [header, *BODY], "Annals of Engines 12", pages, big_lines=BLOCK)
    assert parse_pdf(pdf, "x.pdf").title == TITLE


def test_the_zotero_file_name_confirms_the_title_and_gives_the_year(tmp_path: Path) -> None:
    name = "Lovelace and Babbage - 1843 - Notes on the Analytical Engine and its Pr.pdf"
    paper = parse_pdf(write_pdf(tmp_path / name, BODY, "untitled", big_lines=BLOCK), name)
    assert (paper.title, paper.year) == (TITLE, 1843)


def test_the_zotero_file_name_stands_in_for_a_title_found_nowhere(tmp_path: Path) -> None:
    name = "Kubat et al. - 2017 - An Introduction to Machine Learning.pdf"
    lines = ["Springer Texts in Statistics", "Series Editors", "Abstract", "We teach machine learning."]
    paper = parse_pdf(write_pdf(tmp_path / name, lines, big_lines=["Springer Texts in Statistics"]), name)
    assert (paper.title, paper.authors, paper.year) == ("An Introduction to Machine Learning", ["Kubat"], 2017)


def test_a_shortened_file_name_title_is_completed_from_the_page(tmp_path: Path) -> None:
    name = "Benachour et al. - 2014 - Locally optimal controllers and globally inverse o.pdf"
    lines = ["arXiv:1502.03415v1  [math.OC]  11 Feb 2015", "Locally optimal controllers and globally"]
    lines += ["inverse optimal controllers", "Abstract", "We study controllers."]
    paper = parse_pdf(write_pdf(tmp_path / name, lines), name)
    assert paper.title == "Locally optimal controllers and globally inverse optimal controllers"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "Kubat - 2017 - An Introduction to Machine Learning.pdf",
            (["Kubat"], 2017, "An Introduction to Machine Learning"),
        ),
        (
            "Shiromoto and Manchester - 2016 - Decentralized nonlinear.pdf",
            (["Shiromoto", "Manchester"], 2016, "Decentralized nonlinear"),
        ),
        ("Feketa et al. - 2017 - Almost ISS property.pdf", (["Feketa"], 2017, "Almost ISS property")),
        ("paper-final-v2.pdf", None),
    ],
)
def test_zotero_file_names(name: str, expected: object) -> None:
    assert from_file_name(name) == expected


def test_real_titles_are_not_junk() -> None:
    titles = ["Almost ISS property for feedback connected systems", "An Introduction to Statistical Learning"]
    assert not any(is_junk_title(title) for title in titles)
