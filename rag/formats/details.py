"""One paper's details as (label, value) rows: what `rag show` and the MCP `show` tool print."""

from __future__ import annotations

from rag.records import Paper


def where_published(paper: Paper) -> str | None:
    """'Journal of X 12(3), 45-67; Publisher' from what is known, or None."""
    place = paper.venue or ""
    if paper.volume:
        place += f" {paper.volume}"
    if paper.issue:
        place += f"({paper.issue})"
    if paper.pages:
        place += f", {paper.pages}" if place else f"pp. {paper.pages}"
    if paper.publisher:
        place += f"; {paper.publisher}" if place else paper.publisher
    return place.strip() or None


NO_ABSTRACT = "(no abstract: known by its title only, so it is found by its title and never quoted as evidence)"
CUT_SHORT = "(abstract cut short in the source)"


def abstract_lines(paper: Paper) -> list[str]:
    """The body of a paper as shown: its abstract and a note when it was cut short, or the note that it has
    none (a title-only paper's text is its title, which would read as an abstract)."""
    if paper.no_abstract:
        return [NO_ABSTRACT]
    return [paper.text, CUT_SHORT] if paper.truncated else [paper.text]


def detail_rows(paper: Paper) -> list[tuple[str, str]]:
    """The rows worth showing, in reading order; unknown optional fields are left out."""
    rows = [
        ("retracted", "yes: the reference manager flags this work as retracted" if paper.retracted else ""),
        ("id", paper.id),
        ("citekey", paper.citekey),
        ("also cited as", ", ".join(paper.aliases)),
        ("authors", "; ".join(paper.authors) or "unknown"),
        ("year", str(paper.year or "unknown")),
        ("type", paper.item_type or ""),
        ("published in", where_published(paper) or ""),
        ("DOI", paper.doi or ""),
        ("URL", paper.url or ""),
        ("arXiv", paper.arxiv or "unknown"),
        ("collections", "; ".join(paper.collections)),
        ("sources", ", ".join(paper.sources)),
    ]
    return [(label, value) for label, value in rows if value]
