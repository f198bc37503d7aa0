"""The `mem-review` MCP server: protocol wiring only, over the official SDK (`mcp` 2.x).

Two tools, `recall` (reviewer/claude_code/recall.py) and `remember`
(reviewer/claude_code/remember.py); Claude Code names them `mcp__mem-review__recall` and
`mcp__mem-review__remember`. Each call opens the store afresh (WAL: a read never waits
for the worker or the TUI, and sees whatever was approved up to that moment), so the
server holds no state worth losing. Every failure is a tool error of one line; nothing
a caller sends can stop the server. No network: stdio only.

Importing `mcp` costs ~0.4 s (pydantic, anyio, starlette): never import this module from
a hook path (pyproject's stdlib-only contract forbids it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from reviewer import __version__, paths
from reviewer.claude_code import recall as recall_mod
from reviewer.claude_code import remember as remember_mod
from reviewer.errors import UserError
from reviewer.log import log
from reviewer.store import db

NAME = "mem-review"
INSTRUCTIONS = (
    "mem-review holds facts about this project that a person reviewed and approved. "
    "`recall` searches them by words and by cited files; each result says when it was "
    "approved and whether the files it cites are unchanged since. `remember` proposes a "
    "new fact for the person to review; it is stored as pending, never approved."
)
RECALL_HELP = (
    "Search this project's reviewed memory: facts a person approved whose cited files are "
    "unchanged since (decisions, conventions, gotchas, environment, dead ends, TODOs). "
    "`query`: plain words (no search syntax). `files`: project paths the question is "
    "about (a directory covers its files). `limit`: at most this many results (default "
    f"{recall_mod.DEFAULT_LIMIT}, at most {recall_mod.MAX_LIMIT}). The answer also counts "
    "matches withheld as stale or pending review. An empty result is a normal answer."
)
REMEMBER_HELP = (
    "Propose a durable fact about this project (one idea, exact names and values) for a "
    "person to review. `category`: decision, convention, dead_end, todo, gotcha or "
    "environment. `files`: project paths it is about. `evidence`: a verbatim quote from "
    "this session that supports it. It is stored as PENDING: it is not recalled or "
    "injected until a person approves it."
)

Opener = Callable[[bool], sqlite3.Connection | None]


class _Server(MCPServer[Any]):
    """MCPServer whose tool errors read as one line: ours without the SDK's prefix, and
    argument-validation errors without pydantic's page of detail."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ToolError):  # ours, already one line: drop the SDK's prefix
                raise ToolError(str(cause)) from None
            errors = getattr(cause, "errors", None)
            if callable(errors):
                raise ToolError(f"{name}: {_validation_line(errors())}") from None
            raise ToolError(_line(str(exc))) from None


def _validation_line(errors: list[dict[str, Any]]) -> str:
    parts = []
    for err in errors[:3]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "bad arguments (" + "; ".join(parts) + ")"


def open_store(create: bool) -> sqlite3.Connection | None:
    """A fresh connection per call; None when there is no store and `create` is False."""
    if not create and not paths.db_path().exists():
        return None
    return db.connect_for_reading()  # read-only or full: recall goes on, remember refuses


def build(
    project: str,
    checks: Callable[[], remember_mod.Checks] = remember_mod.Checks,
    opener: Opener = open_store,
) -> MCPServer[Any]:
    """The server for one project; `checks` gives `remember` capture's evidence check."""
    server: MCPServer[Any] = _Server(
        name=NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
    )

    @server.tool(name="recall", description=RECALL_HELP, structured_output=False)
    def recall(query: str, files: list[str] | None = None, limit: int | None = None) -> str:
        def run() -> str:
            conn = opener(False)
            if conn is None:
                recall_mod.parse(query, files, limit)  # bad arguments are still errors
                return recall_mod.Answer(project, note="no store yet: nothing captured").text()
            try:
                return recall_mod.recall(conn, project, query, files, limit).text()
            finally:
                conn.close()

        return _guard("recall", run)

    @server.tool(name="remember", description=REMEMBER_HELP, structured_output=False)
    def remember(
        fact: str, category: str, files: list[str] | None = None, evidence: str | None = None
    ) -> str:
        def run() -> str:
            conn = opener(True)
            assert conn is not None
            try:
                proposal = remember_mod.remember(
                    conn, project, fact, category, files, evidence, checks=checks()
                )
            except (sqlite3.Error, db.StoreError) as exc:
                if not db.is_read_only(exc):
                    raise
                log("mcp", f"remember: store not writable: {exc}")
                raise remember_mod.RememberError(
                    "not stored: the store cannot be written here (read-only or full disk: "
                    f"{_line(str(exc))}); nothing was stored, nothing else changed") from None
            finally:
                conn.close()
            return proposal.message()

        return _guard("remember", run)

    return server


def _guard(tool: str, run: Callable[[], str]) -> str:
    """Run a tool; every failure becomes a ToolError of one line (the log keeps details)."""
    try:
        return run()
    except (recall_mod.RecallError, remember_mod.RememberError) as exc:
        raise ToolError(f"{tool}: {exc}") from None
    except UserError as exc:  # StoreError included: a broken or newer store
        raise ToolError(f"{tool}: {_line(str(exc))}") from None
    except sqlite3.Error as exc:
        log("mcp", f"{tool}: store error: {exc}")
        raise ToolError(f"{tool}: the store could not be read ({_line(str(exc))})") from None
    except Exception as exc:
        import traceback

        log("mcp", f"{tool} failed: " + "".join(traceback.format_exception(exc)))
        raise ToolError(f"{tool} failed: {type(exc).__name__}: {_line(str(exc))}") from None


def _line(text: str) -> str:
    return " ".join(text.split())[:300]


def serve(project: str, checks: Callable[[], remember_mod.Checks]) -> None:
    """Speak MCP over stdin/stdout until the client closes them."""
    from reviewer.store import vectors

    try:  # the optional semantic extra's model, if it has vectors to search; advisory:
        conn = open_store(False)  # a damaged store is reported by the tools, not here
        if conn is not None:
            try:
                vectors.warm_in_background(conn)
            finally:
                conn.close()
    except Exception:
        pass
    build(project, checks).run("stdio")
