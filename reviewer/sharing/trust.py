"""Which shared fact files count as a person's approval (SECURITY.md, "Shared facts").

Claude can write and commit files in the working tree, so a file there proves nothing.
A person's approval is what reached the remote's default branch: it got there by a
person's push or a reviewed merge. A shared fact counts as approved only when its file

1. is a regular file whose bytes hash to the blob the index holds for it (committed, or at
   least staged, and not edited since: `git_index`, no subprocess), and
2. has that same blob at the same path on the remote's default branch, as the remote
   itself answered when last verified (`remote_trust`: asked at the URL recorded when
   sharing was set up, with no local ref, config or object in the way; kept in the store).

Anything else is pending for the person: new on this branch, edited by hand, not yet
pushed, or no remote at all. On a feature branch the same rule holds: the branch's copy
of a fact applies when it is the default branch's (a fact the branch deleted is gone; one
it added or changed waits for the merge). Stdlib only: it runs in the SessionStart hook.
"""

from __future__ import annotations

import os
import stat

from reviewer.freshness import git_index
from reviewer.sharing.format import FOLDER

REMOTE = "origin"
APPROVED = "approved"


def short(ref: str | None) -> str:
    return ref.removeprefix("refs/remotes/") if ref else f"{REMOTE}'s default branch"


def parse_listing(out: bytes) -> dict[str, str]:
    """{path: blob sha} of the regular files in `git ls-tree -r -z` output."""
    found: dict[str, str] = {}
    for record in out.split(b"\0"):
        meta, tab, path = record.partition(b"\t")
        parts = meta.split(b" ")
        if not tab or len(parts) != 3 or parts[1] != b"blob":
            continue
        if int(parts[0], 8) & 0o170000 != stat.S_IFREG:
            continue  # a symlink or submodule is never a fact file
        found[path.decode("utf-8", "surrogateescape")] = parts[2].decode("ascii", "replace")
    return found


def index_blobs(
    root: str | os.PathLike[str], shas: set[str], folder: str = FOLDER,
) -> dict[str, str] | None:
    """{path: blob sha} of the index's entries under the folder whose blob is one of
    `shas` (the working files' hashes: only those can match); None when the index cannot
    be read here (then only the remote's copy is compared)."""
    found = git_index.paths_by_sha(root, shas)
    if found is None:
        return None
    prefix = folder + "/"
    return {path: sha for sha, paths in found.items() for path in paths
            if path.startswith(prefix)}


def judge(
    path: str, sha: str, index: dict[str, str] | None, remote: dict[str, str] | None,
    ref: str | None,
) -> str:
    """APPROVED, or why the file at `path` (bytes hashing to `sha`) is pending."""
    where = short(ref)
    if ref is None:
        return (f"no verified {where} to vouch for it (nothing counts without a remote; "
                "`mem-review share` or `doctor` asks it)")
    if remote is None:
        return f"git could not list {where}"
    if index is not None and index.get(path) != sha:
        return "not committed, or edited since it was committed"
    theirs = remote.get(path)
    if theirs is None:
        return f"not on {where}: a person has not pushed or merged it"
    if theirs != sha:
        return f"differs from {where}: edited by hand, or not yet pushed"
    return APPROVED
