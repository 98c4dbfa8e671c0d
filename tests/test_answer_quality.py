"""Model answers worth reading (issue #19): what gets past the guard rails must be a sentence, about the question,
with its subject named; names from the sources are not "invented"; good paraphrases pass unchanged.

Replies are hand-written, each with one exact fault (or none), replayed through the real openai SDK and the real
check path (tests/fake_openai.py). Sources for the heterogeneous-GPU question, in retrieval order:
[1] Dünner 2017, [2] Yuan 2022, [3] Yang 2023 (Holmes), [4] Liang 2026 (HexiSeq).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, needs_model
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.check import AnswerMode, Support, first_occurrences, fragment_reason, restates_title
from rag.check.rules import SourceFacts, missing_facts
from rag.cli import app
from rag.config import load_settings
from rag.formats import to_latex, to_pandoc
from rag.services import Context, DraftRequest, SearchRequest, WritingOptions, ask, draft
from rag.services import read as read_service

pytestmark = needs_model
runner = CliRunner()
NO_CACHE = WritingOptions(cache=False)
HOLMES = "Holmes trains large language models across clusters with heterogeneous NIC environments"
HEXISEQ = (
    "HexiSeq extends Context Parallelism and Head Parallelism to heterogeneous GPU meshes for long-context training"
)

# Good model output: paraphrases of the sources' sentences, naming their authors, as a capable model writes them.
GOOD_REPLIES = [
    "As Yuan et al. note, training foundation models such as GPT-3 and PaLM can involve tens of thousands of GPUs "
    "running for months [2]. Dünner et al. propose a generic building block that accelerates training on "
    "heterogeneous compute systems with GPUs and FPGAs [1].",
    "In Holmes, Yang et al. train large language models across clusters with heterogeneous NIC environments [3]. "
    "Liang et al. extend Context Parallelism and Head Parallelism to heterogeneous GPU meshes [4].",
    "While most systems assume homogeneous GPU meshes, HexiSeq extends Context Parallelism to heterogeneous "
    "hardware for long-context training of large language models [4]. Training such models can incur significant "
    "expenses, often requiring tens of thousands of GPUs for months, as Yang et al. observe [3].",
    "Dünner et al. accelerate training on heterogeneous compute systems with GPUs and FPGAs [1]. Liang et al. "
    "accelerate long-context training on heterogeneous GPU meshes [4].",
    json.dumps(
        {
            "sentences": [
                {
                    "text": "Dünner et al. accelerate the training of machine learning models on heterogeneous "
                    "compute systems with accelerators such as GPUs and FPGAs.",
                    "sources": [1],
                },
                {
                    "text": "Yuan et al. study decentralized training of foundation models, which are usually "
                    "trained in specialized clusters with fast networks.",
                    "sources": [2],
                },
            ]
        }
    ),
]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


def _ask(fake: FakeOpenAI, reply: str, question: str = HETEROGENEOUS_QUESTION):  # type: ignore[no-untyped-def]
    fake.play(Reply(text=reply))
    ctx = Context(load_settings(llm_model="test-model", llm_base_url=fake.url))
    return ask(ctx, SearchRequest(question, 5), NO_CACHE)


# --- 1. a shown sentence is a sentence -------------------------------------------------------------------


@pytest.mark.parametrize(
    "piece",
    [
        "in a 2",
        "The paper also explores the role of capacity in a",
        "The paper also [",
        "Training (with GPUs and FPGAs is faster",
        "2022-01-20 20:30:30.142.142.142",
        "Yes.",
        '"text": "The present study aims to investigate the application of data',
    ],
)
def test_fragments_are_not_sentences(piece: str) -> None:
    assert fragment_reason(piece) is not None


@pytest.mark.parametrize(
    "sentence",
    [
        HOLMES,
        "Accuracy rose from 71.2% to 78.9% on 3 of 4 tasks.",
        "Training 10,000 GPUs for months is expensive.",
        "Holmes targets heterogeneous NICs.",
    ],
)
def test_whole_sentences_are_kept(sentence: str) -> None:
    assert fragment_reason(sentence) is None


def test_a_title_restated_is_not_a_finding() -> None:
    title = "Anti-efficient encoding in emergent communication"
    assert restates_title("Anti-efficient encoding in emergent communication.", [title])
    assert restates_title("This paper explores anti-efficient encoding in emergent communication.", [title])
    assert not restates_title(
        "Emergent languages use longer messages for frequent inputs, the opposite of natural languages.", [title]
    )
    usage = "On the Usage of Psychophysiological Data in Software Engineering: An Extended Systematic Mapping Study"
    assert restates_title(
        "The present study aims to investigate the application of psychophysiological data in software engineering",
        [usage],
    ), "SmolLM2's restatement of a thesis library's title (aims, application: framing, not news)"


def test_a_json_reply_cut_before_its_sources_gives_its_texts_not_its_braces() -> None:
    from rag.check import parse_structured

    cut = '{\n  "sentences": [\n    {\n      "text": "Dry electrodes record EEG without gel. They are quick.",\n'
    (sentence,) = parse_structured(cut) or []
    assert sentence.text == "Dry electrodes record EEG without gel. They are quick." and sentence.sources == []


def test_near_duplicates_are_repeats() -> None:
    sentences = [
        "The paper explores the role of capacity in emergent languages [2].",
        "The paper also explores the role of capacity in emergent languages [1].",
        "Larger populations make emergent languages more systematic [1].",
    ]
    assert first_occurrences(sentences) == ([0, 2], [1])


def test_fragments_titles_and_near_repeats_are_dropped_before_any_label(seeded: Path, fake: FakeOpenAI) -> None:
    reply = json.dumps(
        {
            "sentences": [
                {"text": f"{HEXISEQ}.", "sources": [4]},
                {"text": "The paper also explores the role of GPUs in a", "sources": [2]},
                {"text": "in a 2", "sources": [2]},
                {"text": "Decentralized Training of Foundation Models in Heterogeneous Environments", "sources": [2]},
                {"text": f"{HEXISEQ} at scale.", "sources": [4]},
                {"text": f"{HOLMES}.", "sources": [3]},
            ]
        }
    )
    answer = _ask(fake, reply)
    assert answer.mode is AnswerMode.LLM
    assert [s.text for s in answer.sentences] == [f"{HEXISEQ} [1].", f"{HOLMES} [2]."]
    reasons = [d.reason for d in answer.dropped]
    assert reasons.count("not a whole sentence") == 2
    assert reasons.count("restates a source's title") == 1
    assert reasons.count("repeated an earlier sentence") == 1


# --- 2. an answer addresses its question -------------------------------------------------------------------


def test_an_answer_about_something_else_falls_back_with_one_line(seeded: Path, fake: FakeOpenAI) -> None:
    # Holmes' first sentence, quoted: backed by its source, but about LLMs' accuracy, not heterogeneous GPUs.
    off = (
        "Large language models such as GPT-3, OPT, and LLaMA have demonstrated remarkable accuracy in a wide "
        "range of tasks [3]."
    )
    answer = _ask(fake, off)
    assert answer.mode is AnswerMode.EXTRACTIVE
    assert any(note.startswith("the model's answer did not address the question") for note in answer.notes)
    assert [d.reason for d in answer.dropped] == ["not about the question"]


def test_fewer_supported_sentences_than_quotes_shows_more_from_the_papers(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HEXISEQ} [4]."))
    args = ["ask", HETEROGENEOUS_QUESTION, "--model", "test-model", "--base-url", fake.url, "--no-cache"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "More from the papers" in result.stdout and "(Dünner, 2017)" in result.stdout
    fake.play(Reply(text=f"{HEXISEQ} [4]."))
    payload = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert payload["mode"] == "llm" and payload["answer"] == f"{HEXISEQ} [1]."
    assert len(payload["more_from_papers"]) == 3, "the three quotes of papers the answer does not cite"
    numbers = {int(n) for line in payload["more_from_papers"] for n in re.findall(r"\[(\d+)\]", line)}
    assert numbers == {c["n"] for c in payload["more_citations"]} == {2, 3, 4}
    assert "liang2026hexiseq" not in {c["citekey"] for c in payload["more_citations"]}


# --- 3. vague subjects are named -------------------------------------------------------------------------


def test_a_vague_subject_is_named_with_author_and_year(seeded: Path, fake: FakeOpenAI) -> None:
    answer = _ask(fake, "The paper also extends Context Parallelism and Head Parallelism to heterogeneous GPUs [4].")
    (sentence,) = answer.sentences
    assert sentence.text.startswith("The paper (Liang, 2026) also extends") and sentence.subject_source == 1
    assert "The paper~\\cite{liang2026hexiseq} also extends" in to_latex(answer)
    assert "The paper [@liang2026hexiseq] also extends" in to_pandoc(answer)
    assert "The paper also" not in to_latex(answer) + to_pandoc(answer)


def test_a_latex_draft_never_has_a_bare_the_paper(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text="The authors train foundation models over tens of thousands of GPUs for months [2]."))
    ctx = Context(load_settings(llm_model="test-model", llm_base_url=fake.url))
    result = draft(ctx, DraftRequest("decentralized training of foundation models", format="latex"), NO_CACHE)
    assert result.answer.mode is AnswerMode.LLM
    assert re.search(r"The authors~\\cite\{\w+\} train", result.document), result.document


# --- 4. names from the sources are not invented ------------------------------------------------------------


def test_author_names_and_sentence_starts_are_not_invented() -> None:
    source = [SourceFacts.of("Title: Decentralized Training\nAuthors: Yuan, Binhang; Dünner, Celestine\nNeurIPS")]

    def invented(sentence: str) -> list[str]:
        return [f.said for f in missing_facts(sentence, source)]

    assert invented("As Yuan et al. note, training is expensive.") == []
    assert invented("In NeurIPS, Dunner et al. show it.") == []
    assert invented("While Yuan studies it, the University of Tokyo does not.") == ["University of Tokyo"]


@pytest.mark.parametrize("reply", GOOD_REPLIES)
def test_good_model_answers_pass_the_checks_unchanged(seeded: Path, fake: FakeOpenAI, reply: str) -> None:
    answer = _ask(fake, reply)
    assert answer.mode is AnswerMode.LLM
    assert answer.dropped == [], "no false drop"
    assert [s.subject for s in answer.sentences] == [None] * len(answer.sentences), "named subjects stay as written"
    assert answer.sentences[0].support is Support.EVIDENCE


# --- 6. what the model is sent, and what streams ------------------------------------------------------------


def test_the_model_sees_the_best_sentences_and_a_short_answer_is_capped(seeded: Path, fake: FakeOpenAI) -> None:
    _ask(fake, f"{HOLMES} [3].")
    request = fake.requests[0]
    assert request["max_tokens"] <= 256, "a short answer does not run on to RAG_LLM_MAX_TOKENS"
    prompt = request["messages"][1]["content"]
    sources = re.findall(r'<source n="\d+">\n(?:.*\n){3}(.*)\n</source>', prompt)
    assert len(sources) == 4 and all(len(re.split(r"(?<=[.!?…])\s+", s)) <= 2 for s in sources)


def test_checked_sentences_stream_as_json_lines(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(
        Reply(
            text=json.dumps({"sentences": [{"text": f"{HOLMES}.", "sources": [3]}, {"text": "in a 2", "sources": [1]}]})
        )
    )
    args = ["ask", HETEROGENEOUS_QUESTION, "--json", "--stream", "--model", "test-model", "--base-url", fake.url]
    result = runner.invoke(app, [*args, "--no-cache"])
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert [(e["event"], e["text"], e["citekeys"]) for e in events] == [("sentence", HOLMES + ".", ["yang2023holmes"])]
    assert json.loads(result.stdout)["mode"] == "llm", "stdout stays one object"


def test_a_cached_answer_never_starts_the_local_model(
    seeded: Path, fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.llm import Threads, gguf

    model_file = tmp_path / "tiny.gguf"
    model_file.write_bytes(gguf.GGUF_MAGIC + bytes(16))
    starts: list[Path] = []

    def start(path: Path, threads: Threads, notify: object = None, timeout: float = 0) -> gguf.LocalModel:
        starts.append(path)  # stands for llama.cpp loading the file: the fake server answers in its place
        return gguf.LocalModel(path, fake.url, "tiny", "key", threads)

    monkeypatch.setattr(gguf, "start", start)
    fake.play(Reply(text=f"{HOLMES} [3]."))
    first = ask(Context(load_settings(llm_gguf=model_file)), SearchRequest(HETEROGENEOUS_QUESTION, 5))
    second = ask(Context(load_settings(llm_gguf=model_file)), SearchRequest(HETEROGENEOUS_QUESTION, 5))
    assert starts == [model_file.resolve()], "the second, cached answer loaded nothing"
    assert second.text == first.text and second.usage is not None and second.usage.cached_calls == 1


# --- 18.5: a title-only paper is never quoted ------------------------------------------------------------------

TITLE_ONLY_BIB = """
@article{chaabouni_anti_2019, title = {Anti-efficient encoding in emergent communication},
  author = {Chaabouni, Rahma and Kharitonov, Eugene}, year = {2019}}
@article{kharitonov_emergent_2020, title = {Emergent Language Generalization and Acquisition Speed are not tied
  to Compositionality}, author = {Kharitonov, Eugene and Baroni, Marco}, year = {2020},
  abstract = {Studies of discrete languages emerging when neural agents communicate to solve a joint task often look
  for evidence of compositional structure. We find that compositionality does not predict how easily emergent
  languages are acquired by new agents. Emergent languages that generalize well are not necessarily
  compositional.}}
@article{rita_lazimpa_2020, title = {LazImpa: lazy and impatient neural agents learn to communicate efficiently},
  author = {Rita, Mathieu and Chaabouni, Rahma}, year = {2020},
  abstract = {Previous work has shown that artificial neural agents naturally develop surprisingly non-efficient
  codes. In emergent communication, anti-efficient encoding arises when agents use longer messages for frequent
  inputs. We show that lazy speakers and impatient listeners develop efficient encoding close to Zipf's law.}}
"""


def _title_only_library(tmp_path: Path) -> None:
    bib = tmp_path / "thesis.bib"
    bib.write_text(TITLE_ONLY_BIB, encoding="utf-8")
    assert runner.invoke(app, ["--collection", "thesis", "ingest", str(bib)]).exit_code == 0


def test_a_title_only_paper_is_listed_as_related_never_quoted(tmp_path: Path) -> None:
    _title_only_library(tmp_path)
    question = "Is anti-efficient encoding found in emergent communication?"
    result = runner.invoke(app, ["--collection", "thesis", "ask", question, "--no-llm", "--json"])
    payload = json.loads(result.stdout)
    assert "chaabouni_anti_2019" not in {c["citekey"] for c in payload["citations"]}
    assert "chaabouni_anti_2019" in {p["citekey"] for p in payload["related"]}
    assert "Anti-efficient encoding in emergent communication" not in payload["answer"]
    shown = runner.invoke(app, ["--collection", "thesis", "ask", question, "--no-llm"])
    assert "related, no abstract: Anti-efficient encoding in emergent communication (Chaabouni, 2019)" in shown.stdout


def test_a_title_only_paper_does_not_take_a_papers_slot(tmp_path: Path) -> None:
    # -k 1: the paper ranked first is known by its title alone; the answer reads the next paper down instead of
    # refusing for want of an abstract, and still lists the title-only one as related.
    _title_only_library(tmp_path)
    question = "Is anti-efficient encoding found in emergent communication?"
    settings = load_settings(collection="thesis")
    top = read_service.search(Context(settings), SearchRequest(question, 1)).hits
    assert [h.paper.citekey for h in top] == ["chaabouni_anti_2019"]
    result = runner.invoke(app, ["--collection", "thesis", "ask", question, "-k", "1", "--no-llm", "--json"])
    payload = json.loads(result.stdout)
    assert payload["mode"] == "extractive"
    assert [c["citekey"] for c in payload["citations"]] == ["rita_lazimpa_2020"]
    assert "chaabouni_anti_2019" in {p["citekey"] for p in payload["related"]}


def test_a_model_sentence_is_never_backed_by_a_title_only_paper(tmp_path: Path, fake: FakeOpenAI) -> None:
    _title_only_library(tmp_path)
    settings = load_settings(collection="thesis", llm_model="test-model", llm_base_url=fake.url)
    fake.play(
        Reply(
            text="Emergent languages show anti-efficient encoding in emergent communication experiments [1]. "
            "Lazy speakers and impatient listeners develop efficient encoding close to Zipf's law [2]."
        )
    )
    request = DraftRequest("anti-efficient encoding in emergent communication", cite=["chaabouni_anti_2019"])
    answer = draft(Context(settings), request, NO_CACHE).answer
    prompt = fake.requests[0]["messages"][1]["content"]
    assert "Anti-efficient encoding in emergent communication" in prompt, "the --cite paper is given"
    assert answer.sentences, "the sentence its abstract backs is shown"
    for sentence in answer.sentences:
        cited = {answer.citations[n - 1].paper.citekey for n in sentence.citations}
        assert "chaabouni_anti_2019" not in cited, "a title backs nothing: the sentence never cites it"
        assert (
            sentence.evidence is None or "chaabouni" not in answer.citations[sentence.evidence.source - 1].paper.citekey
        )


# --- 5. every hit has a relevance ----------------------------------------------------------------------------


def test_a_hit_found_by_bm25_alone_gets_its_cosine(seeded: Path) -> None:
    import numpy as np

    ctx = Context(load_settings(fusion_depth=1))  # the dense search returns only k units: BM25 finds others
    with ctx.reader() as library:
        queries = ["Aurora Ponte Vecchio GPU tiles", "FPGAs accelerators linear learning", "NIC environment Holmes"]
        raw = {q: library.retriever().search(q, 5) for q in queries}
        lexical_only = [(q, h.paper.id) for q, hits in raw.items() for h in hits if h.dense is None]
        assert lexical_only, "the test needs a hit BM25 found and the dense search did not"
        query, paper_id = lexical_only[0]
        hits = library.search(SearchRequest(query, 5))
        assert all(h.dense is not None for h in hits)
        hit = next(h for h in hits if h.paper.id == paper_id)
        assert library.embedder is not None
        vectors = library.embedder.embed([query, hit.paper.searchable_text()])
        assert hit.dense == pytest.approx(float(vectors[0] @ vectors[1]) / float(np.linalg.norm(vectors[1])), abs=2e-3)


def test_search_json_has_a_relevance_for_every_hit(seeded: Path) -> None:
    result = runner.invoke(app, ["search", "Aurora Ponte Vecchio GPU tiles", "-k", "5", "--json"])
    hits = json.loads(result.stdout)["hits"]
    assert hits and all(isinstance(h["relevance"], float) for h in hits)
    shown = runner.invoke(app, ["search", "Aurora Ponte Vecchio GPU tiles", "-k", "5"]).stdout
    assert shown.count("relevance ") == len(hits) and " score " not in shown


def test_doctor_says_a_small_model_is_small(seeded: Path) -> None:
    from conftest import TEST_GGUF

    from rag.llm import parameters_in_name

    assert parameters_in_name("llama3.2:1b") == 1e9 and parameters_in_name("gpt-4o-mini") is None
    if TEST_GGUF is None or not TEST_GGUF.is_file():
        pytest.skip("no SmolLM2 GGUF file")
    result = runner.invoke(app, ["doctor", "--json"], env={"RAG_LLM_GGUF": str(TEST_GGUF)})
    (size,) = [c for c in json.loads(result.stdout)["checks"] if c["name"] == "model size"]
    assert size["detail"].startswith("135M parameters: expect most answers to fall back to quotes")


def test_a_summary_without_model_never_cites_a_title_only_paper_as_a_finding(tmp_path: Path) -> None:
    _title_only_library(tmp_path)
    payload = json.loads(runner.invoke(app, ["--collection", "thesis", "summarize", "--json"]).stdout)
    assert payload["mode"] == "extractive_prose"
    assert "chaabouni_anti_2019" not in {c["citekey"] for c in payload["citations"]}
    assert [p["citekey"] for p in payload["related"]] == ["chaabouni_anti_2019"]


def test_markdown_carries_more_from_the_papers_and_related_papers() -> None:
    from rag.check import Answer, Citation
    from rag.formats import to_markdown
    from rag.records import Paper

    cited, quoted = Paper("a", "A.", title="Cited", citekey="a"), Paper("b", "B.", title="Quoted", citekey="b")
    title_only = Paper("c", "Only a title", title="Only a title", citekey="c", no_abstract=True)
    answer = Answer("q", "Something [1].", AnswerMode.LLM, [Citation(1, cited)], related=[title_only])
    answer.more_from_papers, answer.more_citations = ["- Quoted: B. [2]"], [Citation(2, quoted)]
    text = to_markdown(answer)
    assert "More from the papers\n\n- Quoted: B. [2]" in text
    assert "- [2] Quoted [b]" in text and "Related, no abstract\n\n- Only a title [c]" in text
