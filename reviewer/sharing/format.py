"""One shared fact as a file: `.mem-review/facts/<id>.json`, sorted keys, one field a line.

JSON because the SessionStart hook parses it with the stdlib and a pull request shows a
change as a readable line diff. The file name is the fact's share id, a UUID assigned at
first share, so an edit of the text rewrites the same file (a diff, not a delete + add).
`dumps` is deterministic: the same fact always gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

FOLDER = ".mem-review/facts"
REJECTIONS = ".mem-review/rejections"  # what a person rejected, and why: the extractor's list
SUFFIX = ".json"
FORMAT = 1
MAX_BYTES = 64 * 1024  # a fact file larger than this is not a fact: ignored, logged
MAX_EVIDENCE = 600  # characters of evidence excerpt shared (the full transcript stays home)
_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(slots=True)
class SharedFact:
    """What a teammate's clone needs to judge and show a fact; nothing machine-specific."""

    id: str
    text: str
    category: str
    files: tuple[str, ...] = ()
    anchors: dict[str, str | None] = field(default_factory=dict)
    commit: str | None = None
    confidence: float = 0.5
    evidence: str = ""
    approved_by: str = ""
    approved_at: str = ""  # ISO 8601, UTC, seconds

    @property
    def file_name(self) -> str:
        return self.id + SUFFIX

    @property
    def path(self) -> str:
        return f"{FOLDER}/{self.file_name}"

    def approved_epoch(self) -> float:
        try:
            return datetime.fromisoformat(self.approved_at).timestamp()
        except ValueError:
            return 0.0


def valid_id(share_id: str) -> bool:
    return bool(_ID.match(share_id))


def iso(epoch: float | None) -> str:
    if not epoch:
        return ""
    return datetime.fromtimestamp(int(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def dumps(fact: SharedFact) -> str:
    data = {
        "format": FORMAT,
        "id": fact.id,
        "text": fact.text,
        "category": fact.category,
        "files": list(fact.files),
        "anchors": dict(sorted(fact.anchors.items())),
        "commit": fact.commit,
        "confidence": round(float(fact.confidence), 3),
        "evidence": fact.evidence,
        "approved_by": fact.approved_by,
        "approved_at": fact.approved_at,
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def loads(text: str | bytes, name: str) -> SharedFact:
    """Parse a fact file named `name`; ValueError (one line) when it is not one.
    Lean: the SessionStart hook parses a thousand of these."""
    data = json.loads(text)
    if type(data) is not dict:
        raise ValueError("not a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError(f"unknown format {data.get('format')!r}")
    share_id = data.get("id")
    if type(share_id) is not str or name != share_id + SUFFIX or not valid_id(share_id):
        raise ValueError("its id does not match its file name")
    text_ = data.get("text")
    category = data.get("category")
    if type(text_) is not str or not text_.strip() or type(category) is not str:
        raise ValueError("no text or category")
    files = data.get("files") or []
    anchors = data.get("anchors") or {}
    if type(files) is not list or any(type(f) is not str for f in files):
        raise ValueError("files is not a list of paths")
    if type(anchors) is not dict or any(  # keys of parsed JSON are always str
        v is not None and type(v) is not str for v in anchors.values()
    ):
        raise ValueError("anchors is not a map of path to blob hash")
    commit = data.get("commit")
    confidence = data.get("confidence", 0.5)
    return SharedFact(
        share_id, text_, category, tuple(files), anchors,
        commit if type(commit) is str else None,
        float(confidence) if type(confidence) in (int, float) else 0.5,
        _str(data.get("evidence")), _str(data.get("approved_by")),
        _str(data.get("approved_at")),
    )


def _str(value: object) -> str:
    return value if type(value) is str else ""


@dataclass(slots=True)
class SharedRejection:
    """A candidate a person rejected, with the reason: a teammate's extractor is told not
    to propose it again. Never injected."""

    id: str
    text: str
    reason: str = ""
    rejected_by: str = ""
    rejected_at: str = ""

    @property
    def file_name(self) -> str:
        return self.id + SUFFIX


def dumps_rejection(rej: SharedRejection) -> str:
    data = {"format": FORMAT, "id": rej.id, "text": rej.text, "reason": rej.reason,
            "rejected_by": rej.rejected_by, "rejected_at": rej.rejected_at}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def loads_rejection(text: str | bytes, name: str) -> SharedRejection:
    data = json.loads(text)
    if type(data) is not dict or data.get("format") != FORMAT:
        raise ValueError("not a rejection file of a known format")
    share_id = data.get("id")
    if type(share_id) is not str or name != share_id + SUFFIX or not valid_id(share_id):
        raise ValueError("its id does not match its file name")
    text_ = data.get("text")
    if type(text_) is not str or not text_.strip():
        raise ValueError("no text")
    return SharedRejection(share_id, text_, _str(data.get("reason")),
                           _str(data.get("rejected_by")), _str(data.get("rejected_at")))
