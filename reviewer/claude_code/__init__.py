"""What touches Claude Code: hook I/O, its settings file, SessionStart injection, the guard."""
