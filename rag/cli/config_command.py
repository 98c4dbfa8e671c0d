"""`rag config`: the effective settings and their sources; `rag config path|set|unset` for the user config file."""

from __future__ import annotations

from typing import Annotated

import typer

from rag.cli.options import AsJson
from rag.cli.runtime import STATE, emit, handle_errors, notify

config_app = typer.Typer(
    name="config",
    help="Show every setting and where it comes from; edit the user config file.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def _overrides() -> dict[str, object]:
    return {"data_dir": STATE.data_dir, "collection": STATE.collection}


@config_app.callback()
@handle_errors
def show(context: typer.Context, as_json: AsJson = False) -> None:
    """Every setting: its value (keys masked) and where it came from.

    Precedence: flag > environment (RAG_*) > .env in this folder > the user config file > default.
    """
    if context.invoked_subcommand is not None:
        return
    from rag.cli.render import render_config
    from rag.config import unknown_setting_warnings
    from rag.services.configuration import effective
    from rag.services.contracts import config_json

    for warning in unknown_setting_warnings():
        notify(warning)
    emit(as_json, effective(_overrides()), config_json, render_config)


@config_app.command("path")
@handle_errors
def path() -> None:
    """Print where the user config file is (it may not exist yet)."""
    from rag.config import user_config_file

    typer.echo(str(user_config_file()))


@config_app.command("set")
@handle_errors
def set_(
    key: Annotated[str, typer.Argument(metavar="KEY", help="A setting, e.g. llm_model or RAG_LLM_MODEL.")],
    value: Annotated[str, typer.Argument(metavar="VALUE", help="Its value, checked before it is written.")],
) -> None:
    """Set KEY to VALUE in the user config file (environment and .env still win)."""
    from rag.services.configuration import set_value

    variable, file = set_value(key, value)
    typer.echo(f"{variable} set in {file}", err=True)


@config_app.command("unset")
@handle_errors
def unset(key: Annotated[str, typer.Argument(metavar="KEY", help="A setting, e.g. llm_model.")]) -> None:
    """Remove KEY from the user config file (its default, or another source, applies again)."""
    from rag.services.configuration import unset_value

    variable, file = unset_value(key)
    typer.echo(f"{variable} removed from {file}", err=True)
