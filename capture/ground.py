"""Text normalisation for quotes, and the check of cited files (GUIDE §5).

Stdlib only. Whether a quote supports its fact is the verifier's job
(`capture/verify/`, which replaced the substring match that lived here); this module
keeps what both it and `import` share: `normalise` (quotes come back with curly quotes,
stripped markdown, re-flowed whitespace) and `missing_files`.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

_TRANSLATE = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff`*", ""),
        "\u2026": "...",
    }
)
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Casefold, unify quotes and dashes, drop markdown emphasis, collapse whitespace."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).casefold()
    return _SPACE.sub(" ", text).strip()


def missing_files(files: Iterable[str], project_root: str | os.PathLike[str]) -> list[str]:
    """Cited files that do not exist inside the project (escapes count as missing).

    Lexical checks only for containment (no symlink resolution), so a path can never
    point the caller outside the root through `..` or an absolute path.
    """
    root = os.path.normpath(os.path.abspath(os.fspath(project_root)))
    out: list[str] = []
    for name in files:
        if name in out:
            continue
        if not name or not name.strip() or "\0" in name:
            out.append(name)
            continue
        path = os.path.normpath(os.path.join(root, name))  # absolute `name` replaces root
        try:
            inside = os.path.commonpath([root, path]) == root
        except ValueError:  # different drives on Windows
            inside = False
        if not inside or not Path(path).exists():
            out.append(name)
    return out
