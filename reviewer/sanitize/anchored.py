"""Many literal words looked for at once, each from its rarest character.

A gate that asks ``any(w in low for w in words)`` scans a long text once per word (about
a nanosecond a character each), and a regex of the words as alternatives tries them at
nearly every letter. The regex engine is fast only at skipping to one literal character:
so the words are grouped by their rarest character (``secret`` by its ``c``, ``-token``
by its ``k``), one pattern a group, and each pattern checks its words around that
character (a look-behind and a look-ahead). A pattern matches exactly where one of its
words occurs (and, given ``after``, is followed by what that regex matches).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Characters from rarest to commonest in prose, code and logs; any other comes last.
_RARITY = "zqjxkyvwfgbp(-_mucldrhsnioate "


def _rank(c: str) -> int:
    i = _RARITY.find(c)
    return len(_RARITY) if i < 0 else i


Group = tuple[re.Pattern[str], tuple[str, ...]]


def groups(words: Iterable[str], after: str = "") -> tuple[Group, ...]:
    """Patterns, one per anchor character, each with the words it stands for: its
    ``search`` finds one of them (followed by ``after``, a regex) exactly where the text
    holds one."""
    by_anchor: dict[str, list[tuple[str, str]]] = {}
    for w in dict.fromkeys(words):
        k = min(range(len(w)), key=lambda i: _rank(w[i]))
        ahead = re.escape(w[k + 1 :]) + after
        around = f"(?<={re.escape(w[: k + 1])})" + (f"(?={ahead})" if ahead else "")
        by_anchor.setdefault(w[k], []).append((w, around))
    return tuple((re.compile(f"{re.escape(a)}(?:{'|'.join(al for _, al in alts)})"),
                  tuple(w for w, _ in alts)) for a, alts in by_anchor.items())


def words_res(words: Iterable[str], after: str = "") -> tuple[re.Pattern[str], ...]:
    """The patterns of ``groups``: together they find a text holding any of ``words``."""
    return tuple(p for p, _ in groups(words, after))


def holds_any(text: str, patterns: tuple[re.Pattern[str], ...]) -> bool:
    """Whether ``text`` holds one of the words ``patterns`` (from ``words_res``) stand for."""
    return any(p.search(text) is not None for p in patterns)
