"""`install --client NAME` / `uninstall --client NAME`: the same reviewed memory for
agents other than Claude Code (their MCP configuration only: they have no hooks of ours).
"""

from __future__ import annotations

import argparse

from reviewer.errors import UserError

HELP = ("register the mem-review MCP server (recall, remember) with another agent instead "
        "of installing Claude Code hooks: {names} (repeatable)")


def add_argument(parser: argparse.ArgumentParser) -> None:
    from reviewer.clients.catalog import NAMES

    parser.add_argument("--client", action="append", metavar="NAME", choices=NAMES,
                        help=HELP.format(names=", ".join(NAMES)))


def _scope(client: object, asked: str | None) -> str:
    from reviewer.clients.catalog import Client

    assert isinstance(client, Client)
    if asked in (None, "local"):  # local is Claude Code's; a client's own default instead
        return client.default_scope
    if asked not in client.scopes:
        raise UserError(f"{client.label} keeps no {asked}-level MCP configuration; "
                        f"use --scope {' or '.join(client.scopes)}")
    return asked


def install(args: argparse.Namespace, project: str) -> int:
    from reviewer.claude_code.settings_file import EXE_NAME, executable
    from reviewer.clients import register
    from reviewer.clients.catalog import get

    exe = EXE_NAME if getattr(args, "portable", False) else executable()
    for name in dict.fromkeys(args.client):
        client = get(name)
        result = register.install(client, _scope(client, args.scope), project, exe)
        print(result.message)
    print("recall answers there exactly as in Claude Code: approved, still-true facts of "
          "this project only; remember proposes pending facts for you to review")
    return 0


def uninstall(args: argparse.Namespace, project: str) -> int:
    from reviewer.clients import register
    from reviewer.clients.catalog import get

    for name in dict.fromkeys(args.client):
        client = get(name)
        print(register.uninstall(client, _scope(client, args.scope), project).message)
    return 0


def doctor_line(project: str) -> tuple[bool, str, str]:
    """(ok, name, detail) for doctor: which other agents read this project's memory.
    Never a failure: registering other agents is a choice."""
    from reviewer.clients import register

    found = register.registered(project)
    if not found:
        return True, "other agents", ("none read this memory (`mem-review install --client "
                                      "cursor|vscode|codex|claude-desktop|windsurf|gemini`)")
    return True, "other agents", "; ".join(
        f"{client.label} ({scope}: {path})" for client, scope, path in found)
