"""What changed in a cited file since a fact was captured: the diff the TUI shows.

GitPython (TUI only; the hooks use `staleness`). The diff runs from the file at the
capture commit to the working tree as it is now, so uncommitted edits show too, and a
file that moved is followed to its new path. Outside git, or when the capture commit is
unknown here, the answer is a one-line message instead of a diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.freshness import cited

if TYPE_CHECKING:
    import git

NO_GIT = "(no git history here: cannot show how {path} changed since the fact was captured)"
NO_COMMIT = "(the capture commit {commit} is not in this repository: cannot diff {path})"
MAX_DIFF_BYTES = 2_000_000


def _repo(project_root: str | os.PathLike[str]) -> git.Repo | None:
    import git

    try:
        return git.Repo(project_root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def follow_rename(
    project_root: str | os.PathLike[str], commit_sha: str | None, path: str
) -> str | None:
    """Where `path` (as of `commit_sha`) lives now, if git sees it renamed; else None.

    Committed and staged renames come from `git diff -M <commit>` (content may also have
    changed); a plain `mv` not yet added is found by the same content among untracked files.
    """
    import git

    repo = _repo(project_root)
    if repo is None or not commit_sha:
        return None
    root = Path(project_root)
    try:
        out = repo.git.diff("-z", "-M", "--name-status", "--diff-filter=R", commit_sha, "--")
    except git.GitCommandError:
        return None
    fields = out.split("\0")
    for i in range(0, len(fields) - 2, 3):
        if fields[i].startswith("R") and fields[i + 1] == path and (root / fields[i + 2]).is_file():
            return fields[i + 2]
    from reviewer.freshness.staleness import find_renames

    old = _blob_at(repo, commit_sha, path)
    if old is None:
        return None
    return find_renames(str(root), {path: {old.hexsha}}).get(path)


def file_diff(project_root: str | os.PathLike[str], commit_sha: str | None, path: str) -> str:
    """A unified diff of `path` from the capture commit to the working tree now."""
    import git

    root = Path(project_root)
    repo = _repo(root)
    if repo is None or not commit_sha:
        return NO_GIT.format(path=path)
    try:
        repo.commit(commit_sha)
    except (ValueError, git.BadName, git.BadObject):
        return NO_COMMIT.format(commit=commit_sha[:12], path=path)
    blob = _blob_at(repo, commit_sha, path)
    before = blob.data_stream.read() if blob is not None else None
    new_path = path
    if not (root / path).is_file():
        new_path = follow_rename(root, commit_sha, path) or path
    after, why = cited.read(root, new_path)  # a regular file in the project, bounded
    if after is None and why != cited.MISSING:
        return f"({new_path} is not read: {why})"
    header: list[str] = []
    if new_path != path:
        header = [f"rename from {path}", f"rename to {new_path}"]
    if before is None and after is None:
        return f"(neither {commit_sha[:12]}:{path} nor {new_path} exists)"
    if before is None:
        header.append(f"({path} did not exist at {commit_sha[:12]}: it was new and uncommitted "
                      "when the fact was captured)")
    if before == after:
        return "\n".join([*header, f"(no change in {new_path} since {commit_sha[:12]})"])
    if _binary(before) or _binary(after):
        return "\n".join([*header, f"Binary file {new_path} differs"])
    a = _lines(before)
    b = _lines(after)
    diff = difflib.unified_diff(
        a, b,
        fromfile=f"a/{path}" if before is not None else "/dev/null",
        tofile=f"b/{new_path}" if after is not None else "/dev/null",
        fromfiledate=commit_sha[:12], tofiledate="working tree",
    )
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in diff)
    return "\n".join([*header, body.rstrip("\n")]) if header else body.rstrip("\n")


def _blob_at(repo: git.Repo, commit_sha: str, path: str) -> git.Blob | None:
    try:
        item = repo.commit(commit_sha).tree / path
    except Exception:  # unknown commit or path: gitpython raises several kinds
        return None
    return item if item.type == "blob" else None  # type: ignore[return-value]


def _binary(data: bytes | None) -> bool:
    return data is not None and (b"\0" in data[:8000] or len(data) > MAX_DIFF_BYTES)


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", "replace").splitlines(keepends=True)
