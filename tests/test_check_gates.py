"""`rag check`'s gates: the wrong paper only where another paper is clearly meant, a contradiction where the
judge reads the abstract as saying otherwise surely enough (rag/check/fit_model.json holds both, chosen on real
theses by benchmarks/check_real.py --save-gates)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import needs_model
from test_check import BIB

from rag.check.citing_forms import generic_sentence, own_method, tells_a_gap
from rag.check.manuscript import ManuscriptChecker
from rag.check.paper_fit import FitModel, load_fit_model, textbook
from rag.check.scoring import SourceScore
from rag.check.sentences import Support
from rag.check.support_model import covered_by
from rag.check.verdicts import (
    NONE_FIT,
    SAID_OF_IT,
    SAYS_OTHERWISE,
    STATES_OPPOSITE,
    UNREADABLE_ENTRY,
    UNRELATED,
    CitationCheck,
    Verdict,
    judged_reversal,
    may_say_otherwise,
    stating_opposite,
)
from rag.check.wrong_key import one_wrong_key_at_most
from rag.config import load_settings
from rag.manuscripts import read_latex
from rag.manuscripts.citing import Cite
from rag.records import Paper
from rag.services.check import check, library_view
from rag.services.context import Context
from rag.services.ingest import ingest
from rag.services.requests import CheckRequest

# Cites the coffee paper's neighbour in the library for what the coffee paper says.
MISCITED = r"Drinking coffee after noon reduces sleep quality \citep{yuan2022}."
TURNED = r"Drinking coffee after noon left the sleep quality of adults unchanged \citep{smith2020}."
# Every gate of the wrong paper open: any paper the fit could call wrong is, with another paper meant or not.
WIDE_OPEN = {"clearly_stated": 0.0, "clearly_fits": 0.0, "unrelated_below": 1.0}


def checked(tmp_path: Path, sentence: str, model: FitModel, entries: str = BIB) -> CitationCheck:
    bib = tmp_path / "refs.bib"
    bib.write_text(entries, encoding="utf-8")
    ctx = Context(load_settings())
    ingest(ctx, [bib])
    manuscript = read_latex(sentence, "paper.tex")
    with ctx.reader() as library:
        view = library_view(library, manuscript)
    (check,) = ManuscriptChecker(view, fit_model=model).check(manuscript.sentences)
    return check


def shipped() -> FitModel:
    model = load_fit_model()
    assert model is not None, "rag/check/fit_model.json ships with the package"
    return model


@needs_model  # the fit weighs the cited paper against the library's by vectors
def test_the_wrong_paper_only_where_another_paper_is_clearly_meant(tmp_path: Path) -> None:
    opened = checked(tmp_path, MISCITED, replace(shipped(), clearly_stated=0.0, clearly_fits=0.0))
    assert opened.verdict is Verdict.WRONG_PAPER
    assert [s.paper.citekey for s in opened.suggestions] == ["smith2020"]
    assert opened.suggestions[0].stated > 0.5, "ranked by the judge, which reads the coffee paper as stating it"

    # With no paper of the library clearly meant (the gates shut), a poorly fitting citation is a note: a tool,
    # a survey or a "see" cited the way authors cite them.
    shut = checked(tmp_path, MISCITED, replace(shipped(), clearly_stated=1.01, clearly_fits=1.01, unrelated_below=0.0))
    assert shut.verdict is Verdict.FITS_NOT_STATED and not shut.suggestions and not shut.flagged


@needs_model
def test_a_paper_fitting_worse_than_nearly_any_is_the_wrong_one_with_nothing_meant_instead(tmp_path: Path) -> None:
    """Below the calibrated floor of the fit the cited paper is the wrong one even where no other paper of the
    library is clearly meant (the right one known by its title only, or missing); at the floor it is not."""
    shut = replace(shipped(), clearly_stated=1.01, clearly_fits=1.01, unrelated_below=0.0)
    kept = checked(tmp_path, MISCITED, shut)
    assert kept.verdict is Verdict.FITS_NOT_STATED and kept.fit is not None
    at_floor = checked(tmp_path, MISCITED, replace(shut, unrelated_below=kept.fit))
    assert at_floor.verdict is Verdict.FITS_NOT_STATED and not at_floor.flagged
    below = checked(tmp_path, MISCITED, replace(shut, unrelated_below=kept.fit + 1e-6))
    assert (below.verdict, below.flagged, below.suggestions) == (Verdict.WRONG_PAPER, True, [])
    assert below.reason.endswith(UNRELATED) and "fit the sentence better" in below.reason


@needs_model
def test_the_shipped_gates_still_catch_a_citation_of_the_neighbour_paper(tmp_path: Path) -> None:
    check = checked(tmp_path, MISCITED, shipped())
    assert check.verdict is Verdict.WRONG_PAPER and check.suggestions[0].paper.citekey == "smith2020"


@needs_model
def test_a_contradiction_read_by_the_judge_is_a_problem_past_its_gate(tmp_path: Path) -> None:
    never = checked(tmp_path, TURNED, replace(shipped(), contradicted_at=2.0))
    always = checked(tmp_path, TURNED, replace(shipped(), contradicted_at=0.0))
    # No rule sees "unchanged" reverse "reduced": the judge's reading decides, at the gate.
    assert (never.verdict, never.flagged) == (Verdict.FITS_NOT_STATED, False)
    assert (always.verdict, always.reason, always.flagged) == (Verdict.CONTRADICTS, "the abstract says otherwise", True)


def test_an_entry_the_bibliography_holds_but_rag_cannot_read_is_not_missing(tmp_path: Path) -> None:
    """A titleless "Private communication" entry: LaTeX prints it, so the key is not missing; nothing to check."""
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB + "\n@misc{speirs2018,\n  author = {Speirs, Rory},\n  year = {2018},\n"
                   "  note = {Private Communication}\n}\n", encoding="utf-8")  # fmt: skip
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\\begin{document}\nA pseudoclock was built \\cite{speirs2018}, not \\cite{nokey}.\n"
        "\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    report = check(Context(load_settings()), CheckRequest(paths=[paper]))
    (held, missing) = report.checks
    assert (held.verdict, held.reason, held.flagged) == (Verdict.CANNOT_CHECK, UNREADABLE_ENTRY, False)
    assert missing.verdict is Verdict.MISSING_KEY


@needs_model
def test_a_sentence_naming_the_cited_papers_author_is_never_the_wrong_paper(tmp_path: Path) -> None:
    """An eponymous citation ("Bell's theorem", "Yuan's scheduler") names the work it cites, however little
    its abstract fits the rest of the sentence."""
    named = MISCITED.replace("Drinking coffee", "As in Yuan's study, drinking coffee")
    check = checked(tmp_path, named, replace(shipped(), **WIDE_OPEN))
    assert check.verdict is not Verdict.WRONG_PAPER and not check.flagged


@needs_model
def test_a_textbook_is_the_wrong_paper_only_below_the_floor(tmp_path: Path) -> None:
    """A generic citation: a textbook cited for its field, whose description states nothing specific (the same
    sentence citing the same text as an article is the wrong paper: test_the_wrong_paper_only_where...)."""
    book = BIB.replace("@article{yuan2022", "@book{yuan2022")
    opened = replace(shipped(), **(WIDE_OPEN | {"unrelated_below": 0.0}))
    check = checked(tmp_path, MISCITED, opened, book)
    assert check.verdict is not Verdict.WRONG_PAPER and not check.flagged
    assert check.fit is not None
    # ...unless it fits the sentence worse than nearly any paper: a textbook on another field altogether.
    below = checked(tmp_path, MISCITED, replace(opened, unrelated_below=check.fit + 1e-6), book)
    assert below.verdict is Verdict.WRONG_PAPER and below.reason.endswith(UNRELATED)


@needs_model
def test_what_the_author_used_is_the_wrong_paper_only_below_the_floor(tmp_path: Path) -> None:
    """A sentence saying "we used [x]" cites the tool, data or protocol used: its abstract may be on anything (a
    reporter line's paper on a protein-trap screen), unless it fits worse than nearly any paper of the library."""
    used = MISCITED.replace("Drinking coffee", "We used the finding that drinking coffee")
    opened = replace(shipped(), **(WIDE_OPEN | {"unrelated_below": 0.0}))
    assert checked(tmp_path, MISCITED, opened).verdict is Verdict.WRONG_PAPER
    told = checked(tmp_path, used, opened)
    assert told.verdict is not Verdict.WRONG_PAPER and not told.flagged and told.fit is not None
    below = checked(tmp_path, used, replace(opened, unrelated_below=told.fit + 1e-6))
    assert below.verdict is Verdict.WRONG_PAPER and below.reason.endswith(UNRELATED)


@pytest.mark.parametrize(
    ("sentence", "used"),
    [
        ("Next, we used polysome profile analysis to evaluate the ribosomal subunit ratio.", True),
        ("To validate it, we utilized a reporter line for the transcript encoding RpS2.", True),
        ("Additionally, to attenuate TORC1 activity, we depleted raptor.", True),
        ("Motif enrichment analysis was performed using Homer.", True),
        ("We then carried out the analysis in R.", True),
        ("Using the Nilearn package, the images were filtered.", True),
        ("We show that caffeine intake reduces sleep quality.", False),  # a finding, not what was used
        ("Caffeine intake was associated with poor sleep in adults.", False),
        ("The authors used a mouse model of the disease.", False),  # what the cited work did: its abstract says
        # the author's own work, in the singular: a thesis's narrative, citing what it mentions
        ("An earlier version of my model bears a striking resemblance to that presented in a 1991 paper.", True),
        ("I did not encounter the surface-hopping literature earlier, as I considered my approach to differ.", True),
        ("As I showed in Chapter 2, the trap is stable.", True),
        ("Type I diabetes and Phase I trials are no first person.", False),
        ("Class I and class II molecules present antigens.", False),
    ],
)
def test_what_the_author_used_is_told_by_the_sentence(sentence: str, used: bool) -> None:
    assert own_method(sentence) is used


@needs_model
def test_a_sentence_leading_into_an_equation_is_never_the_wrong_paper(tmp_path: Path) -> None:
    """What it is about is the equation that follows it."""
    lead_in = MISCITED.replace("reduces sleep quality", "changes sleep quality as follows:").replace(".", "")
    check = checked(tmp_path, lead_in, replace(shipped(), **WIDE_OPEN))
    assert check.verdict is not Verdict.WRONG_PAPER and not check.flagged


@pytest.mark.parametrize(
    ("sentence", "generic"),
    [
        ("For a full list of regions and their coordinates, see.", True),  # "see [x]" with the key taken out
        ("Cortical thickness declines with age (see for a review).", True),
        ("The probability of a trajectory of length T is then:", True),  # leads into an equation
        ("The KL-divergence is defined as", True),  # ...its equation taken out
        ("The Gaussian NLL loss is defined by (negative log likelihood)", True),
        ("The probability of transition was computed as follows.", True),
        ("The loss is defined by the squared error and falls during training.", False),
        ("Protein expression and purification were performed as described previously.", True),
        ("Polysome-seq was performed as previously described.", True),
        ("In our implementation, we use the parameters a = 3/2 and b = 1/2, as proposed by.", True),  # its source
        ("Following, the gains are set to 3.", True),
        ("We point the interested reader to the surveys on the topic.", True),
        ("Future work will add contact models to the simulator.", True),  # a plan states nothing a source could
        ("As shown in, caffeine intake reduces sleep quality.", False),
        ("The method was proposed by Smith to speed up training.", False),
        ("As we will see, the model converges.", False),
        ("The pathway was described in yeast as a stress response.", False),
        ("Caffeine intake reduces sleep quality in adults.", False),
        ("Itself a problem, the schedule was kept.", False),
    ],
)
def test_generic_citations_are_told_by_their_sentence(sentence: str, generic: bool) -> None:
    assert generic_sentence(sentence) is generic
    assert textbook(Paper(id="b", text="A blurb.", item_type="book"))
    assert not textbook(Paper(id="p", text="An abstract."))


REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "real" / "manuscripts"


@needs_model
def test_a_key_whose_abstract_bears_nothing_on_the_sentence_is_not_shielded_by_its_neighbour(tmp_path: Path) -> None:
    """Read together, a sentence's papers may pass the check's reading where one alone does not: that shields a
    key only if its own abstract bears on the sentence. A real thesis sentence (chrisjbillington's, the damped
    GPE) with its first key mistyped as Dyson 1949, a QED paper of the same bibliography: before, stated
    together with the right paper beside it; now the wrong paper."""
    bib = REAL / "chrisjbillington__thesis" / "zotero.bib"
    if not bib.is_file():
        pytest.skip("../shared/real/manuscripts is not here")
    sentence = (
        r"The damped \textsc{gpe}~\cite{KEY, madarassy_vortex_2008} is a phenomenological modification of the "
        r"standard \textsc{gpe} that includes dissipation to gradually remove higher energy excitations from the "
        r"condensate wavefunction, approximating behaviour at finite-temperature."
    )
    ctx = Context(load_settings(data_dir=tmp_path / "data"))
    ingest(ctx, [bib])
    verdicts = {}
    for key in ("tsubota_vortex_2002", "dyson_s_1949"):
        paper = tmp_path / f"{key}.tex"
        paper.write_text(
            f"\\documentclass{{article}}\n\\begin{{document}}\n{sentence.replace('KEY', key)}\n\\end{{document}}\n"
        )
        report = check(ctx, CheckRequest([paper]))
        verdicts[key] = [(c.cite.key, c.verdict) for c in report.checks]
    assert verdicts["dyson_s_1949"][0] == ("dyson_s_1949", Verdict.WRONG_PAPER)
    assert all(verdict is not Verdict.WRONG_PAPER for _, verdict in verdicts["tsubota_vortex_2002"])


def _would_be_wrong(key: str, fit: float) -> CitationCheck:
    return CitationCheck(Cite(key, "paper.tex", 1, 1), "A sentence.", Verdict.WRONG_PAPER, "fits poorly", fit=fit)


@pytest.mark.parametrize(
    ("fits", "still_wrong"),
    [
        ((0.01, 0.2), ["k0"]),  # one key fits far worse than its neighbour: the key typed wrong
        ((0.2, 0.01, 0.3), ["k1"]),  # ...wherever it stands in the sentence
        ((0.05, 0.2), []),  # a quarter of the next: the sentence fits none of its papers
        ((0.01, 0.04, 0.3), []),  # two far below the rest: no one key stands out
        ((0.01,), ["k0"]),  # alone: untouched
    ],
)
def test_a_sentence_has_at_most_one_wrong_key_the_one_fitting_far_worse(
    fits: tuple[float, ...], still_wrong: list[str]
) -> None:
    checks = [_would_be_wrong(f"k{i}", fit) for i, fit in enumerate(fits)]
    one_wrong_key_at_most(checks)
    assert [c.cite.key for c in checks if c.verdict is Verdict.WRONG_PAPER] == still_wrong
    notes = [c for c in checks if c.verdict is not Verdict.WRONG_PAPER]
    assert all(c.reason == NONE_FIT and not c.suggestions and not c.flagged for c in notes)


def test_a_sentence_leading_into_an_equation_is_never_read_as_said_otherwise() -> None:
    """With its equation taken out, "The loss is defined as" states nothing yet: the judge's "otherwise" for it
    is about what is missing (a real thesis's "The Gaussian NLL loss is defined by" was flagged so)."""
    model = replace(shipped(), contradicted_at=0.5)
    passage = "The Gaussian NLL loss rises during training."
    sure = SourceScore(0.1, Support.UNSUPPORTED, 0, passage, stated=0.0, contradicted=0.99, passage=passage)
    assert judged_reversal("The loss falls during training.", sure, model) == SAYS_OTHERWISE
    assert judged_reversal("The Gaussian NLL loss is defined by (negative log likelihood)", sure, model) == ""


@pytest.mark.parametrize(
    ("sentence", "gap"),
    [
        ("There is comparatively less work comparing human and artificial agents across multiple tasks.", True),
        ("However, the same has yet to be demonstrated for the Drosophila ortholog.", True),
        ("Little is known about how nurse cells are specified.", True),
        ("Few studies have examined resting-state data in gamers.", True),
        ("The mechanism of abscission remains poorly understood.", True),
        ("Their interaction has not been systematically studied.", True),
        ("No previous study has compared the two simulators.", True),
        ("Limited research has addressed transfer to real robots.", True),
        # claims, which a source's findings may say otherwise of
        ("The new controller requires less work than the old one.", False),
        ("There is no difference in hippocampal volume between the groups.", False),
        ("There is little doubt that action video games improve attention.", False),
        ("Training has not been shown to reduce mortality.", False),
        ("There was no effect of training on working memory.", False),
    ],
)
def test_what_research_has_yet_to_do_is_told_by_its_sentence(sentence: str, gap: bool) -> None:
    assert tells_a_gap(sentence) is gap


def test_the_judge_never_says_otherwise_of_what_research_has_yet_to_do() -> None:
    """A sentence saying "there is comparatively less work comparing" agents is a claim about the literature: a
    real thesis's citation of a paper on networks learning many tasks was flagged as contradicted by it."""
    model = replace(shipped(), contradicted_at=0.5)
    passage = "Networks showed mixed task selectivity after learning multiple tasks like human and artificial agents."
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, passage, stated=0.05, contradicted=0.9, passage=passage)
    gap = "There is comparatively less work comparing human and artificial agents across multiple tasks."
    claim = "Human and artificial agents never learn multiple tasks."
    assert covered_by(gap, passage) >= SAID_OF_IT and covered_by(claim, passage) >= SAID_OF_IT
    assert judged_reversal(gap, read, model) == ""
    assert judged_reversal(claim, read, model) == SAYS_OTHERWISE


def test_the_judge_says_otherwise_only_of_a_passage_on_what_the_sentence_says() -> None:
    """The judge reads "otherwise" into passages that share almost none of a sentence's terms (a real thesis's
    history of a method against the method's abstract): its reading stands only where the passage speaks of what
    the sentence does."""
    model = replace(shipped(), contradicted_at=0.5)
    history = "However it was not used for a long time before breakthroughs permitted its use in large networks."
    elsewhere = "It regularises the weights by minimising a compression cost, known as the variational free energy."
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, elsewhere, stated=0.0, contradicted=0.9, passage=elsewhere)
    assert covered_by(history, elsewhere) < SAID_OF_IT
    assert not may_say_otherwise(history, read.passage) and judged_reversal(history, read, model) == ""
    same = "Exercise increases cancer mortality in adults."
    reversed_here = "Exercise reduced cancer mortality in adults by a third."
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, reversed_here, stated=0.1, contradicted=0.9, passage=reversed_here)
    assert covered_by(same, reversed_here) >= SAID_OF_IT
    assert judged_reversal(same, read, model) == SAYS_OTHERWISE
    assert judged_reversal(same, read, replace(model, contradicted_at=0.95)) == ""  # below its gate


def test_the_judge_says_otherwise_in_any_passage_restating_the_sentence() -> None:
    """The judge reads a sentence as stated best in a passage on another of its points ("Participants randomized
    to surgery lost more weight"), and as said otherwise in the result restating it: rag check reads both (an
    answer's check reads only the first). A title that only names its paper's topic is set aside there too."""
    model = replace(shipped(), contradicted_at=0.7)
    claim = "Surgical therapy leads to less remission of type 2 diabetes than conventional therapy."
    best = "Participants randomized to surgical therapy lost more weight than those on conventional therapy."
    result = "Remission of type 2 diabetes was more frequent after surgical therapy than after conventional therapy."
    title = "Surgical versus conventional therapy for type 2 diabetes"
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, best, stated=0.3, contradicted=0.2, passage=best)
    assert judged_reversal(claim, read, model) == ""
    at_result = replace(read, restated=((0.9, result),))
    assert [p for _, p in at_result.said_otherwise()] == [result, best]
    assert judged_reversal(claim, at_result, model) == SAYS_OTHERWISE
    at_title = replace(read, restated=((0.9, f"{title}."),))
    assert judged_reversal(claim, at_title, model, title) == ""
    assert judged_reversal(claim, replace(read, restated=((0.6, result),)), model) == ""  # below its gate


def test_a_title_naming_its_topic_never_states_the_opposite() -> None:
    """The judge read "Translational Control in Germline Stem Cell Development" as stating the opposite of a real
    thesis's "While scRNA-seq provides mRNA levels, it does not indicate if these mRNAs are translated": a title
    naming what its paper is about asserts nothing; one asserting something, or the abstract's sentence, still may."""
    sentence = "While scRNA-seq provides mRNA levels, it does not indicate if these mRNAs are translated."
    title = "Translational Control in Germline Stem Cell Development"
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, "", stated=0.05, contradicted=0.2, opposites=(f"{title}.",))
    assert judged_reversal(sentence, read, shipped()) == STATES_OPPOSITE, "the reading itself states it"
    assert judged_reversal(sentence, read, shipped(), title=title) == ""
    asserting = "scRNA-seq Indicates Which mRNAs Are Translated"
    asserted = replace(read, opposites=(asserting,))
    assert judged_reversal(sentence, asserted, shipped(), title=asserting) == STATES_OPPOSITE
    result = "Single-cell sequencing indicates which of these mRNAs are translated in germline stem cells."
    assert judged_reversal(sentence, replace(read, opposites=(result,)), shipped(), title=title) == STATES_OPPOSITE
    # the title read surest, the result too: the result states it
    both = replace(read, opposites=(f"{title}.", result))
    assert judged_reversal(sentence, both, shipped(), title=title) == STATES_OPPOSITE
    assert stating_opposite(both, title) == result


@pytest.mark.parametrize(
    ("title", "asserts"),
    [
        ("RANK Signals from CD4+3- Inducer Cells Regulate Development of Aire-Expressing Epithelial Cells", True),
        ("Regional Differences in Brain Volume Predict the Acquisition of Skill", True),
        ("Rok1p Is a Putative RNA Helicase Required for rRNA Processing", True),
        ("Translational Control in Germline Stem Cell Development", False),  # "Control" is a noun here
        ("Learning to Predict by the Methods of Temporal Differences", False),  # an infinitive
        ("Vortex Photography in Liquid Helium", False),
    ],
)
def test_a_title_after_a_plural_subject_asserts_too(title: str, asserts: bool) -> None:
    """A SciFact claim's paper titled "RANK signals ... regulate development of Aire-expressing epithelial cells"
    asserts what it found; read as naming only its topic, its opposite of "has no known association" was set
    aside."""
    sentence = "RANK signalling has no known association with development of Aire-expressing epithelial cells."
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, "", stated=0.05, contradicted=0.2, opposites=(f"{title}.",))
    assert (judged_reversal(sentence, read, shipped(), title=title) == STATES_OPPOSITE) is asserts


def test_the_judge_never_says_otherwise_by_a_title_alone() -> None:
    """A title names what a paper is about: the judge reads "otherwise" into it for a sentence saying more (a real
    thesis's tracer particles in superfluid helium, against "Vortex Photography in Liquid Helium")."""
    model = replace(shipped(), contradicted_at=0.5)
    sentence = "The imaging of tracer particles to track vortex motion has proved successful in superfluid helium."
    title = "Vortex photography in liquid helium"
    read = SourceScore(0.1, Support.UNSUPPORTED, 0, title, stated=0.1, contradicted=0.76, passage=f"{title}.")
    assert judged_reversal(sentence, read, model) == SAYS_OTHERWISE, "the reading itself is past the gate"
    assert judged_reversal(sentence, read, model, title="Vortex Photography in Liquid Helium") == ""
    asserting = "Tracer Particles Do Not Track Vortices in Helium"
    said = replace(read, passage=f"{asserting}.")
    assert judged_reversal(sentence, said, model, title=asserting) == SAYS_OTHERWISE, "a title asserting: read"
    result = "Tracer particles failed to track vortex motion in superfluid helium."
    in_the_abstract = replace(read, passage=result)
    assert judged_reversal(sentence, in_the_abstract, model, title="Vortex Photography in Liquid Helium") == (
        SAYS_OTHERWISE
    )
