"""A sentence that names a work, by its author ("Fucci et al.") or by the coined name of what it introduced
("the RLlib framework"), while citing another paper: the key is mistyped (rag.check.named), told by the sentence
itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import needs_model
from test_check import BIB
from test_check_gates import checked, shipped

from rag.check.named import NamedWorks, authors_named, coined_names, named_instead, near_the_key, work_named_instead
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


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("We use the RLlib framework with OpenAI Gym.", ["RLlib", "OpenAI"]),
        ("CoppeliaSim supports several physics engines.", ["CoppeliaSim"]),
        ("The iCub robot and the FreeEEG32 board \\cite{x}.", ["iCub", "FreeEEG32"]),
        ("ConvLSTM and ResNet-50 were trained with PyTorch.", ["ConvLSTM", "ResNet-50", "PyTorch"]),
        # acronyms, a person's name in a method's, a gene's short name, a field's words: used by many papers
        ("GPT-3 and MNI152 and EEG and PPO and CNNs were used.", []),
        ("Runge-Kutta methods are non-Gaussian in McDonald's view.", []),
        ("p53 regulates Bayesian Neural Networks.", []),
    ],
)
def test_a_coined_name_is_a_work_s_own(sentence: str, names: list[str]) -> None:
    assert coined_names(sentence) == names


def described(key: str, abstract: str, title: str = "") -> Paper:
    return Paper(id=key, citekey=key, title=title or "A paper", text=abstract, authors=["Smith, Ann"])


def test_the_paper_using_a_coined_name_is_meant_only_when_it_is_the_one_and_not_cited() -> None:
    rllib = described("liang2018", "We present RLlib, a library for scalable reinforcement learning.")
    trpo = described("schulman2015", "We describe trust region policy optimization for large policies.")
    gym = described("brockman2016", "OpenAI Gym is a toolkit of benchmark problems.")
    works = NamedWorks([rllib, trpo, gym])
    said = "We train the agents with the RLlib framework."
    assert work_named_instead(said, [trpo], works) == ("RLlib", rllib)
    assert work_named_instead(said, [rllib], works) is None  # the right paper
    assert work_named_instead(said, [trpo, rllib], works) is None  # the paper using it is cited beside it
    assert work_named_instead("We train the agents with a library.", [trpo], works) is None
    # the cited paper uses one of the sentence's names: it may be cited for that one
    assert work_named_instead("We use RLlib on OpenAI Gym.", [gym], works) is None
    # or another name of the sentence's, in its title (or used by few papers: NAMED_BY_FEW)
    vrep = described("rohmer2013", "A versatile robot simulator.", "V-REP: A Versatile Robot Simulation Framework")
    renamed = "CoppeliaSim, formerly known as V-REP, runs several physics engines."
    coppelia = described("coppelia2020", "CoppeliaSim is the new name of V-REP.")
    many = [vrep, coppelia, trpo, *(described(f"sim{n}", "We compare Gazebo and V-REP.") for n in range(3))]
    assert work_named_instead(renamed, [vrep], NamedWorks(many)) is None
    assert work_named_instead(renamed, [trpo], NamedWorks(many)) == ("CoppeliaSim", coppelia)
    # a name many papers use ("GPU") is no sign the cited paper is meant
    gpu = described("chen2020", "Training on GPU clusters.")
    on_gpus = "We trained on GPU clusters with the RLlib framework."
    gpus = [rllib, gpu, *(described(f"kernel{n}", "GPU kernels.") for n in range(3))]
    assert work_named_instead(on_gpus, [gpu], NamedWorks(gpus)) == ("RLlib", rllib)
    # an isoform's name is used by its stem; a number is not used by a longer one
    foxo = described("brunet2004", "SIRT1 regulates FOXO3 in response to stress.")
    said_foxo = "FoxO3a activation is inhibited by reactive oxygen species."
    assert work_named_instead(said_foxo, [foxo], NamedWorks([foxo, trpo])) is None
    piezo = described("gudipaty2017", "Piezo1 channels sense crowding.")
    other = described("coste2012", "Piezo12 is no channel we know.")
    assert work_named_instead("Piezo1 senses stretch.", [other], NamedWorks([piezo, other])) == ("Piezo1", piezo)
    fork = described("moritz2018", "Ray runs RLlib's workers.")  # "RLlib's": a word starting with the name
    assert work_named_instead(said, [trpo], NamedWorks([rllib, trpo, fork])) is None  # which of two: not told


def test_where_the_sentence_shows_the_citation_only_the_names_near_it_count() -> None:
    atlas = described("atlas2020", "We present SoftParc, a fine-grained atlas of brain regions.")
    networks = described("yeo2011", "Seven networks of the cerebral cortex estimated from resting-state data.")
    works = NamedWorks([atlas, networks])
    said = "For each region, SoftParc gives a name and the mapping to networks defined in @yeo2011, and more."
    assert near_the_key(said, "yeo2011") == "and the mapping to networks defined in @ "
    assert work_named_instead(said, [networks], works, "yeo2011") is None  # cited for the networks
    assert work_named_instead(said, [networks], works) == ("SoftParc", atlas)  # the citation not shown: all names
    shown = r"The regions are taken from SoftParc \citep{yeo2011}."
    assert work_named_instead(shown, [networks], works, "yeo2011") == ("SoftParc", atlas)


@needs_model  # the suggestion's fit weighs vectors
def test_a_sentence_naming_another_papers_tool_flags_the_key(tmp_path: Path) -> None:
    """However well the cited paper fits (unless it states the sentence), a coined name it never uses that one
    other paper does tells the key is wrong; the paper using it is the one suggested."""
    shut = replace(shipped(), clearly_stated=1.01, clearly_fits=1.01)  # no paper clearly meant by its abstract
    entries = (
        "@article{li2023, title = {Scaling training to many GPUs}, author = {Li, Wen}, year = {2023}, "
        "abstract = {We present HetPipe, a system that trains foundation models over heterogeneous GPUs by "
        "pipelining their work.}}\n"
    )
    found = checked(
        tmp_path,
        r"We pipelined the work of each device with HetPipe \citep{yuan2022}.",
        shut,
        BIB + entries,
    )
    assert (found.verdict, found.flagged) == (Verdict.WRONG_PAPER, True)
    assert found.reason == "the sentence names HetPipe, which the paper cited does not"
    assert [s.paper.citekey for s in found.suggestions] == ["li2023"]
    right = checked(
        tmp_path,
        r"We pipelined the work of each device with HetPipe \citep{li2023}.",
        shut,
        BIB + entries,
    )
    assert right.verdict is not Verdict.WRONG_PAPER
