"""The real Claude Code transcripts, read in place from ../shared/transcripts.

A fresh clone has no ../shared beside it: the tests that need those files skip and say
what is missing. CI sets MEM_REVIEW_REQUIRE_SHARED=1 (`.ci/run`), which turns that skip
into a failure, so CI can never pass by skipping them. MEM_REVIEW_SHARED_DIR points
elsewhere (a fresh clone can be imitated with a path that does not exist).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MEM_REVIEW_SHARED_DIR") or ROOT.parent / "shared")
TRANSCRIPTS = SHARED / "transcripts"
REQUIRE_ENV = "MEM_REVIEW_REQUIRE_SHARED"


def missing_reason() -> str:
    return (
        f"the shared real transcripts are absent ({TRANSCRIPTS} is not a directory; "
        "a fresh clone has no ../shared beside it)"
    )


def need_transcripts() -> Path:
    """TRANSCRIPTS, or skip the test (fail when CI requires the shared folder)."""
    if TRANSCRIPTS.is_dir():
        return TRANSCRIPTS
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{missing_reason()}, and {REQUIRE_ENV}=1 requires them")
    pytest.skip(missing_reason())


def real_sessions() -> list[Path]:
    """Every real session transcript, for parametrize; one placeholder when absent, so the
    test still runs and skips (or fails) by `need_transcripts` instead of vanishing."""
    if not TRANSCRIPTS.is_dir():
        return [TRANSCRIPTS / "absent.jsonl"]
    return sorted(
        p for p in TRANSCRIPTS.rglob("*.jsonl")
        if "derived" not in p.parts and p.name != "sample_hook_logs.jsonl"
    )
