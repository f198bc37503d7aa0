"""Capture: turn a finished Claude Code session into pending candidate facts."""
