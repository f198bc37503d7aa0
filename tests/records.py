"""Builders of Claude Code transcript records and condensed turns, shared by the tests
that read transcripts (imported bare, like `helpers`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from capture.transcript import Turn


def base(kind: str, **extra: Any) -> dict[str, Any]:
    rec = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/u/proj",
        "sessionId": "s1",
        "version": "2.1.332",
        "gitBranch": "main",
        "type": kind,
        "uuid": "u",
        "timestamp": "2026-03-01T10:00:00.000Z",
    }
    rec.update(extra)
    return rec


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return base("user", message={"role": "user", "content": content}, **extra)


def assistant(content: Any, msg_id: str = "msg_1", **extra: Any) -> dict[str, Any]:
    rec = base("assistant", **extra)
    del rec["type"]  # as Claude Code writes it: "type" after the message
    rec["message"] = {"id": msg_id, "type": "message", "role": "assistant", "content": content}
    rec["type"] = "assistant"
    return rec


def write_jsonl(path: Path, records: list[Any], *, tail: bytes = b"") -> Path:
    path.write_bytes(
        b"".join(json.dumps(r).encode() + b"\n" for r in records) + tail,
    )
    return path


def call(name: str, inp: dict[str, Any], tid: str = "t1", msg: str = "m1") -> dict[str, Any]:
    return assistant([{"type": "tool_use", "id": tid, "name": name, "input": inp}], msg)


def result(body: str, tid: str = "t1", *, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": body}
    if error:
        block["is_error"] = True
    return user([block])


def t(kind: str, text: str, tool: str | None = None) -> Turn:
    role = "user" if kind in ("prompt", "tool_error", "summary") else "assistant"
    return Turn(role, kind, text, 1, 0, tool=tool)  # type: ignore[arg-type]


def fitted_after_filler(prompt: str, said: str, call: str, short_by: int) -> str:
    """What `fit` sends of a prompt, the assistant's `said`, a call and 40 sentences of
    filler prose, with a budget `short_by` bytes below their size: prose must shrink."""
    from capture.condense import render
    from capture.fit import fit

    filler = " ".join(f"Edited module_{i} to use the new loader." for i in range(40))
    turns = [t("prompt", prompt), t("prose", said), t("tool_call", call), t("prose", filler)]
    return render(fit(turns, len(render(turns).encode()) - short_by))


def convo(*specs: tuple[str, str]) -> list[Turn]:
    """Turns from (who, text): user, assistant, call (a tool call), fail, summary."""
    kinds = {
        "user": ("user", "prompt", None), "assistant": ("assistant", "prose", None),
        "call": ("assistant", "tool_call", "Bash"), "fail": ("user", "tool_error", "Bash"),
        "summary": ("user", "summary", None),
    }
    out = []
    for i, (who, text) in enumerate(specs):
        role, kind, tool = kinds[who]
        out.append(Turn(role, kind, text, i + 1, i * 100, tool=tool))  # type: ignore[arg-type]
    return out
