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
