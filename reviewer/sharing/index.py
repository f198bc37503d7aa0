"""`.mem-review/README.md`: the team's shared facts as a page a person reads on the git host.

One JSON file per fact is right for git and for the hooks, and unreadable on a
repository's web page. `share` writes this page beside them: every fact of the folder,
grouped by category and by the files it cites, with who approved it and when, and the
ones whose cited files changed (as of that `share`) marked stale. A pull request that adds
a fact then shows one readable added line here too.

Deterministic: built only from the folder's facts and the working tree's files (no clock,
no machine paths), sorted, so re-running `share` with nothing changed writes the same
bytes. Every text is redacted, stripped of invisible characters and escaped for Markdown,
like every other way out of the store: the page must not carry a secret, hidden text, a
link or markup that a fact smuggled in.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict

from reviewer.freshness import staleness
from reviewer.sanitize import visible
from reviewer.sanitize.redact import redact
from reviewer.sharing import format as fmt
from reviewer.store.schema import CATEGORIES

PATH = ".mem-review/README.md"
MAX_FACTS = 5_000  # a page past this is not read by anyone; the rest are counted
TITLES = {
    "decision": "Decisions", "convention": "Conventions", "dead_end": "Dead ends",
    "todo": "Open TODOs", "gotcha": "Gotchas", "environment": "Environment",
}
_MD = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def text(value: object) -> str:
    """One line of Markdown-inert text: redacted, visible, no markup, links or HTML."""
    s = visible.strip(" ".join(str(value).split()))
    return _MD.sub(r"\\\1", redact(s))


def code(value: object) -> str:
    """A path as a code span (Markdown escapes do not work inside one: backticks go)."""
    s = visible.strip(" ".join(str(value).split()))
    return "`" + redact(s).replace("`", "'") + "`"


def _who(approver: str) -> str:
    """The name, without the e-mail address (the page is for reading, the file has it)."""
    name = approver.split("<", 1)[0].strip()
    return text(name or "someone")


def render(facts: list[fmt.SharedFact], stale: set[str]) -> str:
    facts = sorted(facts, key=lambda f: (f.approved_at, f.id))
    shown, extra = facts[:MAX_FACTS], len(facts) - MAX_FACTS
    by_cat: dict[str, list[fmt.SharedFact]] = defaultdict(list)
    by_file: dict[str, list[fmt.SharedFact]] = defaultdict(list)
    for f in shown:
        by_cat[f.category if f.category in CATEGORIES else "other"].append(f)
        for path in sorted(set(f.files)) or [""]:
            by_file[path].append(f)
    n_stale = sum(1 for f in shown if f.id in stale)
    out = [
        "# Team memory",
        "",
        "<!-- Written by `mem-review share` from the files in facts/; edits here are "
        "overwritten. -->",
        "",
        "Facts a person on this team reviewed and approved with mem-review, one JSON file "
        "each in [`facts/`](facts/). Claude Code sessions of teammates who use mem-review "
        "get them as reference notes once they are on the default branch. A fact marked "
        "**stale** cites a file that changed since it was approved (as of the last "
        "`mem-review share`): check it before relying on it.",
        "",
        f"{len(facts)} fact{'s' if len(facts) != 1 else ''}"
        + (f", {n_stale} stale" if n_stale else "") + ": "
        + " · ".join(f"{TITLES.get(c, 'Other')} ({len(by_cat[c])})"
                     for c in (*CATEGORIES, "other") if by_cat.get(c)),
        "",
        "## By category",
    ]
    for cat in (*CATEGORIES, "other"):
        if not by_cat.get(cat):
            continue
        out += ["", f"### {TITLES.get(cat, 'Other')}", ""]
        out += [_item(f, stale, files=True) for f in by_cat[cat]]
    out += ["", "## By file"]
    for path in sorted(p for p in by_file if p):
        out += ["", f"### {code(path)}", ""]
        out += [_item(f, stale, files=False) for f in by_file[path]]
    if by_file.get(""):
        out += ["", "### Facts that cite no file", ""]
        out += [_item(f, stale, files=False) for f in by_file[""]]
    if extra > 0:
        out += ["", f"…and {extra} more fact files, not listed here."]
    return "\n".join(out) + "\n"


def _item(f: fmt.SharedFact, stale: set[str], *, files: bool) -> str:
    mark = "⚠ **stale**: " if f.id in stale else ""
    cites = ""
    if files and f.files:
        cites = " · " + ", ".join(code(p) for p in sorted(f.files))
    day = f.approved_at[:10] if re.fullmatch(r"\d{4}-\d\d-\d\d.*", f.approved_at) else "?"
    kind = "" if files else f" ({TITLES.get(f.category, 'Other').rstrip('s')})"
    return (f"- {mark}{text(f.text)}{kind}{cites} · approved by {_who(f.approved_by)} "
            f"on {day} · [file](facts/{f.file_name})")


def stale_ids(conn: sqlite3.Connection | None, root: str,
              facts: list[fmt.SharedFact]) -> set[str]:
    """Share ids of the facts whose cited files changed since approval, in this tree."""
    anchored = [(n, f) for n, f in enumerate(facts, start=1) if f.anchors]
    if not anchored:
        return set()
    items = [(-n, json.dumps(f.anchors), f.commit) for n, f in anchored]
    stale = staleness.stale_ids(conn, root, items)
    return {f.id for n, f in anchored if -n in stale}
