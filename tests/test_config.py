"""Settings from every place a user may put them, in one precedence, and `rag config` saying which won."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings, user_config_file

runner = CliRunner()
SECRET = "sk-proj-THIS-IS-A-SECRET-KEY-1234"


def _config(*args: str, **env: str) -> dict[str, dict[str, str]]:
    result = runner.invoke(app, [*args, "config", "--json"], env=env)
    assert result.exit_code == 0, result.output
    return {row["name"]: row for row in json.loads(result.stdout)["settings"]}


def test_flag_beats_environment_beats_dotenv_beats_config_file_beats_default(tmp_path: Path) -> None:
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text('top_k = 7\ncollection = "from-file"\nfusion_depth = 50\nllm_model = "m-file"\n')
    (tmp_path / ".env").write_text("RAG_COLLECTION=from-dotenv\nRAG_FUSION_DEPTH=60\nRAG_LLM_MODEL=m-dotenv\n")
    rows = _config("--collection", "from-flag", RAG_LLM_MODEL="m-env", RAG_FUSION_DEPTH="70")
    assert (rows["RAG_COLLECTION"]["value"], rows["RAG_COLLECTION"]["source"]) == ("from-flag", "flag")
    assert (rows["RAG_LLM_MODEL"]["value"], rows["RAG_LLM_MODEL"]["source"]) == ("m-env", "environment")
    assert rows["RAG_FUSION_DEPTH"]["value"] == "70"
    rows = _config()
    assert rows["RAG_COLLECTION"]["value"] == "from-dotenv" and rows["RAG_COLLECTION"]["source"].startswith(".env")
    assert rows["RAG_TOP_K"]["value"] == "7" and rows["RAG_TOP_K"]["source"] == f"config file ({user_config_file()})"
    assert (rows["RAG_DENSE_WEIGHT"]["value"], rows["RAG_DENSE_WEIGHT"]["source"]) == ("0.4", "default")
    settings = load_settings()
    assert (settings.collection, settings.top_k, settings.fusion_depth) == ("from-dotenv", 7, 60)


def test_set_checks_the_value_keeps_comments_and_the_file_private() -> None:
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text("# my settings\ntop_k = 7  # more papers\n")
    assert runner.invoke(app, ["config", "set", "RAG_LLM_MODEL", "llama3.1"]).exit_code == 0
    assert runner.invoke(app, ["config", "set", "top-k", "9"]).exit_code == 0
    text = user_config_file().read_text()
    assert text.startswith("# my settings\ntop_k = 9") and 'llm_model = "llama3.1"' in text
    assert stat.S_IMODE(user_config_file().stat().st_mode) == 0o600
    assert load_settings().llm_model == "llama3.1" and load_settings().top_k == 9
    bad = runner.invoke(app, ["config", "set", "llm_temperature", "9"])
    assert bad.exit_code == 1 and "RAG_LLM_TEMPERATURE='9' is not a valid value" in bad.stderr
    unknown = runner.invoke(app, ["config", "set", "top_kk", "3"])
    assert unknown.exit_code == 1 and "did you mean top_k?" in unknown.stderr
    assert "top_kk" not in user_config_file().read_text(), "nothing written for a refused value"
    assert runner.invoke(app, ["config", "unset", "llm_model"]).exit_code == 0
    assert load_settings().llm_model is None


def test_secrets_are_masked_and_the_path_is_printed() -> None:
    assert runner.invoke(app, ["config", "set", "llm_api_key", SECRET]).exit_code == 0
    shown = runner.invoke(app, ["config"], env={"OPENAI_API_KEY": SECRET})
    assert SECRET not in shown.stdout and "sk-…1234" in shown.stdout
    assert runner.invoke(app, ["config", "path"]).stdout.strip() == str(user_config_file())


def test_a_broken_or_misspelt_config_file_is_one_line(seeded: Path) -> None:
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text("top_k = [\n")
    broken = runner.invoke(app, ["papers"])
    assert broken.exit_code == 1 and broken.stderr.count("\n") == 1
    assert broken.stderr.startswith(f"error: the config file {user_config_file()} is not valid TOML")
    user_config_file().write_text("tpo_k = 3\n")
    misspelt = runner.invoke(app, ["papers"])
    assert misspelt.exit_code == 0 and "'tpo_k'" in misspelt.stderr and "did you mean top_k?" in misspelt.stderr


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_config_file_variable_means_the_default_place(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("RAG_CONFIG_FILE", value)
    assert user_config_file().name == "config.toml" and user_config_file().parent.name == "rag"


def test_a_bad_value_is_blamed_on_the_place_that_set_it_and_a_flag_overrides_it(seeded: Path) -> None:
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text("top_k = 0\n")
    bad = runner.invoke(app, ["search", "heterogeneous GPUs"])
    assert bad.exit_code == 1 and bad.stderr.count("\n") == 1
    assert f"top_k = 0 in the config file ({user_config_file()})" in bad.stderr
    assert "RAG_* variables and .env" not in bad.stderr
    flagged = runner.invoke(app, ["search", "heterogeneous GPUs", "-k", "1", "--json"])
    assert flagged.exit_code == 0, flagged.stderr
    assert len(json.loads(flagged.stdout)["hits"]) == 1
    from_env = runner.invoke(app, ["papers"], env={"RAG_TOP_K": "-3"})
    assert from_env.exit_code == 1 and "RAG_TOP_K=-3 in the environment" in from_env.stderr
    assert runner.invoke(app, ["search", "GPUs", "-k", "0"]).exit_code == 1, "a bad -k is refused, not ignored"


def test_a_bad_key_is_never_printed_in_the_blame(seeded: Path) -> None:
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text(f'llm_api_key = ["{SECRET}"]\n')
    bad = runner.invoke(app, ["papers"])
    assert bad.exit_code == 1 and "llm_api_key" in bad.stderr and SECRET not in bad.stderr
