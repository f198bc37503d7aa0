"""Measure the redactor on a battery of secrets: not sent, not stored, ordinary untouched.

A battery is a JSON list of items ``{"half": "A"|"B", "group": str, "text": str,
"secrets": [exact substrings]}``; an ordinary string has no secrets and must come out
unchanged. ``tests/data/secrets_battery.json`` was written by an independent red team;
the detector was tuned on half A only, and half B is what the issue's table reports.

How each figure is taken, end to end through the real parts:

- **not sent**: every item is a user prompt of one real transcript; the real worker
  (``capture_now``, the real anthropic SDK) sends it to the fake Messages API, with
  nothing fitted away (``send_ratio`` 0). An item is sent if any of its secrets is in
  what the API received (raw bodies and decoded strings).
- **not stored**: the fake API plays a careless model that answers, for every item, one
  fact quoting the item word for word and one repeating its bare secrets with none of
  their context words (in the fact, the evidence and the cited files). An item is stored
  if any secret is in the database file, its WAL or ``list --json``.
- **ordinary untouched**: an ordinary string is touched if redaction changes it (the
  detector as the worker runs it) or it is not in what was sent verbatim.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "secrets_battery.json"


@dataclass
class Group:
    items: int = 0
    redactor: int = 0  # the detector alone hides every secret of the item
    not_sent: int = 0
    not_stored: int = 0
    untouched: int = 0
    misses: list[str] = field(default_factory=list)


def load(half: str | None = None, path: Path = DATA) -> list[dict[str, Any]]:
    items = json.loads(path.read_text(encoding="utf-8"))
    return [it for it in items if half is None or it.get("half") == half]


def place(t: Any, it: dict[str, Any]) -> None:
    """Put an item where the battery says it was (``where``) in a transcript."""
    where, text = it.get("where", "prompt"), it["text"]
    if it.get("split_parts"):
        for part in it["split_parts"]:
            t.user(part)
    elif where == "assistant":
        t.assistant([{"type": "text", "text": text}])
        t.places += 1
    elif where == "bash_command":
        t.tool("Bash", {"command": text, "description": "run"}, "ok")
    elif where == "mcp_args":
        try:
            args = json.loads(text)
        except ValueError:
            args = None
        t.tool("mcp__ops__call", args if isinstance(args, dict) else {"input": text}, "ok")
    elif where in ("tool_result", "config_file", "diff", "commit", "error"):
        command = {"config_file": "cat config/app.conf", "diff": "git diff",
                   "commit": "git log -1", "error": "./deploy.sh"}.get(where, "./run.sh")
        t.tool("Bash", {"command": command, "description": "run"}, text,
               error=where == "error")
    else:  # prompt, summary, any
        t.user(text)


def _echoes(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from capture.candidate import CATEGORIES

    facts = []
    for i, it in enumerate(items):
        if not it["secrets"]:
            continue
        bare = " ".join(it["secrets"])
        cat = CATEGORIES[i % len(CATEGORIES)]
        facts.append({"fact": f"Item {i} says: {it['text']}", "category": cat,
                      "files": [], "confidence": 0.9, "evidence": it["text"]})
        facts.append({"fact": f"Deploy step {i} of the runbook uses {bare} before release.",
                      "category": cat, "files": [f"config/{it['secrets'][0][:60]}"],
                      "confidence": 0.9, "evidence": bare})
    return facts


def measure(items: list[dict[str, Any]], work: Path) -> dict[str, Group]:
    """Run ``items`` through the worker and the store (MEM_REVIEW_HOME must point into
    ``work``; the caller sets it). Returns the figures per group ("ordinary" for items
    without secrets). The environment is left as it was found (a leaked send ratio of 0
    once stopped fitting in every later test of the run)."""
    saved = os.environ.get("MEM_REVIEW_SEND_RATIO")
    try:
        return _measure(items, work)
    finally:
        if saved is None:
            os.environ.pop("MEM_REVIEW_SEND_RATIO", None)
        else:
            os.environ["MEM_REVIEW_SEND_RATIO"] = saved


def _measure(items: list[dict[str, Any]], work: Path) -> dict[str, Group]:
    from fakeapi import Facts, FakeMessagesAPI, requests_text
    from test_pipeline import make_repo
    from test_secrets_everywhere import Transcript

    from capture.pipeline import capture_now
    from reviewer import paths
    from reviewer.sanitize.detect import redact

    os.environ["MEM_REVIEW_SEND_RATIO"] = "0"
    repo = make_repo(work / "repo", {"README.md": "demo\n"})
    t = Transcript(repo)
    for it in items:
        place(t, it)
    transcript = t.write(work / "transcript.jsonl")
    with FakeMessagesAPI() as api:
        api.script(Facts(_echoes(items)), lane="extract")
        capture_now(transcript, project=str(repo), extractor="api", api_key="test-key",
                    base_url=api.url)
        sent = requests_text(api)
    home = paths.home()
    stored = b""
    for name in ("store.db", "store.db-wal", "mem-review.log"):
        p = home / name
        if p.exists():
            stored += p.read_bytes()
    out: dict[str, Group] = defaultdict(Group)
    for it in items:
        g = out["ordinary" if not it["secrets"] else it["group"]]
        g.items += 1
        red = redact(it["text"])
        if not it["secrets"]:
            keep = it.get("keep") or [it["text"]]
            ok = all(k in red and k in sent for k in keep)
            g.untouched += ok
            if not ok:
                g.misses.append(f"touched: {it['id']} {red[:160]!r}")
            continue
        g.redactor += not any(s in red for s in it["secrets"])
        s_ok = not any(s in sent for s in it["secrets"])
        st_ok = not any(s.encode() in stored for s in it["secrets"])
        g.not_sent += s_ok
        g.not_stored += st_ok
        if not (s_ok and st_ok):
            g.misses.append(f"{'sent' if not s_ok else ''}{'+' if not (s_ok or st_ok) else ''}"
                            f"{'stored' if not st_ok else ''}: {it['id']} {red[:160]!r}")
    return dict(out)


def table(groups: dict[str, Group]) -> str:
    """The issue's table: per group not sent and not stored; ordinary untouched."""
    lines = ["| group | not sent | not stored (echoing model) | redactor alone |",
             "|---|---|---|---|"]
    tot = Group()
    for name in sorted(k for k in groups if k != "ordinary"):
        g = groups[name]
        lines.append(f"| {name} | {g.not_sent}/{g.items} | {g.not_stored}/{g.items} | "
                     f"{g.redactor}/{g.items} |")
        tot.items += g.items
        tot.not_sent += g.not_sent
        tot.not_stored += g.not_stored
        tot.redactor += g.redactor
    lines.append(f"| **total** | **{tot.not_sent}/{tot.items}** | "
                 f"**{tot.not_stored}/{tot.items}** | **{tot.redactor}/{tot.items}** |")
    o = groups.get("ordinary", Group())
    lines.append(f"\nOrdinary strings unchanged: {o.untouched}/{o.items}")
    return "\n".join(lines)


def totals(groups: dict[str, Group]) -> tuple[float, float, float]:
    """(not sent, not stored, ordinary touched) as fractions."""
    n = sum(g.items for k, g in groups.items() if k != "ordinary") or 1
    sent = sum(g.not_sent for k, g in groups.items() if k != "ordinary") / n
    stored = sum(g.not_stored for k, g in groups.items() if k != "ordinary") / n
    o = groups.get("ordinary", Group())
    touched = (o.items - o.untouched) / (o.items or 1)
    return sent, stored, touched
