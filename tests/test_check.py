"""`rag check`: manuscripts read as written (LaTeX, Pandoc), their citations checked through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.errors import InputError
from rag.manuscripts import read_file, read_latex, read_pandoc, split_sentences

runner = CliRunner()

BIB = r"""@article{yuan2022,
  title = {Decentralized Training of Foundation Models in Heterogeneous Environments},
  author = {Yuan, Binhang},
  year = {2022},
  abstract = {Training foundation models, such as GPT-3 and PaLM, can be extremely expensive, often involving
    tens of thousands of GPUs running continuously for months. We present a scheduling algorithm that trains
    foundation models over heterogeneous GPUs connected by slow networks. Our approach is up to 4.8x faster
    than prior systems in such environments.}
}
@article{smith2020,
  title = {Coffee consumption and sleep quality},
  author = {Smith, Ann},
  year = {2020},
  abstract = {We studied coffee consumption in 500 adults. Drinking coffee after noon reduced sleep quality.
    Caffeine intake was associated with shorter sleep duration.}
}
@article{doe2019,
  title = {A paper known by its title},
  author = {Doe, Jon},
  year = {2019}
}
"""
SUPPORTED = (
    r"Decentralized training of foundation models over heterogeneous GPUs connected by slow networks is possible"
    r"~\cite{yuan2022}."
)
UNRELATED = r"Drinking coffee after noon reduces sleep quality \citep{yuan2022}."
WEAK = r"Scheduling matters for training speed \cite{yuan2022}."
UNCHECKABLE = r"This is new \cite{nokey2000} and this is old \cite{doe2019}."
CONTRACT_SUMMARY = {
    "citations", "problems", "wrong_paper", "contradicts", "retracted", "missing_key", "fits_stated",
    "fits_not_stated", "cannot_check",
}  # fmt: skip
CONTRACT_CITATION = {
    "file", "line", "column", "key", "sentence", "label", "verdict", "reason", "flagged", "score", "evidence",
    "suggestions",
}  # fmt: skip


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def tex(tmp_path: Path, *sentences: str, name: str = "paper.tex") -> Path:
    path = tmp_path / name
    path.write_text("\\documentclass{article}\n\\begin{document}\n" + "\n".join(sentences) + "\n\\end{document}\n")
    return path


@pytest.fixture
def bib(tmp_path: Path) -> Path:
    path = tmp_path / "refs.bib"
    path.write_text(BIB, encoding="utf-8")
    return path


def checked(*args: str, input: str | None = None) -> tuple[int, dict[str, Any], str]:
    result = runner.invoke(app, ["check", *args, "--json"], input=input)
    return result.exit_code, json.loads(result.stdout), result.stderr


def checked_with(tmp_path: Path, bib: Path, entries: str, *sentences: str) -> tuple[int, list[dict[str, Any]]]:
    """`rag check --json` of a LaTeX file of ``sentences`` with ``entries`` added to the bibliography: the exit
    code and the citations' reports."""
    bib.write_text(BIB + entries, encoding="utf-8")
    code, report, _ = checked(str(tex(tmp_path, *sentences)), "--bib", str(bib))
    return code, report["citations"]


def where(found: Any) -> list[tuple[str, int, int]]:
    return [(c.key, c.line, c.column) for s in found.sentences for c in s.cites]


NIGHT_SHIFTS = r"""@article{lee2020,
  title = {Night shifts and diabetes in nurses},
  author = {Lee, Ana},
  year = {2020},
  abstract = {Shift work is common among nurses. In a cohort of 2,100 hospital nurses followed for six years, night
    shifts were associated with a 30% higher incidence of type 2 diabetes. The association was stronger in nurses
    younger than 40. Sleep duration did not explain the difference.}
}
"""

# --- reading LaTeX ---


def test_every_latex_citation_form_with_its_line_and_column() -> None:
    text = (
        "A \\cite{a} b \\citep{b} c \\citet{c}.\n"
        "D \\autocite{d} e \\parencite{e} f \\textcite{f} good.\n"
        "Starred \\citep*{g} and \\cite*{h}, one option \\cite[p.~3]{i} and two \\citep[see][p.~2]{j}.\n"
        "Several \\cite{k, l,m} in one, and a footnote\\footcite{n}.\n"
    )
    found = read_latex(text, "paper.tex")
    assert where(found) == [
        ("a", 1, 9), ("b", 1, 21), ("c", 1, 33),
        ("d", 2, 13), ("e", 2, 29), ("f", 2, 44),
        ("g", 3, 17), ("h", 3, 31), ("i", 3, 58), ("j", 3, 87),
        ("k", 4, 15), ("l", 4, 18), ("m", 4, 20), ("n", 4, 55),
    ]  # fmt: skip
    assert [c.written for c in found.cites][6:8] == ["\\citep*{g}", "\\cite*{h}"]
    assert [len(s.cites) for s in found.sentences] == [3, 3, 4, 4]
    assert found.sentences[2].text == "Starred and, one option and two."
    assert not found.warnings


def test_comments_math_figures_tables_and_the_preamble() -> None:
    text = (
        "\\documentclass{article}\n\\title{About \\cite{preamble}}\n\\begin{document}\n"
        "Half of cases (50\\%) are ours \\cite{a}. % here \\cite{commented}\n"
        "Inline $x = \\cite{inmath}$ math and $95\\%$ accuracy \\cite{b}.\n"
        "\\begin{equation} E = mc^2 \\end{equation} Energy is known \\cite{c}.\n"
        "\\begin{figure}\\includegraphics{plot}\\caption{Results as in \\cite{d}.}\\label{fig:x}\\end{figure}\n"
        "As Fig.~\\ref{fig:x} shows \\cite{e}.\n"
        "\\begin{tabular}{ll} ResNet \\cite{f} & 76.1 \\\\ VGG \\cite{g} & 71.5 \\\\ \\end{tabular}\n"
        "\\end{document}\nAfter the end \\cite{after}.\n"
    )
    found = read_latex(text, "paper.tex")
    texts = {c.key: s.text for s in found.sentences for c in s.cites}
    assert set(texts) == {"a", "b", "c", "d", "e", "f", "g"}  # no preamble, comment, math or trailing citation
    assert texts["a"] == "Half of cases (50%) are ours."
    assert texts["b"] == "Inline x = math and 95% accuracy."
    assert texts["c"] == "Energy is known."  # display math stands for nothing
    assert texts["d"] == "Results as in."  # the caption is a paragraph of its own
    assert texts["e"] == "As Fig. ?? shows."
    assert (texts["f"], texts["g"]) == ("ResNet 76.1", "VGG 71.5")  # one table row each
    assert found.warnings == ["paper.tex:5:13: \\cite inside math is not checked"]


def test_input_and_include_are_followed_relative_to_the_including_file(tmp_path: Path) -> None:
    (tmp_path / "sections").mkdir()
    (tmp_path / "paper.tex").write_text(
        "\\begin{document}\nFirst \\cite{a}.\n\\input{sections/intro}\n\\include{missing}\n"
        "Last \\cite{z}.\n\\end{document}\n"
    )
    (tmp_path / "sections" / "intro.tex").write_text("Intro \\cite{b}.\n\\input{detail.tex}\n")
    (tmp_path / "sections" / "detail.tex").write_text("Detail\n\\cite{c}.\n\\input{intro}\n")  # a cycle back
    found = read_file(tmp_path / "paper.tex")
    shown = [(c.key, Path(c.file).name, c.line, c.column) for c in found.cites]
    assert shown == [
        ("a", "paper.tex", 2, 13),
        ("b", "intro.tex", 1, 13),
        ("c", "detail.tex", 2, 7),
        ("z", "paper.tex", 5, 12),
    ]
    assert len(found.warnings) == 2
    cycle, missing = sorted(found.warnings, key=lambda w: "cycle" not in w)
    assert cycle.startswith(f"{tmp_path / 'sections' / 'detail.tex'}:3:1: \\input{{intro}} not followed")
    assert "a cycle" in cycle
    assert missing.startswith(f"{tmp_path / 'paper.tex'}:4:1: \\include{{missing}} not followed: no such file")


def test_sentences_split_where_a_reader_splits_them() -> None:
    paragraph = (
        "Smith et al. showed this, e.g. in mice, i.e. in vivo. See Fig. 3 and Eq. 2, cf. Sec. 4 for X vs. Y in mice. "
        "J. R. Smith measured 3.5 units. The end (2020). Then a new one!"
    )
    assert split_sentences(paragraph) == [
        "Smith et al. showed this, e.g. in mice, i.e. in vivo.",
        "See Fig. 3 and Eq. 2, cf. Sec. 4 for X vs. Y in mice.",
        "J. R. Smith measured 3.5 units.",
        "The end (2020).",
        "Then a new one!",
    ]
    found = read_latex("As Smith et al.~\\cite{s} found, e.g. here.\\footcite{f} Next \\cite{n}.", "p.tex")
    assert [(s.text, [c.key for c in s.cites]) for s in found.sentences] == [
        ("As Smith et al. found, e.g. here.", ["s", "f"]),
        ("Next.", ["n"]),
    ]


# --- reading Pandoc / Quarto Markdown ---


def test_every_pandoc_citation_form_and_what_is_not_one() -> None:
    text = (
        "---\ntitle: A [@notinyaml] paper\n---\n\n"
        "# Intro\n\n"
        "Nets work [@a; @b, p. 3]. As @c [p. 33] shows, models scale [-@d].\n"
        "Braced @{e--f} keys, mail me@example.org, see @fig-plot and @sec-intro.\n\n"
        "Inline `code [@incode]` and\n\n```python\nx = '[@infence]'\n```\n\n"
        "- An item [see @g].\n"
    )
    found = read_pandoc(text, "paper.md")
    assert where(found) == [("a", 7, 12), ("b", 7, 16), ("c", 7, 30), ("d", 7, 63), ("e--f", 8, 8), ("g", 16, 16)]
    assert [c.written for c in found.cites] == ["[@a]", "[@b]", "@c", "[-@d]", "@{e--f}", "[@g]"]
    # A citation standing for its authors is shown as written; the check reads the sentence around it.
    assert [s.text for s in found.sentences] == [
        "Nets work.",
        "As @c shows, models scale.",
        "Braced @{e--f} keys, mail me@example.org, see @fig-plot and @sec-intro.",
        "An item.",
    ]
    assert [s.reading for s in found.sentences][1:3] == [
        "As shows, models scale.",
        "Braced keys, mail me@example.org, see @fig-plot and @sec-intro.",
    ]


# --- checking through the CLI ---


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_a_stated_claim_passes_and_a_wrong_paper_gets_the_one_that_fits(tmp_path: Path, bib: Path) -> None:
    paper = tex(tmp_path, SUPPORTED, UNRELATED, UNCHECKABLE)
    code, report, _ = checked(str(paper), "--bib", str(bib))
    assert code == 1
    assert report["summary"] == {
        **dict.fromkeys(CONTRACT_SUMMARY, 0), "citations": 4, "problems": 2, "wrong_paper": 1, "fits_stated": 1,
        "missing_key": 1, "cannot_check": 1,
    }  # fmt: skip
    supported, unrelated, unknown, title_only = report["citations"]
    assert set(supported) >= CONTRACT_CITATION
    assert (supported["verdict"], supported["label"], supported["flagged"]) == ("fits_stated", "evidence_found", False)
    assert supported["suggestions"] == []
    assert "heterogeneous GPUs connected by slow networks" in supported["evidence"]
    assert (unrelated["verdict"], unrelated["flagged"], unrelated["key"]) == ("wrong_paper", True, "yuan2022")
    assert "other papers of the library fit the sentence better" in unrelated["reason"]
    assert [s["citekey"] for s in unrelated["suggestions"]] == ["smith2020"]
    assert set(unrelated["suggestions"][0]) >= {"citekey", "label", "score", "stated"}
    assert (unknown["verdict"], title_only["verdict"]) == ("missing_key", "cannot_check")
    assert (unknown["key"], unknown["score"], unknown["evidence"]) == ("nokey2000", None, None)
    assert title_only["key"] == "doe2019" and "title only" in title_only["reason"]
    assert [(c["line"], c["column"]) for c in report["citations"]] == [(3, 114), (4, 57), (5, 19), (5, 52)]

    code, out, _ = invoke("check", str(paper))
    assert code == 1
    flat = " ".join(out.split())
    assert (
        f'{paper}:4:57: wrong-paper \\citep{{yuan2022}} in "Drinking coffee after noon reduces sleep quality.": 2 '
        "other papers of the library fit the sentence better (rank 3 of 3); better: smith2020"
    ) in flat
    assert f"{paper}:5:19: missing-key \\cite{{nokey2000}}" in flat
    assert f"{paper}:3:" not in out and f"{paper}:5:52" not in out  # notes are counted, not listed
    assert out.strip().splitlines()[-1] == (
        "4 citations checked (offline): 2 problems (1 likely the wrong paper, 1 missing from the bibliography). "
        "Notes: 1 stated in the abstract, 1 cannot check."
    )
    assert "\x1b[" not in out  # no colour outside a terminal
    code, out, _ = invoke("check", str(paper), "--all")
    assert f"{paper}:5:52: cannot-check \\cite{{doe2019}}" in out and f"{paper}:3:114: stated" in out


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_a_sentence_none_of_whose_papers_fits_is_a_note_not_wrong_keys(tmp_path: Path, bib: Path) -> None:
    """A mistyped key is one key: when two papers of one sentence both fit it poorly, the sentence says what
    none of their abstracts does (a field's background), and neither key is called the wrong paper."""
    entries = (
        "@article{lee2021, title = {Pipeline parallelism for large language models on GPU clusters}, "
        "author = {Lee, Kim}, year = {2021}, abstract = {We split large language models across GPU clusters in "
        "pipeline stages. Micro-batches keep every GPU busy and training is 2.1x faster.}}\n"
        "@article{kim2019, title = {Graph neural networks predict molecular solubility}, author = {Kim, Su}, "
        "year = {2019}, abstract = {We train graph neural networks on 10,000 molecules to predict their "
        "solubility in water. The networks match the accuracy of quantum chemistry at a thousandth of the cost.}}\n"
    )
    both = r"Drinking coffee after noon reduces sleep quality \citep{kim2019, lee2021}."
    code, together = checked_with(tmp_path, bib, entries, both)
    assert code == 0
    assert [(c["key"], c["verdict"], c["flagged"]) for c in together] == [
        ("kim2019", "fits_not_stated", False),
        ("lee2021", "fits_not_stated", False),
    ]
    assert all("as do the other papers it cites" in c["reason"] and not c["suggestions"] for c in together)


@needs_model
def test_a_wrong_key_beside_a_paper_stating_the_sentence_is_still_the_wrong_paper(tmp_path: Path, bib: Path) -> None:
    """Read together, a sentence's papers state it whenever one of them does: a mistyped key beside the right
    one is then shielded only where the sentence needs it, and here it does not."""
    entries = (
        "@article{park2021, title = {Afternoon caffeine and sleep in adults}, author = {Park, Jin}, year = {2021}, "
        "abstract = {We followed 300 adults for a month. Drinking coffee after noon reduced their sleep quality "
        "and shortened their sleep by 40 minutes.}}\n"
    )
    sentence = r"Drinking coffee after noon reduces sleep quality \citep{park2021, yuan2022}."
    code, (right, mistyped) = checked_with(tmp_path, bib, entries, sentence)
    assert (right["key"], right["verdict"]) == ("park2021", "fits_stated")
    assert (mistyped["key"], mistyped["verdict"], mistyped["flagged"]) == ("yuan2022", "wrong_paper", True)
    assert [s["citekey"] for s in mistyped["suggestions"]] == ["smith2020"] and code == 1


def test_an_abstract_in_another_language_cannot_check_an_english_sentence(tmp_path: Path, bib: Path) -> None:
    """Born (1926) cited for the Born rule: its German abstract shares no word with the English sentence, which
    says nothing of the citation being wrong."""
    entry = (
        '@article{born1926, title = {Zur Quantenmechanik der Sto\\ss{}vorg\\"{a}nge}, author = {Born, Max}, '
        'year = {1926}, abstract = {Durch eine Untersuchung der Stossvorg\\"{a}nge wird die Auffassung entwickelt, '
        'dass die Quantenmechanik in der Schr\\"{o}dingerschen Form nicht nur die station\\"{a}ren Zust\\"{a}nde, '
        'sondern auch die Quanten\\"{u}berg\\"{a}nge zu beschreiben gestattet.}}\n'
    )
    sentence = r"The squared amplitude of the wavefunction gives the probability of an outcome \cite{born1926}."
    code, (born,) = checked_with(tmp_path, bib, entry, sentence)
    assert (born["verdict"], born["flagged"], code) == ("cannot_check", False, 0)
    assert born["reason"].startswith("its abstract is in another language")


def test_a_source_stating_the_opposite_in_other_words_is_a_contradiction(tmp_path: Path, bib: Path) -> None:
    """ "a lower risk of diabetes" where the abstract says "a 30% higher incidence" (the judge alone reads it as
    only somewhat contradicted, the rules see no close restatement to compare): the judge reads the sentence's
    opposite as stated, and the reader sees the passage that states it. Restated closely, the rules tell the
    words turned."""
    reversed_ = r"Nurses who worked night shifts had a lower risk of diabetes \cite{lee2020}."
    faithful = r"Night shifts were associated with a higher incidence of type 2 diabetes \cite{lee2020}."
    closely = r"Night shifts in nurses were tied to a lower type 2 diabetes incidence \cite{lee2020}."
    code, (turned, kept, restated) = checked_with(tmp_path, bib, NIGHT_SHIFTS, reversed_, faithful, closely)
    assert (turned["verdict"], turned["reason"], code) == ("contradicts", "the abstract states the opposite", 1)
    assert "30% higher incidence" in turned["evidence"]
    assert (kept["verdict"], kept["flagged"]) == ("fits_stated", False)
    assert (restated["verdict"], restated["reason"]) == ("contradicts", "says 'lower' where the abstract says 'higher'")


def test_a_reversal_the_rules_read_shows_the_sentence_it_reverses(tmp_path: Path, bib: Path) -> None:
    """The evidence under "says 'raise' where the abstract says 'reduced'" is the abstract's sentence saying
    "reduced", not the one stating most of the citing sentence's words."""
    entry = (
        "@article{rim2019, title = {RIM4 and the control of meiosis in budding yeast}, author = {Ito, Ken}, "
        "year = {2019}, abstract = {Genetic studies suggest that RIM4 is a positive regulator of meiosis. In "
        "budding yeast, rim4 mutations cause reduced expression of SPO11 during meiosis. These findings suggest "
        "that RIM4 acts independently of IME4 to stimulate SPO11 RNA levels in meiosis.}}\n"
    )
    sentence = r"Mutations in RIM4 raise levels of SPO11 RNA in meiosis \cite{rim2019}."
    code, (turned,) = checked_with(tmp_path, bib, entry, sentence)
    assert (turned["verdict"], turned["reason"], code) == (
        "contradicts",
        "says 'raise' where the abstract says 'reduced'",
        1,
    )
    assert turned["evidence"] == "In budding yeast, rim4 mutations cause reduced expression of SPO11 during meiosis."


def test_a_change_the_abstract_says_did_not_happen_is_a_contradiction(tmp_path: Path, bib: Path) -> None:
    """The abstract's result sentence says the rates did not change; a sentence restating it loosely (too
    loosely to be compared word for word) and saying they fell reverses it, one saying they held does not."""
    entry = (
        "@article{rhee2017, title = {Incidence and trends of sepsis in US hospitals using clinical data}, "
        "author = {Rhee, Chanu}, year = {2017}, abstract = {We studied adults admitted to 409 US hospitals from "
        "2009 to 2014. In US hospitals, neither the incidence of sepsis nor the combined outcome of death or "
        "discharge to hospice changed significantly from 2009 to 2014.}}\n"
    )
    fell = r"In the hospitals, the incidence of sepsis and of death has fallen in recent years \cite{rhee2017}."
    held = r"In the hospitals, the incidence of sepsis and of death did not change in recent years \cite{rhee2017}."
    code, (turned, kept) = checked_with(tmp_path, bib, entry, fell, held)
    assert (turned["verdict"], code) == ("contradicts", 1)
    assert turned["reason"] == "says 'fallen' where the abstract says it did not change: 'neither ... nor ... changed'"
    assert kept["verdict"] != "contradicts" and not kept["flagged"]


def test_a_denial_in_the_first_person_tells_of_the_authors_work(tmp_path: Path, bib: Path) -> None:
    """ "We were not able to replicate [x]" sets the author's result against the source's: the judge reads
    "otherwise" into its "not", and the source does state the link, but neither is the citation's fault. The
    same denial as a claim about the world is the source's to answer for."""
    own = r"We were not able to replicate the link between night shifts and diabetes in nurses \cite{lee2020}."
    claim = r"Diabetes incidence did not differ by shift among nurses \cite{lee2020}."
    code, (ours, theirs) = checked_with(tmp_path, bib, NIGHT_SHIFTS, own, claim)
    assert (ours["verdict"], ours["flagged"]) == ("fits_not_stated", False)
    assert (theirs["verdict"], theirs["reason"], code) == ("contradicts", "the abstract says otherwise", 1)


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_exit_codes(tmp_path: Path, bib: Path) -> None:
    assert invoke("ingest", str(bib))[0] == 0
    assert invoke("check", str(tex(tmp_path, SUPPORTED, r"This is old \cite{doe2019}.", name="good.tex")))[0] == 0
    assert invoke("check", str(tex(tmp_path, SUPPORTED, UNCHECKABLE, name="missing-key.tex")))[0] == 1
    weak = tex(tmp_path, SUPPORTED, WEAK, name="weak.tex")
    code, report, _ = checked(str(weak))
    assert code == 0 and not report["citations"][1]["flagged"]  # a note, not a problem
    assert invoke("check", str(tex(tmp_path, UNRELATED, name="bad.tex")))[0] == 1
    code, _, err = invoke("check", str(tmp_path / "missing.tex"))
    assert code == 2 and err.strip() == f"error: {tmp_path / 'missing.tex'}: no such file"
    code, _, err = invoke("check", str(weak), "--verify", "llm")
    assert code == 2 and err.startswith("error: --verify llm needs a model")


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_a_problem_still_fails_the_check_when_the_reader_stops_reading(tmp_path: Path, bib: Path) -> None:
    """`rag check thesis.tex | head` in a CI job with pipefail: the closed pipe must not turn exit 1 into 0."""
    assert invoke("ingest", str(bib))[0] == 0
    paper = tex(tmp_path, UNRELATED, *([SUPPORTED] * 300))  # one problem, then enough lines to fill the pipe
    script = f'set -o pipefail; "{sys.executable}" -m rag check --all "{paper}" | head -c 10 >/dev/null'
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=os.environ, check=False)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_key_with_a_case_slip_gets_did_you_mean_and_stdin_is_read(tmp_path: Path, bib: Path) -> None:
    assert invoke("ingest", str(bib))[0] == 0
    result = runner.invoke(app, ["check", "-", "--json"], input="Coffee hurts sleep [@Smith2020].\n")
    (slip,) = json.loads(result.stdout)["citations"]
    assert slip["file"] == "-" and (slip["verdict"], slip["flagged"]) == ("missing_key", True)
    assert slip["reason"] == "not in the library (did you mean smith2020?)"
    assert result.exit_code == 1  # LaTeX prints "?": a problem by default
    result = runner.invoke(app, ["check", "-", "-"], input="x")
    assert result.exit_code == 2


def test_fail_on_chooses_what_fails_the_run(tmp_path: Path, bib: Path) -> None:
    assert invoke("ingest", str(bib))[0] == 0
    missing = "Coffee hurts sleep [@nosuchkey2020].\n"
    for choice, code in (("problems", 1), ("missing", 1), ("none", 0)):
        result = runner.invoke(app, ["check", "-", "--fail-on", choice], input=missing)
        assert result.exit_code == code, (choice, result.output)
    assert "missing-key" in result.stdout
    result = runner.invoke(app, ["check", "-", "--fail-on", "sometimes"], input=missing)
    assert result.exit_code == 2 and "sometimes" in result.output


def test_fail_on_missing_lets_other_problems_pass() -> None:
    from rag.check.verdicts import FailOn, Verdict

    assert [v for v in Verdict if FailOn.MISSING.fails(v)] == [Verdict.MISSING_KEY]
    assert not [v for v in Verdict if FailOn.NONE.fails(v)]
    assert [v for v in Verdict if FailOn.PROBLEMS.fails(v)] == [v for v in Verdict if v.flagged]


def test_the_bibliography_the_manuscript_names_is_read_and_its_ids_resolve(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB.replace("@article{smith2020,", "@article{smith2020,\n  ids = {coffee},"))
    paper = tex(tmp_path, r"Drinking coffee after noon reduces sleep quality \cite{coffee}.", "\\bibliography{refs}")
    code, report, err = checked(str(paper))
    assert code == 0, err
    (cited,) = report["citations"]
    assert (cited["key"], cited["paper"]["citekey"], cited["verdict"]) == ("coffee", "smith2020", "fits_stated")
    assert "refs.bib: 3 entries read, 3 new in the library" in err
    # Given as text, a manuscript never makes rag read a file it names (a fresh library: nothing resolves).
    fresh = {"RAG_DATA_DIR": str(tmp_path / "fresh")}
    result = runner.invoke(app, ["check", "-", "--json"], input=paper.read_text(), env=fresh)
    assert json.loads(result.stdout)["citations"][0]["verdict"] == "missing_key"
    assert "entries read" not in result.stderr and "not read" in result.stderr


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_a_table_row_is_read_leniently(tmp_path: Path, bib: Path) -> None:
    table = "\\begin{tabular}{ll} Coffee study \\cite{yuan2022} & 12.5 \\\\ \\end{tabular}"
    code, report, _ = checked(str(tex(tmp_path, table)), "--bib", str(bib))
    assert code == 0
    (row,) = report["citations"]
    assert row["verdict"] == "fits_not_stated" and row["reason"].startswith("in a table: not read as a sentence")


def test_several_citations_in_one_sentence_are_each_reported(tmp_path: Path, bib: Path) -> None:
    both = (
        r"Foundation models train over heterogeneous GPUs, and drinking coffee after noon reduces sleep quality"
        r" \cite{yuan2022,smith2020}."
    )
    _, report, _ = checked(str(tex(tmp_path, both)), "--bib", str(bib))
    verdicts = {c["key"]: c["verdict"] for c in report["citations"]}
    assert verdicts == {"yuan2022": "fits_stated", "smith2020": "fits_stated"}  # together they state it
    assert all(s["citekey"] not in verdicts for c in report["citations"] for s in c["suggestions"])


def test_bib_on_a_fresh_data_dir_and_pandoc_manuscripts(tmp_path: Path, bib: Path) -> None:
    data = tmp_path / "data"
    assert not data.exists()
    paper = tmp_path / "paper.md"
    paper.write_text(
        "Decentralized training of foundation models over heterogeneous GPUs connected by slow networks is "
        "possible [@yuan2022].\n\nAs @smith2020 show, drinking coffee after noon reduces sleep quality.\n"
    )
    code, report, err = checked(str(paper), "--bib", str(bib))
    assert code == 0, err
    assert [(c["key"], c["verdict"], c["line"], c["column"]) for c in report["citations"]] == [
        ("yuan2022", "fits_stated", 1, 109),
        ("smith2020", "fits_stated", 3, 4),
    ]
    assert "refs.bib: 3 entries read, 3 new in the library" in err
    code, out, _ = invoke("papers", "--json")
    assert {p["citekey"] for p in json.loads(out)["papers"]} == {"yuan2022", "smith2020", "doe2019"}  # no seeds


@needs_model  # a wrong paper is told by how the library's papers rank for the sentence (vectors)
def test_mcp_check_tool_returns_the_cli_json(tmp_path: Path, bib: Path) -> None:
    from mcp import Client
    from test_mcp import serve, text

    assert invoke("ingest", str(bib))[0] == 0
    manuscript = "\n".join((SUPPORTED, UNRELATED, UNCHECKABLE))
    _, expected, _ = checked(str(tex(tmp_path, manuscript)))

    async def session(client: Client) -> None:
        found = await client.call_tool("check", {"text": manuscript, "format": "latex"})
        assert not found.is_error, text(found)
        payload = found.structured_content
        assert payload is not None and set(payload["summary"]) == CONTRACT_SUMMARY
        assert payload["summary"] == expected["summary"]
        keep = ("key", "label", "verdict", "reason", "score", "sentence", "evidence", "suggestions")
        assert [{k: c[k] for k in keep} for c in payload["citations"]] == [
            {k: c[k] for k in keep} for c in expected["citations"]
        ]
        assert payload["citations"][1]["file"] == "<text>"
        assert "better: smith2020" in text(found)
        markdown = await client.call_tool("check", {"text": "Coffee hurts sleep [@smith2020].", "format": "markdown"})
        assert not markdown.is_error and markdown.structured_content is not None
        assert markdown.structured_content["citations"][0]["key"] == "smith2020"
        wrong = await client.call_tool("check", {"text": "x", "format": "word"})
        assert wrong.is_error

    serve(tmp_path, session)


# --- bad input ---


def test_a_file_that_is_not_utf8_is_read_with_a_warning(tmp_path: Path, bib: Path) -> None:
    paper = tmp_path / "latin1.tex"
    paper.write_bytes("Fine \\cite{smith2020}.\nCaf\xe9 \\cite{yuan2022}.\n".encode("latin-1"))
    code, report, _ = checked(str(paper), "--bib", str(bib))
    assert code in (0, 1) and report["summary"]["citations"] == 2
    assert f"{paper}:2: not UTF-8 (byte 0xe9); read as Windows-1252" in report["warnings"]
    assert report["citations"][1]["sentence"] == "Café."


def test_unbalanced_braces_empty_keys_and_a_missing_input_are_warnings(tmp_path: Path, bib: Path) -> None:
    paper = tex(
        tmp_path,
        "A closing } too \\cite{smith2020}.",
        "An empty \\cite{} and \\cite{smith2020,}.",
        "\\input{nowhere}",
        "A stray { brace here \\cite{yuan2022}.",
        "\\begin{figure} Never ended.",
        SUPPORTED,
    )
    before = paper.read_bytes()
    code, report, err = checked(str(paper), "--bib", str(bib))
    assert code in (0, 1)
    assert [c["key"] for c in report["citations"]] == ["smith2020", "smith2020", "yuan2022", "yuan2022"]
    warnings = report["warnings"]
    assert f"{paper}:3:11: '}}' closes nothing; read as if it were not there" in warnings
    assert f"{paper}:6:9: '{{' is never closed; read as if it were not there" in warnings
    assert f"{paper}:7:1: \\begin{{figure}} is never ended; read as if it were not there" in warnings
    assert f"{paper}:4:16: \\cite with an empty key" in warnings
    assert f"{paper}:4:38: \\cite with an empty key" in warnings
    assert any(w.startswith(f"{paper}:5:1: \\input{{nowhere}} not followed: no such file") for w in warnings)
    assert all(w in err for w in warnings)
    assert paper.read_bytes() == before  # nothing written to the user's files, nothing beside them
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "no-model", "paper.tex", "refs.bib"]


def test_a_bib_with_broken_entries_is_warned_and_the_rest_used(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB + "\n@article{broken,\n  title = {Broken\n", encoding="utf-8")
    code, report, err = checked(str(tex(tmp_path, SUPPORTED)), "--bib", str(bib))
    assert code == 0 and report["citations"][0]["verdict"] == "fits_stated"
    assert "refs.bib:23: syntax error in entry 'broken' (" in err and "), skipped" in err


def test_a_key_cited_200_times_and_a_1_mb_manuscript(tmp_path: Path, bib: Path) -> None:
    assert invoke("ingest", str(bib))[0] == 0
    many = tex(tmp_path, *(f"Claim number {n} is about coffee \\cite{{smith2020}}." for n in range(200)))
    code, report, _ = checked(str(many))
    assert code in (0, 1) and report["summary"]["citations"] == 200
    assert [c["line"] for c in report["citations"]] == list(range(3, 203))
    filler = "Prose without any citation at all, repeated to make the file large. " * 15
    big = tex(tmp_path, *([filler] * 1_000), SUPPORTED, name="big.tex")
    assert big.stat().st_size > 1_000_000
    code, report, _ = checked(str(big))
    assert code == 0 and report["summary"] == {
        **dict.fromkeys(CONTRACT_SUMMARY, 0),
        "citations": 1,
        "fits_stated": 1,
    }


def test_reading_errors_name_the_file(tmp_path: Path, bib: Path) -> None:
    with pytest.raises(InputError, match="is a folder"):
        read_file(tmp_path)
    code, _, err = invoke("check", str(bib))
    assert code == 2 and err.strip() == f"error: {bib} is a bibliography, not a manuscript: give it with --bib {bib}"
    found = read_latex("\\cite{a}" + "{" * 400 + "x" + "}" * 400 + " and \\cite{b}.", "deep.tex")
    assert found.warnings == [
        "deep.tex: braces or environments nested too deeply to read; its citations are not checked"
    ]


def test_every_verdict_has_a_code_words_a_severity_and_a_style() -> None:
    from rich.style import Style

    from rag.check.verdicts import VERDICTS, Verdict

    assert set(VERDICTS) == set(Verdict)
    for verdict in Verdict:
        assert verdict.code and verdict.shown and isinstance(verdict.flagged, bool)
        Style.parse(verdict.style)  # a style the terminal can draw
    assert len({v.code for v in Verdict}) == len(Verdict)
    problems = {Verdict.WRONG_PAPER, Verdict.CONTRADICTS, Verdict.RETRACTED, Verdict.MISSING_KEY}
    assert {v for v in Verdict if v.flagged} == problems
