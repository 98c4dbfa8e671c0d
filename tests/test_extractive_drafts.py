"""Related-work paragraphs without a model: the citing voice, in-text citations in every format, theme sentences,
every sentence checked and traced to the sentence of its paper it was built from.

Made-up papers throughout; one test reads a real thesis bibliography from ../shared when it is there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, needs_model
from fake_openai import FakeOpenAI, Reply
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_voice import MANY, ONE, TWO
from typer.testing import CliRunner

from rag.check import CITATION_GROUP, Answer, AnswerMode, Citation, CitedSentence, source_block
from rag.check.claims import split_cited_sentences
from rag.check.rules import content_words
from rag.cli import app
from rag.config import LatexCitations, load_settings
from rag.formats import to_latex, to_markdown, to_pandoc
from rag.records import Paper
from rag.services import Context, DraftRequest, WritingOptions, draft
from rag.text import tokenize
from rag.writing import Voice, in_text_label, mark_in_text, split_marked, turn
from rag.writing.extractive_draft import SUMMARY_SENTENCES_PER_THEME, prose_or_outline

runner = CliRunner()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


NO_LOG = WritingOptions(use_llm=False, cache=False, log=False)
_QUOTATION = re.compile(r"“[^”]*”")
_FIRST_PERSON = re.compile(r"\b(?:we|our|us|ours|ourselves)\b", re.IGNORECASE)


# --- in-text citations in every format ---------------------------------------------------------------------


def _in_text_answer() -> Answer:
    first = CitedSentence("Kharitonov and Baroni (2020) show that X holds [1].", [1])
    first.in_text, first.in_text_source = "Kharitonov and Baroni (2020)", 1
    second = CitedSentence("Y & Z are related [2].", [2])
    text = f"Several works address X [1][2]. {first.text} {second.text}"
    theme = CitedSentence("Several works address X [1][2].", [1, 2])
    return Answer("t", text, AnswerMode.PROSE, [Citation(1, TWO), Citation(2, MANY)], sentences=[theme, first, second])


def test_an_in_text_citation_is_written_in_every_format() -> None:
    answer = _in_text_answer()
    assert "Kharitonov and Baroni (2020) show that X holds [1]." in to_markdown(answer), "Markdown: name and [n]"
    assert to_latex(answer) == (
        "Several works address X~\\cite{kharitonov2020,hazra2021}. Kharitonov and Baroni~\\cite{kharitonov2020} show "
        "that X holds. Y \\& Z are related~\\cite{hazra2021}."
    )
    assert to_latex(answer, LatexCitations.NATBIB) == (
        "Several works address X~\\citep{kharitonov2020,hazra2021}. \\citet{kharitonov2020} show that X holds. "
        "Y \\& Z are related~\\citep{hazra2021}."
    )
    assert "\\textcite{kharitonov2020} show" in to_latex(answer, LatexCitations.BIBLATEX)
    assert "~\\parencite{hazra2021}" in to_latex(answer, LatexCitations.BIBLATEX)
    assert to_pandoc(answer) == (
        "Several works address X [@kharitonov2020; @hazra2021]. @kharitonov2020 show that X holds. "
        "Y & Z are related [@hazra2021]."
    )


def test_marking_keeps_other_citations_and_ignores_stray_markers() -> None:
    answer = _in_text_answer()
    answer.sentences[1].text = "Kharitonov and Baroni (2020) show that X holds [1][2]."
    answer.text = answer.sentences[1].text + "\ue0009\ue001"
    # A marker-like character in the text itself is dropped, never read as a citation.
    assert split_marked(mark_in_text(answer.text, answer)) == [1, " show that X holds [2].9"]


# --- drafts and summaries without a model ------------------------------------------------------------------

EMERGENT_BIB = r"""
@article{kharitonov2020emergent, title = {Emergent Language Generalization and Acquisition Speed},
  author = {Kharitonov, Eugene and Baroni, Marco}, year = {2020},
  abstract = {Studies of discrete languages emerging when neural agents communicate often look for compositional
  structure. We show that compositionality does not predict how easily emergent languages are acquired by new
  agents. Our results suggest that generalization and compositionality are distinct properties of emergent
  languages.}}
@article{chaabouni2020compositionality, title = {Compositionality and Generalization in Emergent Languages},
  author = {Chaabouni, Rahma and Kharitonov, Eugene and Bouchacourt, Diane and Dupoux, Emmanuel and Baroni, Marco},
  year = {2020},
  abstract = {Natural language allows us to refer to novel composite concepts by combining expressions. In this
  paper, we propose new measures of compositionality for emergent languages in referential games. We find that
  compositional emergent languages generalize better to new inputs of the referential game.}}
@article{hazra2021infinite, title = {Infinite use of finite means: zero-shot generalization in referential games},
  author = {Hazra, Rishi and Dixit, Sonu and Sen, Sayambhu}, year = {2021},
  abstract = {Agents in referential games learn discrete messages to describe objects. This paper presents a study of
  zero-shot generalization of emergent languages in referential games with attribute-value inputs. The emergent
  messages are compositional when the inputs are disentangled.}}
@article{lazaridou2018emergence, title = {Emergence of linguistic communication from referential games},
  author = {Lazaridou, Angeliki}, year = {2018},
  abstract = {I train neural agents to communicate about raw pixel images in referential games. I find that the
  structure of the input shapes the emergent languages of the agents. Agents trained on disentangled inputs
  develop compositional emergent languages.}}
@article{scotton2019grassland, title = {Mountain grassland restoration with local seeds},
  author = {Scotton, Michele}, year = {2019},
  abstract = {Grassland restoration is possible in mountain raw soils by using the seeds collected from nearby donor
  sites. We show that high sowing densities are not required in coarse soils.}}
@article{chaabouni2019anti, title = {Anti-efficient encoding in emergent communication},
  author = {Chaabouni, Rahma and Kharitonov, Eugene}, year = {2019}}
"""
TOPIC = "compositionality and generalization of emergent languages in referential games"


@pytest.fixture
def emergent(tmp_path: Path) -> Path:
    bib = tmp_path / "emergent.bib"
    bib.write_text(EMERGENT_BIB, encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(bib)]).exit_code == 0
    return bib


# Words the generator writes itself: the quotation's frame, the connectives, "A and B both ...".
FIXED_WORDS = "write writes that et al similarly in contrast whereas and both"


def _from_sources(answer: Answer, sentence: CitedSentence) -> bool:
    """Every content word of the sentence is in what it cites (as written or in another form of the word), or
    is one the generator itself writes."""
    papers = {c.n: c.paper for c in answer.citations}
    cited = " ".join(source_block(n, papers[n]) for n in sentence.citations)
    known, stems = (
        content_words(cited) | content_words(FIXED_WORDS),
        set(tokenize(cited)),
    )
    mine = content_words(CITATION_GROUP.sub("", sentence.text))
    return all(w in known or set(tokenize(w)) <= stems for w in mine)


@needs_model  # each paper's sentence is chosen with the sentence vectors
def test_a_draft_without_model_is_paragraphs_of_the_papers_own_words(emergent: Path) -> None:
    request = DraftRequest(TOPIC, ["scotton2019grassland"], 8)
    answer = draft(Context(load_settings()), request, NO_LOG).answer
    assert answer.mode is AnswerMode.PROSE and "\n- " not in answer.text
    keys = {c.paper.citekey for c in answer.citations}
    assert {"kharitonov2020emergent", "chaabouni2020compositionality", "hazra2021infinite"} <= keys
    assert "scotton2019grassland" in keys, "a must-cite paper always appears"
    assert "chaabouni2019anti" not in keys and [p.citekey for p in answer.related] == ["chaabouni2019anti"]
    for sentence in answer.sentences:
        assert sentence.support is not None and sentence.support.is_top, sentence.text
        assert not _FIRST_PERSON.search(_QUOTATION.sub("", sentence.text)), sentence.text
        assert _from_sources(answer, sentence), sentence.text
        assert sentence.provenance is not None and sentence.text in answer.text
    voices = {s.provenance.voice for s in answer.sentences if s.provenance}
    assert "citing_voice" in voices
    named = [s for s in answer.sentences if s.in_text]
    assert named and all(s.in_text in s.text and s.in_text_source in s.citations for s in named)
    assert len(named) >= 2  # papers named as subjects in the citing voice (which ones: what the check passes)
    assert "Lazaridou (2018) finds" in answer.text
    # Hazra's abstract states what it found: that, not what the paper set out to do ("This paper presents a study")
    assert "compositional when the inputs are disentangled" in answer.text and "a study of" not in answer.text


def test_json_keeps_each_sentences_provenance_and_latex_and_pandoc_cite_in_the_text(emergent: Path) -> None:
    payload = json.loads(runner.invoke(app, ["draft", TOPIC, "--json", "--no-log"]).stdout)
    assert payload["mode"] == "extractive_prose"
    turned = [s for s in payload["sentences"] if s["provenance"] and s["provenance"]["voice"] == "citing_voice"]
    assert turned and all(s["in_text_source"] in s["citations"] and s["in_text"] in s["text"] for s in turned)
    first = turned[0]["provenance"]
    assert first["source"] and first["changes"] and set(first["changes"][0]) == {"from", "to"}
    natbib = {"RAG_LATEX_CITATIONS": "natbib"}
    latex = runner.invoke(app, ["draft", TOPIC, "--format", "latex", "--no-log"], env=natbib).stdout
    assert re.search(r"\\citet\{\w+\} \w+", latex)
    named = ("\\citet{chaabouni2020compositionality}", "\\citet{lazaridou2018emergence}")
    assert all(cite in latex for cite in named), "both named"
    assert not re.search(r"\[\d+\]", latex) and "Kharitonov and Baroni (2020)" not in latex
    pandoc = runner.invoke(app, ["draft", TOPIC, "--format", "pandoc", "--no-log"]).stdout
    assert re.search(r"(?<!\[)@\w+ \w+", pandoc) and not re.search(r"\[\d+\]", pandoc)


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")
def test_pandoc_renders_the_prose_with_every_citation_found(emergent: Path, tmp_path: Path) -> None:
    refs = tmp_path / "refs.json"
    document = runner.invoke(app, ["draft", TOPIC, "--format", "pandoc", "--bib", str(refs), "--no-log"]).stdout
    rendered = subprocess.run(
        ["pandoc", "--citeproc", "--bibliography", str(refs), "-t", "plain", "--wrap=none"],
        input=document,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert rendered.returncode == 0 and "not found" not in rendered.stderr, rendered.stderr
    assert re.search(r"[A-Z][a-z]+(?: et al\.| and [A-Z][a-z]+)? \(\d{4}\) [a-z]+", rendered.stdout), rendered.stdout


@needs_model
def test_papers_on_one_finding_share_a_sentence_and_a_one_word_match_is_left_out(tmp_path: Path) -> None:
    bib = tmp_path / "more.bib"
    bib.write_text(EMERGENT_BIB + ONE_WORD_BIB, encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(bib)]).exit_code == 0
    answer = draft(Context(load_settings()), DraftRequest(TOPIC, [], 8), NO_LOG).answer
    grouped = [s for s in answer.sentences if len(s.citations) >= 2]
    assert grouped and all(s.provenance and s.provenance.voice == "grouped" for s in grouped)
    assert all(s.support is not None and s.support.is_top for s in answer.sentences), "each passes the check"
    assert not any(s.text.startswith("Several works") for s in answer.sentences), "no opener that says nothing"
    with Context(load_settings()).reader() as library:  # every paper offered, the one-word match too
        papers, embedder = [p for p in library.catalog.ordered() if not p.no_abstract], library.embedder
    codd = next(p for p in papers if p.citekey == "codd2019referential")
    offered = prose_or_outline(TOPIC, papers, embedder)
    assert codd not in [c.paper for c in offered.citations] and codd in offered.uncited, "it shares one word only"
    kept = prose_or_outline(TOPIC, papers, embedder, keep=frozenset({codd.id}))
    assert codd in [c.paper for c in kept.citations], "a --cite paper always stays"


ONE_WORD_BIB = r"""
@article{codd2019referential, title = {Referential integrity checks in relational databases},
  author = {Codd, Edgar}, year = {2019},
  abstract = {Relational databases enforce referential integrity with foreign keys. We show that deferred checks
  reduce lock contention in transactional workloads by a third.}}
"""


def test_summarize_without_model_writes_the_same_paragraphs(emergent: Path) -> None:
    payload = json.loads(runner.invoke(app, ["summarize", "--json", "--no-log"]).stdout)
    assert payload["mode"] == "extractive_prose" and "\n- " not in payload["answer"]
    cited, found = len(payload["citations"]), len(payload["uncited"])
    assert cited + found == 5, "every paper with an abstract cited or listed as found, the title-only one as related"
    if cited < 5:  # a theme holds more papers than a summary gives sentences: the cut is told
        assert any("left out for length" in note for note in payload["notes"]), payload["notes"]
    paragraphs = payload["answer"].split("\n\n")
    assert all(len(split_cited_sentences(p)) <= SUMMARY_SENTENCES_PER_THEME for p in paragraphs), "summaries: short"
    shown = runner.invoke(app, ["summarize", "--no-log"])
    assert "citation check:" in shown.stdout and "Drafted without a language model" in shown.stdout


def test_summarizing_more_papers_than_max_says_how_to_go_on(emergent: Path) -> None:
    result = runner.invoke(app, ["summarize", "--no-log", "-k", "2"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "papers match but --max is 2" in said and "give a QUERY" in said and "--max 6 to summarize them all" in said


def test_a_models_draft_with_no_supported_sentence_falls_back_to_the_paragraphs(
    emergent: Path, fake: FakeOpenAI
) -> None:
    fake.play(Reply(text="Quantum annealing solves every referential game in constant time [1]."))
    settings = load_settings(llm_model="test-model", llm_base_url=fake.url)
    answer = draft(Context(settings), DraftRequest(TOPIC, [], 8), WritingOptions(cache=False, log=False)).answer
    assert answer.mode is AnswerMode.PROSE and answer.model == "test-model"
    assert any("showing paragraphs built from the papers' own sentences instead" in n for n in answer.notes)
    assert answer.dropped and answer.model_text, "what the model wrote is kept for --json"


SHARED_THESIS = REPO.parent / "shared" / "real" / "bibtex" / "ErikBjare__thesis" / "docs" / "tex" / "zotero.bib"


@pytest.mark.skipif(not SHARED_THESIS.is_file(), reason="../shared/real (the developer set) is not here")
def test_a_real_thesis_bibliography_gets_prose_in_the_citing_voice(no_model: Path) -> None:
    assert runner.invoke(app, ["ingest", str(SHARED_THESIS)]).exit_code == 0
    topic = "Riemannian geometry for EEG classification in brain-computer interfaces"
    answer = draft(Context(load_settings()), DraftRequest(topic, [], 12), NO_LOG).answer
    assert answer.mode is AnswerMode.PROSE and len(answer.citations) >= 6
    assert all(s.support is not None and s.support.is_top for s in answer.sentences)
    assert not any(_FIRST_PERSON.search(_QUOTATION.sub("", s.text)) for s in answer.sentences)
    assert any(s.in_text for s in answer.sentences)


def test_a_must_cite_paper_known_by_its_title_alone_is_listed_and_told(emergent: Path) -> None:
    answer = draft(Context(load_settings()), DraftRequest(TOPIC, ["chaabouni2019anti"], 8), NO_LOG).answer
    assert "chaabouni2019anti" not in {c.paper.citekey for c in answer.citations}
    assert [p.citekey for p in answer.related] == ["chaabouni2019anti"]
    assert any("--cite chaabouni2019anti: known by its title alone" in note for note in answer.notes)


# --- nothing invented, whatever the sentence -------------------------------------------------------------

_OPENERS = ["", "In this paper, ", "Here ", "However, ", "This study ", "Our results ", "This method ", "It "]
_WORDS = ["we", "our", "us", "show", "propose", "presents", "investigated", "that", "the", "model", "X", "and", "is"]
# Words turning a sentence may write besides the source's: the subject, "they"/"their"/"them" for later first
# person, "the ... of/by" around what "our" or "this" named, "In" before a paper, the quotation's frame.
_ADDED = {"they", "their", "them", "the", "of", "by", "in", "write", "writes", "that"}


@given(
    opener=st.sampled_from(_OPENERS),
    words=st.lists(st.sampled_from(_WORDS), min_size=3, max_size=12),
    paper=st.sampled_from([ONE, TWO, MANY]),
)
@example(opener="", words=["we", "propose", "we"], paper=ONE)
@settings(max_examples=300, deadline=None)
def test_turning_adds_only_the_subject_and_fixed_words(opener: str, words: list[str], paper: Paper) -> None:
    sentence = opener + " ".join(words) + "."
    turned = turn(sentence, paper)
    label = in_text_label(paper) or ""
    written = set(re.findall(r"[a-z]+", turned.text.replace(label, " ").lower()))
    source, stems = set(re.findall(r"[a-z]+", sentence.lower())), set(tokenize(sentence))
    # A word is the source's as written or in another form ("show" -> "shows", agreeing with its new subject).
    invented = {w for w in written - source - _ADDED if not set(tokenize(w)) <= stems or not tokenize(w)}
    assert not invented, turned
    if turned.voice is not Voice.QUOTED:
        assert not _FIRST_PERSON.search(turned.text), turned


def test_a_preprint_and_its_journal_version_are_one_paper_with_one_sentence_citing_both() -> None:
    abstract = (
        "{} Water, sanitation and hygiene interventions were tested in rural Bangladesh. We found that a treatment "
        "rule assigning the combined intervention by enteric biomarkers increased predicted child growth (length "
        "difference 0.23). These findings indicate that enteric dysfunction modifies the effect of sanitation "
        "interventions on growth."
    )
    preprint = Paper(
        "pre", abstract.format("Preprint."), title="Treatment heterogeneity of sanitation",
        authors=["Butzin-Dozier, Zachary"], year=2024, venue="medRxiv", citekey="butzin2024",
    )  # fmt: skip
    journal = Paper(
        "pub", abstract.format("Background:"), title="Treatment heterogeneity of sanitation",
        authors=["Butzin-Dozier, Zachary"], year=2025, venue="PLoS Neglected Tropical Diseases", volume="19",
        citekey="butzin2025",
    )  # fmt: skip
    other = Paper(
        "other", "Handwashing promotion reduced diarrhoea in children under five by a third in a cluster trial.",
        title="Handwashing and diarrhoea", authors=["Luby, Stephen"], year=2005, citekey="luby2005",
    )  # fmt: skip
    answer = prose_or_outline("sanitation interventions and child growth", [preprint, other, journal], None)
    assert answer.mode is AnswerMode.PROSE
    cited = [[answer.citations[n - 1].paper.citekey for n in s.citations] for s in answer.sentences]
    assert ["butzin2025", "butzin2024"] in cited, "the journal version leads, the preprint cited beside it"
    assert sum("butzin2024" in keys for keys in cited) == 1, "one paper, one voice"
    assert all(s.support is not None and s.support.is_top for s in answer.sentences)


def test_a_paper_that_states_a_finding_is_drafted_from_it_not_from_its_method() -> None:
    """The method sentence holds more of the topic's words, and the selector ranks it first; the paper's result
    is still its sentence (on three real libraries 21 of 93 draft sentences were aims or methods of papers that
    stated what they found)."""
    paper = Paper(
        id="p1",
        citekey="shafigh2018",
        title="Fracture resistance of composite restorations under pressure changes",
        authors=["Shafigh, Elnaz"],
        year=2018,
        text="Pressure changes can affect dental restorations, especially in divers. Ninety premolar teeth with MOD "
        "composite resin restorations of three types were assigned to diving, flight and control pressure cycles "
        "and their fracture resistance was tested. Packable composite resins had significantly higher fracture "
        "resistance than nanohybrid and microhybrid composite resins. Diving pressure cycles reduced the fracture "
        "resistance of all three composite resins.",
    )
    answer = prose_or_outline("fracture resistance of composite resin restorations", [paper], None)
    assert answer.mode is AnswerMode.PROSE
    assert "were assigned" not in answer.text and "composite resins [1]." in answer.text, answer.text
