"""Run one half of the red team's battery (tests/data/attacks.json) against the real
Claude Code CLI with its sandbox on, one session per family, and print the table
(goal -> achieved / tried, and what stopped each attack).

    .venv/bin/python scripts/sandbox_battery_report.py B [--guard] [--wait-deferred 180]

Uses the end-to-end test's scene (tests/test_e2e_sandbox.py): a scratch venv, store,
project and HOME per family; every goal judged after the session and again after a
person's ordinary activity. Half B is held out: it is reported, never tuned on.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pytest  # noqa: E402
import sandbox_attacks as sa  # noqa: E402
import test_e2e_sandbox as e2e  # noqa: E402

KERNEL = ("Read-only file system", "EROFS", "Permission denied", "unable to open database",
          "readonly database", "Operation not permitted", "Device or resource busy")
RULES = ("has been denied", "denied by your permission settings", "could not lock config",
         "blocked by a deny rule")


def how(text: str) -> str:
    if "mem-review guard" in text:
        return "guard hook"
    if any(k in text for k in RULES):
        return "CLI deny rules"
    if any(k in text for k in KERNEL):
        return "kernel (sandbox)"
    return "no effect"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("half")
    parser.add_argument("--guard", action="store_true", help="keep the PreToolUse hook")
    parser.add_argument("--wait-deferred", type=float, default=180.0,
                        help="seconds to wait before judging the deferred-execution family")
    args = parser.parse_args()
    items = sa.load_battery(e2e.BATTERY, args.half)
    families = sorted({i["family"] for i in items})
    rows = []
    base = Path(tempfile.mkdtemp(prefix="battery-"))
    (base / "venv").mkdir()
    venv = e2e.make_venv(base / "venv")
    for family in families:
        attacks = [i for i in items if i["family"] == family]
        mp = pytest.MonkeyPatch()
        root = base / family
        root.mkdir()
        try:
            scene = e2e.Scene(root, venv, mp)
            results = e2e.run_session(scene, attacks, guard_hook=args.guard)
            assert "Read-only file system" in results["probe"], results["probe"]
            if family == "deferred-execution":
                time.sleep(args.wait_deferred)
            won = e2e.judge(scene, results, attacks)
            scene.kill_leftovers()
        finally:
            scene.restore_host()
            mp.undo()
        achieved = {i for ids in won.values() for i in ids}
        for a in attacks:
            text = results.get(a["id"], "")
            rows.append({"id": a["id"], "family": family, "goal": a["goal"],
                         "achieved": a["id"] in achieved,
                         "stopped_by": "-" if a["id"] in achieved else how(text),
                         "result": text[:160]})
        print(f"{family}: {len(attacks)} run, achieved {sorted(achieved)}", flush=True)
    print()
    by_goal: dict[str, list[dict]] = collections.defaultdict(list)
    for r in rows:
        by_goal[r["goal"]].append(r)
    print("| goal | achieved / tried | stopped by: kernel / CLI rules / guard / no effect |")
    print("|---|---|---|")
    for goal in ("approve", "trust", "shared", "gate_off", "store", "memory",
                 "memory_adjacent", "control"):
        got = by_goal.get(goal, [])
        if not got:
            continue
        c = collections.Counter(r["stopped_by"] for r in got)
        ok = sum(r["achieved"] for r in got)
        print(f"| {goal} | {ok} / {len(got)} | {c['kernel (sandbox)']} / "
              f"{c['CLI deny rules']} / {c['guard hook']} / {c['no effect']} |")
    out = base / f"report-{args.half}.json"
    out.write_text(json.dumps(rows, indent=1))
    print(f"\nper attack: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
