"""Where start-up time goes: `python -X importtime` of mem-review's entry points.

For the CLI dispatcher, each hook (run for real, with a payload on stdin, so lazy imports
inside the hook count too) and the TUI entry modules, prints the process's wall time
against `python -c pass`, the total import time, the top 15 cumulative importers, and any
module the hooks must never load (textual, anthropic, sqlmodel, sqlalchemy, pydantic, git).

    python scripts/cold_start.py                 # all entry points
    python scripts/cold_start.py hook-start tui  # some of them
    python scripts/cold_start.py --top 25
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT.parent / "shared" / "transcripts" / "spotter" / "short.jsonl"
HEAVY = ("textual", "anthropic", "sqlmodel", "sqlalchemy", "pydantic", "git")
LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)")

HOOK = "import sys; from reviewer.cli import main; sys.exit(main(['hook', {event!r}]))"
ENTRIES: dict[str, tuple[str, str | None]] = {
    # name: (code for -c, hook event whose payload goes on stdin)
    "cli": ("import reviewer.cli", None),
    "hook-end": (HOOK.format(event="session-end"), "SessionEnd"),
    "hook-start": (HOOK.format(event="session-start"), "SessionStart"),
    "tui": ("import reviewer.commands.review, reviewer.tui.app", None),
}


@dataclass
class Imp:
    module: str
    self_us: int
    cumulative_us: int
    depth: int


def parse(stderr: str) -> list[Imp]:
    out = []
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m:
            out.append(Imp(m.group(4), int(m.group(1)), int(m.group(2)), len(m.group(3)) // 2))
    return out


def payload(event: str, cwd: str) -> bytes:
    return json.dumps({
        "session_id": "cold-start", "transcript_path": str(TRANSCRIPT), "cwd": cwd,
        "hook_event_name": event, "source": "startup", "reason": "other",
    }).encode()


def wall(cmd: list[str], stdin: bytes, env: dict[str, str], n: int) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=False)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def report(name: str, top: int, reps: int, env: dict[str, str], cwd: str) -> None:
    code, event = ENTRIES[name]
    stdin = payload(event, cwd) if event else b""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", code], input=stdin, env=env,
                         capture_output=True, text=False, check=False, cwd=cwd)
    imps = parse(out.stderr.decode("utf-8", "replace"))
    total = sum(i.self_us for i in imps) / 1000
    base = wall([sys.executable, "-c", "pass"], stdin, env, reps)
    took = wall([sys.executable, "-c", code], stdin, env, reps)
    print(f"== {name}: python -c {code!r}")
    print(f"   wall {took:.0f} ms vs python -c pass {base:.0f} ms ({took / base:.2f}×); "
          f"imports {total:.0f} ms in {len(imps)} modules; exit {out.returncode}")
    heavy = sorted({i.module for i in imps if i.module.split(".")[0] in HEAVY})
    if heavy and name.startswith(("hook", "cli")):
        print(f"   !! loads modules a hook must not: {', '.join(heavy[:12])}"
              + (" …" if len(heavy) > 12 else ""))
    print(f"   {'cumulative':>10} {'self':>8}  module (top {top} by cumulative)")
    for i in sorted(imps, key=lambda i: i.cumulative_us, reverse=True)[:top]:
        print(f"   {i.cumulative_us / 1000:>8.1f}ms {i.self_us / 1000:>6.1f}ms  "
              f"{'  ' * min(i.depth, 6)}{i.module}")
    print()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("entries", nargs="*", metavar="ENTRY",
                   help=f"which entry points (default all: {', '.join(ENTRIES)})")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--reps", type=int, default=5, help="wall-time repetitions (median)")
    args = p.parse_args(argv)
    unknown = [e for e in args.entries if e not in ENTRIES]
    if unknown:
        p.error(f"unknown entry {unknown[0]!r} (choose from {', '.join(ENTRIES)})")
    with tempfile.TemporaryDirectory(prefix="mem-review-cold-") as tmp:
        # A scratch store and project: never the user's, and the hooks find nothing to do
        # beyond their normal path (an empty store, a project without facts).
        env = {**os.environ, "MEM_REVIEW_HOME": str(Path(tmp) / "home"),
               "MEM_REVIEW_NO_SPAWN": "1", "PYTHONDONTWRITEBYTECODE": "0"}
        project = Path(tmp) / "project"
        project.mkdir()
        for name in args.entries or list(ENTRIES):
            report(name, args.top, args.reps, env, str(project))
    return 0


if __name__ == "__main__":
    sys.exit(main())
