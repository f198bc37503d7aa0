"""Keep `.claude/settings.local.json` out of `git status` after install writes it.

The file holds this machine's absolute paths, so it must never be committed. Claude Code
2.1.332 itself, when it writes that file, adds a rule to the person's *global* gitignore
(its "gitignore_global_rule": core.excludesFile, every repository on the machine). We do
less: one line in this clone's `.git/info/exclude` (the path `git rev-parse --git-path`
gives, so worktrees work), which touches no other repository and no committed file, and
which uninstall takes out again. Nothing is written when git already ignores the file (a
.gitignore, a global rule) or when the project is not a git work tree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

RULE = "/.claude/settings.local.json"
MARK = "# added by mem-review install (uninstall removes it)"
TIMEOUT = 10


def _git(project: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", "-C", os.fspath(project), *args], capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def _exclude_file(project: Path) -> Path | None:
    done = _git(project, "rev-parse", "--show-toplevel", "--git-path", "info/exclude")
    if done is None or done.returncode != 0:
        return None
    lines = done.stdout.splitlines()
    if len(lines) != 2 or Path(lines[0]).resolve() != project.resolve():
        return None  # not the top of a work tree: the rule would not match
    path = Path(lines[1])
    return path if path.is_absolute() else project / path


def ignored(project: Path) -> bool:
    done = _git(project, "check-ignore", "-q", "--no-index", "--", RULE.lstrip("/"))
    return done is not None and done.returncode == 0


def keep_out(project: str | os.PathLike[str]) -> Path | None:
    """Add RULE to the clone's info/exclude unless git already ignores the file; the
    exclude file written, or None when nothing was needed or possible."""
    root = Path(project)
    target = _exclude_file(root)
    if target is None or ignored(root):
        return None
    try:
        old = target.read_text(encoding="utf-8") if target.exists() else ""
        sep = "" if not old or old.endswith("\n") else "\n"
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as fh:
            fh.write(f"{sep}{MARK}\n{RULE}\n")
    except OSError:
        return None
    return target


def take_back(project: str | os.PathLike[str]) -> Path | None:
    """Remove the two lines keep_out added; the exclude file changed, or None."""
    target = _exclude_file(Path(project))
    if target is None:
        return None
    with contextlib.suppress(OSError):
        lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
        for i, line in enumerate(lines[:-1]):
            if line.rstrip("\n") == MARK and lines[i + 1].rstrip("\n") == RULE:
                del lines[i:i + 2]
                target.write_text("".join(lines), encoding="utf-8")
                return target
    return None
