"""Settings: `config.toml` in the data dir, overridden by environment variables.

Stdlib only (tomllib): the hooks read the injection budget from here.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields

from reviewer import paths
from reviewer.errors import UserError

MAX_BUDGET_CHARS = 9_000  # Claude Code previews hook output over 10,000 characters


EXTRACTORS = ("api", "rules")  # capture/extractors/ holds one module per name


@dataclass(frozen=True)
class Config:
    model: str = "claude-haiku-4-5"
    extractor: str = "api"  # api | rules (offline, no key needed)
    api_timeout: float = 60.0
    max_retries: int = 2
    window_chars: int = 120_000
    send_ratio: int = 40  # send at most 1/send_ratio of a transcript's bytes; 0: no limit
    daily_spend_cap_usd: float = 1.0  # 0 disables the cap
    inject_budget_chars: int = 6_000
    retry_base_seconds: float = 60.0  # backoff after a transient API error


ENV = {
    "model": "MEM_REVIEW_MODEL",
    "extractor": "MEM_REVIEW_EXTRACTOR",
    "api_timeout": "MEM_REVIEW_API_TIMEOUT",
    "max_retries": "MEM_REVIEW_MAX_RETRIES",
    "window_chars": "MEM_REVIEW_WINDOW_CHARS",
    "send_ratio": "MEM_REVIEW_SEND_RATIO",
    "daily_spend_cap_usd": "MEM_REVIEW_DAILY_SPEND_CAP",
    "inject_budget_chars": "MEM_REVIEW_BUDGET",
    "retry_base_seconds": "MEM_REVIEW_RETRY_SECONDS",
}


class ConfigError(UserError):
    """A setting that cannot be used; the message names it."""


def load() -> Config:
    values: dict[str, object] = {}
    path = paths.config_path()
    if path.is_file():
        import tomllib  # only with a config file: it costs more than the rest of `load`

        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    for name, var in ENV.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
    known = {f.name: f.type for f in fields(Config)}
    typed: dict[str, object] = {}
    for name, raw in values.items():
        if name not in known:
            continue
        default = getattr(Config, name)
        try:
            typed[name] = type(default)(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"setting {name}={raw!r} is not a {type(default).__name__}") from None
    cfg = Config(**typed)  # type: ignore[arg-type]
    _check(cfg)
    if cfg.inject_budget_chars > MAX_BUDGET_CHARS:
        cfg = Config(**{**cfg.__dict__, "inject_budget_chars": MAX_BUDGET_CHARS})
    return cfg


MIN_WINDOW_CHARS = 2_000


def _check(cfg: Config) -> None:
    """Refuse values that would break capture or quietly switch a safeguard off."""
    problems = []
    if cfg.extractor not in EXTRACTORS:
        problems.append(f"extractor={cfg.extractor!r} (use {' or '.join(EXTRACTORS)})")
    if cfg.window_chars < MIN_WINDOW_CHARS:
        problems.append(f"window_chars={cfg.window_chars} (at least {MIN_WINDOW_CHARS})")
    if cfg.send_ratio < 0:
        problems.append(f"send_ratio={cfg.send_ratio} (0 turns the limit off)")
    if not math.isfinite(cfg.daily_spend_cap_usd) or cfg.daily_spend_cap_usd < 0:
        problems.append(f"daily_spend_cap_usd={cfg.daily_spend_cap_usd} (0 turns it off)")
    for name in ("api_timeout", "retry_base_seconds"):
        value = getattr(cfg, name)
        if not math.isfinite(value) or value <= 0:
            problems.append(f"{name}={value} (must be positive)")
    if cfg.max_retries < 0:
        problems.append(f"max_retries={cfg.max_retries} (0 or more)")
    if cfg.inject_budget_chars <= 0:
        problems.append(f"inject_budget_chars={cfg.inject_budget_chars} (must be positive)")
    if problems:
        raise ConfigError("unusable setting: " + "; ".join(problems))
