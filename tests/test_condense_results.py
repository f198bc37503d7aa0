"""What tool results and small writes carry (issue 21, the lead's decision to send what
results hold in proportion to value): the lines of a result the next answer relies on,
warnings, a coreutils complaint in an output that exited 0, an API error that stopped
the session, an interruption, a small edit whole with what it replaced, a script's
commands past its first line; and the noise that still stays out (listings, a status
printed again, dot leaders, the tool's commit trailer). Each on a transcript made here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from records import assistant, call, result, t, user, write_jsonl

from capture.condense import render
from capture.fit import fit
from capture.results import QUOTED_PREFIX, quoted_lines, script_lines
from capture.transcript import INTERRUPTED, read_turns
from capture.written import written_detail


def _sent(tmp_path: Path, records: list[dict[str, Any]]) -> str:
    return render(read_turns(write_jsonl(tmp_path / "s.jsonl", records))[0])


def say(text: str, msg: str) -> dict[str, Any]:
    return assistant([{"type": "text", "text": text}], msg)


GREP = "\n".join(
    [f'{{"type":"user","uuid":"u{i}","message":{{"content":"row {i}"}}}}' for i in range(40)]
    + ['{"type":"queue-operation","operation":"enqueue","content":"merge from master"}']
    + [f'{{"type":"assistant","uuid":"a{i}","cost":{i}}}' for i in range(40)])


def test_the_lines_of_a_result_the_next_answer_relies_on_are_sent(tmp_path: Path) -> None:
    sent = _sent(tmp_path, [
        user("How are agents recorded?"),
        call("Bash", {"command": "grep queue-operation session.jsonl"}, "a", "m1"),
        result(GREP, "a"),
        say("Finding: `queue-operation` records carry `\"operation\":\"enqueue\"` with the "
            "queued prompt, not agent spawns.", "m2"),
    ])
    assert QUOTED_PREFIX + '{"type":"queue-operation","operation":"enqueue","content":' \
        '"merge from master"}' in sent
    assert '"cost":7' not in sent and '"row 3"' not in sent  # the rest of the result


def test_a_result_nobody_answered_or_a_listing_sends_nothing(tmp_path: Path) -> None:
    listing = "\n".join(f"-rw-r--r-- 1 u u {i} src/module_{i}.py" for i in range(30))
    sent = _sent(tmp_path, [
        user("What is there?"),
        call("Bash", {"command": "ls -la src"}, "a", "m1"),
        result(listing, "a"),
        say("There are 30 modules, src/module_1.py through src/module_29.py.", "m2"),
        call("Bash", {"command": "grep -rn queue src"}, "b", "m3"),
        result(GREP, "b"),
        user("Stop, do something else."),  # the person speaks before any answer
        say("The queue-operation records say enqueue.", "m4"),
    ])
    assert "module_1" not in sent.split("Assistant:")[0]
    assert QUOTED_PREFIX not in sent


def test_quoted_lines_need_distinctive_words_in_common() -> None:
    body = "the build is done\nwrote dist/app-1.4.2.tar.gz (2.1 MB)\nall good here\n"
    assert quoted_lines(body, "The tarball dist/app-1.4.2.tar.gz is 2.1 MB.") == [
        "wrote dist/app-1.4.2.tar.gz (2.1 MB)"]
    assert quoted_lines(body, "It is done and all good.") == []  # common words only


def test_warnings_of_a_long_output_are_kept(tmp_path: Path) -> None:
    out = "\n".join([f"Compiling module {i}" for i in range(40)] + [
        "/Users/me/TIDR Dropbox/Code/app/Sources/Inserter.swift:68:13: warning: 'NSUserNotification"
        "Center' was deprecated in macOS 11.0",
        "/Users/me/Dropbox/Code/app/Sources/Inserter.swift:70:9: warning: 'NSUserNotification"
        "Center' was deprecated in macOS 11.0",
        "Build complete!"])
    sent = _sent(tmp_path, [
        user("Build it."),
        call("Bash", {"command": "swift build -c release"}, "a", "m1"),
        result(out, "a"),
        say("Built. Let me fix the deprecated API next.", "m2"),
    ])
    # a space in the path
    assert "/Users/me/TIDR Dropbox/Code/app/Sources/Inserter.swift:68:13: warning:" in sent
    assert "Inserter.swift:70:9" not in sent  # the same warning again
    assert "Compiling module 7" not in sent


def test_a_coreutils_complaint_in_an_output_that_exited_0_is_an_error(tmp_path: Path) -> None:
    sent = _sent(tmp_path, [
        user("Is the settings file readable now?"),
        call("Bash", {"command": "cat ~/.claude/settings.json | head -5"}, "a", "m1"),
        result("cat: /Users/me/.claude/settings.json: Too many levels of symbolic links", "a"),
    ])
    assert "exited 0, but printed: cat: /Users/me/.claude/settings.json: Too many levels " \
        "of symbolic links" in sent


def test_an_api_error_that_stopped_the_session_is_kept_once(tmp_path: Path) -> None:
    err = ('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":'
           '"unexpected `tool_use_id` found in `tool_result` blocks: toolu_01"}}')
    synthetic = {"role": "assistant", "model": "<synthetic>", "id": "x",
                 "content": [{"type": "text", "text": err}]}
    other = {"role": "assistant", "model": "<synthetic>", "id": "y",
             "content": [{"type": "text", "text": "No response requested."}]}
    sent = _sent(tmp_path, [
        user("Here is the error."), {**say("", "m1"), "message": synthetic},
        user("Again?"), {**say("", "m2"), "message": synthetic},
        {**say("", "m3"), "message": other},
    ])
    assert sent.count("unexpected `tool_use_id` found in `tool_result` blocks") == 1
    assert "No response requested" not in sent


def test_an_interruption_is_one_line(tmp_path: Path) -> None:
    sent = _sent(tmp_path, [
        user("Add save calls everywhere."),
        say("Adding them to the title editor next.", "m1"),
        user([{"type": "text", "text": "[Request interrupted by user]"}]),
        user("Keep going with the timers only."),
    ])
    assert f"  · {INTERRUPTED}\n" in sent
    assert sent.count("interrupted") == 1


def test_a_small_edit_is_kept_whole_with_what_it_replaced() -> None:
    small = written_detail("Edit", {"file_path": "/r/index.html", "old_string": "ctx.play();",
                                    "new_string": "if (audioCtx.state === 'suspended') "
                                    "audioCtx.resume();\nctx.play();"})
    assert small == ("was: ctx.play();\nnow: if (audioCtx.state === 'suspended') "
                     "audioCtx.resume();\nctx.play();")
    rename = written_detail("Edit", {"file_path": "/r/agents/NPU.md",
                                     "old_string": "  name: NPU-ML-ACCELERATOR",
                                     "new_string": "  name: NPU"})
    assert rename == "was: name: NPU-ML-ACCELERATOR\nnow: name: NPU"
    secret = written_detail("Edit", {"file_path": "/r/app.py", "old_string": "x = 1",
                                     "new_string": "api_key = 'abc'\nx = 1"})
    assert "api_key" not in secret  # a credential line is never kept whole
    big = written_detail("Edit", {"file_path": "/r/app.py", "old_string": "pass",
                                  "new_string": "".join(f"v{i} = {i}\n" for i in range(80))})
    assert "was:" not in big and "v70" not in big  # code over the size: its definitions


def test_written_code_keeps_its_opening_comment_as_written_and_its_constants() -> None:
    body = ("#!/bin/bash\n# ABOUTME: streams the build straight to the USB pool\n"
            "# ABOUTME: skips the ISO\nset -euo pipefail\n"
            'readonly USB_ZFS_POOL="ultrathink"\nAPI_TOKEN="hunter2hunter2"\n'
            + "".join(f"step_{i}() {{ echo {i}; }}\n" for i in range(40)))
    kept = written_detail("Write", {"file_path": "/r/direct-zfs-stream.sh", "content": body})
    assert kept.startswith("# ABOUTME: streams the build straight to the USB pool\n"
                           "# ABOUTME: skips the ISO")
    assert 'readonly USB_ZFS_POOL="ultrathink"' in kept
    assert "hunter2" not in kept and "/bin/bash" not in kept


def test_a_scripts_further_commands_are_kept_not_its_prints_or_heredocs(
        tmp_path: Path) -> None:
    script = ("# Move source to workbench\nmv ~/Code/app ~/Code/workbench/app\n\n"
              "LATEST=$(ls -t ~/.claude/projects/*.jsonl | head -1)\n"
              'cp "$LATEST" ~/Code/workbench/app/session.jsonl\necho "moved"\n'
              "cat > notes.txt <<'EOF'\nrm -rf not-a-command\nEOF\n")
    assert script_lines(script) == ["mv ~/Code/app ~/Code/workbench/app",  # not LATEST=
                                    'cp "$LATEST" ~/Code/workbench/app/session.jsonl',
                                    "cat > notes.txt <<'EOF'"]
    assert script_lines("git status") == []
    # a program passed as a quoted string is not a script's commands
    assert script_lines('python3 -c "\nimport os\nos.remove(\'x\')\n"\nmv a b') == ["mv a b"]
    sent = _sent(tmp_path, [user("Move it."), call("Bash", {"command": script}, "a", "m1"),
                            result("moved", "a")])
    # each a call line of its own: what was run (the verifier treats it as a call line)
    assert "  · Bash: # Move source to workbench …\n  · Bash ⋯ mv ~/Code/app " \
        "~/Code/workbench/app\n" in sent


def test_a_scripts_commands_go_first_quoted_lines_with_the_bodies() -> None:
    """Under pressure a script's further commands go before any word of the session;
    a result's quoted lines go with the written bodies, largest first, before the
    answers are cut to a share."""
    answer = "The grep shows the enqueue records; the design keeps them. " * 6
    quoted = QUOTED_PREFIX + '{"operation":"enqueue","content":"merge from master"}'
    turns = [t("prompt", "Why?"), t("tool_call", "Bash: grep -n enqueue s.jsonl", "Bash"),
             t("detail", quoted, "Bash"),
             t("tool_call", "Bash: ./move.sh …", "Bash"),
             t("tool_call", "Bash ⋯ mv a b", "Bash"), t("tool_call", "Bash ⋯ cp c d", "Bash"),
             t("tool_call", "Edit app.py", "Edit"), t("detail", "x = 1\n" * 100, "Edit"),
             t("prose", answer)]
    size = len(render(turns).encode())
    out = fit(turns, size - 60)  # the grep call line (a look) and the script lines go
    assert [x.text for x in out if x.kind == "detail"][:1] == [quoted]
    assert not any(x.text.startswith("Bash ⋯ ") for x in out)
    out = fit(turns, size - 400)  # the written body goes (largest), the quoted line stays
    assert quoted in [x.text for x in out] and [x.text for x in out if x.kind == "prose"] \
        == [answer]


def test_noise_of_outputs_stays_out(tmp_path: Path) -> None:
    status = "Last prompt: hi\nTodos: 4 completed"
    commit = ("git commit -m \"$(cat <<'EOF'\nAdd parser\n\n🤖 Generated with [Claude Code]"
              "(https://claude.ai/code)\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
              "EOF\n)\"")
    hooks = ("trim trailing whitespace.................................................Failed"
             "\n- hook id: trailing-whitespace\n- exit code: 1")
    sent = _sent(tmp_path, [
        user("Run it twice and commit."),
        call("Bash", {"command": "python status.py"}, "a", "m1"), result(status, "a"),
        call("Bash", {"command": "python status.py --again"}, "b", "m2"), result(status, "b"),
        call("Bash", {"command": commit}, "c", "m3"), result(hooks, "c", error=True),
    ])
    assert sent.count("Todos: 4 completed") == 1  # the same status printed again: once
    assert "Generated with" not in sent and "Co-Authored-By" not in sent
    assert "....." not in sent and "trim trailing whitespace … Failed" in sent
    assert "- hook id: trailing-whitespace" in sent


def test_the_same_call_line_in_a_row_is_sent_once_with_its_count(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [user("Fix the lints.")]
    for i in range(4):
        records += [call("Edit", {"file_path": "/r/app.py", "old_string": f"a{i}" * 200,
                                  "new_string": f"b{i}" * 200}, f"e{i}", f"m{i}"),
                    result("ok", f"e{i}")]
    records += [call("Bash", {"command": "cat app.py"}, "c1", "n1"), result("x", "c1"),
                call("Bash", {"command": "cat app.py"}, "c2", "n2"), result("x", "c2")]
    turns = read_turns(write_jsonl(tmp_path / "s.jsonl", records))[0]
    lines = [x.text for x in turns if x.kind == "tool_call"]
    assert lines == ["Edit /r/app.py (×4)", "Bash: cat app.py (×2)"]
    assert not [x for x in fit(turns, 10) if x.kind == "tool_call"]  # still a look


def test_a_variable_inside_a_body_is_not_a_definition() -> None:
    body = ("const WORK_TIME = 25 * 60; // 25 minutes\nfunction tick() {\n"
            "    const left = WORK_TIME - elapsed;\n    let shown = format(left);\n}\n"
            + "".join(f"render{i}();\n" for i in range(40)))
    kept = written_detail("Write", {"file_path": "/r/script.js", "content": body})
    assert "const WORK_TIME = 25 * 60; // 25 minutes" in kept and "function tick() {" in kept
    assert "const left" not in kept and "let shown" not in kept


def test_a_stylesheets_rules_are_not_sent() -> None:
    assert written_detail("Edit", {"file_path": "/r/styles.css", "old_string": ".a { }",
                                   "new_string": ".countdown { font-size: 5rem; }"}) == ""
    assert written_detail("Write", {"file_path": "/r/app.scss", "content": "$x: 1;"}) == ""


def test_a_runtimes_notice_about_itself_is_not_a_failures_headline(tmp_path: Path) -> None:
    out = ("(node:25604) ExperimentalWarning: `--experimental-loader` may be removed in the "
           "future; instead use `register()`:\n--import 'data:text/javascript,import { "
           "register } from \"node:module\";'\n(Use `node --trace-warnings ...` to show where "
           "the warning was created)\n  2) should emit error with invalid auth token\n"
           "AssertionError: expected 'websocket error' to include 'Authentication'")
    sent = _sent(tmp_path, [user("Run the tests."),
                            call("Bash", {"command": "npm test"}, "a", "m1"),
                            result(out, "a", error=True)])
    assert "Bash failed: 2) should emit error with invalid auth token" in sent
    assert "AssertionError: expected 'websocket error' to include 'Authentication'" in sent
    assert "ExperimentalWarning" not in sent and "trace-warnings" not in sent
    tool_warning = ('(node:71945) ESLintIgnoreWarning: The ".eslintignore" file is no longer '
                    'supported. Switch to using the "ignores" property in "eslint.config.js"\n'
                    "39:7 error Expected an assignment")
    sent = _sent(tmp_path, [user("Lint."), call("Bash", {"command": "npm run lint"}, "b", "m2"),
                            result(tool_warning, "b", error=True)])
    assert 'The ".eslintignore" file is no longer supported.' in sent  # a tool's, not node's


def test_a_documents_read_outlives_a_code_files_header() -> None:
    # the document under WRITTEN_SHARE, larger than the header
    doc = "package.json reads:\n" + '"name": "slopus", "description": "Session sharing"\n' * 8
    code = "loop.ts opens with:\n" + "Runs the claude loop and restarts it on exit.\n" * 6
    turns = [t("prompt", "What is this?"), t("tool_call", "Read package.json", "Read"),
             t("detail", doc, "Read"), t("tool_call", "Read src/loop.ts", "Read"),
             t("detail", code, "Read"), t("prose", "A session sharing CLI. " * 30)]
    out = fit(turns, len(render(turns).encode()) - 200)
    kept = [x.text for x in out if x.kind == "detail"]
    assert kept == [doc]  # the code file's header went, the document stayed


def test_warning_lines_found_from_their_cues_are_the_anchored_pattern_s() -> None:
    """`_warning_lines` tries only lines holding a cue: the same matches, in order, as
    the line-anchored pattern tried at every line."""
    import random

    from capture import noise

    parts = ["src/a.py:12:3: warning: unused x", "⚠ cycle detected", "WARNING: deprecated",
             "[WARN] slow", "Warning: foo", "learn more", "plain", "a: warning: b",
             "  WARN indented", "x Warning: mid", "warning: lower", "WARNED",
             "27:14  Warning: unused", "  3:7   warning  unused x", "3:7 warning: y",
             "12:30  the warning light"]
    rng = random.Random(7)
    for _ in range(2000):
        body = "\n".join(rng.choice(parts) for _ in range(rng.randint(1, 12)))
        assert [m.group() for m in noise._warning_lines(body)] == \
            [m.group() for m in noise._WARNING.finditer(body)], body


def test_a_long_output_is_read_by_its_ends() -> None:
    from capture.noise import ends

    assert ends("short", 10) == "short"
    assert ends("a" * 6 + "b" * 6, 6) == "aaa\nbbb"


def test_a_setting_inside_an_edits_body_is_sent() -> None:
    """An edit's fragment is indented as the file is: `const CONC = 20;` in a loop is
    the value the session chose, not a variable of a scope (issue 21)."""
    new = ("  const CONC = 20;\n  for (let i = 0; i < sigs.length; i += CONC) {\n"
           + "".join(f"    await fetchOne(sigs[i + {k}]);\n" for k in range(12)) + "  }\n")
    kept = written_detail("Edit", {"file_path": "/t/count.mjs", "old_string": "x",
                                   "new_string": new})
    assert "const CONC = 20;" in kept
    assert "let i = 0" not in kept  # a loop's variable is not a setting
