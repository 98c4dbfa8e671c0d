"""Manuscripts read the way their build reads them (rag.manuscripts): LaTeX trees, author macros, every
citation form, glossaries and cross-references, Quarto/bookdown projects, Pandoc blocks, sentences and
their context, bibliographies, and bad input. Small made-up fixtures; the real theses only for coverage."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.manuscripts import (
    Context,
    Manuscript,
    ManuscriptFormat,
    guess_format,
    read_file,
    read_latex,
    read_pandoc,
    read_path,
    read_text,
)

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "real" / "manuscripts"


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def keys(found: Manuscript) -> list[str]:
    return [cite.key for cite in found.cites]


def texts(found: Manuscript) -> dict[str, str]:
    return {cite.key: sentence.text for sentence in found.sentences for cite in sentence.cites}


def readings(found: Manuscript) -> dict[str, str]:
    return {cite.key: sentence.reading for sentence in found.sentences for cite in sentence.cites}


def document(body: str, preamble: str = "") -> str:
    return f"\\documentclass{{report}}\n{preamble}\\begin{{document}}\n{body}\n\\end{{document}}\n"


# --- LaTeX: the tree of files, as the build finds it ---


def test_inputs_are_found_from_the_build_folder_then_beside_the_including_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/main.tex": document(
                "\\inputch{intro}\n\\input{src/chapters/methods}\n\\subfile{appendix}\n",
                preamble="\\newcommand{\\inputch}[1]{\\input{src/chapters/#1}}\n",
            ),
            "src/chapters/intro.tex": "Intro \\cite{a}.\n\\input{figure}\n",  # beside the including file
            "src/chapters/figure.tex": "A figure note \\cite{b}.\n",
            "src/chapters/methods.tex": "Methods \\cite{c}.\n",
            "src/appendix.tex": "\\documentclass[main]{subfiles}\n\\begin{document}\nAppendix \\cite{d}.\n"
            "\\end{document}\n",
        },
    )
    # `latexmk src/main.tex` from the repository root: names are relative to the root.
    from_root = read_file(tmp_path / "src" / "main.tex", build_dir=tmp_path)
    assert keys(from_root) == ["a", "b", "c", "d"]
    assert not from_root.warnings
    assert [Path(c.file).name for c in from_root.cites] == ["intro.tex", "figure.tex", "methods.tex", "appendix.tex"]
    # The default is the main file's folder (latexmk -cd): the names still resolve, from beside the main file.
    assert keys(read_file(tmp_path / "src" / "main.tex")) == ["a", "b", "c", "d"]


def test_macros_that_wrap_inputs_and_citations_are_expanded(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.tex": document(
                "\\chap{one}\n\\inc{two}\n\\three\n\\myinput{four}\n\\inp{five}\n\\mine{six}\n"
                "A claim \\mycite{k1} and \\later{k2}. Hidden \\todo{check \\cite{gone}} text \\cite{k3}.\n",
                preamble=(
                    "\\newcommand*{\\chap}[1]{\\input{ch/#1}}\n"
                    "\\def\\inc#1{\\include{ch/#1}}\n"
                    "\\providecommand{\\three}{\\input{ch/three}}\n"
                    "\\providecommand{\\three}{\\input{ch/never}}\n"  # already defined: not replaced
                    "\\let\\myinput\\input\n"
                    "\\newcommand{\\inp}{\\input}\n"
                    "\\NewDocumentCommand{\\mine}{m}{\\input{ch/#1}}\n"
                    "\\newcommand{\\mycite}[1]{\\citep{#1}}\n"
                    "\\newcommand{\\later}[1]{}\n\\renewcommand{\\later}[1]{\\cite{#1}}\n"
                    "\\newcommand{\\todo}[1]{}\n"
                ),
            ),
            **{f"ch/{name}.tex": f"Chapter {name} \\cite{{{name}}}.\n" for name in ("one", "two", "three")},
            "four.tex": "Four \\cite{four}.\n",
            "five.tex": "Five \\cite{five}.\n",
            "ch/six.tex": "Six \\cite{six}.\n",
        },
    )
    found = read_file(tmp_path / "main.tex")
    assert keys(found) == ["one", "two", "three", "four", "five", "six", "k1", "k2", "k3"]
    k1 = next(c for c in found.cites if c.key == "k1")
    assert (k1.line, k1.column) == (20, 17)  # where the key is written, inside the macro's argument
    assert texts(found)["k3"] == "Hidden text."
    assert len(found.warnings) == 1
    assert re.fullmatch(
        r".*main\.tex:20:\d+: \\todo \(defined at .*main\.tex:\d+:\d+\) drops its argument.*", found.warnings[0]
    )


def test_a_loop_a_missing_file_and_an_empty_name_are_warnings_with_file_and_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.tex": document("First \\cite{a}.\n\\input{loop}\n\\include{missing}\n\\input{}\nLast \\cite{z}.\n"),
            "loop.tex": "Loop \\cite{b}.\n\\input{again}\n",
            "again.tex": "Again \\cite{c}.\n\\input{loop}\n",
        },
    )
    found = read_file(tmp_path / "main.tex")
    assert keys(found) == ["a", "b", "c", "z"]
    main = tmp_path / "main.tex"
    assert found.warnings == [
        f"{tmp_path / 'again.tex'}:2:1: \\input{{loop}} not followed: {tmp_path / 'loop.tex'} is already being "
        "read (a cycle)",
        f"{main}:5:1: \\include{{missing}} not followed: no such file (looked for {tmp_path / 'missing.tex'} "
        "and the folders above)",
        f"{main}:6:1: \\input{{}} without a file name; not followed",
    ]


def test_a_macro_that_calls_itself_is_one_warning_not_a_hang(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"main.tex": document("Text \\loop{x} \\cite{a}.", preamble="\\newcommand{\\loop}[1]{\\loop{#1}\\cite{#1}}\n")},
    )
    started = time.perf_counter()
    found = read_file(tmp_path / "main.tex")
    assert time.perf_counter() - started < 30
    assert "a" in keys(found)
    assert any("expands into itself" in warning for warning in found.warnings)


def test_iffalse_comments_and_verbatim_are_not_followed(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.tex": document(
                "% \\input{commented}\n\\iffalse\n\\input{skipped} \\cite{no}\n\\else\nKept \\cite{yes}.\n\\fi\n"
                "\\begin{verbatim}\\input{verbatim}\\end{verbatim}\n"
            ),
            **{f"{name}.tex": f"\\cite{{{name}}}" for name in ("commented", "skipped", "verbatim")},
        },
    )
    found = read_file(tmp_path / "main.tex")
    assert keys(found) == ["yes"] and not found.warnings


def test_a_file_that_is_not_utf8_is_read_as_windows_1252_with_a_warning(tmp_path: Path) -> None:
    write(tmp_path, {"main.tex": document("\\input{latin}"), "latin.tex": "Malm\xf6 \\cite{a}.\n".encode("latin-1")})
    found = read_file(tmp_path / "main.tex")
    assert texts(found) == {"a": "Malmö."}
    assert found.warnings == [f"{tmp_path / 'latin.tex'}:1: not UTF-8 (byte 0xf6); read as Windows-1252"]


# --- LaTeX: citations, glossaries, cross-references ---


def test_every_citation_form_and_every_occurrence() -> None:
    text = document(
        "Grouped \\citeleft\\citen{a}, p.~7; \\citen{b}\\citeright{} and \\citenum{c}.\n"
        "\\Citet{d} showed \\citetitle{e} in \\fullcite{f}.\\footfullcite{g}\n"
        "Not cited \\nocite{h} but \\citeauthor*{i} and \\citeA{j}.\n"
        "Many \\cites{k}{l} and \\parencites(see)(etc.)[p.~1][2]{m}[3]{n,o} and \\textcites{p}[q]{q}.\n"
        "Twice \\cite{r} and again \\cite{r}, \\autocites{s}{t}.\n"
    )
    found = read_latex(text, "paper.tex")
    assert keys(found) == list("abcdefgijklmnopqrrst")
    assert [(c.line, c.column) for c in found.cites if c.key in "mno"] == [(6, 55), (6, 61), (6, 63)]
    assert [len(s.cites) for s in found.sentences if "Twice" in s.text] == [4]
    assert not found.warnings


def test_glossary_entries_and_cross_references_read_as_printed(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.tex": document(
                "A \\gls{gpu} runs it \\cite{a}. Each \\gls{gpu} and \\Glspl{gpu} \\cite{b}.\n"
                "The \\acrlong{eeg} (\\acrshort{eeg}) of \\gls{aw} and \\ac{RL} with \\gls{unknown} \\cite{c}.\n"
                "See \\cref{fig:plot}, \\Cref{tab:res}, \\autoref{sec:intro}, \\cref{eq:one,eq:two} "
                "and \\ref{fig:plot} \\cite{d}.\n"
                "Both \\glsxtrfullpl{eeg} in \\Vref{fig:plot} with \\tool, \\eg{} here \\cite{e}.\n",
                preamble="\\input{glossary}\n\\newcommand\\tool{\\texttt{lyse}}\n\\newcommand{\\eg}{e.g.\\ }\n",
            ),
            "glossary.tex": "\\newacronym{gpu}{GPU}{graphics processing unit}\n"
            "\\newacronym[plural=EEGs]{eeg}{EEG}{electroencephalography}\n"
            "\\newglossaryentry{aw}{name={ActivityWatch}, description={A tracker, free}}\n"
            "\\acro{RL}{reinforcement learning}\n",
        },
    )
    found = texts(read_file(tmp_path / "main.tex"))
    assert found["a"] == "A graphics processing unit (GPU) runs it."
    assert found["b"] == "Each GPU and GPUs."
    assert (
        found["c"] == "The electroencephalography (EEG) of ActivityWatch and reinforcement learning (RL) with unknown."
    )
    assert found["d"] == "See Figure ??, Table ??, Section ??, Equations ?? and ?? and ??."
    assert found["e"] == "Both electroencephalographys (EEGs) in Figure ?? with lyse, e.g. here."


def test_an_author_macro_named_like_an_acronym_command_is_the_author_s() -> None:
    found = read_latex(document("The \\ac{} power \\cite{a}.", preamble="\\newcommand\\ac{{\\scshape ac}}\n"), "p.tex")
    assert texts(found)["a"] == "The ac power."


# --- sentences and where they stand ---


def test_sentences_end_where_a_reader_ends_them() -> None:
    found = read_latex(
        document(
            "It was shown.\\cite{a} Next one \\cite{b}. Also shown. \\cite{c}\n\n"
            "Tools, data, etc. \\citep{d}. See Fig.~2 and e.g. this \\cite{e}.\n"
        ),
        "p.tex",
    )
    assert [(s.text, [c.key for c in s.cites]) for s in found.sentences] == [
        ("It was shown.", ["a"]),
        ("Next one.", ["b"]),
        ("Also shown.", ["c"]),
        ("Tools, data, etc.", ["d"]),
        ("See Fig. 2 and e.g. this.", ["e"]),
    ]


def test_each_sentence_says_where_it_stands() -> None:
    found = read_latex(
        document(
            "\\section{Background \\cite{h}}\nProse \\cite{p}.\\footnote{A note \\cite{f}.}\n"
            "\\begin{itemize}\\item An item \\cite{l}.\\end{itemize}\n"
            "\\begin{table}\\caption{Results as in \\cite{c}.}\n"
            "\\begin{tabular}{ll} ResNet \\cite{t1} & 76.1 \\\\ VGG \\cite{t2} & 71.5 \\\\ \\end{tabular}\\end{table}\n"
        ),
        "p.tex",
    )
    contexts = {c.key: s.context for s in found.sentences for c in s.cites}
    assert contexts == {
        "h": Context.HEADING, "p": Context.PROSE, "f": Context.FOOTNOTE, "l": Context.LIST,
        "c": Context.CAPTION, "t1": Context.TABLE, "t2": Context.TABLE,
    }  # fmt: skip
    assert found.cites_by_context()[Context.TABLE] == 2


# --- bibliographies, and a manuscript given as text ---


def test_the_bibliographies_a_manuscript_names_are_found_like_its_inputs(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.tex": document("\\input{back}\n\\bibliography{refs,more}", preamble="\\addbibresource{extra.bib}\n"),
            "back.tex": "\\cite{a}",
            "refs.bib": "",
            "extra.bib": "",
        },
    )
    found = read_file(tmp_path / "main.tex")
    assert [p.name for p in found.bibliographies] == ["extra.bib", "refs.bib"]
    assert found.warnings == [
        f"{tmp_path / 'main.tex'}:5:1: bibliography more.bib not found "
        f"(looked for {tmp_path / 'more.bib'} and the folders above)"
    ]
    write(tmp_path, {"paper.qmd": "---\nbibliography: [refs.bib, extra.bib]\n---\n\nText [@a].\n"})
    assert [p.name for p in read_file(tmp_path / "paper.qmd").bibliographies] == ["refs.bib", "extra.bib"]


def test_a_manuscript_given_as_text_never_reads_a_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.tex"
    secret.write_text("\\cite{stolen}")
    latex = read_text(f"\\input{{{secret}}}\nText \\cite{{a}}.\n\\bibliography{{{tmp_path / 'refs'}}}")
    assert keys(latex) == ["a"] and latex.bibliographies == [] and latex.files == ["<text>"]
    assert [w.split(": ", 1)[1] for w in latex.warnings] == [
        f"\\input{{{secret}}} not followed (a manuscript given as text never reads files)",
        f"bibliography {tmp_path / 'refs.bib'} not read (a manuscript given as text never reads files)",
    ]
    markdown = read_text("---\nbibliography: /etc/refs.bib\n---\nText [@a].\n", None, "-")
    assert keys(markdown) == ["a"] and markdown.bibliographies == []
    assert markdown.warnings == [
        "-:1: bibliography /etc/refs.bib not read (a manuscript given as text never reads files)"
    ]


def test_the_format_of_a_text_is_guessed_from_its_content() -> None:
    assert guess_format("\\section{A}\nText \\citep{x}.") is ManuscriptFormat.LATEX
    assert guess_format("# A\n\nText [@x] and @y says.") is ManuscriptFormat.MARKDOWN
    assert guess_format("plain text") is ManuscriptFormat.MARKDOWN
    assert keys(read_text("Text \\cite{x}.")) == ["x"]


# --- Pandoc, Quarto, R Markdown ---


def test_divs_chunks_tables_and_raw_latex_never_stop_the_reading() -> None:
    text = (
        "Before [@a].\n\n"
        " ::: {#fig-x layout-ncol=1}\n\n ![](plot.png)\n\n Caption from @b.\n :::\n\n"
        "  ```{r chunk, echo=FALSE}\n  x <- '[@notcited]'\n  ```\n\n"
        "```{=latex}\n\\cite{rawlatex}\n```\n\n"
        "Inline `r nrow(d)` rows and @fig-x, @sec-y, @tbl-z, @eq-w [@c; @c].\n\n"
        "+--------+---------------------+\n"
        "| Item   | A cell that spans   |\n"
        "|        | lines [@d;          |\n"
        "|        | @e].                |\n"
        "+--------+---------------------+\n\n"
        "| Pipe | Table |\n|---|---|\n| row | [@f] |\n\n"
        "::: {.callout-note}\nIn a callout [@g].\n:::\n\nAfter [@h].\n"
    )
    found = read_pandoc(text, "paper.qmd")
    assert keys(found) == ["a", "b", "c", "c", "d", "e", "f", "g", "h"]
    contexts = {c.key: s.context for s in found.sentences for c in s.cites}
    assert (contexts["b"], contexts["d"], contexts["f"], contexts["g"]) == (
        Context.CAPTION, Context.TABLE, Context.TABLE, Context.PROSE,
    )  # fmt: skip
    d = next(c for c in found.cites if c.key == "d")
    assert (d.line, d.column) == (22, 19)
    assert texts(found)["d"] == "Item A cell that spans lines."
    assert not found.warnings


def test_a_list_item_going_on_from_the_sentence_before_its_list_is_read_after_it() -> None:
    """A real thesis's "... is of interest for many areas of research, including:" then "\\item psychological
    well-being, such as depression [x]" was judged alone, a phrase stating nothing, and flagged as contradicted:
    the item is read after its lead-in (and shown as written). An item that is a sentence of its own, or a list
    after a sentence not ending in a colon, is read alone."""
    latex = document(
        "Device use matters for many areas of research, including:\n\n"
        "\\begin{itemize}\n\\item psychological well-being, such as depression~\\cite{a}.\n"
        "\\item Screen time harms sleep~\\cite{b}.\n\\end{itemize}\n\n"
        "Other work follows.\n\n\\begin{itemize}\n\\item attention span in adults~\\cite{c}.\n\\end{itemize}\n"
    )
    markdown = "Device use matters for many areas, including:\n\n- psychological well-being [@a]\n- sleep [@b]\n"
    latex_read, markdown_read = read_latex(latex, "t.tex"), read_pandoc(markdown, "t.md")
    for found in (latex_read, markdown_read):
        assert texts(found)["a"].startswith("psychological well-being")
        assert readings(found)["a"].startswith("Device use matters for many areas")
        assert "including: psychological" in readings(found)["a"]
    assert readings(latex_read)["b"] == "Screen time harms sleep."
    assert readings(latex_read)["c"] == "attention span in adults."
    assert readings(markdown_read)["b"].startswith("Device use matters")


def test_backslash_escapes_read_as_pandoc_prints_them() -> None:
    found = read_pandoc('The reporter had a Nos 5\\\'UTR and \\"K10\\" \\*not\\* emphasis [@gavis].\n', "ch.Rmd")
    assert "\\" not in texts(found)["gavis"]
    assert "5 'UTR" in texts(found)["gavis"]  # the escape is blanked: columns stay where the file has them


def test_a_citation_standing_for_its_authors_is_shown_as_written_and_read_around() -> None:
    """A real thesis's "One such model is developed by \\citet{ryu2020} in 2020" was shown in `rag check`'s report
    as "One such model is developed by in 2020", and "To study this, @west2018 found that ..." as "To study this,
    found that ...". Both are shown as written now; the check still reads the sentence without the key."""
    latex = read_latex(
        document("One such model is developed by \\citet{ryu2020} in 2020. \\Textcite{a,b} show it \\cite{c}."), "t.tex"
    )
    assert [s.text for s in latex.sentences] == [
        "One such model is developed by \\citet{ryu2020} in 2020.",
        "\\Textcite{a,b} show it.",
    ]
    assert [s.reading for s in latex.sentences] == ["One such model is developed by in 2020.", "show it."]
    markdown = read_pandoc("To study this, @west2018 [p. 3] found that games shrink it [@c].\n", "t.md")
    assert texts(markdown)["west2018"] == "To study this, @west2018 found that games shrink it."
    assert readings(markdown)["c"] == "To study this, found that games shrink it."


def test_inline_code_naming_something_is_read_as_a_word_and_other_code_is_not() -> None:
    """A real Quarto thesis's "use the `BART`, `GiftDelay`, `BalanceBeam` [@b], and `StimSSS` [@e] tasks" was read
    (and shown in `rag check`'s report) as "use the,,, and tasks"; knitr's `r ...` and code with spaces stay out."""
    found = read_pandoc(
        "Use the `BART`, `GiftDelay` [@b], and `StimSSS` [@e] tasks.\n\n"
        "We have `r nrow(d)` rows, summed by `sum(x + y)` [@k].\n",
        "ch.qmd",
    )
    assert texts(found)["e"] == "Use the BART, GiftDelay, and StimSSS tasks."
    assert texts(found)["k"] == "We have rows, summed by."
    e = next(c for c in found.cites if c.key == "e")
    assert (e.line, e.column) == (1, 50)  # where the file has it


def test_an_unterminated_div_or_fence_is_a_warning_and_code_only_is_no_citation() -> None:
    found = read_pandoc("Text [@a].\n\n::: {.note}\nInside [@b].\n", "p.qmd")
    assert keys(found) == ["a", "b"]
    assert found.warnings == ["p.qmd:3: a ::: div is never closed; read to the end of the file"]
    fence = read_pandoc("Text [@a].\n\n```{r}\nx <- 1\n\nLost [@b].\n", "p.Rmd")
    assert fence.warnings == ["p.Rmd:3: a code block is never closed; the rest is read as code"]
    only_code = read_pandoc("```{python}\nprint('@x [@y]')\n```\n", "code.qmd")
    assert only_code.cites == [] and only_code.warnings == []


def test_quarto_includes_and_r_markdown_children_are_read_in_place(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.qmd": "First [@a].\n\n{{< include _part.qmd >}}\n\nThen [@c].\n\n```{r, child='kid.Rmd'}\n```\n\n"
            "{{< include missing.qmd >}}\n",
            "_part.qmd": "Part [@b].\n\n{{< include main.qmd >}}\n",
            "kid.Rmd": "Kid [@k].\n",
        },
    )
    found = read_file(tmp_path / "main.qmd")
    assert keys(found) == ["a", "b", "c", "k"]
    assert [w.split(": ", 1)[1].split(" (")[0] for w in found.warnings] == [
        f"include main.qmd not followed: {tmp_path / 'main.qmd'} is already being read",
        "include missing.qmd not followed: no such file",
    ]
    assert read_text("Text [@a].\n\n{{< include /etc/passwd >}}\n", "markdown").warnings == [
        "<text>:3: include /etc/passwd not followed (a manuscript given as text never reads files)"
    ]


# --- folders: Quarto, bookdown, LaTeX mains ---


def test_a_quarto_book_is_read_in_chapter_order_with_every_profile(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "_quarto.yml": "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n"
            "    - part: Part one\n      chapters: [b.qmd]\nbibliography: refs.bib\n",
            "_quarto-thesis.yml": "book:\n  chapters:\n    - index.qmd\n    - a.qmd\n  appendices:\n    - z.qmd\n",
            "index.qmd": "Index [@i].\n",
            "a.qmd": "A [@a].\n",
            "b.qmd": "B [@b].\n",
            "z.qmd": "Z [@z].\n",
            "_draft.qmd": "Never [@never].\n",
            "refs.bib": "",
        },
    )
    found = read_path(tmp_path)
    assert keys(found) == ["i", "b", "a", "z"]
    assert [p.name for p in found.bibliographies] == ["refs.bib"]
    assert not found.warnings


def test_a_bookdown_book_is_read_as_bookdown_orders_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "index.Rmd": "---\nsite: bookdown::bookdown_site\nbibliography: bib/refs.bib\n---\n\nIndex [@i].\n",
            "02-two.Rmd": "Two [@two].\n",
            "01-one.Rmd": "One `r 1 + 1` [@one] and again [@one].\n",
            "_skipped.Rmd": "[@never]",
            "prelims/abstract.Rmd": "[@never]",
            "bib/refs.bib": "",
        },
    )
    found = read_path(tmp_path)
    assert keys(found) == ["i", "one", "one", "two"]
    assert [p.name for p in found.bibliographies] == ["refs.bib"]
    write(tmp_path, {"_bookdown.yml": "rmd_files: [index.Rmd, 02-two.Rmd]\n"})
    assert keys(read_path(tmp_path)) == ["i", "two"]


def test_a_latex_folder_is_read_from_its_main_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "thesis/main.tex": document("\\input{chapters/one}"),
            "thesis/chapters/one.tex": "One \\cite{one}.",
            "thesis/old.tex": "Not in the build \\cite{old}.",
            "figures/plot.tex": "\\documentclass{standalone}\\begin{document}x\\end{document}",
            "README.md": "A readme [@readme].",
        },
    )
    found = read_path(tmp_path)
    assert keys(found) == ["one"]
    assert found.warnings == [f"{tmp_path}: not read by any main file, so not checked: {tmp_path / 'thesis/old.tex'}"]
    plain = tmp_path / "notes"
    write(plain, {"b.md": "B [@b].", "a.tex": "A \\cite{a}."})
    assert keys(read_path(plain)) == ["a", "b"]


# --- size and bad input ---


def test_a_2_mb_chapter_and_a_key_cited_500_times_are_read_and_nothing_is_written(tmp_path: Path) -> None:
    filler = "Prose without any citation at all, repeated to make the chapter large.\n" * 14
    chapter = ("\n\n".join([filler] * 2_000) + "\n\n") + "".join(f"Claim {n} \\cite{{k}}.\n" for n in range(500))
    write(tmp_path, {"main.tex": document("\\include{big}"), "big.tex": chapter})
    assert (tmp_path / "big.tex").stat().st_size > 2_000_000
    before = sorted(p.name for p in tmp_path.iterdir())
    started = time.perf_counter()
    found = read_file(tmp_path / "main.tex")
    assert time.perf_counter() - started < 60
    assert keys(found) == ["k"] * 500
    assert sorted(p.name for p in tmp_path.iterdir()) == before


LATEX_PIECES = (
    "\\cite{a}", "\\citep[p]{b,c}", "{", "}", "[", "]", "\\begin{document}", "\\end{document}", "\\input{x}",
    "\\newcommand{\\x}[1]{\\cite{#1}}", "\\x{k}", "\\def\\y#1{", "\\iffalse", "\\fi", "%", "\n", "\n\n", " A claim. ",
    "\\parencites(a)[b]{c}", "\\gls{g}", "\\cref{fig:a}", "$", "\\item", "\\footnote{", "\\let\\z\\input", "\\z{w}",
)  # fmt: skip
PANDOC_PIECES = (
    "@key", "[@k; @j]", "[-@k]", "::: {#fig-a}", ":::", "```{r}", "```", "| a | b |", "+---+---+", "`r x`", "^[note",
    "---\n", "bibliography: [a", "\n", "\n\n", " A claim. ", "    ", "<!--", "-->", "{{< include x.qmd >}}",
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    latex=st.lists(st.sampled_from(LATEX_PIECES), max_size=30),
    pandoc=st.lists(st.sampled_from(PANDOC_PIECES), max_size=30),
)
def test_any_text_is_read_without_a_traceback_and_every_citation_is_placed(latex: list[str], pandoc: list[str]) -> None:
    for text, read in (("".join(latex), read_latex), ("".join(pandoc), read_pandoc)):
        found = read(text, "f")
        lines = text.split("\n")
        for cite in found.cites:
            assert 1 <= cite.line <= len(lines) and 1 <= cite.column <= len(lines[cite.line - 1]) + 1


# --- the real theses (../shared/real/manuscripts): every citation read ---

# PROVENANCE.md's independent count of key occurrences, and how each thesis is built.
REAL_CASES = [
    ("ErikBjare__thesis", "docs/tex/thesis.tex", "docs/tex", 85),
    ("chrisjbillington__thesis", "thesis.tex", ".", 348),
    ("diegoferigo__phd-thesis", "thesis.tex", ".", 236),
    ("bentharnist-fmi__bcnn-prob-nowcasting-thesis", "thesis-bent-harnist.tex", ".", 128),
    ("morteza__thesis", ".", ".", 463),
    ("elliotmartin92__Thesis", ".", ".", 787),
]


@pytest.mark.parametrize(("name", "given", "build", "count"), REAL_CASES, ids=[case[0] for case in REAL_CASES])
def test_every_citation_of_the_real_theses_is_read(name: str, given: str, build: str, count: int) -> None:
    if not REAL.is_dir():
        pytest.skip("../shared/real/manuscripts is not here")
    found = read_path(REAL / name / given, REAL / name / build)
    assert len(found.cites) == count
