"""Which project a session belongs to: the git top level of its cwd, else the cwd.

Found by walking up to `.git` rather than asking git, so the hook spends no subprocess.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root(cwd: str | os.PathLike[str] | None = None) -> str:
    start = Path(cwd or os.getcwd()).expanduser()
    try:
        start = start.resolve()
    except OSError:
        return str(start)
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return str(candidate)
    return str(start)


def resolve(given: str | None) -> str:
    """The project a command works on: `--project DIR`, else the current directory's."""
    if given is None:
        return project_root()
    path = Path(given).expanduser()
    if not path.is_dir():
        from reviewer.errors import UserError

        raise UserError(f"{given}: no such directory")
    return project_root(path)
