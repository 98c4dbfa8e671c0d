"""One settings object; precedence is written once, here.

flag (passed as keyword arguments) > environment ``RAG_*`` > ``.env`` in the working folder >
the user config file (TOML in the platform's config folder, ``rag config path``) > default.
"""

from __future__ import annotations

import difflib
import os
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_config_dir, user_data_dir
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

APP_NAME = "rag"
DEFAULT_COLLECTION = "papers"
DEFAULT_EMBED_MODEL = "all-MiniLM-L6-v2"
# "none" switches dense retrieval off on purpose (lexical only, no model needed).
NO_EMBED_MODEL = "none"
DEFAULT_TOP_K = 5
# Candidates taken from each retriever before fusion: deep enough that a paper
# ranked low by one method but high by the other still reaches the fused list.
DEFAULT_FUSION_DEPTH = 100
# Weight of the dense score in the convex fusion; tuned on the dev questions and
# SciFact train (see benchmarks/retrieval.py): both peak on a flat 0.35-0.45 plateau.
DEFAULT_DENSE_WEIGHT = 0.4
# Seconds a command waits for another rag process to release the data directory.
DEFAULT_LOCK_TIMEOUT = 3.0
# Below this cosine similarity a paper is not evidence (above it, half the question's terms must match too;
# rag.writing.evidence_sentences.is_evidence): `ask` refuses instead of answering.
DEFAULT_MIN_RELEVANCE = 0.30
# The model named in docs and cost estimates; never used unless asked for.
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_LLM_TEMPERATURE = 0.1
DEFAULT_LLM_MAX_TOKENS = 700
# Seconds for one model request; a local model's first token can be slow.
DEFAULT_LLM_TIMEOUT = 60.0
# Attempts and total seconds for one model call, retries included.
DEFAULT_LLM_ATTEMPTS = 4
DEFAULT_LLM_RETRY_SECONDS = 180.0
# First wait between attempts when the server sends no Retry-After; doubled each time.
DEFAULT_LLM_BACKOFF_SECONDS = 1.0
# Tokens of sources that fit one prompt; more papers are summarized in parts.
DEFAULT_LLM_CONTEXT_TOKENS = 6000
# CPU threads for an in-process GGUF model: "auto" is what the machine offers (rag.llm.threads), or a number.
AUTO_THREADS: Literal["auto"] = "auto"
DEFAULT_LLM_THREADS: int | Literal["auto"] = AUTO_THREADS


class CitationProtocol(StrEnum):
    """How a model gives its citations: JSON sentences with source numbers, or [n] in its text."""

    AUTO = "auto"  # JSON where the server takes a schema, text where it refuses (remembered per endpoint)
    JSON = "json"
    TEXT = "text"


class LatexCitations(StrEnum):
    """Which citation commands a LaTeX draft writes: the ones the manuscript's bibliography package defines."""

    CITE = "cite"  # plain \cite (numeric styles, any package); a paper named in the text: "Author et al.~\cite{k}"
    NATBIB = "natbib"  # \citep in parentheses, \citet for a paper named in the text
    BIBLATEX = "biblatex"  # \parencite and \textcite


class EmbedVariant(StrEnum):
    """Which build of the local model makes the vectors (rag.embed.builds); a library records its own."""

    AUTO = "auto"  # a library keeps the build that made its vectors; a new one (and `rag reindex`) gets int8
    FP32 = "fp32"  # the model file as it is
    INT8 = "int8"  # int8 weights quantised once from that file: 2.7x faster, hybrid ranking kept (see builds.py)


def default_data_dir() -> Path:
    return Path(user_data_dir(APP_NAME, appauthor=False))


# Points at another config file (tests, several setups); read from the environment only: it says where settings are.
CONFIG_FILE_VARIABLE = "RAG_CONFIG_FILE"
CONFIG_FILE_NAME = "config.toml"


def user_config_file() -> Path:
    """The per-user config file: $RAG_CONFIG_FILE, else config.toml in the platform's config folder."""
    configured = os.environ.get(CONFIG_FILE_VARIABLE, "").strip()
    if configured:
        return Path(os.path.expanduser(os.path.expandvars(configured)))
    return Path(user_config_dir(APP_NAME, appauthor=False)) / CONFIG_FILE_NAME


class Settings(BaseSettings):
    """Everything a user can configure. See .env.example for the commented list."""

    model_config = SettingsConfigDict(env_prefix="RAG_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    collection: str = DEFAULT_COLLECTION
    embed_model: str = DEFAULT_EMBED_MODEL
    embed_model_dir: Path | None = None
    embed_variant: EmbedVariant = EmbedVariant.AUTO
    # An OpenAI-compatible embeddings endpoint (e.g. Ollama's nomic-embed-text) instead of the local model.
    embed_base_url: str | None = None
    embed_api_key: SecretStr | None = None
    chroma_url: str | None = None
    top_k: int = Field(default=DEFAULT_TOP_K, ge=1)
    fusion_depth: int = Field(default=DEFAULT_FUSION_DEPTH, ge=1)
    dense_weight: float = Field(default=DEFAULT_DENSE_WEIGHT, ge=0.0, le=1.0)
    min_relevance: float = Field(default=DEFAULT_MIN_RELEVANCE, ge=0.0, le=1.0)
    lock_timeout: float = Field(default=DEFAULT_LOCK_TIMEOUT, ge=0.0)
    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    # Read from the standard variable, but only sent to OpenAI itself (see llm_credentials).
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    llm_temperature: float = Field(default=DEFAULT_LLM_TEMPERATURE, ge=0.0, le=2.0)
    llm_max_tokens: int = Field(default=DEFAULT_LLM_MAX_TOKENS, ge=16)
    llm_timeout: float = Field(default=DEFAULT_LLM_TIMEOUT, gt=0.0)
    llm_attempts: int = Field(default=DEFAULT_LLM_ATTEMPTS, ge=1)
    llm_retry_seconds: float = Field(default=DEFAULT_LLM_RETRY_SECONDS, gt=0.0)
    llm_backoff_seconds: float = Field(default=DEFAULT_LLM_BACKOFF_SECONDS, gt=0.0)
    llm_context_tokens: int = Field(default=DEFAULT_LLM_CONTEXT_TOKENS, ge=500)
    # JSON object: model -> [USD per million input tokens, USD per million output tokens].
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    llm_cache: bool = True
    llm_citations: CitationProtocol = CitationProtocol.AUTO
    # A GGUF file run in-process by llama.cpp (extra `local`) instead of a server: no base URL, no key.
    llm_gguf: Path | None = None
    llm_threads: int | Literal["auto"] = DEFAULT_LLM_THREADS
    # Keep a log of questions, drafts and checks in the data dir (`rag log`); --no-log skips one command.
    log: bool = True
    # The citation check's judge (a cross-encoder shipped with rag) reads each sentence against its sources;
    # off: the fitted score and the rules alone (faster, and what rag did before the judge).
    judge: bool = True
    # The citation commands `draft --format latex` writes (cite, natbib or biblatex), as the manuscript loads.
    latex_citations: LatexCitations = LatexCitations.CITE

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Where values come from, first match wins: the precedence of the module docstring."""
        user_file = TomlConfigSettingsSource(settings_cls, toml_file=user_config_file())
        return init_settings, env_settings, dotenv_settings, user_file

    @field_validator("collection")
    @classmethod
    def _collection_name_is_valid(cls, value: str) -> str:
        # Chroma's own rule: 3-512 chars of [a-zA-Z0-9._-], starting and ending alphanumeric.
        import re

        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]", value):
            raise ValueError(
                "collection names are 3-512 characters of letters, digits, '.', '_' or '-', "
                "starting and ending with a letter or digit"
            )
        return value

    @field_validator(
        "chroma_url",
        "embed_model_dir",
        "embed_base_url",
        "embed_api_key",
        "llm_model",
        "llm_base_url",
        "llm_api_key",
        "llm_gguf",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("embed_variant", mode="before")
    @classmethod
    def _variant_ignores_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("llm_threads", mode="before")
    @classmethod
    def _threads_are_auto_or_a_count(cls, value: Any) -> Any:
        text = str(value).strip().lower() if isinstance(value, str | int) and not isinstance(value, bool) else "?"
        if text in ("", AUTO_THREADS):  # RAG_LLM_THREADS= (empty) is the default too
            return AUTO_THREADS
        if text.isdigit() and int(text) >= 1:
            return int(text)
        raise ValueError(f"give a number of threads (1 or more) or '{AUTO_THREADS}'")

    @field_validator("data_dir", mode="before")
    @classmethod
    def _blank_data_dir_is_the_default(cls, value: Any) -> Any:
        # RAG_DATA_DIR= (empty) must not mean "the current folder".
        return default_data_dir() if isinstance(value, str) and not value.strip() else value

    @field_validator("data_dir", "embed_model_dir", "llm_gguf", mode="after")
    @classmethod
    def _expand_user_and_variables(cls, value: Path | None) -> Path | None:
        # `RAG_DATA_DIR=~/research/rag-data` (as .env.example shows) means the home folder, not a folder named '~'.
        return Path(os.path.expanduser(os.path.expandvars(str(value)))) if value is not None else None

    @property
    def dense_enabled(self) -> bool:
        return self.embed_model.lower() != NO_EMBED_MODEL

    @property
    def llm_enabled(self) -> bool:
        """A model is used only when one is named: no silent calls to OpenAI."""
        return self.llm_model is not None

    def llm_credentials(self) -> tuple[str | None, str | None]:
        """(base URL, key) for the model. A custom endpoint never receives OPENAI_API_KEY."""
        key = self.llm_api_key or (None if self.llm_base_url else self.openai_api_key)
        return self.llm_base_url, key.get_secret_value() if key else None

    def llm_token_limit(self, asked: int | None) -> int:
        """An answer's token limit: what the writer asked for (a short answer needs fewer), within the setting."""
        return min(asked, self.llm_max_tokens) if asked else self.llm_max_tokens


ENV_PREFIX = "RAG_"
ENV_FILE = ".env"
# Variables rag reads although they are not RAG_* settings' names (or are tools' own).
KNOWN_EXTRA_VARIABLES = frozenset({"RAG_TEST_GGUF", "RAG_CI_VENV", CONFIG_FILE_VARIABLE})


def unknown_setting_warnings(environ: dict[str, str] | None = None, env_file: Path = Path(ENV_FILE)) -> list[str]:
    """One line per RAG_* name in the environment or .env that is no setting, with the closest real one."""
    from dotenv import dotenv_values

    known = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
    seen = {name: "environment" for name in (environ if environ is not None else os.environ)}
    if env_file.is_file():
        seen.update({name: str(env_file) for name in dotenv_values(env_file) if name not in seen})
    warnings = []
    for name, origin in sorted(seen.items()):
        if name.startswith(ENV_PREFIX) and name not in known and name not in KNOWN_EXTRA_VARIABLES:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; `rag config` lists the settings"
            warnings.append(f"{name} ({origin}) is not a rag setting and is ignored{hint}")
    return warnings + _unknown_in_config_file()


def _unknown_in_config_file() -> list[str]:
    """The same for the keys of the user config file (its keys are setting names: top_k = 5)."""
    import tomllib

    path = user_config_file()
    try:
        keys = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # reading the settings says what is wrong with the file, once
    fields = sorted(Settings.model_fields)
    warnings = []
    for key in sorted(keys):
        if key not in Settings.model_fields:
            close = difflib.get_close_matches(key, fields, n=1)
            hint = f"; did you mean {close[0]}?" if close else "; `rag config` lists the settings"
            warnings.append(f"'{key}' ({path}) is not a rag setting and is ignored{hint}")
    return warnings


def setting_variable(field: str) -> str:
    """The environment variable that sets ``field``: RAG_TOP_K, or its alias (OPENAI_API_KEY)."""
    alias = Settings.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else f"{ENV_PREFIX}{field.upper()}"


def setting_sources(overrides: dict[str, Any]) -> list[tuple[str, set[str]]]:
    """Each source of settings in precedence order, with the names it gives (fields or variables)."""
    from pydantic_settings import DotEnvSettingsSource, EnvSettingsSource

    return [
        ("flag", {name for name, value in overrides.items() if value is not None}),
        ("environment", set(EnvSettingsSource(Settings)())),
        (f"{ENV_FILE} ({Path(ENV_FILE).resolve()})", set(DotEnvSettingsSource(Settings, env_file=ENV_FILE)())),
        (f"config file ({user_config_file()})", set(TomlConfigSettingsSource(Settings, user_config_file())())),
    ]


def source_of(field: str, sources: list[tuple[str, set[str]]]) -> str:
    """Where ``field``'s value comes from: the first source that gives it, else the default."""
    variable = setting_variable(field)
    return next((name for name, keys in sources if field in keys or variable in keys), "default")


def _blamed(errors: list[Any], overrides: dict[str, Any]) -> str:
    """'top_k = 0 in the config file (PATH): Input should be ...': each bad value named where it was set."""
    try:
        sources = setting_sources(overrides)
    except Exception:  # a source that cannot be read at all: the settings' own error says the rest
        sources = []
    problems = []
    for error in errors:
        field = str(error["loc"][0]) if error["loc"] else "setting"
        message = str(error["msg"]).removeprefix("Value error, ")
        if field not in Settings.model_fields:
            problems.append(f"{field}: {message}")
            continue
        where = source_of(field, sources) if sources else "flags, RAG_* variables, .env or config file"
        place = "given as a flag" if where == "flag" else f"in the {where}"
        value = "…" if "key" in field else error["input"]  # never print a key
        if where == "environment" or where.startswith(ENV_FILE):
            problems.append(f"{setting_variable(field)}={value} {place}: {message}")
        else:
            problems.append(f"{field} = {value!r} {place}: {message}")
    return "; ".join(problems)


def load_settings(**overrides: Any) -> Settings:
    """Build settings, letting explicit (flag) values win over the environment.

    ``None`` means "flag not given", so it never overrides a configured value.
    """
    import tomllib

    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from rag.errors import InputError

    given = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**given)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"the config file {user_config_file()} is not valid TOML ({exc}); fix or remove it") from None
    except SettingsError as exc:  # e.g. RAG_LLM_PRICES that is not JSON
        raise InputError(f"invalid setting: {exc}; check your RAG_* variables and .env") from None
    except ValidationError as exc:
        raise InputError(
            f"invalid setting {_blamed(exc.errors(), given)}; fix it there (`rag config` shows every setting's source)"
        ) from exc
