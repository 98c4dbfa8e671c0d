"""Related-work drafts without a model, on real libraries: prose? every sentence its sources' words? does it
render in LaTeX and Pandoc with no undefined citation, and how fast?

    python benchmarks/extractive_drafts.py [--shared ../shared] [--data DIR] [--out DIR] [--json out.json]

Three libraries from ``shared/real`` (a thesis's Zotero BibTeX, a PubMed export, a Web of Science export),
two topics each written as the library's owner would ask; each draft is made with ``-k 20`` and one must-cite
paper (the first paper with an abstract ranked past the 20 retrieved, so it would not be there otherwise).
Libraries are ingested with the embedding model (RAG_EMBED_MODEL_DIR) into ``--data`` (kept and reused) or a
temporary folder. Measured per draft:

- prose: the draft is paragraphs (mode ``extractive_prose``), not an outline;
- from sources: share of sentences whose every content word is in what they cite (title, abstract, authors,
  year) or is one of the fixed words the generator adds (connectives, "Several works address", "write that");
- first person: sentences with "we", "our", "us" outside a quotation (goal 0);
- findings (issue 39 items 1 and 4): of the sentences citing one paper whose abstract states a finding
  (rag.corpus.roles), those whose source sentence reports one rather than the paper's aim, method or background;
- grouping (issue 39 item 4): sentences citing two papers or more, theme openers (sentences made from the
  theme's shared words, provenance ``theme``), connectives ("Similarly,", "In contrast,", "whereas", ...), and
  the themes' names (rag.writing.outline.theme_names over the papers each paragraph cites): how many names
  share a word with another theme's name, and how many hold a word of the topic;
- papers cited, the must-cite paper cited;
- LaTeX: ``pdflatex`` + ``bibtex`` + ``pdflatex`` x2 with natbib (plainnat, which needs the url package) over
  the .bib the draft wrote, undefined citations counted from the log (or, without pdflatex, every
  \\cite/\\citet key checked against the .bib);
- Pandoc: ``pandoc --citeproc`` over the CSL JSON the draft wrote, "citation ... not found" warnings counted;
- seconds: the ``draft`` service (embedding model loaded, library opened, search, paragraphs, rendering) in a
  context of its own as each `rag draft` has (Python's imports done), with no sentence vector kept on disk
  from before, then the same draft again.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rag.check.markers import CITATION_GROUP  # noqa: E402
from rag.check.rules.alignment import content_words  # noqa: E402
from rag.check.sentences import Answer, AnswerMode, CitedSentence  # noqa: E402
from rag.check.sources import source_block  # noqa: E402
from rag.config import Settings, load_settings  # noqa: E402
from rag.corpus.roles import findings_share  # noqa: E402
from rag.services import ingest as ingest_service  # noqa: E402
from rag.services.context import Context  # noqa: E402
from rag.services.drafting import draft  # noqa: E402
from rag.services.requests import DraftRequest, SearchRequest, WritingOptions  # noqa: E402
from rag.text import split_sentences, tokenize  # noqa: E402
from rag.writing.evidence_sentences import FINDING_AT  # noqa: E402
from rag.writing.outline import theme_names  # noqa: E402

K = 20
# Connectives a draft may write (before and after issue 39 item 4), counted wherever they stand.
CONNECTIVE_WORDS = ("Similarly,", "In a related line of work,", "In contrast,", "whereas", "Likewise,")
_CONNECTIVE = re.compile("|".join(re.escape(c) for c in CONNECTIVE_WORDS))
# Words the generator itself writes: connectives, the theme sentence's frame, the quotation's attribution, the
# naming of a paper ("The results of X", "the study by X") and of several ("A and B both find").
TEMPLATE_WORDS = content_words(" ".join(CONNECTIVE_WORDS) + " several works address write writes that et al both aimed")
_QUOTATION = re.compile(r"“[^”]*”")
_FIRST_PERSON = re.compile(r"\b(?:we|our|us|ours|ourselves)\b", re.IGNORECASE)
NO_WRITES = WritingOptions(use_llm=False, cache=False, log=False)


@dataclass(frozen=True)
class Library:
    name: str
    path: str  # inside shared/real
    topics: tuple[str, str]


LIBRARIES = (
    Library(
        "thesis (Zotero BibTeX, EEG)",
        "bibtex/ErikBjare__thesis/docs/tex/zotero.bib",
        (
            "Riemannian geometry for EEG classification in brain-computer interfaces",
            "brain activity of programmers during code comprehension",
        ),
    ),
    Library(
        "PubMed (MEDLINE .nbib)",
        "exports/mjwestgate__revtools/examples/restoration_pubmed.nbib",
        (
            "effects of vegetation restoration on soil quality and carbon in degraded landscapes",
            "image restoration algorithms for denoising and deblurring",
        ),
    ),
    Library(
        "Web of Science (.ciw)",
        "exports/mjwestgate__revtools/examples/restoration_WoS.ciw",
        (
            "river and wetland restoration effects on aquatic communities",
            "clinical performance of resin composite dental restorations",
        ),
    ),
)


def _library(shared: Path, library: Library, data: Path) -> Settings:
    settings = load_settings(data_dir=data, collection="real")
    if not data.exists() or not any(data.iterdir()):
        ingest_service.ingest(Context(settings), [shared / "real" / library.path])
    return settings


def _must_cite(settings: Settings, topic: str) -> str:
    """The first paper with an abstract ranked past the K retrieved: cited only because it was asked for."""
    with Context(settings).reader() as session:
        hits = session.search(SearchRequest(topic, K + 10))
    return next(h.paper.citekey for h in hits[K:] if not h.paper.no_abstract)


def _from_sources(answer: Answer, sentence: CitedSentence) -> tuple[frozenset[str], frozenset[str]]:
    """The sentence's content words, and those of them its cited papers (or the generator's fixed words) have,
    as written or in another form of the same word (the verb agreeing with its new subject: "provides" ->
    "provide")."""
    papers = {c.n: c.paper for c in answer.citations}
    cited = " ".join(source_block(n, papers[n]) for n in sentence.citations if n in papers)
    known, stems = content_words(cited) | TEMPLATE_WORDS, set(tokenize(cited))
    mine = content_words(CITATION_GROUP.sub("", sentence.text))
    return mine, frozenset(w for w in mine if w in known or set(tokenize(w)) <= stems)


def reports_finding(answer: Answer, sentence: CitedSentence) -> tuple[bool, bool] | None:
    """For a sentence citing one paper: whether its source sentence reports a finding (rag.corpus.roles, read in
    its abstract), and whether the paper's abstract states one at all; None for a grouped or untraced sentence."""
    papers = {c.n: c.paper for c in answer.citations}
    if len(sentence.citations) != 1 or sentence.provenance is None or sentence.citations[0] not in papers:
        return None
    abstract = split_sentences(papers[sentence.citations[0]].text)
    if not abstract:
        return None
    shares = findings_share(abstract)
    source = set(tokenize(sentence.provenance.source))
    closest = max(range(len(abstract)), key=lambda i: len(source & set(tokenize(abstract[i]))))
    return bool(shares[closest] >= FINDING_AT), bool(shares.max() >= FINDING_AT)


def sentence_measures(answer: Answer) -> dict[str, Any]:
    """From sources (all content words, and the share of them), first person outside quotations, and sentences
    reporting a finding where their paper states one."""
    whole, words, found, first_person = 0, 0, 0, 0
    read = [reports_finding(answer, sentence) for sentence in answer.sentences]
    for sentence in answer.sentences:
        mine, known = _from_sources(answer, sentence)
        words += len(mine)
        found += len(known)
        whole += mine == known
        first_person += bool(_FIRST_PERSON.search(_QUOTATION.sub("", sentence.text)))
    return {
        "sentences": len(answer.sentences),
        "multi_cited": sum(len(s.citations) >= 2 for s in answer.sentences),
        "theme_openers": sum(bool(s.provenance and s.provenance.voice == "theme") for s in answer.sentences),
        "connectives": sum(len(_CONNECTIVE.findall(_QUOTATION.sub("", s.text))) for s in answer.sentences),
        "from_sources": whole,
        "words_from_sources": round(found / max(words, 1), 4),
        "first_person": first_person,
        "voices": _voices(answer),
        # sentences citing one paper whose abstract states a finding, and of those, the sentences reporting one
        "paper_states_finding": sum(bool(r and r[1]) for r in read),
        "finding_where_stated": sum(bool(r and r[0] and r[1]) for r in read),
    }


def theme_labels(answer: Answer, topic: str) -> dict[str, Any]:
    """The themes' names over the papers each paragraph cites: how many share a word with another theme's name,
    and how many hold one of the topic's words (stems compared)."""
    papers = [c.paper for c in answer.citations]
    number = {c.n: i for i, c in enumerate(answer.citations)}
    groups: list[list[int]] = []
    for paragraph in (p for p in answer.text.split("\n\n") if p.strip()):
        cited = dict.fromkeys(number[int(n)] for n in re.findall(r"\[(\d+)\]", paragraph) if int(n) in number)
        group = [i for i in cited if all(i not in g for g in groups)]
        if group:
            groups.append(group)
    names = theme_names(groups, papers) if len(groups) > 1 else []
    stems = [set(tokenize(name)) for name in names]
    shared = sum(any(s & other for j, other in enumerate(stems) if j != i) for i, s in enumerate(stems))
    topical = sum(bool(s & set(tokenize(topic))) for s in stems)
    return {"names": names, "sharing_a_word": shared, "with_topic_word": topical}


def _voices(answer: Answer) -> dict[str, int]:
    counts: dict[str, int] = {}
    for sentence in answer.sentences:
        voice = sentence.provenance.voice if sentence.provenance else "none"
        counts[voice] = counts.get(voice, 0) + 1
    return counts


LATEX_DOCUMENT = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{natbib}
\usepackage{url}
\begin{document}
%s
\bibliographystyle{plainnat}
\bibliography{refs}
\end{document}
"""


def latex_check(document: str, bib: Path, folder: Path) -> dict[str, Any]:
    """Undefined citations after pdflatex + bibtex + pdflatex x2 (and LaTeX errors), or without pdflatex the
    cited keys missing from the .bib."""
    keys = {k.strip() for group in re.findall(r"\\cite[tp]?\{([^}]*)\}", document) for k in group.split(",")}
    entries = set(re.findall(r"@\w+\s*\{\s*([^,\s]+)\s*,", bib.read_text(encoding="utf-8")))
    missing = sorted(keys - entries)
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        return {"method": "keys against .bib", "undefined": len(missing), "errors": None}
    (folder / "draft.tex").write_text(LATEX_DOCUMENT % document, encoding="utf-8")
    if bib != folder / "refs.bib":
        shutil.copy(bib, folder / "refs.bib")
    run = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "draft.tex"]
    steps = [run, ["bibtex", "draft"], run, run]
    errors = 0
    for step in steps:
        done = subprocess.run(step, cwd=folder, capture_output=True, text=True, errors="replace", check=False)
        errors += step[0] == "pdflatex" and done.returncode != 0
    log = (folder / "draft.log").read_text(encoding="utf-8", errors="replace")
    undefined = len(set(re.findall(r"Citation `([^']+)' on page \d+ undefined", log)))
    return {"method": "pdflatex+bibtex", "undefined": undefined, "errors": errors, "missing_keys": len(missing)}


def pandoc_check(document: str, csl: Path, folder: Path) -> dict[str, Any]:
    if shutil.which("pandoc") is None:
        return {"undefined": None}
    source = folder / "draft.md"
    source.write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pandoc", "--citeproc", "--bibliography", str(csl), "-t", "plain", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    undefined = len(re.findall(r"[Cc]itation (?:\S+ )?not found|not found: ", done.stderr))
    return {"undefined": undefined, "ok": done.returncode == 0, "text": done.stdout}


def one_draft(settings: Settings, topic: str, must: str, folder: Path) -> dict[str, Any]:
    """Each draft in a context of its own, as each `rag draft` is."""
    Context(settings).storage().layout.vector_cache.unlink(missing_ok=True)  # cold: no sentence embedded before
    started = time.perf_counter()
    markdown = draft(Context(settings), DraftRequest(topic, [must], K, "markdown"), NO_WRITES)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    draft(Context(settings), DraftRequest(topic, [must], K, "markdown"), NO_WRITES)
    again = time.perf_counter() - started
    latex = draft(Context(settings), DraftRequest(topic, [must], K, "latex", folder / "refs.bib"), NO_WRITES)
    pandoc = draft(Context(settings), DraftRequest(topic, [must], K, "pandoc", folder / "refs.json"), NO_WRITES)
    answer = markdown.answer
    cited = {c.paper.citekey for c in answer.citations}
    paragraphs = [p for p in answer.text.split("\n\n") if p.strip()]
    rendered = pandoc_check(pandoc.document, folder / "refs.json", folder)
    return {
        "topic": topic,
        "must_cite": must,
        "prose": answer.mode is AnswerMode.PROSE,
        "papers_cited": len(cited),
        "paragraphs": len(paragraphs),
        "paragraphs_with_theme_sentence": sum(p.startswith("Several works") for p in paragraphs),
        "must_cite_honoured": must in cited,
        **sentence_measures(answer),
        "themes": theme_labels(answer, topic),
        "latex": latex_check(latex.document, folder / "refs.bib", folder),
        "pandoc": {k: v for k, v in rendered.items() if k != "text"},
        "seconds": round(seconds, 2),
        "seconds_again": round(again, 2),
        "markdown": markdown.document,
        "latex_document": latex.document,
        "pandoc_plain": rendered.get("text", ""),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--data", type=Path, help="keep the ingested libraries here (reused when present)")
    parser.add_argument("--out", type=Path, help="write each draft here (Markdown, LaTeX, Pandoc as plain text)")
    parser.add_argument("--json", type=Path, help="write every row here too")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        base = args.data or Path(scratch)
        for number, library in enumerate(LIBRARIES):
            settings = _library(args.shared, library, base / f"library{number}")
            draft(Context(settings), DraftRequest(library.topics[0], [], K), NO_WRITES)  # warm: code imported
            for topic in library.topics:
                must = _must_cite(settings, topic)
                with tempfile.TemporaryDirectory() as folder:
                    row = {"library": library.name, **one_draft(settings, topic, must, Path(folder))}
                rows.append(row)
                _print_row(row)
                if args.out:
                    _write_draft(args.out, len(rows), row)
    _print_summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")


def _print_row(row: dict[str, Any]) -> None:
    latex, pandoc = row["latex"], row["pandoc"]
    print(
        f"{row['topic'][:58]:58} prose={row['prose']!s:5} sentences={row['sentences']:>2} "
        f"from_sources={row['from_sources']}/{row['sentences']} first_person={row['first_person']} "
        f"cited={row['papers_cited']:>2} must={row['must_cite_honoured']!s:5} "
        f"latex_undefined={latex['undefined']} latex_errors={latex.get('errors')} "
        f"pandoc_undefined={pandoc['undefined']} {row['seconds']:.2f}s (again {row['seconds_again']:.2f}s) "
        f"voices={row['voices']}"
    )
    themes = row["themes"]
    print(
        f"    multi_cited={row['multi_cited']} theme_openers={row['theme_openers']} connectives={row['connectives']} "
        f"theme names={themes['names']} sharing_a_word={themes['sharing_a_word']} "
        f"with_topic_word={themes['with_topic_word']}"
    )


def _print_summary(rows: list[dict[str, Any]]) -> None:
    count = len(rows)
    sentences = sum(r["sentences"] for r in rows)
    seconds = sorted(r["seconds"] for r in rows)
    again = sorted(r["seconds_again"] for r in rows)
    print(f"drafts that are prose: {sum(r['prose'] for r in rows)}/{count}")
    print(f"sentences whose content words come from their sources: {sum(r['from_sources'] for r in rows)}/{sentences}")
    print(f"sentences in the first person outside a quotation: {sum(r['first_person'] for r in rows)}")
    print(f"papers cited per draft: {[r['papers_cited'] for r in rows]}")
    themed = sum(r["paragraphs_with_theme_sentence"] for r in rows)
    print(f"paragraphs opened by a theme sentence: {themed}/{sum(r['paragraphs'] for r in rows)}")
    print(f"sentences citing 2+ papers: {sum(r['multi_cited'] for r in rows)}/{sentences}")
    stated = sum(r["paper_states_finding"] for r in rows)
    reporting = sum(r["finding_where_stated"] for r in rows)
    print(f"sentences reporting a finding, of those whose paper states one: {reporting}/{stated}")
    print(f"theme openers: {sum(r['theme_openers'] for r in rows)}; connectives: {sum(r['connectives'] for r in rows)}")
    names = sum(len(r["themes"]["names"]) for r in rows)
    print(
        f"theme names sharing a word with another theme's: {sum(r['themes']['sharing_a_word'] for r in rows)}/{names}; "
        f"holding a topic word: {sum(r['themes']['with_topic_word'] for r in rows)}/{names}"
    )
    voices: dict[str, int] = {}
    for row in rows:
        for voice, number in row["voices"].items():
            voices[voice] = voices.get(voice, 0) + number
    print(f"sentences by voice: {voices}")
    print(f"must-cite honoured: {sum(r['must_cite_honoured'] for r in rows)}/{count}")
    print(
        f"LaTeX undefined citations: {sum(r['latex']['undefined'] or 0 for r in rows)} ({rows[0]['latex']['method']})"
    )
    print(f"Pandoc undefined citations: {sum(r['pandoc']['undefined'] or 0 for r in rows)}")
    print(f"seconds per draft: median {seconds[count // 2]:.2f}, max {seconds[-1]:.2f} (no sentence embedded before)")
    print(
        f"seconds per draft run again: median {again[count // 2]:.2f}, max {again[-1]:.2f} (sentence vectors on disk)"
    )


def _write_draft(out: Path, number: int, row: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"draft{number}"
    stem.with_suffix(".md").write_text(f"# {row['topic']}\n\n{row['markdown']}\n", encoding="utf-8")
    stem.with_suffix(".tex").write_text(row["latex_document"] + "\n", encoding="utf-8")
    stem.with_suffix(".txt").write_text(row["pandoc_plain"], encoding="utf-8")


if __name__ == "__main__":
    main()
