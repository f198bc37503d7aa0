"""Shared fixtures: the real transcripts live beside the project, in ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TRANSCRIPTS = SHARED / "transcripts"


@pytest.fixture
def transcripts() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.fail(f"shared transcripts not found at {TRANSCRIPTS}")
    return TRANSCRIPTS
