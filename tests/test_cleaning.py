"""Text cleaned at ingest: each kind of PDF and export debris, made up small, and what must stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdf_fixture import write_pdf

from rag.corpus import (
    clean_prose,
    clean_title,
    is_heading_line,
    join_broken_words,
    load_paths,
    parse_pdf,
    strip_copyright,
    strip_furniture,
)


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("Users get a noti\ufb01cation when \ufb02ows stop.", "Users get a notification when flows stop."),
        ("soft\u00adware and zero\u200bwidth", "software and zerowidth"),
        ("at the Universit\u00b4e de Lyon", "at the Université de Lyon"),
        ("children\x92s grammar", "children’s grammar"),  # Windows-1252 quote read as Latin-1
        ("the 10\u2076 cells and x\u00b2 grew\u2026", "the 10\u2076 cells and x\u00b2 grew\u2026"),  # not NFKC
    ],
)
def test_unicode_debris_is_repaired_and_meaningful_symbols_stay(dirty: str, clean: str) -> None:
    assert clean_prose(dirty) == clean


def test_words_broken_at_a_line_end_are_joined_and_real_hyphens_kept() -> None:
    text = "the communi- cation of fine- grained and attention- driven models for intra- and cross-dataset tests"
    assert join_broken_words(text) == (
        "the communication of fine-grained and attention-driven models for intra- and cross-dataset tests"
    )
    # Run into one line, "x- y" is as often a dash typed as a hyphen: an unknown pair stays as written.
    for dash in ("three sources- actual speech", "OpenFluor- an online library", "the sys- tems we built"):
        assert join_broken_words(dash) == dash
    # With the line end still there the break is known: an unknown word is joined.
    assert join_broken_words("the sys-\ntems we built", at_line_ends=True) == "the systems we built"
    # The document's own spelling decides first.
    assert join_broken_words("a state- ful design, stateful or not") == "a stateful design, stateful or not"
    assert join_broken_words("a multi- agent and multi-agent system") == "a multi-agent and multi-agent system"


def test_a_line_end_hyphen_left_inside_a_word_is_removed_and_compounds_kept() -> None:
    """The line end gone with no space ("probabil-ity", as a PDF's copied abstract has it): a second part that
    is a suffix and never a word of its own is joined; a compound whose second part is a word stays."""
    text = "a higher probabil-ity of discipline and the effective-ness of a non-linear regulari-zation"
    assert join_broken_words(text) == (
        "a higher probability of discipline and the effectiveness of a non-linear regulari-zation"
    )
    kept = "well-being, cross-sectional co-mention and inter-session effects of T-cell X-ray Dunning-Kruger"
    assert join_broken_words(kept) == kept


def test_line_numbers_run_into_a_sentence_are_removed() -> None:
    numbered = (
        "Agents that learn communication 7 game theory with many agents in a large 8 the effects of this on "
        "the 9 outcome of the trial and in 10 many other settings we study."
    )
    assert clean_prose(numbered) == (
        "Agents that learn communication game theory with many agents in a large the effects of this on "
        "the outcome of the trial and in many other settings we study."
    )


@pytest.mark.parametrize(
    "text",
    [
        "Experiment 1 found it. Experiment 2 did not. Experiment 3 found it again. Experiment 4 was a control.",
        "Rated as 1 = never, 2 = rarely, 3 = sometimes, 4 = often by each of the 120 children in 3 schools.",
        "Of 12 patients, 3 relapsed within 4 weeks and 5 within a year of the 6 month follow-up.",
    ],
)
def test_numbers_that_belong_to_the_text_stay(text: str) -> None:
    assert clean_prose(text) == text


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("Results were good. © 2013 Elsevier B.V. All rights reserved.", "Results were good."),
        ("It works. Copyright © 2021, AAAI (www.aaai.org). All rights reserved", "It works."),
        ("© 2020 Elsevier Ltd. All rights reserved. Background: we did it.", "Background: we did it."),
        ("The effect is small (PsycINFO Database Record (c) 2012 APA, all rights reserved)", "The effect is small"),
        ("Seen in trials. [ABSTRACT FROM AUTHOR] Copyright of Nature is the property of X.", "Seen in trials."),
    ],
)
def test_copyright_notices_are_removed(dirty: str, clean: str) -> None:
    assert strip_copyright(dirty) == clean


def test_a_text_about_copyright_is_not_a_notice() -> None:
    text = "The Copyright Laws of the United States recognize fair use of copyrighted content in teaching."
    assert clean_prose(text) == text


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        (  # Embase: funding and keywords run on after the last sentence
            "We found X in 40 patients. It was large. Supported By: EU Horizon 2020 No 667302 Keywords: ADHD, ML",
            "We found X in 40 patients. It was large.",
        ),
        (
            "Mortality fell with FIT. Trial Registration: ClinicalTrials.gov Identifier: NCT01741363.",
            "Mortality fell with FIT.",
        ),
        (  # PubMed: a registration between two sections of the abstract's own
            "BACKGROUND: X is common. METHODS: We did Y. TRIAL REGISTRATION: NCT123. RESULTS: Z fell. CONCLUSIONS: Z.",
            "BACKGROUND: X is common. METHODS: We did Y. RESULTS: Z fell. CONCLUSIONS: Z.",
        ),
        ("It works. FUNDING: Gates Foundation. TRIAL REGISTRATION: RIDIE-ID-5de0.", "It works."),
        ("The model fits well. Keywords: copula; wildfire. Abstrak Model copula merupakan", "The model fits well."),
        ("Abstract. The deep sea is the largest biome.", "The deep sea is the largest biome."),  # the page's word
        ("Abstract In 2014, mounds were found.", "In 2014, mounds were found."),
    ],
)
def test_funding_registration_and_keywords_appended_to_an_abstract_are_removed(dirty: str, clean: str) -> None:
    assert clean_prose(dirty) == clean


@pytest.mark.parametrize(
    "text",
    [
        "We randomised 571 mothers (Registration: PACTR201410000859336). We found that 69% of mothers improved.",
        "Funding: how grants are allocated shapes research, as this long study of many funders and fields shows.",
        "Registries matter: registration of trials is rising, and funding agencies ask for it in every field now.",
        "Abstract Syntax Trees are what compilers build first.",
    ],
)
def test_a_text_about_funding_or_registration_keeps_its_words(text: str) -> None:
    assert clean_prose(text) == text


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("Tasks are re-run. 3.3 Fault Tolerance Since the MapReduce library is", "Tasks are re-run. Since the "),
        ("2. Preliminaries and notation The notation N stands for", "The notation N stands for"),
        ("1 Introduction Deep learning is big. II. RELATED WORK Recent works", "Deep learning is big. Recent works"),
    ],
)
def test_section_headings_glued_onto_a_sentence_are_removed(dirty: str, clean: str) -> None:
    assert clean_prose(dirty).startswith(clean)


@pytest.mark.parametrize(
    "text",
    [
        "Of the cohort, 3 Patients were excluded from the Study because of age.",
        "3 patients were excluded. In 2019 we saw 4 Cases More than expected.",
        "Trial 2 Phase Three results were positive in most arms.",
    ],
)
def test_a_number_opening_a_sentence_is_no_heading(text: str) -> None:
    assert clean_prose(text) == text


def test_cleaning_is_idempotent() -> None:
    texts = [
        "the communi- cation 7 of agents in a large and 8 busy network of 9 many nodes that 10 talk. © 2020 X.",
        "3.3 Fault Tolerance Since the MapReduce noti\ufb01cation",
        "fine- grained, intra- and inter- and a test",
    ]
    for text in texts:
        assert clean_prose(clean_prose(text)) == clean_prose(text)


def test_a_title_keeps_its_numbers() -> None:
    assert clean_title("2 Fast 2 Furious: the \ufb01rst noti\ufb01cation") == "2 Fast 2 Furious: the first notification"
    assert clean_title("A Framework for Software Deployment:") == "A Framework for Software Deployment"
    for own in ("21 Tesla Fourier Transform Ion Cyclotron Resonance", "2.5D Printing", "3.5 billion years of life"):
        assert clean_title(own) == own


def test_a_conference_abstracts_number_is_not_part_of_its_title() -> None:
    assert clean_title("29.3 IMPROVING PREDICTION OF ADHD") == "IMPROVING PREDICTION OF ADHD"
    assert clean_title("T51. Machine Learning Classification of ADHD") == "Machine Learning Classification of ADHD"


def test_a_bibtex_abstract_pasted_from_a_pdf_is_cleaned(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{a, title={E\ufb03cient Flows}, author={Doe, Jane}, year={2020},\n"
        "abstract={We study the communi-\ncation of \ufb02ows in networks.\n"
        "The results are good. {\\textcopyright} 2013 Elsevier B.V. All rights reserved.}}\n",
        encoding="utf-8",
    )
    paper = next(iter(load_paths([bib]).papers.values()))
    assert paper.title == "Efficient Flows"
    assert paper.text == "We study the communication of flows in networks. The results are good."


def _page(header: str, number: int, body: list[str]) -> list[str]:
    return [f"{header} {number}", *body, str(number)]


def test_pdf_pages_lose_headers_footers_page_numbers_and_line_numbers() -> None:
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    prose = [[f"Prose line {words[k]} of page {words[n]} runs on and on." for k in range(8)] for n in range(5)]
    pages = ["\n".join(_page("J. Stuff Res. Vol. 3", n, prose[n])) for n in range(1, 5)]
    pages.append("\n".join(f"{n} line {n} of a numbered manuscript" for n in range(40, 47)))
    pages.append("arXiv:2101.00001v2  [cs.LG]  3 Jan 2021\n© 2021 ACM 978-1-4503\nprose stays here")
    cleaned = strip_furniture(pages)
    assert cleaned[0] == "\n".join(prose[1])
    assert cleaned[4].splitlines()[0] == "line 40 of a numbered manuscript"
    assert cleaned[5] == "prose stays here"


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("3.3 Fault Tolerance", True),
        ("2. Preliminaries and notation", True),
        ("II. RELATED WORK", True),
        ("Conclusions", True),
        ("3 patients were excluded because of their age.", False),
        ("12 of the 30 samples failed", False),
    ],
)
def test_heading_lines(line: str, heading: bool) -> None:
    assert is_heading_line(line) is heading


def test_a_pdf_body_is_cleaned_before_it_is_cut_into_passages(tmp_path: Path) -> None:
    body = [
        "Page two begins here.",
        "We describe a system for the com-",
        "munication of flows between many workers in a cluster.",
        "3.3 Fault Tolerance",
        "Since the library is designed to help process very large amounts of data using many machines it tolerates",
        "machine failures gracefully and restarts the tasks of a failed worker elsewhere.",
        "The end of page two.",
    ]
    filler = [f"Page {word} says something else entirely and at length." for word in ("three", "four", "five")]
    pages = [[f"Proc. of Stuff {n}", *(body if n == 2 else filler[n - 3 : n - 2] * 3), str(n)] for n in range(2, 6)]
    pdf = write_pdf(tmp_path / "x.pdf", ["A System", "Abstract", "We build a system.", "1 Introduction"], None, pages)
    passages = parse_pdf(pdf, "x.pdf").passages
    assert passages[0].text.startswith("Page two begins here. We describe a system for the communication of flows")
    assert "Since the library" in passages[0].text
    assert all("Fault Tolerance" not in p.text and "Proc. of Stuff" not in p.text for p in passages)
