"""`rag check`: parse options, call rag.services.check, print the findings like a linter.

Exit 0 when no citation falls below --min-label, 1 when one does (for CI and pre-commit hooks), 2 on a
usage error or when the check could not run.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rag.cli.options import AsJson, BaseUrl, Gguf, Model, NoCache, NoLog, Verify, VerifyOption
from rag.cli.runtime import context, emit, handle_errors_as_usage

if TYPE_CHECKING:
    from rich.console import Console

    from rag.services.results import CheckReport

# Past this, checking shows a progress bar (a one-page draft is done sooner).
PROGRESS_AFTER_SECONDS = 2.0
FINDINGS_EXIT = 1
STYLES = {
    "evidence_found": "green",
    "weak": "yellow",
    "unsupported": "red",
    "conflict": "bold magenta",
    "cannot_check": "cyan",
}


class MinLabel(StrEnum):
    WEAK = "weak"
    EVIDENCE = "evidence"


def render_check(console: Console, report: CheckReport) -> None:
    from rich.text import Text

    from rag.writing.manuscript_check import CheckLabel, finding

    shown = [c for c in report.checks if c.label is not CheckLabel.EVIDENCE]
    order = {file: n for n, file in enumerate(dict.fromkeys(c.cite.file for c in report.checks))}
    for n, (_, checks) in enumerate(groupby(sorted(shown, key=lambda c: order[c.cite.file]), lambda c: c.cite.file)):
        if n:
            console.print()
        for check in checks:
            cite = check.cite
            label_at = len(f"{cite.file}:{cite.line}:{cite.column}: ")
            styled = Text(finding(check))
            styled.stylize(STYLES[check.label.value], label_at, label_at + len(check.label.shown))
            console.print(styled, soft_wrap=True)
    console.print(Text(report.summary_line(), style="bold"), soft_wrap=True)


@handle_errors_as_usage
def check(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="LaTeX (.tex) or Pandoc/Quarto Markdown (.md, .qmd) manuscripts; \\input files are followed.",
            metavar="FILE",
            exists=True,
            dir_okay=False,
        ),
    ],
    bib: Annotated[
        Path | None,
        typer.Option(
            "--bib",
            metavar="FILE",
            help="The manuscript's bibliography (BibTeX .bib or CSL JSON), added to the library before the check.",
        ),
    ] = None,
    verify: VerifyOption = Verify.OFFLINE,
    as_json: AsJson = False,
    min_label: Annotated[
        MinLabel,
        typer.Option(
            "--min-label",
            help="Exit 1 when a citation is below this: weak (unsupported and conflicting citations fail) "
            "or evidence (weak ones too). Citations that cannot be checked never fail.",
        ),
    ] = MinLabel.WEAK,
    model: Model = None,
    base_url: BaseUrl = None,
    gguf: Gguf = None,
    no_cache: NoCache = False,
    no_log: NoLog = False,
) -> None:
    """Check a manuscript's citations against the library, like a linter.

    Each cited paper is checked against the sentence that cites it (offline, or the model as judge with
    --verify llm): evidence found, weak, unsupported or conflict, with the best evidence quoted and, for
    the others, papers of the library that back the sentence. Keys not in the library and papers without
    an abstract cannot be checked.
    """
    from rag.services.check import check as core_check
    from rag.services.contracts import check_json
    from rag.services.requests import CheckRequest
    from rag.writing.manuscript_check import CheckLabel

    request = CheckRequest(files, bib=bib, verify_llm=verify is Verify.LLM, cache=not no_cache, log=not no_log)
    overrides = {"llm_model": model, "llm_base_url": base_url, "llm_gguf": gguf}
    with context(progress_after=PROGRESS_AFTER_SECONDS, **overrides) as ctx:
        report = core_check(ctx, request)
    emit(as_json, report, check_json, render_check)
    minimum = CheckLabel.EVIDENCE if min_label is MinLabel.EVIDENCE else CheckLabel.WEAK
    if report.below(minimum):
        raise typer.Exit(FINDINGS_EXIT)
