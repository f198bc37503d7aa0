"""Condensing: the rendered text, windows, excerpts, quote lookup, size and speed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capture.condense import (
    CONTINUED,
    CONTINUES,
    Condensed,
    condense_file,
    excerpt,
    find_turn,
    render,
    render_turn,
    split_windows,
)
from capture.transcript import Turn

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
FASTHOOKS = "fasthooks/sample_main_transcript.jsonl"
GENERATED = ("<", "Caveat: ", "[Request interrupted", "Stop hook feedback", "This session is")


def human_prompts(path: Path) -> list[str]:
    """Typed prompts, found by the test's own reading of the raw file."""
    out = []
    for line in path.read_bytes().split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("type") != "user":
            continue
        if rec.get("isMeta") or rec.get("isSidechain") or rec.get("isCompactSummary"):
            continue
        content = rec["message"]["content"]
        parts = (
            [content]
            if isinstance(content, str)
            else [b["text"] for b in content if b.get("type") == "text"]
        )
        out += [p.strip() for p in parts if p.strip() and not p.startswith(GENERATED)]
    return [re.sub(r"\n{3,}", "\n\n", p) for p in out]


def turn(kind: str, text: str, tool: str | None = None) -> Turn:
    role = "assistant" if kind in ("prose", "tool_call") else "user"
    return Turn(role, kind, text, 1, 0, None, tool)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ALL)
def test_every_shared_transcript_condenses(transcripts: Path, name: str) -> None:
    path = transcripts / name
    c = condense_file(path)
    assert isinstance(c, Condensed)
    assert c.text == render(c.turns)
    assert c.end_offset == c.source_bytes == path.read_bytes().rfind(b"\n") + 1
    assert c.windows == ([c.text] if c.turns else [])
    for prompt in human_prompts(path):
        assert "User: " + prompt in c.text
    for t in c.turns:
        assert render_turn(t) in c.text


def test_big_sample_is_small_and_keeps_every_prompt(transcripts: Path) -> None:
    path = transcripts / BIG
    c = condense_file(path)
    size = path.stat().st_size
    assert len(c.text) < size / 30
    assert len(c.text.encode()) < size / 40  # the performance target's ratio
    prompts = human_prompts(path)
    assert len(prompts) == 2  # "Work on bead …" and "continue"
    for p in prompts:
        assert "User: " + p in c.text
    assert "thinking" not in {t.kind for t in c.turns}


def test_render_format(transcripts: Path) -> None:
    text = condense_file(transcripts / FASTHOOKS).text
    assert text.startswith("User: can you run a command ls -la\n  · Bash: ls -la\n\nAssistant: ")
    assert (
        "User: can you run `cat nonexistent.txt`\n"
        "  · Bash: cat nonexistent.txt\n"
        "  ! Bash failed: Exit code 1 · cat: nonexistent.txt: No such file or directory\n\n"
        "Assistant: As expected"
    ) in text
    assert "\n\n\n" not in text
    short = condense_file(transcripts / "spotter/short.jsonl").text
    assert "  ! Bash rejected by the user" in short


def test_render_collapses_blank_runs_but_keeps_text() -> None:
    t = [turn("prompt", "a\n\nb"), turn("prose", "c"), turn("tool_call", "Read x")]
    assert render(t) == "User: a\n\nb\n\nAssistant: c\n  · Read x"
    assert render([]) == ""


def test_split_windows_packs_whole_turns_with_markers() -> None:
    turns = [turn("prompt", f"question {i} " + "q" * 300) for i in range(40)]
    turns += [turn("tool_call", f"Read f{i}.py") for i in range(10)]
    windows = split_windows(turns, 2000)
    assert len(windows) > 5
    assert all(len(w) <= 2000 for w in windows)
    assert not windows[0].startswith(CONTINUED)
    assert all(w.startswith(CONTINUED + "\n\n") for w in windows[1:])
    assert all(w.endswith("\n\n" + CONTINUES) for w in windows[:-1])
    assert not windows[-1].endswith(CONTINUES)
    # Every turn appears whole, once, in order.
    body = "".join(windows)
    positions = [body.find(render_turn(t)) for t in turns]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    assert split_windows(turns, 10**9) == [render(turns)]
    assert split_windows([], 2000) == []
    with pytest.raises(ValueError):
        split_windows(turns, 50)


def test_a_giant_turn_is_cut_with_an_explicit_marker() -> None:
    giant = "start " + "y" * 5_000_000 + " end"
    windows = split_windows([turn("prompt", "hi"), turn("prose", giant), turn("prompt", "bye")])
    assert all(len(w) <= 120_000 for w in windows)
    cut = next(w for w in windows if "Assistant: start" in w)
    m = re.search(r"\[… ([\d,]+) characters elided …\]", cut)
    assert m and int(m.group(1).replace(",", "")) > 4_800_000
    assert cut.rstrip().endswith(" end") or " end\n" in cut
    assert "User: bye" in windows[-1]


def test_condense_file_windows_follow_window_chars(transcripts: Path) -> None:
    c = condense_file(transcripts / BIG, window_chars=5000)
    assert len(c.windows) > 4
    assert all(len(w) <= 5000 for w in c.windows)
    for t in c.turns:
        if t.kind == "prompt":
            assert any(render_turn(t) in w for w in c.windows)


def test_windows_from_a_newest_format_file_never_leak_hook_context(tmp_path: Path) -> None:
    secret = "Memory says the release branch is frozen."
    recs = [
        {
            "type": "attachment",
            "attachment": {
                "type": "hook_additional_context",
                "hookEvent": "SessionStart",
                "content": [secret],
            },
        },
        {"type": "user", "message": {"role": "user", "content": "ship it"}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": secret}},
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"ok<system-reminder>{secret}</system-reminder>"}
                ],
            },
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    c = condense_file(path)
    assert c.text == "User: ship it\n\nUser: ok"
    assert all(secret not in w for w in c.windows)


def test_excerpt_shows_the_turn_in_context(transcripts: Path) -> None:
    turns = condense_file(transcripts / FASTHOOKS).turns
    i = next(k for k, t in enumerate(turns) if t.text == "can you run `cat nonexistent.txt`")
    ex = excerpt(turns, i)
    assert "User: can you run `cat nonexistent.txt`" in ex
    assert "  · Bash: cat nonexistent.txt" in ex
    assert "Bash failed: Exit code 1" in ex
    assert ex.index("cat nonexistent") < ex.index("Bash failed")
    assert len(excerpt(turns, i, before=0, after=0)) == len(render_turn(turns[i]))
    with pytest.raises(IndexError):
        excerpt(turns, len(turns))
    # Long neighbours share the room: both sides show, each shortened visibly.
    wide = [turn("prose", "b" * 5000), turn("prompt", "the quote"), turn("prose", "a" * 5000)]
    ex = excerpt(wide, 1, max_chars=1000)
    assert len(ex) <= 1000
    assert ex.count("characters elided") == 2
    assert ex.index("Assistant: bbb") < ex.index("User: the quote") < ex.index("Assistant: aaa")


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=5000), min_size=1, max_size=8),
    index=st.integers(min_value=0, max_value=7),
    max_chars=st.integers(min_value=80, max_value=6000),
)
def test_excerpt_respects_its_budget(sizes: list[int], index: int, max_chars: int) -> None:
    turns = [turn("prose", "w" * n) for n in sizes]
    index = min(index, len(turns) - 1)
    ex = excerpt(turns, index, max_chars=max_chars)
    assert len(ex) <= max_chars
    assert ex  # the central turn is always there, shortened if need be


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=3000), max_size=30),
    max_chars=st.integers(min_value=200, max_value=5000),
)
def test_windows_respect_their_budget(sizes: list[int], max_chars: int) -> None:
    turns = [turn("prompt" if i % 2 else "tool_call", "z" * n) for i, n in enumerate(sizes)]
    windows = split_windows(turns, max_chars)
    assert all(len(w) <= max_chars for w in windows)
    assert bool(windows) == bool(turns)


def test_find_turn_places_evidence(transcripts: Path) -> None:
    turns = condense_file(transcripts / BIG).turns
    i = find_turn(turns, "MAIN WAS CLEAN;   fix the\nissues")
    assert i is not None and "main was clean" in turns[i].text
    j = find_turn(turns, "User: continue")  # a quote that kept the label
    assert j is not None and turns[j].text == "continue"
    k = find_turn(turns, "Exit code 128")
    assert k is not None and turns[k].kind == "tool_error"
    assert find_turn(turns, "words nobody wrote in this session") is None
    assert find_turn(turns, "   ") is None
    # A quote running from one turn into the next is placed at the first.
    two = [turn("prompt", "use the cache"), turn("prose", "Sure, enabling it now")]
    assert find_turn(two, "use the cache Assistant: Sure") == 0
    assert find_turn(two, "\u201cSure, enabling it now\u201d".strip("\u201c\u201d")) == 1
