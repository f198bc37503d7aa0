"""The extractors behind one interface (`base.Extractor`), chosen here and only here.

`api`: the Messages API through the anthropic SDK (needs `ANTHROPIC_API_KEY`).
`rules`: offline patterns over the person's own prompts (no key, no network).
Each module is imported only when chosen, so the offline path never loads the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reviewer.config import EXTRACTORS as NAMES

if TYPE_CHECKING:
    from capture.extractors.base import Extractor
    from reviewer.config import Config

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
    """The extractor `name` (else the configured one), ready to ask."""
    name = name or cfg.extractor
    if name == "api":
        from capture.extractors.api import ApiExtractor

        return ApiExtractor(cfg, api_key=api_key, base_url=base_url, http_client=http_client)
    if name == "rules":
        from capture.extractors.rules import RulesExtractor

        return RulesExtractor()
    raise UnknownExtractor(f"unknown extractor {name!r} (use {' or '.join(NAMES)})")
