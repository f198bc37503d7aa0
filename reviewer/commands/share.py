"""`mem-review share`: write this project's shareable facts into `.mem-review/facts/`.

Prints each file written and removed, then what to do next. Commits and pushes nothing:
the folder is reviewed and committed like code, and a fact counts for teammates only once
a person's push or merge puts its file on the remote's default branch (SECURITY.md).
"""

from __future__ import annotations

import argparse

from reviewer.project import resolve


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR", help="another project than the current one")


def run(args: argparse.Namespace) -> int:
    from reviewer import paths
    from reviewer.errors import UserError
    from reviewer.freshness import anchors
    from reviewer.sharing import writing
    from reviewer.store import db

    project = resolve(args.project)
    if not anchors.is_git(project):
        raise UserError(f"{project} is not a git work tree: shared facts travel through git")
    if not paths.db_path().exists():
        raise UserError("no store yet: nothing has been captured or approved")
    conn = db.connect()
    try:
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
