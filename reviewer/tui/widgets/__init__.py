"""The TUI's widgets, one per file."""
