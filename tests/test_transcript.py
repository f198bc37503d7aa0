"""read_turns against the real shared transcripts, a synthetic newest-format file, and fuzz.

The real files are read in place (../shared/transcripts); synthetic ones go to tmp_path.
Oracles here parse the raw JSON themselves, independently of the code under test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from records import assistant, base, user, write_jsonl

from capture import transcript
from capture.transcript import (
    ERROR_BYTES,
    ERROR_LINES,
    SHORT_OUTPUT_CHARS,
    ReadStats,
    Turn,
    clean_prompt,
    iter_records,
    read_turns,
    tool_summary,
)

ALL = [
    "spotter/short.jsonl",
    "spotter/tool_heavy.jsonl",
    "spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl",
    "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
    "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "claude-reliability/python-to-rust-port.transcript.jsonl",
    "fasthooks/sample_main_transcript.jsonl",
    "fasthooks/sample_hook_logs.jsonl",
    "derived/short.MALFORMED-derived.jsonl",
]
BIG = "spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
VIEWER = "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
AGENT = "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl"
COMPACT_AGENT = "spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl"
FASTHOOKS = "fasthooks/sample_main_transcript.jsonl"
RELIABILITY = "claude-reliability/python-to-rust-port.transcript.jsonl"
MALFORMED = "derived/short.MALFORMED-derived.jsonl"

NOISE = (
    "<system-reminder",
    "</system-reminder>",
    "<command-",
    "<local-command-",
    "<task-notification>",
    "Caveat: The messages below were generated",
    "[Request interrupted",
    "Stop hook feedback",
    "This session is being continued from a previous conversation",
)


def raw_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line, record) for each parseable object line: the test's own parser."""
    for n, line in enumerate(path.read_bytes().split(b"\n"), 1):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            yield n, rec


def blocks(rec: dict[str, Any]) -> list[dict[str, Any]]:
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def texts(turns: list[Turn], kind: str | None = None) -> list[str]:
    return [t.text for t in turns if kind is None or t.kind == kind]


# --------------------------------------------------------------------------- real files


def test_the_list_covers_every_shared_transcript(transcripts: Path) -> None:
    found = {p.relative_to(transcripts).as_posix() for p in transcripts.rglob("*.jsonl")}
    assert found == set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_every_shared_transcript_reads_consistently(transcripts: Path, name: str) -> None:
    path = transcripts / name
    data = path.read_bytes()
    turns, stats, end = read_turns(path)
    own = transcript.is_subagent_transcript(path)  # a subagent's file: its side chain is it
    assert own == ("/subagents/" in f"/{name}")
    # Every consumed line is accounted for exactly once.
    assert stats.lines == stats.bad_lines + stats.kept + sum(stats.dropped.values())
    assert stats.bytes_read == end
    assert end == data.rfind(b"\n") + 1
    assert stats.pending_bytes == len(data) - end
    lines = data.split(b"\n")
    for t in turns:
        # offset is the start of line `line`, and that line is a kept conversation record.
        assert t.offset == 0 or data[t.offset - 1 : t.offset] == b"\n"
        assert data.count(b"\n", 0, t.offset) + 1 == t.line
        rec = json.loads(lines[t.line - 1])
        if rec["type"] == "queue-operation":  # a prompt typed while the assistant worked
            assert (rec["operation"], t.role, t.kind) == ("enqueue", "user", "prompt")
            continue
        assert rec["type"] in ("user", "assistant")
        assert not rec.get("isMeta")
        # A compaction summary comes out only as kind "summary" (lower trust).
        assert bool(rec.get("isCompactSummary")) == (t.kind == "summary")
        assert bool(rec.get("isSidechain")) == own
        assert t.role == rec["type"]
        assert t.text.strip() == t.text and t.text
        if t.tool == "Interrupt":  # the person stopped the assistant: one call line
            assert (t.kind, t.text) == ("tool_call", transcript.INTERRUPTED)
            continue
        assert not any(n in t.text for n in NOISE), t.text[:200]


def test_malformed_file_counts_its_bad_line_and_stops_before_the_cut(transcripts: Path) -> None:
    path = transcripts / MALFORMED
    data = path.read_bytes()
    assert not data.endswith(b"\n")
    turns, stats, end = read_turns(path)
    assert stats.bad_lines == 1  # the inserted blank line
    cut = data.rfind(b"\n") + 1
    assert end == cut < len(data)
    assert stats.pending_bytes == len(data) - cut > 0
    assert stats.lines == data.count(b"\n")
    # Apart from the blank line and the unfinished last record, it is spotter/short.jsonl.
    short, _, _ = read_turns(transcripts / "spotter/short.jsonl")
    assert texts(turns) == texts(short)
    assert texts(turns, "prompt") == ["mix phx.server doesnt seem to start"]


def test_fast_path_gives_the_same_turns_as_parsing_every_line(
    transcripts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = {
        (n, sc): read_turns(transcripts / n, include_sidechains=sc)
        for n in ALL
        for sc in (False, True)
    }
    monkeypatch.setattr(transcript, "_peek_drop", lambda raw, include_sidechains: None)
    for (n, sc), (turns, stats, end) in fast.items():
        slow_turns, slow_stats, slow_end = read_turns(transcripts / n, include_sidechains=sc)
        assert turns == slow_turns, n
        assert (stats.kept, stats.bad_lines, end) == (
            slow_stats.kept,
            slow_stats.bad_lines,
            slow_end,
        )
    # The fast path really is taken on the big file: most lines are never fully parsed.
    calls = 0
    real = transcript._parse

    def counting(raw: bytes) -> Any:
        nonlocal calls
        calls += 1
        return real(raw)

    monkeypatch.undo()
    monkeypatch.setattr(transcript, "_parse", counting)
    _, stats, _ = read_turns(transcripts / BIG)
    assert calls < stats.lines / 2
    calls = 0  # and sidechain records of the 1.0.98 file are dropped unparsed too
    _, stats, _ = read_turns(transcripts / VIEWER)
    assert calls < stats.lines / 4


def test_human_prompts_are_kept_verbatim(transcripts: Path) -> None:
    big = texts(read_turns(transcripts / BIG)[0], "prompt")
    assert big[:2] == [
        "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd "
        "ready to find available subtasks. Start with the first ready task.",
        "continue",
    ]
    # The answer a person gave through AskUserQuestion is their words too.
    assert any("main was clean; fix the issues" in p for p in big)
    # A background-task notice is generated, not typed.
    assert not any("task-notification" in p or "b7636e2.output" in p for p in big)
    assert len(big) == 3

    assert texts(read_turns(transcripts / "spotter/tool_heavy.jsonl")[0], "prompt") == [
        "start phoenix in background",
        # "/mcp" was queued, then taken back (a `remove`): and it only steers the terminal.
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]
    assert texts(read_turns(transcripts / FASTHOOKS)[0], "prompt") == [
        "can you run a command ls -la",
        "ok can you create a hello_world.py file and add a minimal code in it?",
        "can you read it back with Read tool?",
        "can you run `cat nonexistent.txt`",
        "do something requiring multiple tools in one turn,",
        # "/compact" alone steers the terminal: not a person's words
    ]
    assert texts(read_turns(transcripts / VIEWER)[0], "prompt") == [
        "/orchestrator create TODO app by Next.js",
        "Thanks! Please update CLAUDE.md for current changes",
    ]
    first = next(
        b["text"]
        for _, r in raw_records(transcripts / RELIABILITY)
        for b in blocks(r)
        if r["type"] == "user" and b.get("type") == "text"
    )
    assert first.startswith("Port this Python project to Rust.") and len(first) > 300
    assert texts(read_turns(transcripts / RELIABILITY)[0], "prompt") == [first.strip()]


@pytest.mark.parametrize("name", ALL)
def test_thinking_and_successful_tool_output_never_come_through(
    transcripts: Path, name: str
) -> None:
    path = transcripts / name
    turns, _, _ = read_turns(path, include_sidechains=True)
    joined = "\n".join(texts(turns))
    thinking = [
        b["thinking"]
        for _, r in raw_records(path)
        for b in blocks(r)
        if b.get("type") == "thinking" and len(b.get("thinking", "")) > 40
    ]
    for th in thinking:
        assert th.strip()[:60] not in joined
    ok_outputs = [
        b.get("content")
        for _, r in raw_records(path)
        for b in blocks(r)
        if b.get("type") == "tool_result" and not b.get("is_error")
    ]
    for out in ok_outputs:
        text = out if isinstance(out, str) else json.dumps(out)
        # A short output is a finding (kept as a detail), a long one never comes.
        if len(text) > SHORT_OUTPUT_CHARS and not text.startswith("User has answered"):
            assert text[:200] not in joined


def test_progress_system_and_snapshot_rows_are_dropped(transcripts: Path) -> None:
    turns, stats, _ = read_turns(transcripts / BIG)
    assert stats.dropped["progress"] == 1083
    assert stats.dropped["file-history-snapshot"] == 14
    assert stats.dropped["system"] == 6
    assert stats.dropped["compact_summary"] == 0
    (summary,) = texts(turns, "summary")  # kept, as kind "summary" only (lower trust)
    joined = "\n".join(texts(turns))
    assert "tmux-waiting.sh" not in joined  # a SessionStart hook_progress command
    # The summary's "Analysis:" half (the same ground, narrated) and its boilerplate go.
    assert "Let me chronologically analyze" not in joined
    assert "This session is being continued" not in summary
    assert "Please continue the conversation" not in summary
    assert summary.startswith("Summary:") and "Access.get/2 inside a guard" in summary
    assert not any(s in t for t in texts(turns, "prompt") for s in ("Primary Request",))


def test_meta_messages_and_command_wrappers_are_gone(transcripts: Path) -> None:
    viewer = "\n".join(texts(read_turns(transcripts / VIEWER)[0]))
    # The isMeta expansion of the /orchestrator slash command.
    assert "Split complex tasks into independent subtasks" not in viewer
    assert "orchestrator is running" not in viewer
    reliability = "\n".join(texts(read_turns(transcripts / RELIABILITY)[0]))
    assert "Uncommitted Changes Detected" not in reliability  # Stop hook feedback (isMeta)
    fasthooks = "\n".join(texts(read_turns(transcripts / FASTHOOKS)[0]))
    assert "Compacted (ctrl+o" not in fasthooks  # local-command-stdout
    # The compaction agent: hook additionalContext arrives as isMeta system-reminders.
    agent, stats, _ = read_turns(transcripts / COMPACT_AGENT, include_sidechains=True)
    assert stats.dropped["meta"] == 3
    assert not any("hook additional context" in t for t in texts(agent))


def test_tool_calls_are_one_line_summaries(transcripts: Path) -> None:
    calls = {
        n: texts(read_turns(transcripts / n, include_sidechains=True)[0], "tool_call") for n in ALL
    }
    for n, lines in calls.items():
        for line in lines:
            # A shell command keeps up to 400 characters of its first line (issue 21:
            # what the session ran is its record), the other calls 160.
            limit = 410 if line.startswith("Bash: ") else 200
            assert "\n" not in line and 0 < len(line) <= limit, (n, line)
    assert "Bash: cat nonexistent.txt" in calls[FASTHOOKS]
    # the first write of a file says where it lives; what follows is relative to the cwd
    assert "Write /workspace/hello_world.py" in calls[FASTHOOKS]
    assert "Read hello_world.py" in calls[FASTHOOKS]
    assert "Read lib/spotter_web/live/session_live.ex" in calls[BIG]
    assert "Task: Explore transcript rendering codebase (Explore)" in calls[BIG]
    assert sum(1 for c in calls[BIG] if c.startswith("Bash: ")) > 20
    assert (
        "WebFetch https://github.com/xtermjs/xterm.js/issues/1343"
        in calls["spotter/tool_heavy.jsonl"]
    )
    assert any(c.startswith('WebSearch "xterm.js') for c in calls["spotter/tool_heavy.jsonl"])
    assert "TodoWrite (10 items)" in calls[RELIABILITY]
    assert "Task: Setup Next.js project (general-purpose)" in calls[VIEWER]
    assert any(c.startswith('Grep "') for c in calls[BIG])
    n_tool_use = sum(
        1
        for _, r in raw_records(transcripts / BIG)
        for b in blocks(r)
        if b.get("type") == "tool_use"
    )
    # One line per call, and one per background task that completed (its outcome).
    background = [c for c in calls[BIG] if c.startswith("Background: ")]
    assert background == ['Background: Background command "Run SessionLive tests" completed '
                          '(exit code 0)']
    # The same call line in a row is one line with its count (`Read x.ex (×2)`).
    counted = sum(int(m.group(1)) for c in calls[BIG]
                  if (m := re.search(r" \(×(\d+)\)$", c)))
    runs = sum(1 for c in calls[BIG] if re.search(r" \(×\d+\)$", c))
    further = sum(1 for c in calls[BIG] if c.startswith("Bash ⋯ "))  # a script's commands
    assert len(calls[BIG]) - len(background) - runs + counted - further == n_tool_use == 150


def test_failing_tool_results_keep_their_first_line(transcripts: Path) -> None:
    """The first line is the headline; the lines after it say what went wrong."""
    fh = [t for t in read_turns(transcripts / FASTHOOKS)[0] if t.kind == "tool_error"]
    assert [(t.tool, t.text) for t in fh] == [
        ("Bash", "Exit code 1 · cat: nonexistent.txt: No such file or directory"),
        ("Bash", "Exit code 127 · /bin/bash: line 1: python: command not found"),
    ]
    big = [t for t in read_turns(transcripts / BIG)[0] if t.kind == "tool_error"]
    assert len(big) == 5
    assert (
        big[-1].text
        == "Exit code 128 · fatal: The current branch spotter-dov has no upstream branch."
    )
    heads = [t.text.partition("\n")[0] for t in big]
    assert all(len(h) <= 200 for h in heads)
    assert all(len(t.text) <= ERROR_BYTES and t.text.count("\n") < ERROR_LINES for t in big)
    # What went wrong, not only "Pre-commit validation failed" / "Exit code 1".
    assert "priv/static/assets" in big[0].text.split("\n")[1]
    assert "The pattern can never match the type." in big[3].text
    assert "Nested modules could be aliased" in big[1].text
    agent = [
        t
        for t in read_turns(transcripts / AGENT, include_sidechains=True)[0]
        if t.kind == "tool_error"
    ]
    assert agent[0].text == "File does not exist."  # <tool_use_error> tags stripped
    short = [
        t for t in read_turns(transcripts / "spotter/short.jsonl")[0] if t.kind == "tool_error"
    ]
    assert [(t.tool, t.text) for t in short] == [
        ("Bash", "Rejected by the user."),
        ("Glob", "Rejected by the user."),
    ]


def test_sidechains_are_excluded_by_default(transcripts: Path) -> None:
    path = transcripts / VIEWER
    turns, stats, _ = read_turns(path)
    assert stats.dropped["sidechain"] == 405
    assert not any("Create React components for the TODO app" in t for t in texts(turns))
    with_sc, _, _ = read_turns(path, include_sidechains=True)
    assert any("Create React components for the TODO app" in t for t in texts(with_sc))
    assert len(with_sc) > 5 * len(turns)
    # A subagent's own file is all side chain: there it is the conversation, read as is.
    agent, _, _ = read_turns(transcripts / AGENT)
    assert agent[0].text.startswith("Very thorough exploration.")
    assert agent == read_turns(transcripts / AGENT, include_sidechains=True)[0]


# --------------------------------------------------------------------------- synthetic

SECRET_CONTEXT = "The staging database password rotates every Tuesday at noon."


def attachment(att: dict[str, Any]) -> dict[str, Any]:
    return base("attachment", attachment=att)


def test_newest_format_attachments_images_and_huge_lines(tmp_path: Path) -> None:
    huge = "x" * (5 << 20)
    records = [
        attachment(
            {
                "type": "hook_additional_context",
                "hookName": "SessionStart",
                "hookEvent": "SessionStart",
                "content": [SECRET_CONTEXT],
            }
        ),
        attachment(
            {
                "type": "hook_success",
                "hookEvent": "SessionStart",
                "stdout": json.dumps({"additionalContext": SECRET_CONTEXT}),
            }
        ),
        attachment({"type": "prompt_snapshot", "system": SECRET_CONTEXT + huge}),
        attachment({"type": "api-request-blob", "body": {"system": [SECRET_CONTEXT]}}),
        user(
            f"<system-reminder>\nSessionStart hook additional context: {SECRET_CONTEXT}\n"
            "</system-reminder>",
            isMeta=True,
        ),
        user(
            [
                {"type": "text", "text": "Why is the build slow?"},
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": "iVBORw0KGgo" * 1000,
                    },
                },
                {"type": "text", "text": f"<system-reminder>{SECRET_CONTEXT}</system-reminder>"},
            ]
        ),
        assistant([{"type": "thinking", "thinking": "Maybe the cache. " + SECRET_CONTEXT}]),
        assistant([{"type": "text", "text": "The cache key includes a timestamp."}]),
        assistant(
            [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Read",
                    "input": {"file_path": "/home/u/proj/build.py"},
                }
            ]
        ),
        user(
            [{"type": "tool_result", "tool_use_id": "t1", "content": huge}],
            toolUseResult={"file": {"content": huge}},
        ),
        base("brand-new-record-type", payload=SECRET_CONTEXT),
        assistant([{"type": "text", "text": "Fixed: the key no longer has the time."}], "msg_2"),
    ]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    turns, stats, end = read_turns(path)
    assert end == path.stat().st_size
    assert [(t.kind, t.text) for t in turns] == [
        ("prompt", "Why is the build slow?"),
        ("prose", "The cache key includes a timestamp."),
        ("tool_call", "Read build.py"),
        ("prose", "Fixed: the key no longer has the time."),
    ]
    assert all("Tuesday" not in t.text for t in turns)
    assert stats.dropped["attachment"] == 4
    assert stats.dropped["meta"] == 1
    assert stats.dropped["brand-new-record-type"] == 1
    assert stats.dropped["tool_result"] == 1
    assert stats.dropped["thinking"] == 1
    assert turns[0].timestamp == "2026-03-01T10:00:00.000Z"


def test_rereading_from_end_offset_yields_only_new_turns(tmp_path: Path) -> None:
    first = [user("first question"), assistant([{"type": "text", "text": "first answer"}])]
    cut = json.dumps(user("second question")).encode()
    path = write_jsonl(tmp_path / "s.jsonl", first, tail=cut[:25])
    turns, stats, end = read_turns(path)
    assert texts(turns) == ["first question", "first answer"]
    assert stats.pending_bytes == 25 and stats.bad_lines == 0
    assert end == path.stat().st_size - 25
    with path.open("ab") as f:
        f.write(cut[25:] + b"\n")
        f.write(json.dumps(assistant([{"type": "text", "text": "second answer"}], "m2")).encode())
        f.write(b"\n")
    more, stats2, end2 = read_turns(path, end)
    assert texts(more) == ["second question", "second answer"]
    assert [t.line for t in more] == [3, 4]  # true line numbers, counted before `start`
    data = path.read_bytes()
    assert [data[t.offset : t.offset + 20] for t in more] == [
        data.split(b"\n")[2][:20],
        data.split(b"\n")[3][:20],
    ]
    assert end2 == len(data) and stats2.lines == 2
    # A caller that stored the line number can skip the count.
    again, _, _ = read_turns(path, end, first_line=3)
    assert [t.line for t in again] == [3, 4]
    # Nothing new: nothing read.
    none, stats3, end3 = read_turns(path, end2)
    assert none == [] and end3 == end2 and stats3.lines == 0


def test_assistant_lines_sharing_a_message_id_are_not_duplicated(tmp_path: Path) -> None:
    text = {"type": "text", "text": "Plan: fix the parser."}
    call = {"type": "tool_use", "id": "t9", "name": "Bash", "input": {"command": "pytest -x"}}
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            assistant([text], "m1"),
            assistant([text, call], "m1"),  # some versions repeat earlier blocks
            assistant([text, call], "m1"),
            assistant([text], "m2"),  # same words in a new response are new
        ],
    )
    turns, _, _ = read_turns(path)
    assert texts(turns) == ["Plan: fix the parser.", "Bash: pytest -x", "Plan: fix the parser."]


REJECTION = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)


def test_rejection_feedback_is_a_human_prompt(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            assistant(
                [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "npm install\nnpm test"},
                    }
                ]
            ),
            user(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": REJECTION + "use pnpm, never npm",
                    }
                ]
            ),
        ],
    )
    turns, _, _ = read_turns(path)
    assert [(t.kind, t.tool, t.text) for t in turns] == [
        ("tool_call", "Bash", "Bash: npm install …"),
        ("tool_call", "Bash", "Bash ⋯ npm test"),  # the script's further command
        ("tool_error", "Bash", "Rejected by the user."),
        ("prompt", None, "use pnpm, never npm"),
    ]


def test_the_fast_path_is_not_fooled_by_nested_or_quoted_types(tmp_path: Path) -> None:
    lines = [
        # A nested "type":"progress" before the record's own type: must be kept.
        b'{"data":{"type":"progress"},"type":"user","message":{"role":"user","content":"kept 1"}}',
        # The words inside a prompt (escaped quotes): must be kept.
        b'{"type":"user","message":{"role":"user","content":"grep \\"type\\":\\"progress\\" x"}}',
        # Braces inside a string before the type do not confuse the prefix check.
        b'{"cwd":"/a{b[c","type":"progress","data":{"type":"user","message":"x"}}',
        # A sidechain flag nested in the message, not the record.
        b'{"message":{"isSidechain":true,"role":"user","content":"kept 2"},"type":"user"}',
        b'{"isSidechain":true,"type":"user","message":{"role":"user","content":"side"}}',
        # Not flat before the type (a brace in a string, a list): proven by parsing instead.
        b'{"note":"a}b","type":"system","content":"x"}',
        b'{"tags":["type"],"type":"summary","summary":"y"}',
        # The match is the tail of the key `a"type`: the record's type is "user".
        b'{"a\\"type":"progress","type":"user","message":{"role":"user","content":"kept 4"}}',
        # Not an object at all: a bad line, whatever it holds.
        b'[{"type":"progress"}]',
        # A key that merely ends like one.
        b'{"subtype":"progress","type":"user","message":{"role":"user","content":"kept 3"}}',
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    turns, stats, _ = read_turns(path)
    assert texts(turns) == ["kept 1", 'grep "type":"progress" x', "kept 2", "kept 4", "kept 3"]
    assert stats.dropped == {"progress": 1, "sidechain": 1, "system": 1, "summary": 1}
    assert stats.bad_lines == 1


def test_wrong_types_everywhere_never_raise(tmp_path: Path) -> None:
    records: list[Any] = [
        [1, 2],
        "a string",
        42,
        None,
        True,
        {},
        {"type": 5},
        {"type": ["user"]},
        {"type": "user"},
        {"type": "user", "message": "hi"},
        {"type": "user", "message": {"content": 3}},
        {"type": "user", "message": {"content": [1, None, "x", {"type": 7}]}},
        {"type": "user", "message": {"content": [{"type": "text", "text": ["no"]}]}},
        {
            "type": "user",
            "message": {
                "content": [
                    {
                        "type": "tool_result",
                        "content": {"a": 1},
                        "is_error": "yes",
                        "tool_use_id": 3,
                    }
                ]
            },
        },
        {
            "type": "user",
            "message": {
                "content": [
                    {
                        "type": "tool_result",
                        "is_error": True,
                        "content": [{"type": "text", "text": 5}],
                    }
                ]
            },
        },
        {
            "type": "assistant",
            "message": {
                "id": ["x"],
                "content": [
                    {"type": "tool_use", "name": 12, "input": [1, 2]},
                    {"type": "tool_use", "name": "Bash", "input": {"command": 7}},
                    {"type": "tool_use", "name": "TodoWrite", "input": {"todos": "many"}},
                    {"type": "tool_use", "name": "mcp__x__y", "input": {"a": {"b": 1}}},
                    {"type": "text", "text": None},
                ],
            },
        },
        {
            "type": "user",
            "timestamp": 12,
            "cwd": 4,
            "isMeta": 0,
            "message": {"content": "still a prompt"},
        },
        {"type": "user", "message": {"content": "lone \ud800 surrogate"}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(json.dumps(r).encode() for r in records) + b"\n\n  \n")
    turns, stats, _ = read_turns(path)
    assert stats.bad_lines == 7  # five JSON values that are not objects, two blank lines
    assert "still a prompt" in texts(turns)
    assert all(t.timestamp is None or isinstance(t.timestamp, str) for t in turns)
    for t in turns:
        t.text.encode("utf-8")  # no lone surrogates leak out
    assert any(t.text == "Bash:" for t in turns) and any(t.text == "tool" for t in turns)


def test_unreadable_path_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_turns(tmp_path / "missing.jsonl")
    with pytest.raises(OSError):
        read_turns(tmp_path)


def test_iter_records_yields_raw_objects_and_counts_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\nnot json\n[1]\n {"b":2}\r\n{"d":1} trailing\n{"c"')
    stats = ReadStats()
    got = list(iter_records(path, 0, stats))
    assert [(n, r) for n, _, r in got] == [(1, {"a": 1}), (4, {"b": 2})]
    assert stats.bad_lines == 3 and stats.lines == 5 and stats.pending_bytes == 4


def test_clean_prompt_and_tool_summary_units() -> None:
    assert clean_prompt("<command-name>/compact</command-name><command-args></command-args>") == (
        "/compact"
    )
    assert clean_prompt("<local-command-stdout>ok</local-command-stdout>") == ""
    assert clean_prompt("<bash-input>ls</bash-input><bash-stdout>a b</bash-stdout>") == "! ls"
    assert clean_prompt("fix <system-reminder>injected") == "fix"  # unclosed: cut to the end
    assert clean_prompt("explain the <command-name> tag") == "explain the <command-name> tag"
    assert clean_prompt("go on [Request interrupted by user for tool use]") == "go on"
    assert clean_prompt("Stop hook feedback:\n[hook]: uncommitted changes") == ""
    assert (
        clean_prompt("<task-notification><status>done</status></task-notification>\nRead x") == ""
    )
    assert tool_summary("Grep", {"pattern": "def x", "path": "/r/src", "glob": "*.py"}, "/r") == (
        'Grep "def x" src (*.py)'
    )
    assert tool_summary("Bash", {"command": "x" * 500}).endswith("…")
    assert len(tool_summary("Bash", {"command": "x" * 500})) <= 410  # issue 21: 400 of it
    assert tool_summary("mcp__github__get_issue", {"owner": "a", "url": "https://x"}) == (
        "mcp__github__get_issue https://x"
    )
    assert tool_summary("Mystery", {}) == "Mystery"


# --------------------------------------------------------------------------- fuzz

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "message",
                    "content",
                    "text",
                    "name",
                    "input",
                    "is_error",
                    "tool_use_id",
                    "isMeta",
                    "isSidechain",
                    "id",
                    "role",
                    "command",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)
record_like = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "progress", "attachment", "x"]),
        "message": json_values,
    },
    optional={"isSidechain": json_values, "isMeta": json_values, "timestamp": json_values},
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=3000), start=st.integers(min_value=0, max_value=4000))
def test_arbitrary_bytes_never_raise(tmp_path: Path, data: bytes, start: int) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    _, stats, end = read_turns(path, start)
    assert end >= min(start, len(data))
    if start <= len(data):
        assert end <= len(data)
        assert end == start or data[end - 1 : end] == b"\n"
    assert stats.lines == stats.bad_lines + stats.kept + sum(stats.dropped.values())


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=st.lists(record_like, max_size=8))
def test_arbitrary_record_shapes_never_raise(tmp_path: Path, records: list[Any]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    turns, stats, end = read_turns(path, include_sidechains=True)
    assert end == path.stat().st_size
    assert stats.lines == len(records)
    assert all(isinstance(t.text, str) and t.text for t in turns)


def test_a_subagents_own_transcript_is_read_not_dropped(tmp_path: Path) -> None:
    """Claude Code 2.x writes each subagent to a file of its own, every record a side
    chain: there the side chain is the conversation. In a main session it stays dropped."""
    import json

    from capture.transcript import is_subagent_transcript

    def rec(kind: str, text: str, side: bool) -> str:
        content = text if kind == "user" else [{"type": "text", "text": text}]
        return json.dumps({"type": kind, "isSidechain": side, "sessionId": "s",
                           "message": {"role": kind, "content": content}})

    agent = tmp_path / "agent-a1b2c3.jsonl"
    agent.write_text("\n".join([rec("user", "Find where the retry limit is set.", True),
                                rec("assistant", "It is MAX_RETRIES = 5 in net.py.", True)])
                     + "\n")
    main = tmp_path / "main.jsonl"
    main.write_text("\n".join([rec("user", "Fix the retry bug.", False),
                               rec("user", "Side task prompt.", True),
                               rec("assistant", "Side finding.", True),
                               rec("assistant", "Fixed it.", False)]) + "\n")
    assert is_subagent_transcript(agent) and not is_subagent_transcript(main)
    turns, _, _ = read_turns(agent)
    assert "MAX_RETRIES = 5" in " ".join(t.text for t in turns)
    turns, stats, _ = read_turns(main)
    text = " ".join(t.text for t in turns)
    assert "Fixed it." in text and "Side finding." not in text
    assert stats.dropped["sidechain"] == 2
