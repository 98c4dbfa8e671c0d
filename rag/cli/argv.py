"""Command lines as people type them: global options on either side of the command.

Click reads `--collection` only before the command (`rag --collection mine search x`);
`rag search x --collection mine` and the `ask` shortcut (`ask Q --collection mine`)
should work too, so global options found after the command are moved in front of it.
"""

from __future__ import annotations

from collections.abc import Sequence

# Global options that take a value, and flags without one (rag.cli.app.main_options).
VALUED_GLOBALS = ("--data-dir", "--collection")
FLAG_GLOBALS = ("--debug",)
END_OF_OPTIONS = "--"


def hoist_global_options(args: Sequence[str], commands: Sequence[str]) -> list[str]:
    """``args`` with the global options that follow the command moved before it (``--`` ends the search)."""
    args = list(args)
    position = _command_position(args, commands)
    if position is None:
        return args
    head, command, rest = args[:position], args[position], args[position + 1 :]
    hoisted: list[str] = []
    kept: list[str] = []
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == END_OF_OPTIONS:
            kept.extend(rest[i:])
            break
        name = arg.split("=", 1)[0]
        if name in VALUED_GLOBALS and "=" in arg:
            hoisted.append(arg)
        elif name in VALUED_GLOBALS and i + 1 < len(rest):
            hoisted += [arg, rest[i + 1]]
            i += 1
        elif arg in FLAG_GLOBALS:
            hoisted.append(arg)
        else:
            kept.append(arg)
        i += 1
    return [*head, *hoisted, command, *kept]


def _command_position(args: Sequence[str], commands: Sequence[str]) -> int | None:
    """Where the command is: the first command name that is not the value of a global option before it
    (`rag --collection papers search x`: 'papers' names the library, the command is 'search')."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == END_OF_OPTIONS:
            return None
        if arg in VALUED_GLOBALS:
            i += 2  # the option and its value
            continue
        if arg in commands:
            return i
        i += 1
    return None
