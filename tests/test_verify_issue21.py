"""Verifier mechanisms of issue 21, each on a small conversation: a correction must be
about the same claim, the fact's named speaker first, a proposal the person overruled or
whose call failed, a fix claimed and then its check failing, hedges and opinions stated
as found, quotes of the assistant's thinking and of a subagent, and a quote whole in a
tool's input though cut in its call line."""

from __future__ import annotations

from pathlib import Path

from records import assistant, call, convo, result, user, write_jsonl

from capture import verify as v
from capture.transcript import Turn, read_turns
from capture.verify import verify


def test_a_bullet_that_starts_with_actually_is_no_correction() -> None:
    claim = "The Plan Evolution section shows 0 todos because the TodoItem model is wrong"
    assert not v.corrects("Worth keeping: - Exploration: 48% - Actually useful signal about "
                          "the plan evolution section and todo counts", claim, claim)
    assert v.corrects("Actually, the Plan Evolution section reads todos from another file.",
                      claim, claim)


def test_the_speaker_the_fact_names_is_checked_before_a_later_correction() -> None:
    chat = convo(
        ("assistant", "Found the root cause: the TodoItem model expects id and priority."),
        ("user", "Actually, the TodoItem model is fine, the loader is wrong."),
    )
    got = verify("The user diagnosed that the TodoItem model expects id and priority.",
                 "Found the root cause: the TodoItem model expects id and priority", chat)
    assert (got.supported, got.hint) == (True, "speaker")


def test_a_proposal_the_person_answered_otherwise_is_suspected() -> None:
    def chat(answer: str) -> list[Turn]:
        return convo(
            ("assistant", "The push failed due to large files. We need to use Git LFS for "
                          "the ZFS kernel modules. Let me set that up:"),
            ("call", "Bash: git reset --soft HEAD~1"),
            ("user", answer),
            ("assistant", "Done."),
        )
    quote = "We need to use Git LFS for the ZFS kernel modules"
    fact = "The ZFS kernel modules are stored with Git LFS."
    overruled = verify(fact, quote, chat("ignore the large file"))
    assert (overruled.supported, overruled.hint) == (True, "corrected_later")
    assert "ignore the large file" in overruled.hint_detail
    assert verify(fact, quote, chat("yes, go ahead")).hint is None
    # A finding is not a proposal: the person's next words do not overrule it.
    found = convo(("assistant", "The ZFS kernel modules are 103 MB each."),
                  ("user", "ignore the large file"))
    assert verify("The ZFS kernel modules are 103 MB each.",
                  "The ZFS kernel modules are 103 MB each", found).hint is None


def test_a_fix_claimed_then_its_check_failing_is_suspected() -> None:
    def chat(outcome: tuple[str, str]) -> list[Turn]:
        return convo(
            ("assistant", "All 73 critical issues resolved (100% success rate)."),
            ("user", "build it"),
            ("call", "Bash: ./build-livecd.sh --all"),
            outcome,
        )
    fact = "The PATCHER run fixed all 73 issues."
    quote = "All 73 critical issues resolved (100% success rate)"
    failed = verify(fact, quote, chat(("fail", "Exit code 2 · E: module core_system failed")))
    assert (failed.supported, failed.hint) == (True, "corrected_later")
    assert verify(fact, quote, chat(("call", "Bash: ls"))).hint is None


def test_hedges_and_opinions_stated_as_found() -> None:
    chat = convo(
        ("assistant", "The 32GB cap could be set by the casper scripts at boot."),
        ("assistant", "A queue worker is much cleaner than retrying inline in the handler."),
        ("assistant", "I couldn't find any retry logic in the upload client."),
    )
    guess = verify("The 32GB cap is set by the casper scripts at boot.",
                   "The 32GB cap could be set by the casper scripts at boot", chat)
    assert guess.hint == "hedged"
    view = verify("A queue worker is much cleaner than retrying inline.",
                  "A queue worker is much cleaner than retrying inline in the handler", chat)
    assert view.hint == "hedged"
    owned = verify("Claude considers a queue worker cleaner than retrying inline.",
                   "A queue worker is much cleaner than retrying inline in the handler", chat)
    assert owned.hint is None
    found = verify("The upload client has no retry logic.",
                   "I couldn't find any retry logic in the upload client", chat)
    assert (found.supported, found.hint) == (True, None)


def _session(tmp_path: Path) -> tuple[list[Turn], list[tuple[str, str, str]]]:
    thinking = {"type": "thinking", "thinking": "The shim probably fails because python is "
                "missing; python3 exists on this machine.", "signature": "x"}
    side = user("Look in src/: the loader reads 12 files from the cache directory.",
                isSidechain=True)
    cmd = ("curl -sS https://api.example.test/v1/jobs " + "-H 'X-Trace: on' " * 15
           + "--data-binary @payload.json")
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Why does python fail?"),
        assistant([thinking, {"type": "text", "text": "Let me check."}], "m1"),
        side,
        call("Bash", {"command": cmd}, "a", "m2"),
        result("{}", "a"),
    ])
    turns, stats, _ = read_turns(path, tool_texts=True)
    return turns, stats.tool_texts


def test_quotes_of_thinking_and_of_a_subagent_are_in_the_transcript(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path)
    assert not any("probably fails" in t.text for t in turns)  # never sent
    quote = "python3 exists on this machine"
    got = verify("python3 exists on this machine.", quote, turns, tool_texts=tools)
    assert (got.supported, got.speaker) == (True, "assistant")
    guess = verify("The shim fails because python is missing.",
                   "The shim probably fails because python is missing", turns, tool_texts=tools)
    assert (guess.supported, guess.hint) == (True, "hedged")
    said = "the loader reads 12 files from the cache directory"
    assert verify("The loader reads 12 files from the cache.", said, turns,
                  tool_texts=tools).supported
    assert verify("The loader reads 21 files from the cache.", said, turns,
                  tool_texts=tools).check == "number_mismatch"


def test_a_command_cut_in_its_call_line_is_still_a_tool_line(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path)
    cmd = "-H 'X-Trace: on' --data-binary @payload.json"
    got = verify("The job is posted with --data-binary @payload.json.", cmd, turns,
                 tool_texts=tools)
    assert (got.supported, got.check) == (False, "tool_line")


def test_a_quote_inside_a_failure_is_suspected_only_when_the_failure_is_about_it() -> None:
    chat = convo(
        ("call", "Bash: ./monitor-build.sh"),
        ("fail", "Exit code 127 · /bin/bash: line 1: ./monitor-build.sh: No such file or "
                 "directory"),
        ("call", "Bash: git push origin main"),
        ("fail", "Exit code 1 · remote: error: File kernel/zfs.ko is 103.31 MB; this "
                 "exceeds GitHub's file size limit of 100.00 MB"),
    )
    step = verify("Build progress is watched with ./monitor-build.sh.", "./monitor-build.sh",
                  chat)
    assert step.hint == "corrected_later"
    message = verify("kernel/zfs.ko is 103.31 MB, over GitHub's 100 MB file limit.",
                     "File kernel/zfs.ko is 103.31 MB; this exceeds GitHub's file size limit "
                     "of 100.00 MB", chat)
    assert (message.supported, message.hint) == (True, None)


def test_a_short_quote_is_suspected_only_under_a_rule() -> None:
    chat = convo(("user", "plan first"), ("user", "continue"))
    assert verify("The user asked to plan first.", "plan first", chat).hint is None
    got = verify("The user wants the work to continue without review.", "continue", chat)
    assert (got.supported, got.hint) == (True, "too_short")
    assert "without" in got.hint_detail


def test_an_ellipsis_is_wrong_only_when_what_it_leaves_out_changes_the_meaning() -> None:
    chat = convo(("assistant", "The cache is rebuilt on every deploy and then warmed by "
                               "the cron job, but not on staging."))
    fine = verify("The cache is rebuilt on every deploy and warmed by the cron job.",
                  "The cache is rebuilt on every deploy … warmed by the cron job", chat)
    assert (fine.supported, fine.check) == (True, None)
    wrong = verify("The cache is rebuilt on every deploy, on staging too.",
                   "The cache is rebuilt on every deploy … on staging", chat)
    assert (wrong.supported, wrong.check) == (False, "elision")


def test_text_blocks_of_one_answer_with_calls_between_are_one_place() -> None:
    chat = convo(
        ("user", "Fix the flaky test."),
        ("assistant", "The test shares a temp directory with its neighbour."),
        ("call", "Bash: pytest -x tests/test_upload.py"),
        ("call", "Bash: pytest -x tests/test_download.py"),
        ("call", "Bash: pytest -x tests/test_sync.py"),
        ("assistant", "Each test now gets its own tmp_path."),
        ("user", "ok"), ("assistant", "Anything else?"), ("user", "no"),
        ("assistant", "Each test now gets its own tmp_path."),
    )
    joined = verify("The flaky test shared a temp directory; each test now gets its own "
                    "tmp_path.", "The test shares a temp directory with its neighbour. Each "
                    "test now gets its own tmp_path.", chat)
    assert (joined.supported, joined.check) == (True, None)
    far = convo(("assistant", "The test shares a temp directory with its neighbour."),
                ("user", "why?"), ("assistant", "Because of the fixture."), ("user", "and?"),
                ("assistant", "Each test now gets its own tmp_path."))
    assert verify("Each test gets its own tmp_path instead of a shared directory.",
                  "The test shares a temp directory with its neighbour. Each test now gets "
                  "its own tmp_path.", far).check == "stitched"


def test_what_a_write_carried_supports_a_fact_about_the_file_unless_it_failed() -> None:
    def chat(outcome: Turn | None) -> list[Turn]:
        body = Turn("assistant", "detail", "const BREAK_TIME = 5 * 60; // 5 minutes", 3, 0,
                    tool="Write")
        turns = convo(("user", "Add a break timer."), ("call", "Write timer.js"))
        turns[1] = Turn("assistant", "tool_call", "Write timer.js", 2, 0, tool="Write")
        return [*turns, body, *([outcome] if outcome else []),
                *convo(("assistant", "Done."))]
    fact = "The break length is 5 minutes (BREAK_TIME = 5 * 60)."
    quote = "const BREAK_TIME = 5 * 60; // 5 minutes"
    assert verify(fact, quote, chat(None)).supported
    aborted = Turn("user", "tool_error", "Permission prompt was aborted.", 4, 0, tool="Write")
    assert verify(fact, quote, chat(aborted)).check == "tool_line"
    tools = [("input", "Write", "timer.js\nconst LONG_BREAK = 15 * 60;"), ("output", "Write", "ok")]
    assert verify("The long break is 15 minutes (LONG_BREAK = 15 * 60).",
                  "const LONG_BREAK = 15 * 60;", chat(None), tool_texts=tools).supported


def test_a_word_both_negated_and_affirmed_is_no_inversion() -> None:
    assert not v.flips_negation(
        "Agent spawns are detected from user entries with toolUseResult.agentId, not "
        "queue-operation entries.", "user entries with toolUseResult.agentId → agent spawn")
    assert v.flips_negation("The cache is not rebuilt on deploy.",
                            "The cache is rebuilt on deploy.")


def test_a_qualified_name_is_found_by_its_last_part() -> None:
    assert v.missing_terms("jsonl.ScanInto skips bad lines.",
                           "func ScanInto(r io.Reader) skips bad lines")[0] == []
    assert v.missing_terms("jsonl.ScanAll skips bad lines.",
                           "func ScanInto(r io.Reader) skips bad lines")[0] == ["jsonl.ScanAll"]


def test_a_quantity_the_quote_gives_otherwise_is_known_wrong() -> None:
    chat = convo(("assistant", "MaxLineSize defaults to 10MB if not set; the fade takes "
                               "0.6s and the limit is 100.00 MB."))
    quote = "MaxLineSize defaults to 10MB if not set"
    assert verify("MaxLineSize defaults to 1MB.", quote, chat).check == "number_mismatch"
    assert verify("MaxLineSize defaults to 10 MB.", quote, chat).supported
    assert verify("The limit is 100 MB.", "the limit is 100.00 MB", chat).supported


def test_a_command_the_person_ran_with_a_bang_is_a_tool_line() -> None:
    chat = convo(("user", "! open index.html"), ("assistant", "The page opened."))
    got = verify("The timer was verified working in the browser.",
                 "<bash-input>open index.html</bash-input>", chat)
    assert (got.supported, got.check) == (False, "tool_line")


def test_a_line_marked_wrong_states_the_wrong_way() -> None:
    chat = convo(("assistant", "How agent spawns show up:\nWRONG: queue-operation entries "
                               "with agentId → agent spawn\nRIGHT: user entries with "
                               "toolUseResult.agentId → agent spawn"))
    inverted = verify("Agent spawns are recorded as queue-operation entries with an agentId.",
                      "queue-operation entries with agentId → agent spawn", chat)
    assert (inverted.supported, inverted.check) == (False, "negation_flip")
    right = verify("Agent spawns are user entries with toolUseResult.agentId.",
                   "user entries with toolUseResult.agentId → agent spawn", chat)
    assert right.supported and right.check is None


def test_more_ways_a_fact_names_its_speaker_and_a_diagnosis_is_refuted() -> None:
    chat = convo(
        ("assistant", "The agentId is nested inside toolUseResult, not at the top level!"),
        ("assistant", "The generated HTML is missing tool-call divs."),
        ("call", "Bash: go run ./cmd export"),
        ("assistant", "Checked the generated HTML again: nothing is missing, the tool-call "
                      "divs are rendering correctly."),
    )
    said = verify("The user established that agentId is nested inside toolUseResult.",
                  "The agentId is nested inside toolUseResult, not at the top level", chat)
    assert said.hint == "speaker"
    refuted = verify("The generated HTML lacked tool-call divs.",
                     "The generated HTML is missing tool-call divs", chat)
    assert refuted.hint == "corrected_later"


def test_an_opposite_verb_under_one_negation_is_a_paraphrase() -> None:
    assert not v.flips_meaning("The `--cache` flag is disabled in CI.",
                               "the `--cache` flag is not enabled in CI")
    assert v.flips_meaning("The `--cache` flag is disabled in CI.",
                           "the `--cache` flag is enabled in CI")


def test_a_value_moved_from_a_to_b_is_checked_against_b() -> None:
    chat = convo(("assistant", "Change go directive from 1.24.0 to 1.21 to match CI (Go 1.23) "
                               "in go.mod, then rerun the build."))
    quote = "Change go directive from 1.24.0 to 1.21 to match CI (Go 1.23)"
    wrong = verify("The go directive in go.mod was changed to 1.23 to match CI.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert "1.21" in wrong.detail
    right = verify("The go directive in go.mod was changed to 1.21 to match CI.", quote, chat)
    assert right.supported and right.check is None


def test_a_code_span_the_quote_gives_otherwise_is_a_changed_name() -> None:
    chat = convo(
        ("assistant", "Spawning with args `['--print', cmd, '--output-format', 'stream-json']` "
                      "and the key is const KEY = \"nested-timers-current-profile\"; run it with "
                      "go test -v ./cmd -run TestHTMLOutput_ValidStructure to check."),
        ("user", "The pkg/export package has its own tests."),
    )
    said = chat[0].text
    for fact, quote in (
        ("The CLI is spawned with `--output-format json`.",
         "['--print', cmd, '--output-format', 'stream-json']"),
        ("The profile is stored under `nested-timers-current-profiles`.",
         'the key is const KEY = "nested-timers-current-profile"'),
        ("Run `go test -v ./pkg/export -run TestHTMLOutput_ValidStructure`.",
         "go test -v ./cmd -run TestHTMLOutput_ValidStructure"),
    ):
        assert quote in said
        got = verify(fact, quote, chat)
        assert (got.supported, got.check) == (False, "identifier_mismatch"), fact
    # What the quote says, a placeholder, or two words of prose around a name: no slip.
    for fact, quote in (
        ("Run one test with `go test -v ./cmd -run <TestName>`.",
         "go test -v ./cmd -run TestHTMLOutput_ValidStructure"),
        ("The CLI is spawned with `--output-format stream-json`.",
         "['--print', cmd, '--output-format', 'stream-json']"),
        ("An `if KEY` guard is dead code.",
         'the key is const KEY = "nested-timers-current-profile"'),
    ):
        got = verify(fact, quote, chat)
        assert got.check != "identifier_mismatch", fact


def test_a_negation_the_fact_drops_is_suspected() -> None:
    chat = convo(("user", "auth command should not exist, we just show the QR code on start"),
                 ("user", "Don't stop until all functions are ported and you have 100% coverage"))
    dropped = verify("Authentication is done through a dedicated auth command.",
                     "auth command should not exist", chat)
    assert (dropped.supported, dropped.hint) == (True, "negation_flip")
    assert "not" in dropped.hint_detail
    kept = verify("There is no auth command: the QR code is shown on start.",
                  "auth command should not exist, we just show the QR code on start", chat)
    assert kept.hint is None
    rule = verify("The port must reach 100% coverage.", "Don't stop until all functions are "
                  "ported and you have 100% coverage", chat)
    assert rule.hint != "negation_flip"


def test_a_report_of_work_done_then_the_person_reporting_a_failure_is_suspected() -> None:
    def chat(answer: str) -> list[Turn]:
        return convo(
            ("assistant", "## Implementation complete! ✅ Changes are immediately persisted to "
                          "localStorage under `nested-timers-profiles`."),
            ("user", answer),
        )
    fact = "Automatic saving works: every change is persisted to localStorage."
    quote = "Changes are immediately persisted to localStorage"
    failing = verify(fact, quote, chat("When I create a timer the app hangs and I have to "
                                       "kill it."))
    assert (failing.supported, failing.hint) == (True, "corrected_later")
    assert "hangs" in failing.hint_detail
    assert verify(fact, quote, chat("Great, now add a dark mode.")).hint is None
    # A detail of the report that claims nothing works is not what the person contradicts.
    key = verify("Profiles are stored under `nested-timers-profiles`.",
                 "persisted to localStorage under `nested-timers-profiles`",
                 chat("When I create a timer the app hangs."))
    assert key.hint is None


def test_an_instruction_the_answer_turns_down_at_once_is_suspected() -> None:
    def chat(answer: str) -> list[Turn]:
        return convo(("user", "Set target to /dev/sdb1"), ("assistant", answer))
    fact = "The USB persistence target is /dev/sdb1."
    refused = verify(fact, "Set target to /dev/sdb1", chat(
        "The scripts target the entire device (like /dev/sdb), not individual partitions "
        "(like /dev/sdb1). Use /dev/sdb."))
    assert (refused.supported, refused.hint) == (True, "corrected_later")
    done = verify(fact, "Set target to /dev/sdb1", chat("Targeting /dev/sdb1 now; not "
                                                         "touching /dev/sda."))
    assert done.hint is None


def test_a_later_change_log_that_replaced_the_claims_thing_corrects_it() -> None:
    chat = convo(
        ("assistant", "Features: **Start/Pause/Reset buttons** for timer control."),
        ("user", "Make it one button."),
        ("assistant", "Replaced separate Start/Pause buttons with one intelligent toggle button."),
    )
    got = verify("The timer has separate Start, Pause and Reset buttons.",
                 "**Start/Pause/Reset buttons** for timer control", chat)
    assert (got.supported, got.hint) == (True, "corrected_later")
    other = convo(("assistant", chat[0].text), ("user", chat[1].text),
                  ("assistant", "Replaced the sound file with a softer chime."))
    assert verify("The timer has separate Start, Pause and Reset buttons.",
                  "**Start/Pause/Reset buttons** for timer control", other).hint is None


def test_a_verdict_speaks_of_the_sentence_before_it() -> None:
    claim = "The upload worker drops retries after the first timeout"
    later = ("Perfect! I traced the upload worker retries through three timeouts. "
             "It works as expected.")
    assert v.corrects(later, claim, claim)
    assert not v.corrects("Perfect! The theme switcher renders. It works as expected.",
                          claim, claim)


def test_a_persons_report_the_findings_contradict_is_suspected() -> None:
    def chat(first: str) -> list[Turn]:
        return convo(("user", first),
                     ("assistant", "I ran the exporter on the sample session and checked the "
                                   "header_row output. It works as expected."))
    fact = "The exporter drops the header_row."
    report = verify(fact, "The exporter output is missing the header_row entirely",
                    chat("The exporter output is missing the header_row entirely"))
    assert (report.supported, report.hint) == (True, "corrected_later")
    ask = verify(fact, "Make the exporter write the header_row first",
                 chat("Make the exporter write the header_row first"))
    assert ask.hint is None


def test_pieces_from_a_call_and_from_a_tools_output_are_stitched() -> None:
    chat = [
        Turn("user", "prompt", "Commit the migration.", 1, 0),
        Turn("assistant", "tool_call", "Bash: git commit -F msg.txt", 2, 100, tool="Bash"),
        Turn("assistant", "detail", "Migrate config to ESM\n- Converted to DEB822 format",
             2, 100, tool="Bash"),
        Turn("user", "tool_error", "exit 0 · warning: GPG validation disabled for development "
             "builds", 3, 200, tool="Bash"),
    ]
    got = verify("The DEB822 migration disables GPG validation for development builds.",
                 "Converted to DEB822 format ... GPG validation disabled for development builds",
                 chat)
    assert (got.supported, got.check) == (False, "stitched")
    assert "a tool call's text" in got.detail and "a tool's output" in got.detail
    # Two pieces of one assistant answer, with a call between them: one voice, no stitch.
    answer = convo(("assistant", "Converted to DEB822 format for every source."),
                   ("call", "Bash: apt-get update"),
                   ("assistant", "GPG validation stays enabled for release builds."))
    same = verify("Sources use DEB822 and GPG validation stays on for releases.",
                  "Converted to DEB822 format ... GPG validation stays enabled for release "
                  "builds", answer)
    assert same.check != "stitched"


def test_a_generalisation_is_a_judgement_spoken_or_thought() -> None:
    """"python3 is more commonly available on macOS" is a belief about the world, not
    something the session found; in the assistant's thinking or in its words alike."""
    fact = "`python` is not installed on macOS by default, so scripts must call python3."
    quote = "Let me use python3 instead, which is more commonly available on macOS systems"
    thought = verify(fact, quote, convo(("user", "Run the shim.")),
                     tool_texts=[("thinking", "assistant", quote + ".")])
    assert (thought.supported, thought.hint) == (True, "hedged")
    said = verify(fact, quote, convo(("assistant", quote + ".")))
    assert (said.supported, said.hint) == (True, "hedged")
    found = verify("The shim calls python3 on macOS.", "The shim now calls python3 on macOS "
                   "systems", convo(("assistant", "The shim now calls python3 on macOS "
                                                  "systems.")))
    assert found.hint is None


def test_what_a_written_file_says_is_not_that_it_was_run() -> None:
    usage = "stream <device>   Stream latest build directly to USB via ZFS"
    body = f"#!/bin/bash\n# direct-zfs-stream.sh usage:\n#   {usage}\n"
    texts = [("input", "Write", body)]
    chat = convo(("user", "Write the streaming script direct-zfs-stream.sh."))
    ran = verify("`direct-zfs-stream.sh stream <device>` was used to stream the build to USB.",
                 usage, chat, tool_texts=texts)
    assert (ran.supported, ran.hint) == (True, "tool_line")
    says = verify("`direct-zfs-stream.sh stream <device>` streams the latest build to USB.",
                  usage, chat, tool_texts=texts)
    assert (says.supported, says.hint) == (True, None)
    spoken = [Turn("user", "prompt", "Write the streaming script.", 1, 0),
              Turn("assistant", "tool_call", "Write direct-zfs-stream.sh", 2, 100, tool="Write"),
              Turn("assistant", "detail", "notes: # " + usage, 2, 100, tool="Write")]
    assert verify("The script was run to stream the latest build to USB via ZFS.", usage,
                  spoken).hint == "tool_line"


def test_an_ellipsis_the_transcript_itself_holds_is_no_elision() -> None:
    # Code said earlier (`}` everywhere): a short piece's hits run out before the quote.
    chat = convo(*[("assistant", f"Edited handler_{i}: `fn() {{ return {i} }}`.")
                   for i in range(60)],
                 ("assistant", "Two problems: 1. The decryption has a nested structure: "
                               "`{ c: { c: 'base64', t: 'encrypted' }, ... }` 2. Claude asks "
                               "for Bash permissions but we never granted them."))
    got = verify("Encrypted updates arrive nested as `{ c: { c: 'base64', t: 'encrypted' }, "
                 "... }`.", "The decryption has a nested structure: `{ c: { c: 'base64', t: "
                 "'encrypted' }, ... }`", chat)
    assert got.supported and got.check is None


def test_a_fact_that_calls_the_quoted_claim_wrong_is_no_inversion() -> None:
    chat = convo(("assistant", "The server generates new JWT tokens for each authentication "
                               "request, so they won't be identical."))
    got = verify("A test asserting identical tokens was wrong: the server issues a fresh JWT "
                 "on every authentication request.", "the server generates new JWT tokens for "
                 "each authentication request, so they won't be identical", chat)
    assert got.supported and got.check is None


def test_an_elided_piece_is_looked_for_after_the_piece_before_it() -> None:
    """"}" occurs inside the first piece too: the second piece is the one after it."""
    chat = convo(*[("assistant", f"Edited handler_{i}: `fn() {{ return {i} }}`.")
                   for i in range(60)],
                 ("assistant", "The config is `{ mode: { kind: strict }, level: high }` now."))
    got = verify("The config sets mode kind strict.",
                 "The config is `{ mode: { kind: strict }, … }`", chat)
    assert got.supported and got.check is None
