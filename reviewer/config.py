"""Settings: `config.toml` in the data dir, overridden by environment variables.

Stdlib only (tomllib): the hooks read the injection budget from here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from reviewer import paths
from reviewer.errors import UserError

MAX_BUDGET_CHARS = 9_000  # Claude Code previews hook output over 10,000 characters


# capture/extractors/ holds one module per name; "auto" picks one (`resolve_extractor`).
EXTRACTORS = ("auto", "api", "claude-code", "rules")


@dataclass(frozen=True)
class Config:
    model: str = "claude-haiku-4-5"
    extractor: str = "auto"  # auto | api | claude-code (the user's own CLI) | rules (offline)
    api_timeout: float = 60.0
    max_retries: int = 2
    window_chars: int = 120_000
    send_ratio: int = 25  # send at most 1/send_ratio of a transcript's bytes; 0: no limit
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


CLAUDE_BIN_ENV = "MEM_REVIEW_CLAUDE_BIN"
# Where Claude Code's installers put `claude`, for the hook-started worker whose PATH may
# lack it (the npm-local install is only a shell alias; GUI-launched sessions get a short PATH).
CLAUDE_PLACES = (
    "~/.claude/local/claude",
    "~/.local/bin/claude",
    "~/.npm-global/bin/claude",
    "/usr/local/bin/claude",
    "/opt/homebrew/bin/claude",
)
RULES_FIND_LITTLE = (
    "the offline rules only find statements typed in your own prompts (\"remember that "
    "...\"), so they find nothing in agent-driven sessions"
)


@dataclass(frozen=True)
class ExtractorChoice:
    """Which extractor runs and why, in a few words (for `status` and `doctor`)."""

    name: str  # api | claude-code | rules
    reason: str
    claude: str | None = None  # the `claude` binary, when name is claude-code
    # "auto" found no model: the rules stage what they can and the session waits for one
    # (reviewer/store/waiting.py) instead of ending done unread.
    waiting: bool = False


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_claude(env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(the `claude` binary or None, where it was looked for). `MEM_REVIEW_CLAUDE_BIN`, when
    set, is the only place looked at; else PATH, then the installers' usual places."""
    import shutil

    env = os.environ if env is None else env
    given = env.get(CLAUDE_BIN_ENV)
    if given:
        path = os.path.expanduser(given)
        if _executable(path):
            return path, f"{path} ({CLAUDE_BIN_ENV})"
        return None, f"{CLAUDE_BIN_ENV}={given} is not an executable file"
    found = shutil.which("claude", path=env.get("PATH", os.defpath))
    if found:
        return found, f"{found} (PATH)"
    home = env.get("HOME") or os.path.expanduser("~")
    prefix = env.get("NPM_CONFIG_PREFIX") or env.get("npm_config_prefix")
    places = ([os.path.join(prefix, "bin", "claude")] if prefix else []) + [
        os.path.join(home, p[2:]) if p.startswith("~/") else p for p in CLAUDE_PLACES
    ]
    for place in places:
        if _executable(place):
            return place, place
    return None, "no `claude` found on PATH or where its installers put it"


def resolve_extractor(
    cfg: Config,
    name: str | None = None,
    *,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ExtractorChoice:
    """What `name` (else the setting) means here: "auto" is the API when a key is set,
    else Claude Code when `claude` is found, else the offline rules. Stdlib and env only,
    so the TUI can say what runs without importing capture."""
    env = os.environ if env is None else env
    if name:
        why = f"{name} asked for"
    else:
        name = cfg.extractor
        var = ENV["extractor"]
        why = f"{var}={name}" if env.get(var) == name else f'extractor = "{name}" in config.toml'
    if name == "claude-code":
        path, where = find_claude(env)
        return ExtractorChoice(name, f"{why}; Claude Code at {where}" if path else
                               f"{why}; {where}", path)
    if name != "auto":
        return ExtractorChoice(name, why)
    if api_key or env.get("ANTHROPIC_API_KEY"):
        return ExtractorChoice("api", "auto: ANTHROPIC_API_KEY is set")
    path, where = find_claude(env)
    if path:
        return ExtractorChoice("claude-code", f"auto: no ANTHROPIC_API_KEY; Claude Code at "
                               f"{where}", path)
    return ExtractorChoice("rules", f"auto: no ANTHROPIC_API_KEY and {where}", waiting=True)


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
