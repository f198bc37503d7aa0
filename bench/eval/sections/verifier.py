"""The verifier section of `make eval` (bench/eval/verifier_section.py holds it; that file
also runs standalone)."""

from __future__ import annotations

from bench.eval.verifier_section import rows as run

__all__ = ["run"]
