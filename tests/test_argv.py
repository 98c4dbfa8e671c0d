"""Global options on either side of the command."""

from __future__ import annotations

from rag.cli import hoist_global_options

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


def test_a_global_option_whose_value_names_a_command_is_not_the_command() -> None:
    commands = ("papers", "search")
    assert hoist_global_options(["--collection", "papers", "search", "gpu", "--debug"], commands) == [
        "--collection",
        "papers",
        "--debug",
        "search",
        "gpu",
    ]
    assert hoist_global_options(["--data-dir", "search", "papers", "-n", "2"], commands) == [
        "--data-dir",
        "search",
        "papers",
        "-n",
        "2",
    ]


def test_the_cli_runs_the_command_after_such_a_value(seeded: object) -> None:
    from typer.testing import CliRunner

    from rag.cli.app import _command_names, app

    result = CliRunner().invoke(
        app, hoist_global_options(["--collection", "papers", "search", "gpu", "--debug", "--json"], _command_names())
    )
    assert result.exit_code == 0, result.output
    assert '"query": "gpu"' in result.stdout
