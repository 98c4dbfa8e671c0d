"""Keys never reach output: masking for display, redaction for any message we print."""

from __future__ import annotations

import re

from rag.config import Settings

# Shorter values are not treated as secrets (nothing meaningful to mask).
MIN_SECRET_LENGTH = 8
_URL_CREDENTIALS = re.compile(r"(\w+://)[^/@\s]+@")


def mask(secret: str) -> str:
    """'sk-…wxyz': enough to recognize a key, never enough to use it."""
    return f"{secret[:3]}…{secret[-4:]}" if len(secret) > 12 else "****"


def configured_secrets(settings: Settings) -> list[str]:
    keys = (settings.llm_api_key, settings.openai_api_key, settings.embed_api_key)
    return [k.get_secret_value() for k in keys if k and len(k.get_secret_value()) >= MIN_SECRET_LENGTH]


def redact(text: str, secrets: list[str]) -> str:
    """Replace every configured key, and any user:password@ in a URL, before text is shown."""
    for secret in secrets:
        text = text.replace(secret, mask(secret))
    return _URL_CREDENTIALS.sub(r"\1***@", text)
