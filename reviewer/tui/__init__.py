"""The review TUI: a person accepts, edits or rejects candidate facts, one key each.

Nothing is imported here: `mem-review` must reach its first paint having loaded only
textual and the stdlib (the store's sqlmodel loads later, in the background).
"""
