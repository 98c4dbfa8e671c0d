"""Global options on either side of the command."""

from __future__ import annotations

from rag.cli.argv import hoist_global_options

COMMANDS = ("search", "ask")


def test_options_after_the_command_move_before_it() -> None:
    assert hoist_global_options(["search", "gpu", "--collection", "mine", "-k", "3"], COMMANDS) == [
        "--collection",
        "mine",
        "search",
        "gpu",
        "-k",
        "3",
    ]
    assert hoist_global_options(["ask", "q", "--data-dir=/d", "--debug"], COMMANDS) == [
        "--data-dir=/d",
        "--debug",
        "ask",
        "q",
    ]


def test_nothing_moves_without_a_command_or_after_double_dash() -> None:
    assert hoist_global_options(["--help"], COMMANDS) == ["--help"]
    assert hoist_global_options(["search", "--", "--collection"], COMMANDS) == ["search", "--", "--collection"]
    assert hoist_global_options(["--collection", "a", "search", "x"], COMMANDS) == ["--collection", "a", "search", "x"]
