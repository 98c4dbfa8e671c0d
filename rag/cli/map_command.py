"""`rag map`: parse options, call rag.services.mapping, say what was written. No logic here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rag.cli.options import HighlightedHits
from rag.cli.runtime import context, handle_errors
from rag.services.requests import DEFAULT_MAP_SEED
from rag.text import plural


@handle_errors
def map_command(
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Where to write the map: .png (static, A4) or .html (one offline file: hover, search, click to copy).",
        ),
    ],
    query: Annotated[
        str | None,
        typer.Option(
            "--query", metavar="QUERY", help="Highlight the papers `rag search QUERY` finds.", show_default=False
        ),
    ] = None,
    cite: Annotated[
        list[str] | None,
        typer.Option(
            "--cite", metavar="KEY", help="Mark a paper that must be cited (id, citekey or file#n). Repeatable."
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Layout seed: the same seed draws the same map.")
    ] = DEFAULT_MAP_SEED,
    top_k: HighlightedHits = None,
) -> None:
    """Draw the library as a map (PNG or HTML).

    Papers placed by similarity, coloured by theme, labelled by citekey.
    """
    from rag.services.mapping import draw_map
    from rag.services.requests import MapRequest

    with context() as ctx:
        result = draw_map(ctx, MapRequest(output, query, cite or [], seed, top_k))
    drawn = result.map
    typer.echo(
        f"wrote {result.output} ({result.size:,} bytes): {plural(len(drawn.points), 'paper')} in "
        f"{plural(len(drawn.themes), 'theme')}, {drawn.method}"
    )
