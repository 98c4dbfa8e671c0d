"""One settings object; precedence is written once, here.

flag (passed as keyword arguments) > environment ``RAG_*`` > ``.env`` > default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from platformdirs import user_data_dir
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

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
# Below this fused relevance nothing is treated as evidence for an answer.
DEFAULT_MIN_RELEVANCE = 0.25


def default_data_dir() -> Path:
    return Path(user_data_dir(APP_NAME, appauthor=False))


class Settings(BaseSettings):
    """Everything a user can configure. See .env.example for the commented list."""

    model_config = SettingsConfigDict(env_prefix="RAG_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    collection: str = DEFAULT_COLLECTION
    embed_model: str = DEFAULT_EMBED_MODEL
    embed_model_dir: Path | None = None
    chroma_url: str | None = None
    top_k: int = Field(default=DEFAULT_TOP_K, ge=1)
    fusion_depth: int = Field(default=DEFAULT_FUSION_DEPTH, ge=1)
    dense_weight: float = Field(default=DEFAULT_DENSE_WEIGHT, ge=0.0, le=1.0)
    min_relevance: float = Field(default=DEFAULT_MIN_RELEVANCE, ge=0.0, le=1.0)
    lock_timeout: float = Field(default=DEFAULT_LOCK_TIMEOUT, ge=0.0)

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

    @field_validator("chroma_url", "embed_model_dir", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @property
    def dense_enabled(self) -> bool:
        return self.embed_model.lower() != NO_EMBED_MODEL


def load_settings(**overrides: Any) -> Settings:
    """Build settings, letting explicit (flag) values win over the environment.

    ``None`` means "flag not given", so it never overrides a configured value.
    """
    from pydantic import ValidationError

    from rag.errors import InputError

    given = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'setting'}: {err['msg']}" for err in exc.errors()
        )
        raise InputError(f"invalid setting ({problems}); check your flags, RAG_* variables and .env") from exc
