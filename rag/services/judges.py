"""A tiny model as judge says so: `--verify llm` with a model under JUDGE_MIN_PARAMETERS prints one warning
with what that model measured as a judge: the user's own figures when `rag eval-support PAIRS --verify llm`
measured it on this machine (kept in the data dir), else figures measured with it here, else how to measure.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path

from rag.config import Settings
from rag.records import Notify

# Below this a model judges citations barely better than chance (SmolLM2-135M, measured below).
JUDGE_MIN_PARAMETERS = 1e9
# Measured with benchmarks/check_manuscript.py --verify llm (20 labelled SciFact pairs per label).
KNOWN_JUDGES = {
    "smollm2-135m": "supported claims passed 25%, unsupported or contradicted ones flagged 65% (SciFact pairs)",
}


def model_parameters(settings: Settings) -> float | None:
    """How many parameters the configured chat model has, as its file or its name says (None: unknown)."""
    from rag.llm import gguf

    if settings.llm_gguf is not None:
        return gguf.parameter_count(settings.llm_gguf) if settings.llm_gguf.is_file() else None
    return gguf.parameters_in_name(settings.llm_model or "")


def _size(parameters: float) -> str:
    return f"{parameters / 1e9:.1f}B" if parameters >= 1e9 else f"{parameters / 1e6:.0f}M"


def measured(figures_file: Path, model: str) -> str | None:
    """The figures `rag eval-support --verify llm` kept for ``model``, told for a reader, or None."""
    with contextlib.suppress(OSError, ValueError, TypeError):
        found = json.loads(figures_file.read_text(encoding="utf-8")).get(model)
        if isinstance(found, dict) and "summary" in found:
            return str(found["summary"])
    return None


def warn_small_judge(settings: Settings, model: str, figures_file: Path, notify: Notify) -> None:
    """One warning when the judge is a small model, with its measured figures."""
    parameters = model_parameters(settings)
    if parameters is None or parameters >= JUDGE_MIN_PARAMETERS:
        return
    own = measured(figures_file, model)
    known = next((v for k, v in KNOWN_JUDGES.items() if k in model.lower().replace("_", "-")), None)
    if own is not None:
        figures = f"measured here by rag eval-support: {own}"
    elif known is not None:
        figures = f"measured with it: {known}; `rag eval-support PAIRS --verify llm` measures it on yours"
    else:
        figures = "measure it with `rag eval-support PAIRS --verify llm` before trusting its verdicts"
    notify(f"--verify llm: {model} is a small model ({_size(parameters)} parameters) to judge citations; {figures}")


def keep_figures(figures_file: Path, model: str, metrics: Mapping[str, object], pairs: int) -> None:
    """Keep what eval-support measured of ``model`` as judge (one line a warning can quote)."""

    def share(name: str) -> str:
        value = metrics.get(name)
        return f"{float(value):.0%}" if isinstance(value, int | float) else "?"

    passed = share("support_given_top_label")
    flagged = [1 - float(v) for k in ("nei_given_top_label", "contradict_given_top_label")
               if isinstance(v := metrics.get(k), int | float)]  # fmt: skip
    flag = f"{sum(flagged) / len(flagged):.0%}" if flagged else "?"
    summary = f"supported claims passed {passed}, unsupported or contradicted ones flagged {flag} ({pairs} pairs)"
    known: dict[str, object] = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(figures_file.read_text(encoding="utf-8"))
        known = loaded if isinstance(loaded, dict) else {}
    known[model] = {"summary": summary, "pairs": pairs}
    with contextlib.suppress(OSError):
        figures_file.parent.mkdir(parents=True, exist_ok=True)
        figures_file.write_text(json.dumps(known, indent=1), encoding="utf-8")
