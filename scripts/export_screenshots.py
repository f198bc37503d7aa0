"""Write screenshots/*.svg: the review TUI on the demo data, at 120×36.

    .venv/bin/python scripts/export_screenshots.py [--out screenshots]

Builds a fresh demo (`mem-review demo`'s builder: the real capture pipeline with the
offline extractor, no network) in a temporary directory, drives the app with Pilot and
saves one SVG per screen: main, detail (a fact with highlighted evidence), reject (the
picker), edit, help, stale (a fact whose file changed since capture, with its diff),
verify (`v` on it: the diff and the question "still true?").
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 36)


async def shoot(out: Path, base: Path) -> list[Path]:
    from reviewer.commands.demo import build
    from reviewer.tui.app import ReviewApp

    demo = build(base)
    os.environ["MEM_REVIEW_HOME"] = str(demo.home)
    written: list[Path] = []

    async def one(name: str, keys: tuple[str, ...], view: str = "pending",
                  select: str | None = None) -> None:
        app = ReviewApp(project=str(demo.project), db_path=demo.db_path, theme="textual-dark")
        app.main.view = view
        async with app.run_test(size=SIZE) as pilot:
            await app.settle()
            await pilot.pause()
            if select is not None:  # put the cursor on the first fact containing `select`
                facts = app.main.facts
                index = next(i for i, r in enumerate(facts.rows) if select in r.text)
                facts.move_to(index)
            await app.settle()
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await app.settle()
            await pilot.pause(0.1)
            path = out / f"{name}.svg"
            app.save_screenshot(filename=path.name, path=str(out))
            written.append(path)

    await one("main", ())
    await one("detail", (), select="POOL_SIZE")
    await one("reject", ("r",), select="out tomorrow")
    await one("edit", ("e",), select="uv for everything")
    await one("help", ("question_mark",))
    await one("stale", (), view="stale", select="payment provider")
    await one("verify", ("v",), view="stale", select="payment provider")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TZ", "UTC")
    with tempfile.TemporaryDirectory(prefix="mem-review-shots-") as tmp:
        for path in asyncio.run(shoot(args.out, Path(tmp) / "demo")):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
