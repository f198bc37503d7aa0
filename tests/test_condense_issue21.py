"""Condensation mechanisms of issue 21, each on a small transcript or turn list: the
end of a long message before its middle, the latest description winning the budget,
what the session wrote, errors in results that exited 0, background task outcomes, and
the noise that goes (looks, cancelled siblings, ANSI, terminal commands, a bounded
compaction summary)."""

from __future__ import annotations

from pathlib import Path

from records import call, result, t, user, write_jsonl

from capture.condense import render
from capture.fit import SUMMARY_SHARE, fit
from capture.transcript import read_turns


def _bytes(turns: list) -> int:  # type: ignore[type-arg]
    return len(render(turns).encode())


def test_a_long_message_keeps_its_end_before_its_middle() -> None:
    filler = " ".join(f"Step {i} of the investigation looked at module_{i}." for i in range(80))
    long = "Findings so far. " + filler + " Conclusion: the fix is `uv sync --frozen`."
    turns = [t("prompt", "Why does CI fail?"), t("prose", long),
             t("prose", "Unrelated: " + " ".join(f"widget{i} renders row{i}" for i in range(200)))]
    out = fit(turns, _bytes(turns) // 3)
    sent = render(out)
    assert "the fix is `uv sync --frozen`" in sent  # the conclusion at the end
    assert "Findings so far." in sent and "[…]" in sent  # the opening, the middle cut


def test_the_latest_description_wins_the_budget() -> None:
    words = " ".join(f"component_{i} handles part {i} of the upload pipeline" for i in range(30))
    first = "Design v1: the uploader retries inline. " + words
    final = "Design v2 (final): the uploader retries in a queue worker. " + words
    turns = [t("prompt", "Design the uploader."), t("prose", first),
             t("prompt", "Use a queue instead."), t("prose", final)]
    out = fit(turns, _bytes(turns) * 2 // 3)
    texts = [x.text for x in out if x.kind == "prose"]
    assert texts[1] == final  # the final design whole
    assert len(texts[0]) < 120  # the outdated one down to its first sentence


def test_what_the_session_wrote_is_sent_by_its_value(tmp_path: Path) -> None:
    rule = "# Rules\n\nNever commit .env files; secrets live in 1Password.\n"
    code = "import os\n\ndef load_settings(path):\n    return {}\n\nclass Cache:\n    pass\n" \
        + "".join(f"    slot_{i} = None\n" for i in range(30))  # over SMALL_BYTES
    heredoc = ("cat > docs/LIMITATIONS.md <<'EOF'\n## Known limits\nUploads over 2 GiB are "
               "rejected by the CDN.\nEOF")
    long_cmd = "curl -sS -X POST https://api.example.test/v1/jobs " + "-H 'X-A: b' " * 20 \
        + "--data-binary @payload.json"
    path = write_jsonl(tmp_path / "w.jsonl", [
        user("Write the rules down."),
        call("Write", {"file_path": "/r/CLAUDE.md", "content": rule}, "a", "m1"),
        result("ok", "a"),
        call("Write", {"file_path": "/r/app/settings.py", "content": code}, "b", "m2"),
        result("ok", "b"),
        call("Bash", {"command": heredoc}, "c", "m3"),
        result("", "c"),
        call("Bash", {"command": long_cmd}, "d", "m4"),
        result("{}", "d"),
    ])
    sent = render(read_turns(path)[0])
    assert "Never commit .env files; secrets live in 1Password." in sent  # a rule, whole
    assert "defines: def load_settings(path):; class Cache:" in sent  # code: its definitions
    assert "return {}" not in sent
    assert "Uploads over 2 GiB are rejected by the CDN." in sent  # a here-document's file
    assert "--data-binary @payload.json" in sent  # a long command line past 160 characters


def test_errors_in_a_result_that_exited_0_and_background_outcomes(tmp_path: Path) -> None:
    out = "running 3 tests\nthread 'sync::tests::retry' panicked at src/sync.rs:42:9\nok"
    notice = ("<task-notification>\n<task-id>b9</task-id>\n<status>failed</status>\n<summary>"
              "Background command \"cargo test\" failed with exit code 101</summary>\n"
              "</task-notification>\nRead the output file to retrieve the result: /tmp/b9")
    path = write_jsonl(tmp_path / "e.jsonl", [
        user("Run the tests."),
        call("Bash", {"command": "cargo test 2>&1 | tee log.txt"}, "a", "m1"),
        result(out, "a"),
        user(notice),
    ])
    sent = render(read_turns(path)[0])
    assert "! Bash exited 0, but printed: thread 'sync::tests::retry' panicked" in sent
    assert '! Background failed: Background command "cargo test" failed with exit code 101' \
        in sent


def test_noise_goes(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "n.jsonl", [
        user("/exit"),
        user("Check the \x1b[31mred\x1b[0m build."),
        call("Bash", {"command": "cat README.md | head -20"}, "a", "m1"),
        result("# readme", "a"),
        call("Bash", {"command": "make build"}, "b", "m2"),
        result("<tool_use_error>Sibling tool call errored</tool_use_error>", "b", error=True),
    ])
    turns = read_turns(path)[0]
    sent = render(fit(turns, 10_000))
    assert "/exit" not in sent and "\x1b" not in sent and "Check the red build." in sent
    assert "Sibling" not in sent
    assert "cat README.md" not in sent  # a look, whatever the room
    assert "Bash: make build" in sent


def test_a_compaction_summary_takes_a_bounded_share() -> None:
    summary = "Summary:\n" + "The user chose exponential backoff for uploads. " * 200
    turns = [t("prompt", "Continue."), t("summary", summary),
             t("prose", "Resuming the upload work now. " * 10)]
    budget = _bytes(turns) + 1000  # room for everything: the summary is bounded anyway
    out = fit(turns, budget)
    (kept,) = [x for x in out if x.kind == "summary"]
    assert len(kept.text.encode()) <= budget // SUMMARY_SHARE + 10


def test_a_small_config_read_is_sent_code_read_is_not(tmp_path: Path) -> None:
    pkg = '     1→{\n     2→  "name": "slopus",\n     3→  "bin": {"happy": "./bin/happy"}\n     4→}'
    path = write_jsonl(tmp_path / "r.jsonl", [
        user("What is this package?"),
        call("Read", {"file_path": "/r/package.json"}, "a", "m1"),
        result(pkg, "a"),
        call("Read", {"file_path": "/r/src/index.ts"}, "b", "m2"),
        result("     1→export function main() {}", "b"),
    ])
    sent = render(fit(read_turns(path)[0], 100_000))
    assert '"name": "slopus",' in sent and '"happy": "./bin/happy"' in sent
    assert "1→" not in sent and "export function main" not in sent


def test_a_large_config_read_keeps_its_opening_and_code_its_opening_comment(
        tmp_path: Path) -> None:
    """A config over the cap is not dropped whole: its opening (name, version,
    description) goes. Of code, the comment it opens with says what it is for; the
    listing, a licence header and a shebang do not go."""
    deps = "".join(f'    "dep-{i}": "^1.{i}.0",\n' for i in range(120))
    pkg = '{\n  "name": "slopus",\n  "description": "Session sharing CLI",\n' \
        f'  "dependencies": {{\n{deps}  }}\n}}'
    numbered = "\n".join(f"{i + 1:6}→{ln}" for i, ln in enumerate(pkg.split("\n")))
    code = ("#!/usr/bin/env node\n\n/**\n * CLI entry point for happy command\n *\n"
            " * Simple argument parsing without any CLI framework dependencies\n */\n"
            "import { start } from './start'\nconst secretSauce = 42\n")
    licensed = "// Copyright 2024 Example Ltd.\n// Licensed under MIT.\nexport const x = 1\n"
    path = write_jsonl(tmp_path / "r.jsonl", [
        user("What is this package?"),
        call("Read", {"file_path": "/r/package.json"}, "a", "m1"),
        result(numbered, "a"),
        call("Read", {"file_path": "/r/src/index.ts"}, "b", "m2"),
        result(code, "b"),
        call("Read", {"file_path": "/r/src/x.ts"}, "c", "m3"),
        result(licensed, "c"),
    ])
    sent = render(read_turns(path)[0])
    assert '"name": "slopus",' in sent and '"description": "Session sharing CLI",' in sent
    assert '"dep-60"' not in sent and "characters cut" in sent
    assert "CLI entry point for happy command" in sent
    assert "Simple argument parsing without any CLI framework dependencies" in sent
    assert "secretSauce" not in sent and "/usr/bin/env" not in sent and "*/" not in sent
    assert "Copyright" not in sent and "export const x" not in sent


def test_files_that_hold_secrets_are_never_kept(tmp_path: Path) -> None:
    """A .env written or read is not a document: its body never goes out, even where no
    redaction rule would recognise a value."""
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Set up the env."),
        call("Write", {"file_path": "/r/.env", "content": "DB_PASS=hunter2horse\n"}, "a", "m1"),
        result("ok", "a"),
        call("Bash", {"command": "cat > .env.local <<'EOF'\nADMIN_PIN=884412\nEOF"}, "b", "m2"),
        result("", "b"),
        call("Read", {"file_path": "/r/.npmrc"}, "c", "m3"),
        result("     1→//registry.npmjs.org/:_authToken=abc123plain", "c"),
        call("Write", {"file_path": "/r/.env.example", "content": "DB_PASS=changeme\n"}, "d",
             "m4"),
        result("ok", "d"),
    ])
    sent = render(read_turns(path)[0])
    assert "hunter2horse" not in sent and "884412" not in sent and "abc123plain" not in sent
    assert "DB_PASS=changeme" in sent  # an example file is a document


def test_a_look_at_the_system_is_a_finding(tmp_path: Path) -> None:
    """`cat /proc/cmdline` answers a question (a project file read does not); a long
    command output does not go."""
    log = "\n".join(f"collecting module_{i} ... ok" for i in range(60)) + \
        "\n\n===== 60 passed in 12.40s =====\n"
    path = write_jsonl(tmp_path / "o.jsonl", [
        user("Why is / only 32G?"),
        call("Bash", {"command": "cat /proc/cmdline"}, "a", "m1"),
        result("BOOT_IMAGE=/casper/vmlinuz rdinit=/vtoy/vtoy --- quiet splash", "a"),
        call("Bash", {"command": "cat src/settings.py"}, "b", "m2"),
        result("DEBUG = True", "b"),
        call("Bash", {"command": "pytest -q"}, "c", "m3"),
        result(log, "c"),
    ])
    sent = render(read_turns(path)[0])
    assert "BOOT_IMAGE=/casper/vmlinuz rdinit=/vtoy/vtoy" in sent
    assert "DEBUG = True" not in sent
    assert "60 passed in 12.40s" not in sent and "module_1 " not in sent


def test_a_short_output_outlives_what_was_written_under_pressure() -> None:
    """A status line says what a check found in a few bytes: it goes with the calls,
    after what a Write carried and before the session's own words are cut short."""
    from capture.transcript import OUTPUT_PREFIX

    body = "\n".join(f"- rule {i}: keep module_{i} small" for i in range(40))
    turns = [t("prompt", "Where do builds run?"),
             t("tool_call", "Bash: machinectl list", "Bash"),
             t("detail", OUTPUT_PREFIX + "chroot container systemd-nspawn debian 13", "Bash"),
             t("tool_call", "Write docs/RULES.md", "Write"),
             t("detail", body, "Write"),
             t("prose", "Builds run in the chroot machine. " * 12)]
    without = [x for x in turns if x.tool != "Write"]
    out = fit(turns, _bytes(without) - 10)
    sent = render(out)
    assert "chroot container systemd-nspawn debian 13" in sent
    assert "rule 39" not in sent


def test_a_summary_that_must_shrink_sheds_its_retold_code_first() -> None:
    """Claude Code's summaries list the person's messages in their middle: cutting the
    middle lost them; the retold code goes first now."""
    code = "\n".join(f"   - src/mod_{i}.py: def handler_{i}(): return {i}" for i in range(80))
    work = "\n".join(f"   - step {i}: wired retry_{i} into the upload path" for i in range(40))
    core = ("Summary:\n1. Primary Request and Intent:\n   Make uploads retry.\n"
            "2. Key Technical Concepts:\n{concepts}"
            "3. Files and Code Sections:\n{code}"
            "4. Errors and fixes:\n   - 503 from the CDN: retried with backoff.\n"
            "5. All user messages:\n   - \"use exponential backoff, never a fixed sleep\"\n"
            "6. Pending Tasks:\n   - document the retry policy\n"
            f"7. Current Work:\n{work}\n")
    summary = core.format(concepts="   - httpx, tenacity, asyncio\n", code=code + "\n")
    turns = [t("prompt", "Continue."), t("summary", summary), t("prose", "Resuming. " * 30)]
    room = len(core.format(concepts="", code="").encode()) + 100
    out = fit(turns, room * SUMMARY_SHARE)
    (kept,) = [x for x in out if x.kind == "summary"]
    assert "never a fixed sleep" in kept.text and "503 from the CDN" in kept.text
    assert "handler_40" not in kept.text and "3. Files and Code Sections:" in kept.text
    assert "step 39" in kept.text


def test_a_call_line_said_again_goes_before_the_answers_are_cut() -> None:
    """The same file edited a ninth time says nothing the first line did not; a call a
    failure hangs under stays, and a prompt starts the count again."""
    answer = "The retry now backs off exponentially, capped at 30 s. " * 6
    turns = [t("prompt", "Make uploads retry."),
             *[t("tool_call", "Edit src/upload.py", "Edit") for _ in range(12)],
             t("tool_call", "Bash: pytest -q", "Bash"),
             t("tool_error", "Exit code 1 · 1 failed", "Bash"),
             t("tool_call", "Bash: pytest -q", "Bash"),
             t("tool_error", "Exit code 1 · 1 failed", "Bash"),
             t("prose", answer),
             t("prompt", "Again."),
             t("tool_call", "Edit src/upload.py", "Edit")]
    out = fit(turns, _bytes(turns) - 100)
    calls = [x.text for x in out if x.kind == "tool_call"]
    assert calls == ["Edit src/upload.py", "Bash: pytest -q", "Bash: pytest -q",
                     "Edit src/upload.py"]
    assert answer.strip() in render(out)


def test_a_background_agents_report_is_kept_under_its_outcome(tmp_path: Path) -> None:
    notice = ("<task-notification>\n<task-id>aae161c</task-id>\n<status>completed</status>\n"
              "<summary>Agent \"Fix lint errors and push\" completed</summary>\n<result>Done. "
              "Converted the if/else chain to a switch (staticcheck QF1003).\n- Removed the "
              "unused `extractTextContent` function\n</result>\n</task-notification>")
    path = write_jsonl(tmp_path / "b.jsonl", [user("Fix lint in the background."), user(notice)])
    sent = render(read_turns(path)[0])
    assert "Background: Agent \"Fix lint errors and push\" completed" in sent
    assert "Removed the unused `extractTextContent` function" in sent
    assert "<result>" not in sent


def test_the_comments_of_written_code_say_why(tmp_path: Path) -> None:
    code = ("// Auto-start the next session when a period completes\nfunction tick() {\n"
            "  remaining -= 1; // tick\n}\n# x = 1\n") \
        + "".join(f"  slot{i} += {i};\n" for i in range(30))  # over SMALL_BYTES
    path = write_jsonl(tmp_path / "c.jsonl", [
        user("Make it auto-start."),
        call("Write", {"file_path": "/r/script.js", "content": code}, "a", "m1"),
        result("ok", "a"),
    ])
    sent = render(read_turns(path)[0])
    assert "// Auto-start the next session when a period completes" in sent
    assert "defines: function tick() {" in sent
    assert "remaining -= 1" not in sent and "x = 1" not in sent


def test_a_flag_the_program_does_not_know_is_an_error_whatever_the_exit_code(
        tmp_path: Path) -> None:
    out = "flag provided but not defined: -versions\nusage: go mod graph [-go=version] [-x]"
    path = write_jsonl(tmp_path / "f.jsonl", [
        user("Check x/net."),
        call("Bash", {"command": "go mod graph -versions golang.org/x/net || echo done"}, "a",
             "m1"),
        result(out, "a"),
    ])
    turns = read_turns(path)[0]
    assert [t.kind for t in turns if t.tool == "Bash"] == ["tool_call", "tool_error"]
    assert "exited 0, but printed: flag provided but not defined: -versions" in render(turns)


def test_a_generic_failure_line_keeps_the_line_that_says_why(tmp_path: Path) -> None:
    """"Process completed with exit code 1" says only that CI failed; the line before it
    says why (a CI log fetched with `gh run view --log-failed` exits 0)."""
    log = ("Build\tBuild\t2026-02-02T03:34:31.1Z go: go.mod requires go >= 1.24.0 (running "
           "go 1.23.12; GOTOOLCHAIN=local)\nBuild\tBuild\t2026-02-02T03:34:31.9Z ##[error]"
           "Process completed with exit code 1.\n")
    path = write_jsonl(tmp_path / "ci.jsonl", [
        user("Why is CI red?"),
        call("Bash", {"command": "gh run view 215 --log-failed 2>&1 | head -200"}, "a", "m1"),
        result(log, "a"),
    ])
    sent = render(read_turns(path)[0])
    assert "go: go.mod requires go >= 1.24.0 (running go 1.23.12; GOTOOLCHAIN=local)" in sent
    assert "Process completed with exit code 1." in sent


def test_a_message_cut_short_keeps_its_findings_not_its_opening() -> None:
    """With room for a sliver of each message, the sentence that names what was found
    (code, a value, a cause) is kept, not "Ah! The issue is clear now."."""
    finding = ("Ah! The issue is clear now. The search string expects a quote after the "
               "class, but in the HTML we have `<div class=\"tool-call collapsed\"` instead. "
               "I am glad we looked into this together today. Let me fix the test now.")
    chatter = [" ".join(f"{w}{i}" for w in ("alpha", "bravo", "charlie", "delta", "echo",
                                            "foxtrot", "golf", "hotel") * 4) + "."
               for i in range(10)]
    turns = [t("prompt", "Why does the HTML test fail?"), t("prose", finding),
             *[t("prose", c) for c in chatter]]
    out = fit(turns, _bytes(turns) * 2 // 3)
    sent = render(out)
    assert "but in the HTML we have `<div class=\"tool-call collapsed\"` instead." in sent
    assert "Ah! The issue is clear now. […]" not in sent


def test_a_code_read_keeps_its_doc_comments_with_what_they_document(tmp_path: Path) -> None:
    """What code says of itself ("Lines that fail to parse are silently skipped." above
    the function) is what a fact rests on; the listing, an undocumented line and a line
    that assigns a credential are not sent, and under pressure the comments go first."""
    code = ("// Package jsonl parses JSONL files.\npackage jsonl\n\n"
            "type Scanner struct {\n\t// MaxLineSize is the longest line in bytes.\n"
            "\t// Defaults to 10MB if not set.\n\tMaxLineSize int\n}\n\n"
            "// Scan calls fn for each parsed line.\n// Lines that fail to parse are silently "
            "skipped.\nfunc (s *Scanner) Scan(path string) error {\n\treturn nil\n}\n\n"
            "const undocumented = 42\n// The key the tests sign with.\nvar apiToken = \"zq81\"\n")
    numbered = "\n".join(f"{i + 1:6}→{ln}" for i, ln in enumerate(code.split("\n")))
    path = write_jsonl(tmp_path / "d.jsonl", [
        user("How does the scanner treat bad lines?"),
        call("Read", {"file_path": "/r/internal/jsonl/scanner.go"}, "a", "m1"),
        result(numbered, "a"),
        user("Thanks."),
    ])
    turns = read_turns(path)[0]
    sent = render(turns)
    documents = next(x for x in turns if "scanner.go documents:" in x.text)
    assert "// Lines that fail to parse are silently skipped.\n" \
           "func (s *Scanner) Scan(path string) error {" in documents.text
    assert "// Defaults to 10MB if not set.\nMaxLineSize int" in documents.text
    assert "return nil" not in sent and "undocumented" not in sent and "zq81" not in sent
    assert documents.text not in render(fit(turns, _bytes(turns) - 20))


def test_the_first_write_of_a_file_says_where_it_lives(tmp_path: Path) -> None:
    """Paths under the session's directory are shown relative to it, but the first write
    or command that names a file keeps it whole: where the project lives is a fact."""
    def in_dir(rec: dict) -> dict:  # type: ignore[type-arg]
        return {**rec, "cwd": "/Users/me/dev/pomodoro"}
    path = write_jsonl(tmp_path / "p.jsonl", [
        user("Build a pomodoro timer."),
        in_dir(call("Write", {"file_path": "/Users/me/dev/pomodoro/index.html",
                              "content": "<html></html>"}, "a", "m1")),
        result("ok", "a"),
        in_dir(call("Edit", {"file_path": "/Users/me/dev/pomodoro/index.html",
                             "old_string": "<html>", "new_string": "<html lang=en>"}, "b", "m2")),
        result("ok", "b"),
        in_dir(call("Bash", {"command": "tidy -q /Users/me/dev/pomodoro/index.html"}, "c", "m3")),
        result("ok", "c"),
        in_dir(call("Bash", {"command": "wc -c /Users/me/dev/pomodoro/app.js"}, "d", "m4")),
        result("12 app.js", "d"),
    ])
    calls = [x.text for x in read_turns(path)[0] if x.kind == "tool_call"]
    assert calls == ["Write /Users/me/dev/pomodoro/index.html", "Edit index.html",
                     "Bash: tidy -q index.html", "Bash: wc -c /Users/me/dev/pomodoro/app.js"]


def test_what_git_says_it_did_is_kept_from_a_long_output_and_under_pressure(
        tmp_path: Path) -> None:
    """"[feature/x 07a998d] fix(test): …" records the commit made; a long hook output
    around it does not hide it, and it outlives the other short outputs when the room
    is short."""
    hooks = "\n".join(f"lint-staged: step {i} ok" for i in range(30))
    out = f"{hooks}\n[feature/html 07a998d] fix(test): match the tool-call prefix\n" \
          " 1 file changed, 1 insertion(+), 1 deletion(-)"
    path = write_jsonl(tmp_path / "g.jsonl", [
        user("Commit the fix."),
        call("Bash", {"command": "git commit -am 'fix(test): match the tool-call prefix'"},
             "a", "m1"),
        result(out, "a"),
        call("Bash", {"command": "zfs list -H -o name"}, "b", "m2"),
        result("rpool/data", "b"),
    ])
    turns = read_turns(path)[0]
    sent = render(turns)
    assert "[feature/html 07a998d] fix(test): match the tool-call prefix" in sent
    assert "step 12 ok" not in sent
    crowded = turns + [t("prose", " ".join(f"{w}{i}" for w in ("alpha", "bravo", "charlie",
                                                               "delta", "echo") * 8) + ".")
                       for i in range(6)]
    tight = render(fit(crowded, _bytes(crowded) // 3))
    assert "[feature/html 07a998d]" in tight and "rpool/data" not in tight


def test_a_comment_that_narrates_a_statement_is_not_documentation() -> None:
    from capture.written import documented

    code = ("package p\n\n// Retry says how often a call is tried again.\nconst Retry = 3\n\n"
            "func run() {\n\t// Clean up any running processes first\n\tif proc != nil {\n"
            "\t\t\t// the timer that stops a hung child process\n\t\t\tdeadline := 5\n\t}\n}\n")
    said = documented(code)
    assert "// Retry says how often a call is tried again.\nconst Retry = 3" in said
    assert "Clean up" not in said and "deadline" not in said


def test_an_announcement_that_says_what_was_decided_is_kept() -> None:
    """"Let me revert and use a different approach - we'll use subpath imports" announces
    a call and states the decision: shortening narration keeps it."""
    decided = ("Good, we're using ESM modules. However, TypeScript path aliases don't work "
               "directly with Node.js ESM. Let me revert the change and use a different "
               "approach - we'll use subpath imports in package.json:")
    filler = [t("prose", f"Let me look at module_{i} next. It has {i} exports.") for i in range(3)]
    turns = [t("prompt", "Clean up the imports."), t("prose", decided),
             t("tool_call", "Edit package.json", "Edit"),
             *[x for f in filler for x in (f, t("tool_call", f"Bash: rg m{f.text[20]}", "Bash"))]]
    out = fit(turns, _bytes(turns) - 60)
    assert "we'll use subpath imports in package.json" in render(out)
