"""Knowledge checks on places: a path or a named variable's path the fact changes.

Two defects a name-by-name check misses, because every name the fact uses is said
somewhere in the session:

- a sibling path: the fact puts a thing in `contracts/core/` where its quote lists it
  under `contracts/advanced/` (same parent, another branch), and the quote says the
  fact's path nowhere;
- a variable pointed elsewhere: the fact says `PAI_DIR` was set to a path the session
  never gives it, while the session does set it, to something else.

Pure functions over text; what they return is the reason, "" when nothing differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from capture.ground import normalise

# A path of two segments or more: `contracts/core/`, `~/.claude/hooks`, `/home/x/y.json`.
_PATH = re.compile(r"(?<![\w:/.~-])(?:~|\.{1,2})?/?[\w@-][\w.@-]*(?:/[\w.@-]+)+/?")
_URLISH = re.compile(r"://|^www\.|^\w+\.(?:com|org|net|io|dev)/")
# A variable a fact can point somewhere: SCREAMING_CASE, snake_case or camelCase.
_VAR = r"(?P<key>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:_[a-z0-9]+)+|[a-z]+[A-Z]\w*)"
# How text points a variable at a value: `K=V`, `"K": "V"`, `K: V`, "K is set to V",
# "K was corrected to the repo checkout, V" (a few words between, no sentence break).
_ASSIGN = re.compile(r"(?<![\w$])[\"'`]?" + _VAR + r"[\"'`]?\s*(?:=|:)\s*[\"'`]?"
                     r"(?P<value>[^\s\"'`,;)}\]]+)")
_POINTED = re.compile(r"(?<![\w$])[\"'`]?" + _VAR + r"[\"'`]?\s+(?:(?:is|was|has been|now|"
                      r"got|gets|were|are)\s+)?(?:set|changed|corrected|updated|pointed|points|"
                      r"point|fixed|moved|resolves|resolved|defaults|defaulted)\s+to\b"
                      r"(?P<gap>[^.!?\n]{0,60}?)[\"'`]?(?<![\w.~-])"  # not `data/cache`'s tail
                      r"(?P<value>(?:~|\.{1,2})?/[^\s\"'`,;)]+)")


def _segments(path: str) -> list[str]:
    return [s for s in path.strip("`'\".,:;").rstrip("/").split("/")]


def _paths(text: str) -> list[str]:
    return [m.group().rstrip(".,:;") for m in _PATH.finditer(text)
            if not _URLISH.search(m.group()) and "/" in m.group().strip("/")]


def sibling_path(fact: str, quote: str) -> str:
    """The fact names a path its quote does not, where the quote names a path with the
    same first segment(s) that branches off elsewhere (`contracts/core/` against
    `contracts/advanced/Automation.sol`), and no path of the fact is the quote's: the
    two branches, or ""."""
    fact_paths = _paths(fact)
    if not fact_paths:
        return ""
    q = normalise(quote)
    quote_paths = _paths(quote)
    if not quote_paths:
        return ""
    q_segs = [_segments(p) for p in quote_paths]

    def supported(path: str) -> bool:
        segs = _segments(path)
        return normalise(path.rstrip("/")) in q or any(
            s[: len(segs)] == segs or segs[: len(s)] == s for s in q_segs)

    if any(supported(p) for p in fact_paths):
        return ""
    for path in fact_paths:
        segs = _segments(path)
        fact_dirs = len(segs) if path.endswith("/") else len(segs) - 1
        for other in q_segs:
            n = 0
            while n < min(len(segs), len(other)) and segs[n] == other[n]:
                n += 1
            # A shared named root (not "", "~", ".", "home"), then another directory on
            # both sides: two files of one directory may be two things the fact and its
            # quote name (left to the name checks' hint); two directories are two places.
            if n >= 1 and any(s not in ("", "~", ".", "..", "home", "usr", "src") for s in
                              segs[:n]) and n < fact_dirs and n < len(other) - 1:
                return (f"the fact has {'/'.join(segs[: n + 1])}/ where the quote has "
                        f"{'/'.join(other[: n + 1])}")
    return ""


def _values(text: str) -> dict[str, set[str]]:
    """Path values each variable is given in `text`, by name."""
    out: dict[str, set[str]] = {}
    for rx in (_ASSIGN, _POINTED):
        for m in rx.finditer(text):
            value = m.group("value").rstrip(".,:;")
            if "/" in value:
                out.setdefault(m.group("key"), set()).add(value.rstrip("/"))
    return out


# A home directory however it is spelt: `~`, `$HOME`, `${HOME}`, `/home/alice`, `/Users/a`.
_HOME = re.compile(r"(?:~|\$\{?HOME\}?|/home/(?P<u>[^/]+)|/Users/(?P<v>[^/]+)|/(?P<r>root))"
                   r"(?=/|$)")


def _same_place(a: str, b: str) -> bool:
    """Two spellings of one path: a leading `./` dropped, a home directory by what follows
    it (`~/.claude` is `/home/alice/.claude`; two users' homes stay two places)."""
    a, b = re.sub(r"^(?:\./)+", "", a), re.sub(r"^(?:\./)+", "", b)
    if a == b:
        return True
    ha, hb = _HOME.match(a), _HOME.match(b)
    if ha is None or hb is None or a[ha.end():] != b[hb.end():]:
        return False
    ua, ub = ha.group("u", "v", "r"), hb.group("u", "v", "r")
    return not any(ua) or not any(ub) or ua == ub


def pointed_elsewhere(fact: str, texts: Iterable[str]) -> str:
    """The fact points a variable at a path (`PAI_DIR was corrected to /a/b`); the
    session gives that variable paths, never this one: what the session says, or "".
    A value built from another variable (`$HOME/x`, `${ROOT}`) may be anything: then
    nothing is known."""
    claimed = _values(fact)
    if not claimed:
        return ""
    said: dict[str, set[str]] = {}
    for text in texts:
        for key, values in _values(text).items():
            if key in claimed:
                said.setdefault(key, set()).update(values)
    for key, values in claimed.items():
        given = said.get(key, set())
        if not given or any(_same_place(v, g) for v in values for g in given) or any(
                "$" in v or "{" in v for v in given):
            continue
        return (f"the session sets {key} to {', '.join(sorted(given))}, never to "
                f"{', '.join(sorted(values))}")
    return ""
