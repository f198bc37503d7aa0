"""The quality harness: `python bench/eval/run.py` (or `make eval`).

Runs every section in bench/eval/sections/ (a module with `run() -> list[Row]`, found
by name, in name order) and prints each as a table. Not timed, not a test: it measures
what reaches the model and how candidates are checked, on real sessions labelled by hand
(bench/eval/labels.json). Real sessions are read in place from ../shared/transcripts;
without them a section says so and is skipped.

    python bench/eval/run.py                  # every section
    python bench/eval/run.py --only survival  # some sections
    python bench/eval/run.py --code ../main   # the same labels against another checkout
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `bench` and the project importable
    sys.path.insert(0, str(ROOT))

from bench.eval.common import Row  # noqa: E402


def sections() -> list[str]:
    """Names of the section modules, in name order."""
    from bench.eval import sections as pkg

    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def run_section(name: str) -> list[Row]:
    """A section's rows; a crash is one row saying so (the other sections still run)."""
    try:
        mod = importlib.import_module(f"bench.eval.sections.{name}")
        return list(mod.run())
    except Exception as exc:  # a harness or product bug: show it, keep going
        last = traceback.format_exc(limit=-1).strip().splitlines()[-1]
        return [Row(name, "crashed", {}, f"{type(exc).__name__}: {exc} ({last})")]


def table(rows: Sequence[Row]) -> str:
    """Rows of one section as an aligned text table; 'overall' last, under a rule."""
    body = [r for r in rows if r.label != "overall"] + [r for r in rows if r.label == "overall"]
    cols: list[str] = []
    for r in body:
        cols += [c for c in r.values if c not in cols]
    header = ["", *cols, "note"]
    cells = [[r.label, *(str(r.values.get(c, "")) for c in cols), r.note] for r in body]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    widths[-1] = len(header[-1])  # notes run free

    def line(values: Sequence[str]) -> str:
        first = values[0].ljust(widths[0])
        mid = [v.rjust(widths[i + 1]) for i, v in enumerate(values[1:-1])]
        return "  ".join([first, *mid, values[-1]]).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    for r, c in zip(body, cells, strict=True):
        if r.label == "overall":
            out.append(line(["-" * w for w in widths]))
        out.append(line(c))
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated section names")
    ap.add_argument("--code", help="import capture/ and reviewer/ from this checkout instead")
    args = ap.parse_args(argv)
    if args.code:
        sys.path.insert(0, str(Path(args.code).resolve()))
    names = sections()
    if args.only:
        wanted = {n.strip() for n in args.only.split(",") if n.strip()}
        unknown = wanted - set(names)
        if unknown:
            print(f"unknown section(s): {', '.join(sorted(unknown))}; have {', '.join(names)}")
            return 2
        names = [n for n in names if n in wanted]
    for name in names:
        rows = run_section(name)
        title = rows[0].section if rows else name
        print(f"\n== {title} ==")
        print(table(rows) if rows else "(no rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
