"""The TUI's screens: the main list, and the small modal ones stacked on it."""
