"""The one benchmark command: `python bench/run.py` (or `make bench`).

Builds the scratch world (bench/fixtures.py), runs every row several times interleaved
with its baseline, prints medians, min–max and ratios against the budgets, and writes
bench/results/latest.json (commit, python, date, every sample) so two commits can be
compared with `--compare OLD.json`.

    python bench/run.py                 # everything, 7 repetitions (a few minutes)
    python bench/run.py --quick         # tiny fixtures, 1 repetition (the smoke test)
    python bench/run.py --only hook,preview
    python bench/run.py --workdir /tmp/mrb   # build fixtures once, reuse them next time
    python bench/run.py --compare bench/results/old.json
    python bench/run.py --compare old.json --against new.json   # no run, just deltas
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the project importable
    sys.path.insert(0, str(ROOT))

from bench import fixtures  # noqa: E402
from bench.common import ERROR, Result  # noqa: E402
from bench.rows import Ctx  # noqa: E402
from bench.terminal import tmux_available  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def _groups() -> list[tuple[str, tuple[str, ...], Callable[[Ctx], list[Result]]]]:
    """(group, result keys, runner) in the order of the budget table."""
    from bench.rows import (
        condense,
        detector,
        hooks,
        mcp,
        preview,
        sharing,
        staleness,
        transcripts,
        tui,
    )

    return [
        ("hook-end", ("hook-end",), hooks.run_end),
        ("hook-start", ("hook-start",), hooks.run_start),
        ("hook-sweep", ("hook-sweep",), hooks.run_sweep),
        ("hook-start-shared", ("hook-start-shared",), sharing.run),
        ("tui", ("tui-start", "tui-keys-j", "tui-keys-filter", "tui-memory"), tui.run),
        ("staleness", ("staleness", "staleness-full", "staleness-repeat", "staleness-cold"),
         staleness.run),
        ("condense", ("condense",), condense.run),
        ("preview", ("preview",), preview.run),
        ("detector", ("detector",), detector.run),
        ("bytes", ("bytes",), transcripts.run_bytes),
        ("cost", ("cost", "cost-full"), transcripts.run_cost),
        ("mcp", ("mcp-recall", "mcp-start", "mcp-memory"), mcp.run),
    ]


def _selected(only: str | None) -> list[tuple[str, tuple[str, ...], Callable[[Ctx], list[Result]]]]:
    groups = _groups()
    if not only:
        return groups
    names = [x.strip() for x in only.split(",") if x.strip()]
    out = [g for g in groups
           if any(g[0].startswith(n) or n.startswith(g[0]) or any(k.startswith(n) for k in g[1])
                  for n in names)]
    if not out:
        known = ", ".join(k for g in groups for k in g[1])
        raise SystemExit(f"bench: --only {only!r} matches no row (rows: {known})")
    return out


# ---- formatting -------------------------------------------------------------------------


def _num(v: float, unit: str) -> str:
    if unit == "frac":
        return f"1/{1 / v:.0f}" if v > 0 else "0"
    if unit == "%":
        return f"{v:.0%}"
    if unit == "$":
        return f"${v:.4f}"
    digits = 1 if abs(v) < 10 else 0
    return f"{v:,.{digits}f}"


def _stat(s: Any) -> str:
    if s is None:
        return "—"
    unit = s.unit
    suffix = "" if unit in ("frac", "$", "%") else f" {unit}"
    if len(s.samples) == 1:
        return _num(s.median, unit) + suffix
    return f"{_num(s.median, unit)}{suffix} ({_num(s.lo, unit)}–{_num(s.hi, unit)})"


def _ratio(r: Result) -> str:
    x = r.ratio
    if x is None:
        return "—"
    if r.kind == "ratio":
        return f"{x:.2f}×"
    unit = r.value.unit if r.value else ""
    if r.kind == "delta":
        return f"{'+' if x >= 0 else ''}{_num(x, unit)} {unit}"
    return _num(x, unit)


def table(results: Sequence[Result]) -> str:
    head = ("what", "measured median (min–max)", "baseline median (min–max)", "ratio", "budget",
            "verdict")
    rows = [(r.title, _stat(r.value), (_stat(r.baseline) + (f"  [{r.baseline_title}]"
             if r.baseline_title and r.baseline else "")), _ratio(r), r.budget, r.status)
            for r in results]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*head), line.format(*("-" * w for w in widths))]
    out += [line.format(*row) for row in rows]
    notes = [f"  {r.key}: {n}" for r in results for n in r.notes]
    paired = [f"{r.key} {r.paired:.2f}×" for r in results if r.paired is not None]
    if paired:
        notes.insert(0, "  paired ratios (median of side-by-side samples): " + ", ".join(paired))
    return "\n".join(out) + ("\n\nnotes:\n" + "\n".join(notes) if notes else "")


def compare(old: dict[str, Any], new: dict[str, Any]) -> str:
    before = {r["key"]: r for r in old.get("results", [])}
    lines = [f"compared with {old.get('meta', {}).get('commit') or 'uncommitted'} "
             f"({old.get('meta', {}).get('date', '?')}):"]
    for r in new.get("results", []):
        o = before.get(r["key"])
        if o is None or o.get("ratio") is None or r.get("ratio") is None:
            lines.append(f"  {r['key']:<18} {'(no comparable value)':>28}  {r['status']}")
            continue
        a, b = float(o["ratio"]), float(r["ratio"])
        pct = round((b - a) / abs(a) * 100) if a else None
        change = "—" if pct is None else f"{pct:+d}%"
        lines.append(f"  {r['key']:<18} {a:>12.4g} → {b:<12.4g} {change:>6}  "
                     f"{o['status']} → {r['status']}")
    return "\n".join(lines)


# ---- the run ------------------------------------------------------------------------------


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                             check=False, timeout=10)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def meta(
    args: argparse.Namespace, fx: fixtures.Fixtures, exe: Path | None, load: tuple[float, ...]
) -> dict[str, Any]:
    return {
        "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(_git("status", "--porcelain")),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "executable": sys.executable,
        "console_script": str(exe) if exe else None,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_start": load,
        "reps": args.reps,
        "quick": args.quick,
        "terminal": args.terminal,
        "scale": fx.scale.__dict__,
        "fixtures_built_with": fx.built_with,
        "fixture_build_seconds": fx.build_seconds,
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny fixtures, 1 repetition")
    p.add_argument("--reps", type=int, default=None, help="repetitions per row (default 7)")
    p.add_argument("--only", help="comma-separated rows (prefixes): hook,tui,staleness,…")
    p.add_argument("--terminal", choices=("pty", "tmux"), default="pty",
                   help="where the TUI rows run (default pty; tmux polls capture-pane)")
    p.add_argument("--workdir", type=Path, help="build/reuse fixtures here (kept)")
    p.add_argument("--out", type=Path, default=RESULTS / "latest.json")
    p.add_argument("--compare", type=Path, metavar="OLD.json", help="print deltas vs OLD.json")
    p.add_argument("--against", type=Path, metavar="NEW.json",
                   help="with --compare: compare two result files without running")
    p.add_argument("--strict", action="store_true", help="exit 1 on any FAIL or ERROR")
    args = p.parse_args(argv)
    if args.reps is None:
        args.reps = 1 if args.quick else 7
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.compare and args.against:
        print(compare(json.loads(args.compare.read_text()), json.loads(args.against.read_text())))
        return 0
    groups = _selected(args.only)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="mem-review-bench-"))
    # Nothing the harness runs in-process may touch the user's real store or log.
    os.environ["MEM_REVIEW_HOME"] = str(work / "home-bench")
    exe = fixtures.mem_review_exe()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    log(f"bench: python {platform.python_version()} ({sys.executable}), "
        f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    log(f"bench: console script {exe or 'NOT FOUND (pip install -e . into this venv)'}")
    if tmux_available():
        log(f"bench: tmux found; TUI rows run in a {args.terminal}")
    else:
        log("bench: tmux is NOT installed (apt-get install -y tmux); TUI rows use a pty"
            + (" — --terminal tmux cannot run" if args.terminal == "tmux" else ""))
    # As `pip install` leaves a package: its bytecode compiled. Without it (an editable
    # install under PYTHONDONTWRITEBYTECODE, as on this VM) every hook run recompiles each
    # module it imports, which no user's installed copy does.
    import compileall
    import re

    for package in ("capture", "reviewer"):  # not the demo project's files: package data
        compileall.compile_dir(str(ROOT / package), quiet=1, rx=re.compile(r"[/\\]demo[/\\]"))
    log("bench: bytecode compiled for capture/ and reviewer/ (as an installed package has)")
    scale = fixtures.Scale.quick() if args.quick else fixtures.Scale()
    t0 = time.perf_counter()
    load = os.getloadavg()
    try:
        fx = fixtures.build(work, scale, log=log)
        ctx = Ctx(fx=fx, reps=args.reps, quick=args.quick, terminal=args.terminal, exe=exe,
                  log=log)
        results: list[Result] = []
        for name, keys, runner in groups:
            log(f"bench: {name} …")
            t1 = time.perf_counter()
            try:
                got = runner(ctx)
            except Exception as exc:  # one row's crash must not hide the others
                traceback.print_exc(file=sys.stderr)
                got = [Result(keys[0], name, ERROR, notes=[f"{type(exc).__name__}: {exc}"],
                              crashed=True)]
            log(f"bench: {name} done in {time.perf_counter() - t1:.1f} s")
            results.extend(got)
        doc = {"meta": {**meta(args, fx, exe, load), "loadavg_end": os.getloadavg(),
                        "seconds": time.perf_counter() - t0},
               "results": [r.to_json() for r in results]}
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out} ({doc['meta']['seconds']:.0f} s, {args.reps} reps, "
          f"load {doc['meta']['loadavg_start'][0]:.1f}→{doc['meta']['loadavg_end'][0]:.1f})")
    if args.compare:
        print()
        print(compare(json.loads(args.compare.read_text()), doc))
    bad = [r for r in results if r.status in ("FAIL", ERROR)]
    return 1 if args.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
