"""Human output with rich. Part of the CLI: core modules never import this.

Abstracts are untrusted text: they are shown as ``Text`` (never parsed as rich
markup) with control characters removed, so '[red]' or an ANSI escape inside an
abstract prints literally and cannot restyle the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rag.check.sentences import Answer
from rag.formats import shown
from rag.formats.details import abstract_lines, detail_rows
from rag.records import LogEntry, Paper
from rag.services.configuration import ConfigView
from rag.services.results import (
    Collections,
    DoctorReport,
    EvalRun,
    IngestResult,
    Listing,
    PaperView,
    RemoveResult,
    SearchResult,
    SupportEvalRun,
)
from rag.text import plural, printable

SNIPPET_CHARS = 220


clean = printable  # the name every renderer here uses


def _short(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def reference_line(paper: Paper) -> Text:
    return styled(shown.reference_pieces(paper))


def render_search(console: Console, result: SearchResult) -> None:
    if not result.hits:
        console.print(Text(f"No papers match '{clean(result.query)}'."))
        return
    # One column, one meaning for the whole list: the cosine similarity to the query, which every hit of a library
    # with vectors has and which means the same for every query; a library without vectors (BM25 only) shows
    # the lexical score, scaled per query.
    relevance = all(hit.dense is not None for hit in result.hits)
    for hit in result.hits:
        paper = hit.paper
        head = Text(f"{hit.rank:>2}. ", style="bold")
        head.append(clean(paper.display_title), style="bold cyan")
        measure = f"relevance {hit.dense:.2f}" if relevance and hit.dense is not None else f"score {hit.score:.3f}"
        head.append(f"  {paper.year or 'n.d.'}  {clean(paper.citekey)}  {measure}", style="dim")
        if paper.retracted:
            head.append("  RETRACTED", style="bold red")
        console.print(head)
        if hit.passage is not None:
            console.print(Text(f"    {hit.passage.where}: " + _short(hit.passage.text)))
        else:
            console.print(Text("    " + _short(paper.text)))
        console.print(Text("    " + clean(", ".join(paper.sources)), style="dim"))


# The colours of the style names rag.formats.shown gives.
STYLES = {shown.DIM: "dim", shown.BOLD: "bold", shown.WARN: "yellow", shown.ALERT: "bold red", shown.MARK: "cyan"}


def styled(line: shown.Line) -> Text:
    text = Text()
    for piece in line:
        text.append(piece.text, style=STYLES.get(piece.style, ""))
    return text


def print_lines(console: Console, lines: list[shown.Line]) -> None:
    for line in lines:
        console.print(styled(line))


def render_answer(console: Console, answer: Answer, evidence: bool = False) -> None:
    print_lines(console, shown.answer_lines(answer, evidence))


def render_document(console: Console, answer: Answer, document: str) -> None:
    """A LaTeX or Pandoc document goes to stdout as plain text (pasteable); notes go to stderr."""
    console.print(Text(document), soft_wrap=True)
    from rag.cli.runtime import stderr_console

    print_lines(stderr_console(), shown.check_lines(answer) + shown.usage_lines(answer))


def render_papers(console: Console, listing: Listing, limit: int | None = None) -> None:
    """A table on a terminal (paged when longer than the screen); tab-separated lines in a pipe or file."""
    shown = listing.papers[:limit] if limit else listing.papers
    rows = [(clean(p.citekey), str(p.year or ""), clean(p.display_title), clean(", ".join(p.sources))) for p in shown]
    files = len(listing.lists)
    summary = f"{plural(len(listing.papers), 'paper')} from {plural(files, 'source file')}"
    if len(shown) < len(listing.papers):
        summary += f" ({len(shown)} shown: --limit)"
    if not console.is_terminal:  # rich would expand the tabs: cut/awk/sort read these lines as they are
        console.file.write("".join("\t".join(row) + "\n" for row in rows))
        return
    table = Table(show_lines=False, header_style="bold")
    table.add_column("citekey", no_wrap=True)  # a citekey is copied whole: never folded mid-word
    table.add_column("year", no_wrap=True)
    table.add_column("title", overflow="fold")
    table.add_column("sources", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    if len(rows) > console.height:
        with console.pager(styles=True):
            console.print(table)
            console.print(Text(summary, style="dim"))
        return
    console.print(table)
    console.print(Text(summary, style="dim"))


def print_table(console: Console, headers: Sequence[str], rows: Sequence[Sequence[str]], title: str = "") -> None:
    """A table on a terminal; in a pipe or file tab-separated lines (header first) that cut, awk and
    spreadsheets read as they are: no box drawing, no padding."""
    if not console.is_terminal:
        lines = [title] if title else []
        lines += ["\t".join(headers), *("\t".join(clean(cell) for cell in row) for row in rows)]
        console.file.write("".join(line + "\n" for line in lines))
        return
    table = Table(title=title or None, header_style="bold")
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*(Text(clean(cell)) for cell in row))
    console.print(table)


def _passages_note(paper: Paper) -> str:
    pages = {p.page for p in paper.passages if p.page is not None}
    return f"{len(paper.passages)} passages from {len(pages)} pages, searched with it"


def render_paper(console: Console, view: PaperView) -> None:
    paper = view.paper
    if not console.is_terminal:  # field<TAB>value lines, then the abstract as one paragraph
        fields = [("title", paper.display_title), *detail_rows(paper), *(("related to", s.subject) for s in view.lists)]
        if paper.passages:
            fields.append(("full text", _passages_note(paper)))
        abstract = "\n".join(clean(line) for line in abstract_lines(paper))
        lines = (f"{label}\t{' '.join(clean(value).split())}\n" for label, value in fields)  # one field, one line
        console.file.write("".join(lines) + f"\n{abstract}\n")
        return
    rows = Table.grid(padding=(0, 2))
    rows.add_column(style="bold")
    rows.add_column()
    for label, value in detail_rows(paper):
        rows.add_row(label, Text(clean(value)))
    for seed_list in view.lists:
        rows.add_row("related to", Text(clean(seed_list.subject)))
    text, *notes = abstract_lines(paper)
    body = Text(clean(text), style="dim" if paper.no_abstract else "")
    for note in notes:
        body.append(f"\n{note}", style="dim")
    if paper.passages:
        body.append(f"\n\nfull text: {_passages_note(paper)}", style="dim")
    console.print(Panel(Group(rows, Text(), body), title=Text(clean(paper.display_title)), title_align="left"))


def render_ingest(console: Console, result: IngestResult) -> None:
    details = [plural(result.passages_found, "full-text passage")] if result.passages_found else []
    if (merged := result.entries_read - result.papers_found) > 0:  # a CSV's duplicate rows say nothing else
        details.insert(0, f"from {result.entries_read} entries, {merged} of them the same work as another")
    if result.pdfs_reused:  # a library read again: say why it was quick
        pdfs = result.pdfs_parsed + result.pdfs_reused
        details.append(f"{result.pdfs_reused} of {plural(pdfs, 'PDF')} unchanged, not parsed again")
    passages = f" ({'; '.join(details)})" if details else ""
    # A removed paper is one whose file no longer has it: edited (its new version is among the added) or deleted.
    gone = f", {result.removed} no longer in their files (edited or deleted)" if result.removed else ""
    console.print(
        Text(
            f"{plural(result.files_read, 'file')} read, {plural(result.papers_found, 'paper')}{passages}: "
            f"{result.added} added, {result.updated} updated, {result.unchanged} unchanged{gone}; "
            f"library now has {plural(result.total_papers, 'paper')}"
        ),
        soft_wrap=True,  # one summary line, whatever the terminal width
    )


def render_remove(console: Console, result: RemoveResult) -> None:
    verb = "would remove" if result.dry_run else "removed"
    keys = ", ".join(clean(p.citekey) for p in result.removed)
    console.print(Text(f"{verb} {plural(len(result.removed), 'paper')}: {keys}"), soft_wrap=True)


def render_eval(console: Console, run: EvalRun) -> None:
    first = next(iter(run.reports.values()))
    title = f"{run.dataset}: {len(first.questions)} questions, {run.documents} documents (collection {run.collection})"
    names = list(first.metrics)
    rows = [(method, *(f"{report.metrics[name]:.3f}" for name in names)) for method, report in run.reports.items()]
    print_table(console, ("method", *names), rows, title)


def render_doctor(console: Console, report: DoctorReport) -> None:
    styles = {"ok": "green", "warn": "yellow", "fail": "bold red", "info": "dim"}
    for check in report.checks:
        line = Text(f"{check.status.value:>4}  ", style=styles[check.status.value])
        line.append(f"{check.name}: ", style="bold")
        line.append(clean(check.detail))
        if check.fix:
            line.append(f" -> {clean(check.fix)}", style="yellow")
        console.print(line, soft_wrap=True)  # one check, one line (greppable)


def render_log(console: Console, entries: list[LogEntry]) -> None:
    if not entries:
        console.print(Text("Nothing logged yet: questions, drafts and checks are logged as you run them."))
        return
    rows = [
        (str(e.id), e.at.replace("T", " ")[:16], e.kind, e.library, e.model or "", e.mode, e.question) for e in entries
    ]
    print_table(console, ("id", "date (UTC)", "command", "library", "model", "mode", "question or topic"), rows)


def render_config(console: Console, view: ConfigView) -> None:
    rows = [(s.name, s.value, s.source) for s in view.settings]
    print_table(console, ("setting", "value", "from"), rows)
    if console.is_terminal:
        console.print(Text(f"user config file: {view.file} (`rag config set KEY VALUE` writes it)", style="dim"))


def render_collections(console: Console, found: Collections) -> None:
    infos = found.collections
    if not infos:
        console.print(Text("No libraries yet: the first command indexes the bundled corpus into 'papers'."))
        return

    def count(value: int | None) -> str:
        return "" if value is None else str(value)

    rows = [(info.name, count(info.papers), count(info.vectors), info.model or "") for info in infos]
    print_table(console, ("collection", "papers", "vectors", "embedding model"), rows)


def _share(value: float | list[float], interval: float | list[float] | None) -> str:
    low, high = interval if isinstance(interval, list) else (0.0, 0.0)
    return f"{float(value):.3f} [{low:.3f}-{high:.3f}]" if isinstance(value, float) else str(value)


def render_support_eval(console: Console, run: SupportEvalRun) -> None:
    metrics = run.report.metrics
    console.print(Text(f"{run.dataset}: {len(run.report.pairs)} pairs, checked {run.checker}", style="bold"))
    labels = sorted({label for row in run.report.confusion.values() for label in row})
    confusion = [
        (gold, *(str(row.get(label, 0)) for label in labels)) for gold, row in sorted(run.report.confusion.items())
    ]
    headers = ("gold", *(label.replace("_", " ") for label in labels))
    print_table(console, headers, confusion, "gold label vs the check's label")
    has_support = "SUPPORT" in run.report.confusion
    rows = [("precision of the top label", "precision"), ("recall of the top label", "recall")] if has_support else []
    rows += [(f"{gold} given the top label", f"{gold.lower()}_given_top_label") for gold in ("CONTRADICT", "NEI")]
    rows.append(("hard negatives given the top label", "hard_negative_given_top_label"))
    for name, key in rows:
        if key in metrics:
            console.print(Text(f"{name}: {_share(metrics[key], metrics.get(key + '_ci95'))} (95% interval)"))
    aucs = [
        f"{name.removeprefix('auc_').replace('_', ' ')} {metrics[name]}" for name in metrics if name.startswith("auc_")
    ]
    if has_support:
        console.print(Text(f"F1 {metrics['f1']}; ROC AUC {', '.join(aucs)}", style="dim"))
    if run.skipped:
        console.print(Text(f"{run.skipped} bad lines skipped", style="yellow"))
