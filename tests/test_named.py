"""A sentence that names a work's author ("Fucci et al.") while citing another paper: the key is mistyped
(rag.check.named), told by the sentence itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import needs_model
from test_check import BIB
from test_check_gates import checked, shipped

from rag.check.named import authors_named, named_instead
from rag.check.verdicts import Verdict
from rag.records import Paper


def paper(key: str, *authors: str) -> Paper:
    return Paper(id=key, citekey=key, title=f"A study by {authors[0]}", text="An abstract.", authors=list(authors))


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("The EEG replication by Fucci et al. found the same.", {"fucci"}),
        ("As Floyd (2017) showed, code and prose differ.", {"floyd"}),
        ("Siegmund and Kästner (2014) used fMRI.", {"siegmund", "kastner"}),
        ("Bell's theorem rules out local hidden variables.", set()),
        ("We take a Newton step and then check the sums.", set()),
        ("In 2017 the field moved on.", set()),
    ],
)
def test_only_the_forms_that_cite_a_work_name_its_author(sentence: str, names: set[str]) -> None:
    assert authors_named(sentence) == names


def test_the_named_paper_is_meant_only_when_it_is_the_one_and_not_cited() -> None:
    fucci, floyd, peters = (
        paper("fucci2019", "Fucci, Davide"),
        paper("floyd2017", "Floyd, Benjamin"),
        paper("peters2018", "Peters, Anne"),
    )
    library = [fucci, floyd, peters]
    said = "The EEG replication by Fucci et al. found the same."
    assert named_instead(said, [peters], library) == fucci
    assert named_instead(said, [fucci], library) is None  # the right paper
    assert named_instead(said, [peters, fucci], library) is None  # the named author's paper is cited beside it
    assert named_instead("Nothing named here.", [peters], library) is None
    second = paper("fucci2021", "Fucci, Davide")
    assert named_instead(said, [peters], [*library, second]) is None  # which of Fucci's papers: not told
    fucci.year, second.year = 2019, 2021
    dated = "The EEG replication by Fucci et al. (2021) found the same."
    assert named_instead(dated, [peters], [*library, second]) == second


@needs_model  # the wrong paper needs the fit, which weighs vectors
def test_a_sentence_naming_another_papers_author_flags_the_key(tmp_path: Path) -> None:
    """With no paper clearly meant by its abstract (the gates shut), the name alone tells the key is wrong."""
    entries = (
        "@article{park2021, title = {Wearable sensors in the home}, author = {Park, Jin}, year = {2021}, "
        "abstract = {We built a wristband that records movement and skin temperature of 40 volunteers at home "
        "for a month.}}\n"
    )
    shut = replace(shipped(), clearly_stated=1.01, clearly_fits=1.01)
    found = checked(tmp_path, r"Park et al. built a wristband \citep{yuan2022}.", shut, BIB + entries)
    assert (found.verdict, found.flagged) == (Verdict.WRONG_PAPER, True)
    assert found.reason == "the sentence names Park, who did not write the paper cited"
    assert [s.paper.citekey for s in found.suggestions] == ["park2021"]
    unnamed = checked(tmp_path, r"A wristband was built \citep{yuan2022}.", shut, BIB + entries)
    assert not unnamed.flagged
