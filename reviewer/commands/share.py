"""`mem-review share`: write this project's shareable facts into `.mem-review/facts/`.

Prints each file written and removed, then what to do next. Commits and pushes nothing:
the folder is reviewed and committed like code, and a fact counts for teammates only once
a person's push or merge puts its file on the remote's default branch (SECURITY.md).
"""

from __future__ import annotations

import argparse
import sqlite3

from reviewer.project import resolve


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")
    parser.add_argument("--trust-remote", metavar="URL",
                        help="check shared facts against this remote's default branch from "
                        "now on (recorded the first time from origin's URL)")


def run(args: argparse.Namespace) -> int:
    from reviewer import paths
    from reviewer.errors import UserError
    from reviewer.freshness import anchors
    from reviewer.sharing import remote_trust, writing
    from reviewer.store import db

    project = resolve(args.project)
    if not anchors.is_git(project):
        raise UserError(f"{project} is not a git work tree: shared facts travel through git")
    if not paths.db_path().exists():
        raise UserError("no store yet: nothing has been captured or approved")
    conn = db.connect()
    try:
        if args.trust_remote:
            remote_trust.record_url(conn, project, args.trust_remote)
        _verify(conn, project)
        result = writing.share(conn, project)
    finally:
        conn.close()
    for rel in result.written:
        print(f"wrote   {rel}")
    for rel in result.removed:
        print(f"removed {rel}")
    for rel in result.kept:
        print(f"kept    {rel}: a teammate's version is on the default branch; take it in "
              "the team view (t) to adopt it, or reject yours")
    if result.index:
        from reviewer.sharing.index import PATH

        print(f"{'wrote  ' if result.index == 'written' else 'removed'} {PATH} "
              "(the team's facts as a page to read on the git host)")
    changed = len(result.written) + len(result.removed) + bool(result.index)
    print(f"{len(result.written)} written, {len(result.removed)} removed, "
          f"{result.unchanged} unchanged in {result.folder}")
    if changed:
        print("review and commit them (git add .mem-review && git commit); they count for "
              "teammates once on the remote's default branch")
    return 0


def _verify(conn: sqlite3.Connection, project: str) -> None:
    """Ask the recorded remote (origin's URL, recorded now the first time) which shared
    files its default branch holds: what counts for teammates and for this clone."""
    from reviewer.sharing import remote_trust

    first = remote_trust.recorded_url(conn, project) is None
    try:
        got = remote_trust.refresh(conn, project, setup=True)
    except remote_trust.VerifyError as exc:
        print(f"note: shared facts not verified against the remote: {exc}")
        return
    if first:
        print(f"shared facts are checked against {got.url} (recorded in the store; "
              "change with --trust-remote URL)")
    print(f"verified: {got.url} {got.branch} at {got.commit[:12]} holds "
          f"{len(got.blobs)} shared file(s)")
