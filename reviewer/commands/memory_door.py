"""What `install` and `uninstall` do about Claude Code's own memory (issue 18).

Install: the notes already in the auto-memory folder become pending candidates (nothing
is deleted), then auto memory is turned off in the install's settings file, unless
`--keep-auto-memory`. Uninstall: the switch and the guard's rules come out first, so the
settings file can be restored byte for byte.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from capture.native_import import Swept


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keep-auto-memory", action="store_true",
                        help="leave Claude Code's auto memory on (its notes still become "
                        "pending candidates, but reach Claude unreviewed; `doctor` says so)")


def on_install(args: argparse.Namespace, project: str) -> None:
    from capture.native_import import sweep
    from reviewer.claude_code import memory_switch, native_memory
    from reviewer.store.facts import Store

    before = native_memory.state(project)
    try:
        store = Store()
        try:
            swept = sweep(store, project, before.folder, force=True)
        finally:
            store.close()
    except Exception as exc:  # the store is another check's business; the notes wait
        print(f"warning: Claude Code's memory notes in {before.folder} were not imported now "
              f"({type(exc).__name__}: {exc}); the next session's sweep imports them")
    else:
        _imported(swept)
    keep = bool(getattr(args, "keep_auto_memory", False))
    switched = memory_switch.turn_off(args.scope, project, guard=args.guard and not args.portable,
                                      off=not keep)
    if switched.changed:
        what = "kept auto memory on" if keep else 'turned Claude Code\'s auto memory off ' \
            '("autoMemoryEnabled": false)'
        print(f"{what} in {switched.path}")
        for rule in switched.rules:
            print(f"  permissions.deny: {rule}")
    if args.portable and not keep and switched.changed:
        print("note: the switch is in a file the team shares: auto memory goes off for every "
              "collaborator, whose notes then wait for review in their own mem-review")
    after = native_memory.state(project)
    if keep:
        print(f"note: --keep-auto-memory: Claude Code still loads {after.folder / 'MEMORY.md'} "
              "unreviewed; `mem-review doctor` lists it")
    elif after.enabled:
        print(f"warning: Claude Code's auto memory is still on ({after.why}); "
              "`mem-review doctor` says how to close it")


def _imported(swept: Swept) -> None:
    if swept.notes:
        print(f"imported {swept.added} statement(s) from {swept.notes} Claude Code memory "
              f"note(s) in {swept.folder} as pending ({swept.skipped} already known); review "
              "them with `mem-review review`. The notes stay on disk.")


def on_uninstall(scope: str, project: str) -> None:
    from reviewer.claude_code import memory_switch

    if memory_switch.restore(scope, project):
        print("put Claude Code's auto-memory setting back as it was before install")
