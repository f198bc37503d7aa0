"""Condensation survival: the share of hand-labelled durable facts whose words all reach
what is sent (`capture.pipeline.sent_windows`, default config: the 1/send_ratio budget), per
session and overall, with the bytes sent against the transcript's bytes."""

from __future__ import annotations

from bench.eval.common import TRANSCRIPTS, Row, load_labels, norm

SECTION = "condensation survival"


def run() -> list[Row]:
    if not TRANSCRIPTS.is_dir():
        return [Row(SECTION, "skipped", {}, f"{TRANSCRIPTS} is absent: no real sessions")]
    from capture.fit import budget_for
    from capture.pipeline import sent_windows
    from reviewer.config import Config

    cfg = Config()
    rows: list[Row] = []
    total = kept = 0
    for session in load_labels()["sessions"]:
        path = TRANSCRIPTS / session["path"]
        if not path.is_file():
            rows.append(Row(SECTION, session["path"], {}, "absent: skipped"))
            continue
        sent = "\n\n".join(sent_windows(path, cfg))
        seen = norm(sent)
        lost = [f["id"] for f in session["facts"] if not all(norm(w) in seen for w in f["words"])]
        n = len(session["facts"])
        size = path.stat().st_size
        total += n
        kept += n - len(lost)
        rows.append(Row(SECTION, session["path"], {
            "facts": n,
            "survive": n - len(lost),
            "share": f"{(n - len(lost)) / n:.0%}",
            "sent B": len(sent.encode()),
            "file B": size,
            "sent/file": f"1/{size / max(1, len(sent.encode())):.0f}",
            "of budget": f"{len(sent.encode()) / (budget_for(size, cfg.send_ratio) or 1):.0%}"
            if cfg.send_ratio else "-",
        }, ("lost: " + ", ".join(lost)) if lost else ""))
    if total:
        rows.append(Row(SECTION, "overall", {
            "facts": total, "survive": kept, "share": f"{kept / total:.0%}",
        }))
    return rows
