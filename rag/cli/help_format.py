"""Help text as other Unix tools write it: `Usage: rag ask [OPTIONS] QUESTION`, `QUESTION  A question...`.

typer marks required arguments with braces in the usage line (`{QUESTION}`) and prints an argument's
Python type beside its name (`QUESTION <str>`); every argument here has a metavar that says what it is.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument


def _usage_name(self: TyperArgument) -> str:
    name = self.display_name_raw if self.required else f"[{self.display_name_raw.strip('[]')}]"
    return name if self.nargs == 1 or name.endswith("...") else name + "..."


def _no_type(self: TyperArgument, ctx: Any) -> str | None:
    return None


def use_conventional_argument_names() -> None:
    TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign]
    TyperArgument.display_type_rich = _no_type  # type: ignore[method-assign,assignment]
