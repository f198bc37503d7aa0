"""What a new user sees before any fact exists: how to get the first ones."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from reviewer.config import ConfigError, load, resolve_extractor


def empty_content(project: str, queued: int, running: int, failed: int) -> Content:
    lines = [
        Content.styled("No facts for this project yet.", "bold"),
        Content.styled(project, "$text-muted"),
        Content(""),
        Content("mem-review turns your Claude Code sessions into facts you review here."),
        Content(""),
        Content.assemble(("  1. ", "$text-accent"), ("mem-review install", "bold"),
                         "   add the hooks to Claude Code"),
        Content.assemble(("  2. ", "$text-accent"),
                         "work in a Claude Code session, then end it (or /compact)"),
        Content.assemble(("  3. ", "$text-accent"), ("mem-review", "bold"),
                         "           review what it proposes"),
        Content(""),
        Content.assemble("Just looking? ", ("mem-review demo", "bold"),
                         " opens this screen on sample facts."),
        Content(""),
    ]
    if _rules_run():
        lines += [Content.styled(
            "Extraction uses the offline rules: they only find statements typed in your own "
            'prompts ("remember that ..."), nothing in agent-driven sessions. For a model to '
            "read your sessions, set ANTHROPIC_API_KEY or sign in to Claude Code "
            "(mem-review doctor).", "$text-warning"), Content("")]
    jobs = f"Sessions waiting: {queued} queued · {running} running · {failed} failed"
    lines.append(Content.styled(jobs, "$text-error" if failed else "$text-muted"))
    if queued or running:
        lines.append(Content.styled(
            "Facts appear once the worker has read them (mem-review status).", "$text-muted"))
    if failed:
        lines.append(Content.styled(
            "See why with mem-review status; mem-review doctor checks the setup.",
            "$text-muted"))
    return Content("\n").join(lines)


def _rules_run() -> bool:
    """Whether the offline rules are what extracts here (config and env only: no subprocess)."""
    try:
        return resolve_extractor(load()).name == "rules"
    except ConfigError:
        return False


class EmptyState(Static):
    """Shown instead of the list and detail pane when the project has no facts."""

    def __init__(self) -> None:
        super().__init__(Content(""), id="empty", markup=False)
