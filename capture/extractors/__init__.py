"""The extractors behind one interface (`base.Extractor`), chosen here and only here.

`api`: the Messages API through the anthropic SDK (needs `ANTHROPIC_API_KEY`).
`claude-code`: the user's own `claude` CLI, so a signed-in subscription is enough.
`rules`: offline patterns over the person's own prompts (no key, no network).
`auto` (the default): the API when a key is set, else Claude Code when `claude` is found,
else the rules; `resolve` says which and why (the rule itself is in `reviewer.config`,
stdlib only, so the TUI can tell what runs without importing capture).
Each module is imported only when chosen, so the offline path never loads the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewer.config import EXTRACTORS as NAMES
from reviewer.config import ExtractorChoice
from reviewer.config import resolve_extractor as resolve

if TYPE_CHECKING:
    from capture.extractors.base import Extractor
    from reviewer.config import Config

__all__ = ["NAMES", "ExtractorChoice", "UnknownExtractor", "choose", "resolve"]


class UnknownExtractor(ValueError):
    """A setting names an extractor that does not exist."""


def choose(
    cfg: Config,
    name: str | None = None,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    http_client: Any = None,
) -> Extractor:
    """The extractor `name` (else the configured one, "auto" resolved), ready to ask."""
    choice = resolve(cfg, name, api_key=api_key)
    if choice.name == "api":
        from capture.extractors.api import ApiExtractor

        return ApiExtractor(cfg, api_key=api_key, base_url=base_url, http_client=http_client)
    if choice.name == "claude-code":
        from capture.extractors.claude_code import ClaudeCodeExtractor

        return ClaudeCodeExtractor(cfg, binary=choice.claude)
    if choice.name == "rules":
        from capture.extractors.rules import RulesExtractor

        return RulesExtractor()
    raise UnknownExtractor(f"unknown extractor {choice.name!r} (use {' or '.join(NAMES)})")
