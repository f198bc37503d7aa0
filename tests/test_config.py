"""Settings: a value that would break capture or quietly disable a safeguard is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer import config


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path))
    for var in config.ENV.values():
        monkeypatch.delenv(var, raising=False)


def test_defaults_and_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.load() == config.Config()
    monkeypatch.setenv("MEM_REVIEW_BUDGET", "20000")
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "rules")
    cfg = config.load()
    assert cfg.inject_budget_chars == config.MAX_BUDGET_CHARS and cfg.extractor == "rules"


@pytest.mark.parametrize(("var", "value"), [
    ("MEM_REVIEW_WINDOW_CHARS", "0"),
    ("MEM_REVIEW_DAILY_SPEND_CAP", "nan"),
    ("MEM_REVIEW_DAILY_SPEND_CAP", "-1"),
    ("MEM_REVIEW_API_TIMEOUT", "0"),
    ("MEM_REVIEW_MAX_RETRIES", "-2"),
    ("MEM_REVIEW_BUDGET", "-5"),
    ("MEM_REVIEW_EXTRACTOR", "magic"),
    ("MEM_REVIEW_MAX_RETRIES", "three"),
])
def test_unusable_values_are_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, var: str, value: str
) -> None:
    monkeypatch.setenv(var, value)
    name = next(k for k, v in config.ENV.items() if v == var)
    with pytest.raises(config.ConfigError, match=name):
        config.load()


def test_broken_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("model = [unclosed")
    with pytest.raises(config.ConfigError, match=r"config\.toml: not valid TOML"):
        config.load()
