"""Reviewer: the store, the person's gate, and what passes it (TUI, staleness, injection)."""

__version__ = "0.1.0"
