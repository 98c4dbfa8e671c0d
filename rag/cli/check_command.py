"""`rag check`: parse options, call rag.services.check, print the problems like a linter.

Exit 0 when no citation is a problem, 1 when one is (also when the reader closed stdout early: a CI job
with `pipefail` must not pass), 2 when the check could not run (a missing file, a usage error).
"""

from __future__ import annotations

import sys
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rag.check.verdicts import FailOn
from rag.cli.options import AsJson, BaseUrl, Gguf, Model, NoCache, NoLog, Verify, VerifyOption, model_overrides
from rag.cli.runtime import context, emit, handle_errors_as_usage, progress_bar, silence_stdout

if TYPE_CHECKING:
    from rich.console import Console

    from rag.services.requests import CheckRequest
    from rag.services.results import CheckReport

# Past this, checking shows a progress bar (a one-page draft is done sooner).
PROGRESS_AFTER_SECONDS = 2.0
PROBLEMS_EXIT = 1
STDIN = "-"
FailOnOption = Annotated[
    FailOn,
    typer.Option(
        "--fail-on",
        help="What makes the run fail (exit 1): any problem (default); only keys missing from the "
        "bibliography, what breaks the build (`rag check --fail-on missing thesis.tex` in CI); or none "
        "(report only).",
    ),
]


def render_check(console: Console, report: CheckReport, everything: bool = False) -> None:
    """The problems (``everything``: every citation) as wrapped linter lines grouped by file, then the summary."""
    from rich.text import Text

    from rag.check.verdicts import finding

    shown = report.checks if everything else report.problems
    order = {file: n for n, file in enumerate(dict.fromkeys(c.cite.file for c in report.checks))}
    for n, (_, checks) in enumerate(groupby(sorted(shown, key=lambda c: order[c.cite.file]), lambda c: c.cite.file)):
        if n:
            console.print()
        for check in checks:
            cite = check.cite
            code_at = len(f"{cite.file}:{cite.line}:{cite.column}: ")
            styled = Text(finding(check))
            styled.stylize(check.verdict.style, code_at, code_at + len(check.verdict.code))
            console.print(styled)  # wrapped at the terminal's width, never cut
    console.print(Text(report.summary_line(), style="bold"))


@handle_errors_as_usage
def check(
    files: Annotated[
        list[str],
        typer.Argument(
            help="LaTeX (.tex), Pandoc/Quarto/R Markdown (.md, .qmd, .Rmd) manuscripts, a project folder "
            "(Quarto or bookdown: its chapters in order; LaTeX: its main files), or - for standard input. "
            "\\input files are followed; the bibliographies the manuscript names are added to the library.",
            metavar="FILE|DIR|-",
        ),
    ],
    bib: Annotated[
        list[Path] | None,
        typer.Option(
            "--bib",
            metavar="FILE",
            help="Another bibliography (BibTeX, CSL JSON, RIS, a Zotero library...) to add to the library "
            "before the check; may repeat.",
        ),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="List every citation with its verdict, not only the problems.")
    ] = False,
    fail_on: FailOnOption = FailOn.PROBLEMS,
    verify: VerifyOption = Verify.OFFLINE,
    as_json: AsJson = False,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_cache: NoCache = False,
    no_log: NoLog = False,
) -> None:
    """Check a manuscript's citations against the library, like a linter.

    Problems (exit 1, see --fail-on): likely the wrong paper (it fits the sentence far less than other papers
    of the library and one of them is clearly meant, or the sentence names another paper's author, "Fucci et
    al."; those are named, keys ready to paste), contradicts (the abstract states the opposite),
    retracted, a key missing from the bibliography (LaTeX prints "?"). Notes: fits, stated (with the
    evidence); fits, not stated in the abstract (fine: the paper may state it); cannot check (title only, an
    abstract in another language, no sentence). Exit 2 when the check could not run.
    """
    from rag.services.check import check as core_check
    from rag.services.contracts import check_json

    request = _request(files, bib or [], verify_llm=verify is Verify.LLM, cache=not no_cache, log=not no_log)
    overrides = model_overrides(model, base_url, gguf)
    bar = progress_bar(progress_after=PROGRESS_AFTER_SECONDS, model_line=not as_json)
    with context(bar=bar, **overrides) as ctx:
        report = core_check(ctx, request)
    try:
        emit(as_json, report, check_json, lambda console, r: render_check(console, r, everything))
    except BrokenPipeError:  # `rag check thesis.tex | head`: the reader has enough, the verdict stands
        silence_stdout()
    if any(fail_on.fails(c.verdict) for c in report.checks):
        raise typer.Exit(PROBLEMS_EXIT)


def _request(files: list[str], bibs: list[Path], verify_llm: bool, cache: bool, log: bool) -> CheckRequest:
    """The check asked for: the manuscripts named, or the one read from standard input (``-``)."""
    from rag.services.requests import CheckRequest

    stdin = [f for f in files if f == STDIN]
    if stdin and len(files) > 1:
        raise typer.BadParameter("- (standard input) is the only manuscript when given")
    return CheckRequest(
        [Path(f) for f in files if f != STDIN],
        text=sys.stdin.read() if stdin else None,
        text_format=None,
        text_name=STDIN if stdin else None,
        bibs=bibs,
        verify_llm=verify_llm,
        cache=cache,
        log=log,
    )
