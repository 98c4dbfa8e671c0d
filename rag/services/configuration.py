"""`rag config`: every setting with its value and where it came from; the user config file, read and written.

The precedence itself is rag.config's (flag > environment > .env > user config file > default); this
asks each source in that order which settings it gives, so what is shown is what commands use.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr, ValidationError

from rag.config import (
    ENV_PREFIX,
    Settings,
    load_settings,
    setting_sources,
    setting_variable,
    source_of,
    user_config_file,
)
from rag.errors import InputError
from rag.redaction import mask

# The config file holds keys: readable by its owner only.
CONFIG_FILE_MODE = 0o600


@dataclass(frozen=True)
class SettingValue:
    name: str  # the environment variable that sets it, e.g. RAG_TOP_K
    value: str  # as shown: secrets masked, unset as ""
    source: str  # flag, environment, .env (PATH), config file (PATH) or default
    secret: bool = False


@dataclass(frozen=True)
class ConfigView:
    file: Path
    settings: list[SettingValue]


def _shown(value: Any) -> tuple[str, bool]:
    if isinstance(value, SecretStr):
        return mask(value.get_secret_value()), True
    if value is None:
        return "", False
    if isinstance(value, dict):
        return json.dumps(value), False
    return str(value.value if hasattr(value, "value") else value), False


def effective(overrides: dict[str, Any]) -> ConfigView:
    """Each setting's value as commands see it, and the source that gave it."""
    settings = load_settings(**overrides)
    sources = setting_sources(overrides)
    rows = []
    for field in Settings.model_fields:
        value, secret = _shown(getattr(settings, field))
        rows.append(SettingValue(setting_variable(field), value, source_of(field, sources), secret))
    return ConfigView(user_config_file(), rows)


def _field(key: str) -> str:
    """'RAG_TOP_K', 'top_k' or 'top-k' -> 'top_k'; anything else is one error listing the closest names."""
    import difflib

    name = key.strip().removeprefix(ENV_PREFIX).removeprefix(ENV_PREFIX.lower()).replace("-", "_").lower()
    by_variable = {setting_variable(f).lower(): f for f in Settings.model_fields}
    field = name if name in Settings.model_fields else by_variable.get(key.strip().lower())
    if field is None:
        close = difflib.get_close_matches(name, list(Settings.model_fields), n=1)
        hint = f"; did you mean {close[0]}?" if close else "; `rag config` lists them"
        raise InputError(f"'{key}' is not a rag setting{hint}")
    return field


def _parsed(field: str, value: str) -> Any:
    """The value as the setting takes it: checked by the settings' own validation before anything is written."""
    try:
        checked = Settings.model_validate({field: value} if field != "openai_api_key" else {"OPENAI_API_KEY": value})
    except ValidationError as exc:
        problems = "; ".join(err["msg"] for err in exc.errors())
        raise InputError(f"{setting_variable(field)}={value!r} is not a valid value ({problems})") from None
    stored = getattr(checked, field)
    if isinstance(stored, SecretStr):
        return stored.get_secret_value()
    if isinstance(stored, Path):
        return value  # as typed: '~/papers' stays portable
    return checked.model_dump(mode="json")[field]


def _edit(change: Any) -> Path:
    import tomlkit

    path = user_config_file()
    try:
        document = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
        change(document)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(tomlkit.dumps(document), encoding="utf-8")
        os.chmod(temporary, CONFIG_FILE_MODE)
        os.replace(temporary, path)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except tomlkit.exceptions.ParseError as exc:
        raise InputError(f"the config file {path} is not valid TOML ({exc}); fix or remove it") from None
    return path


def set_value(key: str, value: str) -> tuple[str, Path]:
    """Write ``key = value`` to the user config file (kept with its comments); returns the variable and file."""
    field = _field(key)
    parsed = _parsed(field, value)

    def change(document: Any) -> None:
        document[field] = parsed

    return setting_variable(field), _edit(change)


def unset_value(key: str) -> tuple[str, Path]:
    field = _field(key)

    def change(document: Any) -> None:
        document.pop(field, None)

    return setting_variable(field), _edit(change)
