"""What a new user sees before any fact exists: how to get the first ones."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from reviewer.config import ConfigError, load, resolve_extractor


def shared_counts(project: str) -> tuple[int, int]:
    """(counting, pending) shared fact files; (0, 0) at once when there is no folder,
    and on any error (the empty screen must paint)."""
    try:
        from reviewer.sharing import reading, trust

        reader = reading.begin(project)
        if reader is None:
            return (0, 0)
        entries = [e for e in reader.finish().entries if e.fact is not None]
    except Exception:
        return (0, 0)
    counting = sum(e.state == trust.APPROVED for e in entries)
    return (counting, len(entries) - counting)


def empty_content(project: str, queued: int, running: int, failed: int,
                  shared: tuple[int, int] = (0, 0)) -> Content:
    """`shared`: the project's team facts (counting, pending the trust rule): a second
    clone has none of its own yet, but its sessions already get the team's."""
    lines = [
        Content.styled("No facts for this project yet.", "bold"),
        Content.styled(project, "$text-muted"),
        Content(""),
    ]
    counting, pending = shared
    if counting or pending:
        given = (f"{counting} team fact{'s' if counting != 1 else ''} approved by teammates "
                 f"{'are' if counting != 1 else 'is'} given to Claude at each session start"
                 if counting else "No team fact counts here yet")
        more = f" ({pending} more pending the trust rule)" if pending else ""
        lines += [Content.assemble(("Team facts: ", "bold"), given + more + ". ",
                                   ("t", "bold $text-accent"), " opens the team view."),
                  Content("")]
    lines += [
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
