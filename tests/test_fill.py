"""A short session's room under its floor filled with what condensation dropped (issue 21,
capture/fill.py): a command's long output, a file read, a whole failure, a written body,
a script, each back at its place under its call; the smallest first, the budget held; a
session at its floor untouched; secrets in what comes back redacted before the API and
the store; a file that holds secrets by its name never restored. Transcripts made here."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fakeapi import Facts, mock_transport, requests_text
from helpers import fact, make_repo
from hypothesis import given, settings
from hypothesis import strategies as st
from records import assistant, call, result, user, write_jsonl

from capture import fill as fill_module
from capture import pipeline, written
from capture.condense import render
from capture.fill import fill
from capture.fit import MIN_BUDGET, budget_for, fit
from capture.held import HELD_EACH, Held, Holder
from capture.results import QUOTED_PREFIX, SCRIPT_PREFIX
from capture.transcript import OUTPUT_PREFIX, Turn, read_turns
from reviewer.config import Config
from reviewer.store import queue
from reviewer.store.facts import Store

CFG = Config(max_retries=0, daily_spend_cap_usd=0)
GITHUB_TOKEN = "ghp_" + "Zq7Xw2Lp9Rt4Vb6Nm1Kc8Hj3Gf5Ds0Ae2Yu4"
FOUND = "warmup cache: waiting on redis at 10.0.4.7:6380 (timeout 90s)"


def say(text: str, msg: str) -> dict[str, Any]:
    return assistant([{"type": "text", "text": text}], msg)


def sent(tmp_path: Path, records: list[dict[str, Any]]) -> str:
    path = write_jsonl(tmp_path / "s.jsonl", records)
    return "\n\n".join(pipeline.sent_windows(path, CFG))


def long_output(found: str = FOUND, lines: int = 14) -> str:
    """A command's output past the reader's short-output limit, `found` in its middle."""
    body = [f"step {i}: compiled module_{i}.o in {i * 3} ms" for i in range(lines)]
    body.insert(lines // 2, found)
    return "\n".join(body)


def deploy_session(answer: str = "The dry run finished; the deploy itself comes next.") \
        -> list[dict[str, Any]]:
    return [
        user("Why does the deploy hang on staging?"),
        call("Bash", {"command": "./scripts/deploy.sh --dry-run"}, "t1", "m1"),
        result(long_output(), "t1"),
        say(answer, "m2"),
        user("Thanks, that is all."),
    ]


def test_a_commands_long_output_comes_back_under_its_call(tmp_path: Path) -> None:
    text = sent(tmp_path, deploy_session())
    line = OUTPUT_PREFIX + FOUND
    assert line in text  # dropped by condensation before: no answer drew on it
    call_at = text.index("· Bash: ./scripts/deploy.sh --dry-run")
    assert call_at < text.index(line) < text.index("The dry run finished")
    assert OUTPUT_PREFIX + "step 0: compiled module_0.o in 0 ms" in text  # whole, in order


def test_a_file_read_comes_back_with_its_call_line_fit_dropped(tmp_path: Path) -> None:
    body = "\n".join(f"{i + 1:6}→{ln}" for i, ln in enumerate([
        "import os", "", "RETRY_LIMIT = 7  # the vendor API drops bursts above this",
        *[f"def handler_{i}(event): return event['id'] * {i}" for i in range(12)]]))
    text = sent(tmp_path, [
        user("How many retries does the poller make?"),
        call("Read", {"file_path": "/home/u/proj/src/poller.py"}, "r1", "m1"),
        result(body, "r1"),
        say("It is set in the poller module.", "m2"),
    ])
    assert "· Read src/poller.py" in text  # `fit` drops a look's call line; it is back
    assert "poller.py reads:" in text
    assert "RETRY_LIMIT = 7  # the vendor API drops bursts above this" in text
    assert "3→" not in text  # the line numbers of the read are not sent


def test_the_lines_an_answer_drew_on_are_replaced_by_the_whole_result(tmp_path: Path) -> None:
    text = sent(tmp_path, deploy_session(
        "It waits on redis at 10.0.4.7:6380 for 90s: warmup cache blocks the deploy."))
    assert text.count("10.0.4.7:6380 (timeout 90s)") == 1  # once, not quoted and restored
    assert QUOTED_PREFIX + FOUND not in text
    assert OUTPUT_PREFIX + FOUND in text


def test_a_written_body_and_a_scripts_lines_come_back_whole(tmp_path: Path) -> None:
    code = "\n".join([
        "export function pick(max) {",
        "  // reject to avoid modulo bias",
        "  const limit = 256 - (256 % max);",
        *[f"  const step{i} = crypto.getRandomValues(new Uint8Array({i + 1}));" for i in range(8)],
        "  return limit;",
        "}",
    ])
    script = "\n".join(["set -e", *[f"cp build/asset_{i}.js dist/asset_{i}.js" for i in range(9)],
                        "gzip -9 dist/asset_8.js"])
    text = sent(tmp_path, [
        user("Make the picker unbiased and ship the assets."),
        call("Write", {"file_path": "/home/u/proj/src/pick.js", "content": code}, "w1", "m1"),
        result("File created successfully at: /home/u/proj/src/pick.js", "w1"),
        call("Bash", {"command": script}, "b1", "m2"),
        result("", "b1"),
        say("Done: the picker rejects biased bytes and the assets are in dist/.", "m3"),
    ])
    assert "// reject to avoid modulo bias" in text  # a comment inside the body
    assert "defines:" not in text  # the body's summary gave way to the body itself
    # The script's 11th line (the reader keeps 6), a call line as the reader's are; each
    # line once: the reader's lines gave way to the whole script.
    assert "· " + SCRIPT_PREFIX + "gzip -9 dist/asset_8.js" in text
    assert text.count("cp build/asset_1.js dist/asset_1.js") == 1


def test_a_whole_failure_comes_back_under_its_key_lines(tmp_path: Path) -> None:
    lines = [f"  at frame_{i} (src/worker.js:{i + 10}:5)" for i in range(20)]
    lines.insert(0, "Error: ECONNREFUSED 127.0.0.1:5432")
    lines.append("hint: start the database with `make db-up` before the tests")
    text = sent(tmp_path, [
        user("Run the tests."),
        call("Bash", {"command": "npm test"}, "f1", "m1"),
        result("\n".join(lines), "f1", error=True),
        say("The tests need the database.", "m2"),
    ])
    assert "start the database with `make db-up` before the tests" in text


def test_the_smallest_first_and_the_first_left_out_cut_to_the_room(tmp_path: Path) -> None:
    small = long_output("the cache key is tenant/region/day", 12)
    large = long_output("the big report ends here", 400)
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Check both."),
        call("Bash", {"command": "./report --full"}, "a", "m1"),
        result(large, "a"),
        call("Bash", {"command": "./keys --show"}, "b", "m2"),
        result(small, "b"),
        say("Both ran.", "m3"),
    ])
    turns, stats, _ = read_turns(path, held=True)
    fitted = fit(turns, 4000)
    out, _ = fill(fitted, turns, stats.held, 4000, list)
    text = render(out)
    assert len(text.encode()) <= 4000
    assert "the cache key is tenant/region/day" in text  # the small one whole
    assert "characters cut" in text and "./report --full" in text  # the large one cut
    assert text.index("./report --full") < text.index("./keys --show")  # in its place


def test_the_budget_holds_with_more_held_than_room(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [user("Run everything.")]
    for i in range(80):
        records += [call("Bash", {"command": f"./job_{i}.sh"}, f"t{i}", f"m{i}"),
                    result(long_output(f"job {i} wrote {i * 7} rows", 30), f"t{i}")]
    records.append(say("All jobs ran.", "end"))
    path = write_jsonl(tmp_path / "s.jsonl", records)
    text = "\n\n".join(pipeline.sent_windows(path, CFG))
    budget = budget_for(path.stat().st_size, CFG.send_ratio)
    assert budget is not None
    assert MIN_BUDGET - 2_000 < len(text.encode()) <= min(budget, MIN_BUDGET)


def test_a_session_at_its_floor_is_left_as_it_was(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", deploy_session())
    turns, stats, _ = read_turns(path, held=True)
    assert stats.held  # there is something to restore…
    full = [*turns, Turn("assistant", "prose", "word " * (MIN_BUDGET // 5), 99, 0)]
    out, grounding = fill(full, full, stats.held, 10 * MIN_BUDGET, list)
    assert out is full and grounding is full  # …but no room under the floor
    out, _ = fill(turns, turns, stats.held, None, list)  # send_ratio 0: all is sent
    assert out is turns


def test_a_file_that_holds_secrets_by_its_name_is_never_restored(tmp_path: Path) -> None:
    env = "\n".join(["DATABASE_HOST=db.internal", "PLAIN_SETTING_NUMBER_SEVEN=seven-value",
                     *[f"FLAG_{i}=on" for i in range(12)]])
    code = "\n".join(["import os", "api_key = 'live-value-123456789'",
                      *[f"LIMIT_{i} = {i}" for i in range(12)], "TIMEOUT_SECONDS = 41"])
    text = sent(tmp_path, [
        user("Where is the config?"),
        call("Bash", {"command": "cat /home/u/proj/.env"}, "e1", "m1"),
        result(env, "e1"),
        call("Read", {"file_path": "/home/u/proj/.env.production"}, "e2", "m2"),
        result(env, "e2"),
        call("Read", {"file_path": "/home/u/proj/settings.py"}, "e3", "m3"),
        result(code, "e3"),
        say("Config is in settings.py.", "m4"),
    ])
    assert "TIMEOUT_SECONDS = 41" in text  # settings.py came back…
    assert "PLAIN_SETTING_NUMBER_SEVEN" not in text  # …never the .env files
    assert "api_key" not in text and "live-value" not in text  # nor a credential's line


def test_a_secret_only_in_restored_material_reaches_neither_api_nor_store(
    store: Store, conn: sqlite3.Connection, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"upload.sh": "echo up\n"})
    leaky = f"uploading with {GITHUB_TOKEN} as the bot account"
    transcript = write_jsonl(tmp_path / "s.jsonl", [
        user("Why does the upload fail?"),
        call("Bash", {"command": "./upload.sh --verbose"}, "t1", "m1"),
        result(long_output(leaky), "t1"),
        say("The upload finished on the second try.", "m2"),
    ])
    assert GITHUB_TOKEN not in "\n".join(t.text for t in read_turns(transcript)[0])
    job_id = queue.enqueue(conn, session_id="s", transcript_path=str(transcript),
                           project=str(repo), cwd=str(repo), event="SessionEnd")
    job = pipeline.claim_job(conn, job_id)
    assert job is not None
    echoed = fact(f"Uploads use the bot token {GITHUB_TOKEN}.", leaky)
    client = httpx2.Client(transport=(transport := mock_transport(Facts([echoed]))))
    try:
        out = pipeline.process(store, conn, job, CFG, api_key="test-key", http_client=client)
    finally:
        client.close()
    asked = requests_text(transport)
    assert "uploading with [REDACTED:github-token] as the bot account" in asked  # restored
    assert GITHUB_TOKEN not in asked
    (fid,) = out.new_ids
    stored = store.get(fid)
    assert stored is not None
    assert GITHUB_TOKEN not in json.dumps(stored.model_dump())
    assert stored.grounded == 1  # the restored line is where its quote is found


def test_the_reader_holds_each_piece_and_all_of_them_bounded(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = Holder()
    holder.call("t1", "Bash", {"command": "./big"}, "Bash: ./big", 3, 0, None)
    holder.result("t1", "Bash", "x" * (3 * HELD_EACH), False, 4, 10, None, False)
    (held,) = holder.items
    assert len(held.text) <= HELD_EACH + 1 and held.call == "Bash: ./big" and held.call_line == 3
    monkeypatch.setattr("capture.held.HELD_CHARS", 2 * HELD_EACH)
    for i in range(5):
        holder.result(f"t{i}", "Bash", "y" * HELD_EACH, False, 5 + i, 0, None, False)
    assert len(holder.items) == 2  # stopped at the bound
    holder.result("t9", "TodoWrite", "todos", False, 20, 0, None, False)
    holder.result("t9", "Bash", "Sibling tool call errored", True, 21, 0, None, False)
    assert len(holder.items) == 2  # bookkeeping and a cancelled call are never held


def test_preview_and_the_worker_send_the_same_restored_text(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", deploy_session())
    shown = pipeline.preview_text(path)
    assert OUTPUT_PREFIX + FOUND in shown
    worker = pipeline._prepare(str(path), 0, CFG.window_chars, CFG.send_ratio, tool_texts=True)
    assert worker.windows == pipeline.sent_windows(path, CFG)
    assert any(FOUND in t.text for t in worker.turns)  # grounding reads it too
    assert fill_module.MIN_PIECE < MIN_BUDGET


def test_the_large_real_session_sends_what_it_sent_without_the_fill(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 3.2 MB session sends more than the floor: not one byte of it changes."""
    from shared import need_transcripts

    path = need_transcripts() / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    filled = pipeline.sent_windows(path, CFG)
    monkeypatch.setattr(pipeline, "fill", lambda fitted, turns, *_: (fitted, turns))
    assert pipeline.sent_windows(path, CFG) == filled


def test_a_setting_named_for_tokens_or_auth_comes_back_a_credential_does_not(
        tmp_path: Path) -> None:
    """A line is held back as a credential for what it assigns, not for its name alone:
    a token count, a flag, an environment variable's name say no secret (issue 21: a
    settings file lost `"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "64000"` and `max_tokens`). The
    file is past what a read's detail keeps: its middle comes back by the fill."""
    settings = "\n".join([
        "{", *[f'  "plugin_{i}": "enabled",' for i in range(40)], '  "env": {',
        '    "DA": "PAI",', '    "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "64000",',
        '    "MAX_THINKING_TOKENS": "Tokens the model may think for. Higher costs more."',
        "  },", '  "max_tokens": 4096,', '  "oauth_enabled": true,',
        '  "github_token": process.env.GH_TOKEN,', '  "api_key": "live-value-123456789",',
        '  "db_password": 314159,',
        *[f'  "theme_{i}": "dark"' for i in range(40)], "}"])
    text = sent(tmp_path, [
        user("Why does the hook fail at startup?"),
        call("Read", {"file_path": "/home/u/.claude/settings.json"}, "r1", "m1"),
        result(settings, "r1"),
        say("The hook path is fine; the env block is what matters.", "m2"),
    ])
    for kept in ('"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "64000"', '"max_tokens": 4096',
                 '"MAX_THINKING_TOKENS": "Tokens the model may think for. Higher costs more."',
                 '"oauth_enabled": true', '"github_token": process.env.GH_TOKEN'):
        assert kept in text
    assert "live-value" not in text and "314159" not in text  # a credential, digits or not


def test_a_windows_path_to_a_secrets_file_is_never_restored(tmp_path: Path) -> None:
    """`C:\\Users\\me\\app\\.env` is a `.env` file: its name is what follows the last
    backslash, not the whole path (a session on Windows)."""
    env = "\n".join(["DATABASE_HOST=db.internal", "PLAIN_SETTING_NUMBER_SEVEN=seven-value",
                     *[f"FLAG_{i}=on" for i in range(12)]])
    text = sent(tmp_path, [
        user("Where is the config?"),
        call("Read", {"file_path": "C:\\Users\\me\\app\\.env"}, "e1", "m1"),
        result(env, "e1"),
        call("Read", {"file_path": "C:\\Users\\me\\app\\settings.py"}, "e2", "m2"),
        result("import os\nTIMEOUT_SECONDS = 41\n" + "\n".join(
            f"LIMIT_{i} = {i}" for i in range(12)), "e2"),
        say("Config is in settings.py.", "m3"),
    ])
    assert "TIMEOUT_SECONDS = 41" in text  # the code file came back…
    assert "PLAIN_SETTING_NUMBER_SEVEN" not in text and "DATABASE_HOST" not in text


def test_a_credential_check_on_a_huge_line_is_one_pass() -> None:
    """A minified file's one line of 200 kB: the check answers without trying the rest
    of the line at every position (a value that long is no number or flag anyway)."""
    from capture.written import assigns_secret

    assert assigns_secret('{"token": process.env' + "A" * 200_000 + "!}")
    assert assigns_secret('{"key": 1, ' * 20_000)
    assert not assigns_secret('  "max_output_tokens": 64000,  // the model\'s cap')


@pytest.mark.timeout(15)  # the old pattern took 45 s here: a hang guard, not a timing
def test_a_credential_check_on_a_blank_run_does_not_backtrack() -> None:
    """A value of many blanks before what is no number (`token = ` and 190 tabs, then
    `x`): neighbouring quantifiers over the same blanks tried every split of the run
    (300 such lines of a file read took 14 s in `fill._tidy`, which checks each line)."""
    lines = ["token = " + "\t" * 190 + "x", "api_key: " + " '" * 95 + "x",
             "password = " + " " * 180 + "#"] * 1000
    held = Held("output", "Read", "\n".join(lines), 1, 0, None, "Read a.py", 1, "a.py")
    assert fill_module._tidy(held) == ""  # each line assigns a credential: none kept
    harmless = Held("output", "Read", "\n".join(["token = " + "\t" * 190 + ";"] * 1000), 1,
                    0, None, "Read a.py", 1, "a.py")
    assert fill_module._tidy(harmless).count("token =") == 1000


_OLD_HARMLESS = re.compile(
    r"""^[\s'"`]*(?:\d{1,7}(?:\.\d+)?(?:[kKmM]?[bB]?|ms|s|m|h|d)?|true|false|null|none|nil"""
    r"""|undefined|(?:process\.env|os\.environ|os\.getenv|import\.meta\.env|env\b|ENV\b)"""
    r"""[\w.\[\]()'"]*|\$\{?[A-Za-z_]\w*\}?)?[\s'"`]*[,;]?\s*(?:(?://|#).*)?$""", re.I)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([
    " ", "\t", "'", '"', "`", ",", ";", "//", "#", "x", "5", "12.5", "kb", "ms", "true",
    "null", "process.env", ".X", "os.environ", "['K']", "${A}", "$B", "ENV", "é", "\u00a0",
    "\x1c", "\r"]), max_size=12))
def test_a_harmless_value_reads_as_the_old_pattern_read_it(parts: list[str]) -> None:
    """The pattern without backtracking answers as the old one on short values."""
    value = "".join(parts)
    assert bool(written._HARMLESS.match(value.strip())) == bool(_OLD_HARMLESS.match(value))


def test_a_document_read_restored_whole_replaces_its_cut_copy(tmp_path: Path) -> None:
    """Condensation keeps a long document read by its opening and end; restored whole,
    the file holds that copy, which goes (it was sent twice, the cut one first)."""
    readme = "\n".join(["# Relay", "", "Relay forwards alerts to the on-call channel.", "",
                        *[f"- rule {i}: alerts tagged team-{i} page the team-{i} rota within "
                          f"{i + 2} minutes" for i in range(40)], "", "## Deploy",
                        "Run `make deploy ENV=prod`; it needs the VPN."])
    text = sent(tmp_path, [
        user("How are alerts routed?"),
        call("Read", {"file_path": "/home/u/relay/README.md"}, "r1", "m1"),
        result(readme, "r1"),
        say("Each team tag pages its own rota.", "m2"),
    ])
    assert "rule 20: alerts tagged team-20 page the team-20 rota within 22 minutes" in text
    assert text.count("README.md reads:") == 1
    assert "characters cut" not in text


def side(rec: dict[str, Any]) -> dict[str, Any]:
    """A record of a subagent's own transcript, as the main session file holds it."""
    return {**rec, "isSidechain": True}


def test_a_subagents_own_work_comes_back_its_report_once(tmp_path: Path) -> None:
    """A subagent's words, what it wrote, what its tools gave and its failures compete
    for the floor's room like the main thread's (issue 21: a session whose work was a
    subagent's sent 9 kB of its 32 kB); its call lines say they are its own, and its
    last words, repeated as the Task result, and its prompt come back once (the report's
    cut copy replaced by the whole)."""
    prompt = "Find out why the status line does not show and fix the configuration."
    report = "Fixed: the statusLine command used a tilde path that was never expanded."
    checked = "\n".join(f"- checked segment {i}: renders in {i + 2} ms" for i in range(60))
    rule = '"command": "/home/u/.claude/statusline.sh"'
    text = sent(tmp_path, [
        user("Why doesn't my status line show up?"),
        call("Task", {"description": "Fix status line", "prompt": prompt,
                      "subagent_type": "statusline-setup"}, "k1", "m1"),
        side(user(prompt)),
        side(say("The settings name ~/.claude/statusline.sh; tilde is not expanded.", "s1")),
        side(call("Bash", {"command": "~/.claude/statusline.sh"}, "s2", "s2")),
        side(result("bash: ~/.claude/statusline.sh: Permission denied", "s2", error=True)),
        side(call("Edit", {"file_path": "/home/u/.claude/settings.json",
                           "old_string": '"command": "~/.claude/statusline.sh"',
                           "new_string": rule}, "s3", "s3")),
        side(result("The file /home/u/.claude/settings.json has been updated.", "s3")),
        side(say(report + "\n" + checked, "s4")),
        result(report + "\n" + checked, "k1"),  # past what the report's detail keeps
        say("The subagent fixed it.", "m2"),
    ])
    assert "tilde is not expanded" in text  # what it found
    assert "Task ⋯ Edit" in text and rule in text  # what it wrote, under its own call
    assert "Permission denied" in text  # its failure
    assert text.count(report) == 1 and text.count(prompt) <= 1
    assert "characters cut" not in text  # the report's cut copy went for the whole
    assert text.index("· Task: Fix status line") < text.index("tilde is not expanded") \
        < text.index("The subagent fixed it.")
