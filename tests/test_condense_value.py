"""What carries knowledge survives condensation: queued prompts, what a failure says went
wrong, plans, commit messages and issue descriptions, compaction summaries (marked,
lower trust), and the fit that spends the budget on them by value."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from records import assistant, base, call, result, t, user, write_jsonl
from shared import TRANSCRIPTS, need_transcripts

from capture.condense import SUMMARY_END, SUMMARY_MARKER, render, render_turn
from capture.fit import SUMMARY_MIN, fit
from capture.pipeline import sent_windows
from capture.transcript import ERROR_BYTES, ERROR_LINES, Turn, bash_detail, read_turns
from reviewer.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the eval harness lives in bench/, beside the package


def queued(content: str, op: str = "enqueue") -> dict[str, Any]:
    return {"type": "queue-operation", "operation": op, "timestamp": "2026-03-01T10:00:01Z",
            "sessionId": "s1", "content": content}


def kinds(turns: list[Turn]) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in turns]


def test_prompts_typed_while_the_assistant_works_are_kept_once(tmp_path: Path) -> None:
    notice = ("<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
              "</task-notification>\nRead the output file to retrieve the result: /tmp/x")
    path = write_jsonl(tmp_path / "q.jsonl", [
        user("Fix the flaky test."),
        queued("Actually, use pytest-rerunfailures, not a sleep."),
        {"type": "queue-operation", "operation": "remove", "timestamp": "x", "sessionId": "s1"},
        queued(notice),
        queued("/mcp"),
        user("<command-name>/mcp</command-name>\n<command-args></command-args>"),
        user("/mcp"),  # typed again later: a terminal command all the same
        queued("Run the suite with -p no:randomly."),
        user("Run the suite with -p no:randomly."),  # the drained copy: once
        # The queued prompt the person took back (`remove`) is sent as its final version.
        user("Actually, use pytest-rerunfailures with --reruns 3, not a sleep."),
        user("Actually, use pytest-rerunfailures with --reruns 3, not a sleep."),  # a retry
    ])
    turns, stats, _ = read_turns(path)
    assert kinds(turns) == [
        ("prompt", "Fix the flaky test."),
        ("prompt", "Run the suite with -p no:randomly."),
        ("prompt", "Actually, use pytest-rerunfailures with --reruns 3, not a sleep."),
    ]  # issue 21: no pulled-back draft, no /mcp, no prompt twice after a retry
    assert stats.dropped["queue-removed"] == 1
    assert stats.dropped["queue-operation"] == 2  # the machine notice and the queued /mcp
    assert stats.dropped["terminal_command"] == 2
    assert stats.dropped["queued_again"] == 1
    assert stats.lines == stats.bad_lines + stats.kept + sum(stats.dropped.values())


PYTEST_OUT = "\n".join(
    ["Exit code 1", "============================= test session starts ==="]
    + [f"collected line {i}" for i in range(200)]
    + ["_____ test_parse _____", "    def test_parse():", ">       assert parse('1') == 2",
       "E       AssertionError: assert 1 == 2", "E        +  where 1 = parse('1')", "",
       "tests/test_x.py:12: AssertionError",
       "FAILED tests/test_x.py::test_parse - AssertionError: assert 1 == 2",
       "=== 1 failed in 0.12s ==="]
)


def test_a_failure_keeps_what_went_wrong_within_its_cap(tmp_path: Path) -> None:
    trace = ("Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n"
             "    main()\n" + "  frame\n" * 50 + "KeyError: 'DATABASE_URL'")
    path = write_jsonl(tmp_path / "f.jsonl", [
        call("Bash", {"command": "pytest -x"}),
        result(PYTEST_OUT, error=True),
        call("Bash", {"command": "python a.py"}, "t2", "m2"),
        result(trace, "t2", error=True),
        call("Bash", {"command": "git push"}, "t3", "m3"),
        result("Exit code 128\nfatal: 'origin' does not appear to be a git repository", "t3",
               error=True),
    ])
    errors = [t.text for t in read_turns(path)[0] if t.kind == "tool_error"]
    pytest_err, trace_err, git_err = errors
    assert pytest_err.startswith("Exit code 1 · ===")  # the old headline stays first
    assert "E AssertionError: assert 1 == 2" in pytest_err  # whitespace collapsed
    assert "FAILED tests/test_x.py::test_parse - AssertionError: assert 1 == 2" in pytest_err
    assert "collected line" not in pytest_err
    assert trace_err.endswith("KeyError: 'DATABASE_URL'")  # a traceback's last line
    assert git_err == "Exit code 128 · fatal: 'origin' does not appear to be a git repository"
    for text in errors:
        assert len(text) <= ERROR_BYTES and text.count("\n") < ERROR_LINES
    # Rendered under the headline, indented: still one failure.
    shown = render_turn(Turn("user", "tool_error", pytest_err, 1, 0, tool="Bash"))
    assert shown.startswith("  ! Bash failed: Exit code 1")
    assert all(ln.startswith("      ") for ln in shown.split("\n")[1:])


HEREDOC = """git add -A && git commit -m "$(cat <<'EOF'
Cache: key on the lockfile hash, not the mtime

mtime changes on every checkout in CI, so the cache never hit.

Co-Authored-By: Claude <noreply@anthropic.com>
EOF
)\""""


def test_plans_commit_messages_and_issue_bodies_keep_their_text(tmp_path: Path) -> None:
    plan = "# Plan\n\n1. Move retries into the client.\n2. Keep the 30 s timeout: proxy cuts at 60."
    path = write_jsonl(tmp_path / "d.jsonl", [
        call("ExitPlanMode", {"plan": plan}),
        result("User has approved your plan. You can now start coding.\nMore."),
        call("Bash", {"command": HEREDOC}, "t2", "m2"),
        call("Bash", {"command": 'gh issue create --title "Flaky upload" --body "Fails when '
                      'the bucket is in eu-west-3; retry does not help."'}, "t3", "m3"),
        call("Bash", {"command": 'bd close x-1 --reason="Closed: the fix is upstream in 2.3; '
                      'pin >=2.3 and drop our patch."'}, "t4", "m4"),
        call("Bash", {"command": HEREDOC}, "t5", "m5"),  # the same commit retried
        call("Bash", {"command": "ls -la && echo done with this directory listing ok"}, "t6", "m6"),
    ])
    turns = read_turns(path)[0]
    details = [t.text for t in turns if t.kind == "detail"]
    assert details[0] == plan
    assert details[1] == ("Cache: key on the lockfile hash, not the mtime\n\n"
                          "mtime changes on every checkout in CI, so the cache never hit.")
    assert details[2] == "Flaky upload\nFails when the bucket is in eu-west-3; retry does not help."
    assert details[3] == "Closed: the fix is upstream in 2.3; pin >=2.3 and drop our patch."
    assert len(details) == 4  # the retried commit's message is not sent twice; ls has none
    assert ("prompt", "User has approved your plan. You can now start coding.") in kinds(turns)
    # Each detail comes right after its call, rendered as `┆` lines under it.
    i = next(i for i, t in enumerate(turns) if t.kind == "detail")
    assert turns[i - 1].kind == "tool_call" and turns[i - 1].tool == "ExitPlanMode"
    assert "    ┆ 2. Keep the 30 s timeout" in render(turns)
    # Capped, and a cut says so.
    long = bash_detail('git commit -m "' + "word " * 2000 + '"')
    assert len(long) <= 1200 and long.endswith(" …")


SUMMARY_TEXT = (
    "This session is being continued from a previous conversation that ran out of context.\n"
    "Analysis:\nLet me chronologically analyze the conversation.\n\nSummary:\n"
    "1. The hook feedback said the PreToolUse hook blocks `rm -rf`.\n"
    + "More recap of the work. " * 40
    + "\nPlease continue the conversation from where we left off."
)


def test_compaction_summaries_are_marked_lower_trust(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [
        user("Ship it."),
        base("system", subtype="compact_boundary"),
        user(SUMMARY_TEXT, isCompactSummary=True, isVisibleInTranscriptOnly=True),
        assistant([{"type": "text", "text": "Continuing."}]),
    ])
    turns = read_turns(path)[0]
    (summary,) = [t for t in turns if t.kind == "summary"]
    assert summary.role == "user"
    assert summary.text.startswith("Summary:\n1. The hook feedback")
    assert "chronologically" not in summary.text and "Please continue" not in summary.text
    text = render(turns)
    assert f"\n\n{SUMMARY_MARKER}\nSummary:" in text
    assert f"{SUMMARY_END}\n\nAssistant: Continuing." in text
    # No prompt carries it: the person did not say it.
    assert not any("hook feedback" in t.text for t in turns if t.kind == "prompt")


CHAT = [
    t("prompt", "Make the upload retry on 503."),
    t("summary", "Summary:\n" + "Earlier the user chose exponential backoff. " * 60),
    t("prose", "Let me check the client first, it has its own retry logic somewhere."),
    t("tool_call", "Read client.py", "Read"),
    t("tool_call", "Bash: pytest -x", "Bash"),
    t("tool_error", "Exit code 1 · tests/test_up.py F\nE       assert 503 in RETRY_ON", "Bash"),
    t("tool_call", "Bash: pytest -x -p no:cacheprovider", "Bash"),
    t("tool_call", "Bash: git commit -m \"$(cat <<'EOF' …", "Bash"),
    t("detail", "Retry uploads on 503\n\nThe CDN returns 503 during deploys; " * 3, "Bash"),
    t("prose", "Done: uploads retry on 503 with backoff; the CDN 503s while deploying. " * 4),
]


def test_the_summary_goes_first_and_failures_never_lose_their_key_lines() -> None:
    whole = len(render(CHAT).encode())
    no_summary = len(render([x for x in CHAT if x.kind != "summary"]).encode())
    # Room for part of the summary: it is cut, nothing else is touched.
    # (A look-up goes whatever the room: issue 21.)
    chat = [x for x in CHAT if x.tool != "Read"]
    no_summary = len(render([x for x in chat if x.kind != "summary"]).encode())
    out = fit(CHAT, no_summary + SUMMARY_MIN + 200)
    assert [x.kind for x in out] == [x.kind for x in chat]
    assert out[1].text.endswith(" […]") and len(out[1].text) < len(CHAT[1].text)
    assert [x.text for x in out if x.kind != "summary"] == [
        x.text for x in chat if x.kind != "summary"]
    # No room for it: it goes whole.
    out = fit(CHAT, no_summary)
    assert out == [x for x in chat if x.kind != "summary"]
    floor = len(render([x for x in CHAT if x.kind in ("prompt", "tool_error")]).encode())
    for budget in range(whole, 0, -37):
        sent = render(fit(CHAT, budget))
        assert "Make the upload retry on 503." in sent
        assert "E       assert 503 in RETRY_ON" in sent  # a failure's key line
        if budget >= floor + 200:
            assert len(sent.encode()) <= budget, budget
    # The retry after the failure outlives the other calls; a detail keeps its header.
    mid = fit(CHAT, no_summary - 150)
    calls = [x.text for x in mid if x.kind == "tool_call"]
    assert "Bash: pytest -x -p no:cacheprovider" in calls
    assert "Read client.py" not in calls


def test_real_sessions_spend_the_budget_on_what_carries_knowledge() -> None:
    need_transcripts()
    big = TRANSCRIPTS / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    sent = "\n\n".join(sent_windows(big, Config()))
    size = big.stat().st_size
    assert size / 40 / 3 <= len(sent.encode()) <= size / 40  # a third or more, never over
    assert SUMMARY_MARKER in sent and SUMMARY_END in sent
    assert "Access.get/2 inside a guard" in sent  # only the summary says it
    assert "The pattern can never match the type." in sent  # only the failure says it
    assert "Suppress opaque MapSet dialyzer warnings in SliceBuilder" in sent  # the commit
    assert "hidden_by_default" in sent  # a `bd close --reason` past its first line
    assert sent.count("Extract shared transcript pipeline used by both") == 2  # not 4


def _walk(o: Any, out: list[str]) -> None:
    if isinstance(o, str):
        out.append(o)
    elif isinstance(o, dict):
        for v in o.values():
            _walk(v, out)
    elif isinstance(o, list):
        for v in o:
            _walk(v, out)


def test_the_eval_labels_name_words_that_are_in_their_transcripts() -> None:
    """Labels made by hand: every word of every fact is really in its session."""
    from bench.eval.common import load_labels, norm

    need_transcripts()
    for session in load_labels()["sessions"]:
        path = TRANSCRIPTS / session["path"]
        strings: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            _walk(json.loads(line), strings)
        blob = norm("\n".join(strings))
        for fact in session["facts"]:
            for word in fact["words"]:
                assert norm(word) in blob, (session["path"], fact["id"], word)


def test_make_eval_runs_and_prints_each_section() -> None:
    import subprocess

    out = subprocess.run([sys.executable, "bench/eval/run.py"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert "== condensation survival ==" in out
    assert "overall" in out or "absent" in out


def test_turns_redacted_in_groups_equal_turns_redacted_one_by_one() -> None:
    """`redact_turns` skips per-turn redaction for groups without a secret: on every
    planted secret of the corpus, alone or between ordinary turns, the result is exactly
    that of one `redact` call per turn (and no secret is left)."""
    from secret_corpus import ORDINARY, all_planted_texts, leaked

    from capture.pipeline import redact_turns
    from reviewer.sanitize.redact import redact

    plain = [t("prompt", "Run the tests."), t("tool_call", "Bash: pytest -x", "Bash"),
             t("prose", "All green: 12 passed.")] + [t("prose", o) for o in ORDINARY]
    planted = all_planted_texts()
    assert len(planted) > 50
    for n, (_, context, text) in enumerate(planted):
        kind = "prompt" if context == "prompt" else "prose"
        at = n % (len(plain) + 1)
        turns = [*plain[:at], t(kind, text), *plain[at:]]
        got = redact_turns(turns)
        assert [x.text for x in got] == [redact(x.text) for x in turns], context
        assert not leaked("\n".join(x.text for x in got)), context
    assert redact_turns(plain) == plain


def test_preview_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    """`mem-review preview` reads, condenses and redacts: the store (sqlite3), dates and
    the TOML parser (no config file) are not loaded for it. A fresh interpreter, so the
    test sees only what the command itself imports."""
    import os
    import subprocess

    need_transcripts()
    big = TRANSCRIPTS / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    code = (
        "import sys, io, contextlib\n"
        "from reviewer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['preview', {str(big)!r}]) == 0\n"
        "print(sorted(m for m in ('sqlite3', 'reviewer.store.db', 'reviewer.store.queue',"
        " 'datetime', 'tomllib') if m in sys.modules))\n"
    )
    env = {**os.environ, "MEM_REVIEW_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert out.strip() == "[]"


def test_hostile_commands_and_failures_stay_linear() -> None:
    """Thousands of `<<`, unclosed quotes, megabyte outputs: cut and scanned once."""
    import time

    start = time.perf_counter()
    assert bash_detail("git commit " + "<<EOF\n" * 100_000) == ""
    assert len(bash_detail('gh issue create --body "' * 50_000)) <= 1200
    assert len(bash_detail('git commit -m "' + "x" * 2_000_000)) <= 1200
    from capture.transcript import _failure_lines

    assert len(_failure_lines("error: " * 1_000_000)) <= ERROR_BYTES + 200
    assert _failure_lines("\n".join(["a.py:1: E   x"] * 200_000)).count("\n") < ERROR_LINES
    assert time.perf_counter() - start < 5  # quadratic scans took minutes


def test_an_issue_trackers_mcp_tool_keeps_what_it_filed(tmp_path: Path) -> None:
    body = "Uploads fail for buckets in eu-west-3.\nRetry does not help: the region is wrong."
    path = write_jsonl(tmp_path / "m.jsonl", [
        call("mcp__linear__create_issue", {"title": "Upload region bug", "description": body,
                                           "teamId": "T1"}),
        call("mcp__github__get_issue", {"owner": "o", "repo": "r", "issue_number": 3},
             "t2", "m2"),
    ])
    details = [x.text for x in read_turns(path)[0] if x.kind == "detail"]
    assert details == ["Upload region bug\n" + body]
