"""Cost of a model call: list prices for OpenAI, 0 for local endpoints, RAG_LLM_PRICES for the rest."""

from __future__ import annotations

from rag.config import Settings

# USD per million tokens (input, output), list prices; RAG_LLM_PRICES overrides or adds.
OPENAI_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}


def price_per_million(settings: Settings) -> tuple[float, float] | None:
    """(input, output) USD per million tokens; local endpoints are free unless priced."""
    model = settings.llm_model or ""
    if model in settings.llm_prices:
        return settings.llm_prices[model]
    if settings.llm_base_url:
        return (0.0, 0.0)
    return OPENAI_PRICES.get(model)


def cost(settings: Settings, prompt_tokens: int, completion_tokens: int) -> float | None:
    prices = price_per_million(settings)
    if prices is None:
        return None
    return (prompt_tokens * prices[0] + completion_tokens * prices[1]) / 1_000_000
