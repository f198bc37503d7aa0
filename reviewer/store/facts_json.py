"""The `mem-review list --json` shape: one object per fact, read back by `import`.

One definition for both directions so an export always round-trips. Times are ISO 8601
UTC strings (people and other tools read them), JSON columns are real lists/objects.
Stdlib only: `list` works on plain `sqlite3` rows, no ORM.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from collections.abc import Mapping
from typing import Any

from reviewer.errors import UserError
from reviewer.sanitize import visible
from reviewer.store.schema import CATEGORIES, MAX_FACT_CHARS
from reviewer.store.schema import FACT_STATUSES as STATUSES

# What an import accepts: times between 1970 and 9999 (what `iso` and `time.localtime`
# can render everywhere), texts a person can still read in the review screen.
MIN_TIME, MAX_TIME = 0.0, 253_402_300_799.0  # 9999-12-31T23:59:59Z
MAX_TEXT_CHARS = 100_000  # evidence, context, reasons
MAX_FILES, MAX_PATH_CHARS = 1_000, 4_096
MAX_ID_CHARS = 200  # session ids, commit SHAs, branch and model names


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return (
        dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def from_iso(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UserError(f"{where}: not a time: {value!r}")
    if isinstance(value, (int, float)):
        ts = float(value)
    else:
        try:
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise UserError(f"{where}: not an ISO 8601 time: {_short(value)}") from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=dt.UTC)
        ts = parsed.timestamp()
    if not math.isfinite(ts) or not MIN_TIME <= ts <= MAX_TIME:
        raise UserError(f"{where}: time {_short(value)} is outside 1970..9999")
    return ts


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _loads(text: str | None, default: Any) -> Any:
    try:
        return json.loads(text) if text else default
    except ValueError:
        return default


def to_json(
    row: Mapping[str, Any],
    *,
    stale: bool = False,
    staleness: str | None = None,
) -> dict[str, Any]:
    """A fact row (sqlite3.Row or dict of the `fact` table's columns) as exported."""
    decided = row["decided_at"]
    return {
        "id": row["id"],
        "fact": row["text"],
        "category": row["category"],
        "files": _loads(row["files"], []),
        "confidence": row["confidence"],
        "status": row["status"],
        "reject_reason": row["reject_reason"],
        "grounded": bool(row["grounded"]),
        "stale": stale,
        "staleness": staleness,
        "evidence": row["evidence"],
        "context": row["context"],
        "session_id": row["session_id"],
        "created_at": iso(row["created_at"]),
        "decided_at": iso(decided),
        "approved_at": iso(decided) if row["status"] == "approved" else None,
        "verified_at": iso(row["verified_at"]),
        "missing_files": _loads(row["missing_files"], []),
        "times_seen": row["times_seen"],
        "commit_sha": row["commit_sha"],
        "branch": row["branch"],
        "anchors": _loads(row["anchors"], {}),
        "source": row["source"],
        "model": row["model"],
        "project": row["project"],
        # The verifier's verdict (capture/verify/): `check` names the failed check.
        "check": _get(row, "verify_check"),
        "hint": _get(row, "verify_hint"),  # a suspicion beside the evidence, not a verdict
        "evidence_source": _get(row, "evidence_source"),
        "evidence_speaker": _get(row, "evidence_speaker"),
        "evidence_turn": _get(row, "evidence_turn"),
        "supersedes": _get(row, "supersedes"),
    }


def _get(row: Mapping[str, Any], key: str) -> Any:
    """A column that a row read before the V4 migration (or a plain dict) may lack."""
    try:
        return row[key]
    except (KeyError, IndexError):
        return None


def parse_export(text: str, name: str) -> list[dict[str, Any]]:
    """The items of an export (a list, or `{"facts": [...]}`); UserError names the problem."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(f"{name}: not valid JSON ({exc})") from None
    except RecursionError:
        raise UserError(f"{name}: JSON nested too deeply") from None
    if isinstance(data, dict) and isinstance(data.get("facts"), list):
        data = data["facts"]
    if not isinstance(data, list):
        raise UserError(
            f"{name}: expected a list of facts (the `mem-review list --json` "
            f"shape), got a JSON {type(data).__name__}"
        )
    return data


def _str_list(value: object, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UserError(f"{where}: expected a list of strings")
    if len(value) > MAX_FILES or any(len(v) > MAX_PATH_CHARS for v in value):
        raise UserError(f"{where}: over {MAX_FILES} paths or a path over {MAX_PATH_CHARS} "
                        "characters")
    cleaned = (visible.strip(v).strip() for v in value)
    return list(dict.fromkeys(v for v in cleaned if v))


def _opt_str(
    item: Mapping[str, Any], key: str, where: str, limit: int = MAX_TEXT_CHARS
) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise UserError(f"{where}: `{key}` must be a string")
    if value is not None and len(value) > limit:
        raise UserError(f"{where}: `{key}` is over {limit:,} characters")
    return None if value is None else visible.strip(value)


SPEAKERS = ("user", "tool", "assistant")
# The verifier's fields an import carries over into `NewFact` as they are.
VERDICT_KEYS = ("check", "evidence_source", "evidence_speaker", "evidence_turn")


def _one_of(item: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str) -> str | None:
    value = _opt_str(item, key, where)
    if value is not None and value not in allowed:
        raise UserError(f"{where}: `{key}` {value!r} is not one of {', '.join(allowed)}")
    return value


def _opt_int(item: Mapping[str, Any], key: str, where: str) -> int | None:
    value = item.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise UserError(f"{where}: `{key}` must be an integer")
    return value


def _outside(path: str) -> bool:
    """Lexically out of the project: absolute, `~`, or a `..` part."""
    return (os.path.isabs(path) or path.startswith(("/", "\\", "~"))
            or ".." in path.replace("\\", "/").split("/"))


def validate_item(item: object, i: int, name: str) -> dict[str, Any]:
    """One exported fact, checked and typed; unknown keys are ignored."""
    where = f"{name}: fact #{i + 1}"
    if not isinstance(item, dict):
        raise UserError(f"{where}: expected an object, got {type(item).__name__}")
    text = item.get("fact")
    if not isinstance(text, str) or not visible.strip(text).strip():
        raise UserError(f"{where}: `fact` must be a non-empty string of visible text")
    if len(text) > MAX_FACT_CHARS:
        raise UserError(f"{where}: `fact` is over {MAX_FACT_CHARS:,} characters: a fact is "
                        "one or two sentences, and a person must see all of it to approve it")
    if "grounded" in item and not isinstance(item["grounded"], bool):
        raise UserError(f"{where}: `grounded` must be true or false")
    category = item.get("category")
    if category not in CATEGORIES:
        raise UserError(f"{where}: `category` {category!r} is not one of {', '.join(CATEGORIES)}")
    status = item.get("status", "pending")
    if status not in STATUSES:
        raise UserError(f"{where}: `status` {status!r} is not one of {', '.join(STATUSES)}")
    confidence = item.get("confidence", 0.5)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not math.isfinite(confidence)
        or not 0 <= confidence <= 1
    ):
        raise UserError(f"{where}: `confidence` must be a number in [0, 1]")
    anchors = item.get("anchors") or {}
    if not isinstance(anchors, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in anchors.items()
    ):
        raise UserError(f"{where}: `anchors` must map file paths to blob SHAs or null")
    if len(anchors) > MAX_FILES or any(
        len(k) > MAX_PATH_CHARS or (v is not None and len(v) > MAX_ID_CHARS)
        for k, v in anchors.items()
    ):
        raise UserError(f"{where}: `anchors` too many or too long")
    anchors = {visible.strip(k): v for k, v in anchors.items()}
    files = _str_list(item.get("files"), f"{where}: `files`")
    for path, sha in anchors.items():
        # A hash of a file out of the project would have SessionStart read it: refused
        # (a null anchor, a cited path that was missing at capture, is never read).
        if sha is not None and _outside(path):
            raise UserError(f"{where}: anchor {path[:200]!r} is outside the project "
                            "(absolute or through `..`)")
    return {
        "text": " ".join(visible.strip(text).split()),
        "category": category,
        "status": status,
        "confidence": float(confidence),
        "files": files,
        "evidence": _opt_str(item, "evidence", where) or "",
        "context": _opt_str(item, "context", where) or "",
        "reject_reason": _opt_str(item, "reject_reason", where),
        "session_id": _opt_str(item, "session_id", where, MAX_ID_CHARS),
        "source": _opt_str(item, "source", where, MAX_ID_CHARS) or "import",
        "commit_sha": _opt_str(item, "commit_sha", where, MAX_ID_CHARS),
        "branch": _opt_str(item, "branch", where, MAX_ID_CHARS),
        "model": _opt_str(item, "model", where, MAX_ID_CHARS),
        "grounded": bool(item.get("grounded", False)),
        "check": _opt_str(item, "check", where),
        "evidence_source": _one_of(item, "evidence_source", SPEAKERS, where),
        "evidence_speaker": _one_of(item, "evidence_speaker", SPEAKERS, where),
        "evidence_turn": _opt_int(item, "evidence_turn", where),
        # `supersedes` is not imported: ids belong to the exporting store.
        "anchors": anchors,
        "created_at": from_iso(item.get("created_at"), f"{where}: `created_at`"),
        "decided_at": from_iso(
            item.get("decided_at") or item.get("approved_at"), f"{where}: `decided_at`"
        ),
    }
