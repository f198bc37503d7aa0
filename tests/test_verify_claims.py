"""Verifier mechanisms that compare a fact's token with the nearest token of the same
kind (issue 21, third round): a setting's value, a move from one name to another, a
labelled field; a question or an offer stated as done; a self-assessment stated as a
finding; a guess the next search answered otherwise; a later "the actual name is …"; the
session's last word on a setting; an error that rejected what the fact states; a cue's
reach ending at its own list item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from records import call, convo, result, user, write_jsonl
from test_condense_results import say

from capture import claims as c
from capture import verify as v
from capture.transcript import Turn, read_turns
from capture.verify import verify

# ---- pure functions ----------------------------------------------------------------------


def test_settings_read_names_and_values_as_written() -> None:
    assert c.settings('"toggleMode" : true, "maxRecordings": 30') == {
        "togglemode": "true", "maxrecordings": "30"}
    assert c.settings("uses hold-to-record (toggleMode off).") == {"togglemode": "false"}
    assert c.settings("let's do maxrecordings = 30") == {"maxrecordings": "30"}
    # A plain word is no setting name without an explicit assignment.
    assert c.settings("the fix is on line 206") == {}


def test_a_setting_given_another_value_than_the_quote_gives() -> None:
    assert c.setting_changed("openwisprmod uses hold-to-record (toggleMode off).",
                             '"toggleMode" : true')
    assert not c.setting_changed("Tap mode is on (toggleMode true).", '"toggleMode" : true')


def test_a_move_from_one_name_to_another() -> None:
    quote = "Update argument parsing from --one-line to --two-line"
    assert "--one-line" in c.moved_from("Two-line mode is enabled with the --one-line flag.",
                                        quote)
    assert not c.moved_from("Two-line mode is enabled with the --two-line flag.", quote)
    # A fact that tells of the move itself is right.
    assert not c.moved_from("The --one-line flag was renamed to --two-line.", quote)
    # Prose, not names: "from start to finish" moves nothing.
    assert not c.moved_from("The run goes start to finish.", "from start to finish")
    assert c.moved_from("The socket path in .env is `HANDY_SOCKET_PATH=/v1/update`.",
                        "I have updated HANDY_SOCKET_PATH=/v1/update to a new path.")


def test_a_labelled_field_given_another_code_value() -> None:
    quote = "**Build command:** leave blank (or `echo noop`)"
    assert c.field_changed("The site uses `npm run build` as its build command.", quote)
    assert not c.field_changed("The site uses `echo noop` as its build command.", quote)
    # An error line is no field, and a fact quoting the value changes nothing.
    assert not c.field_changed("Running `python hoge.py` failed with 'error: target shim "
                               "binary not found'", "error: target shim binary not found")


def test_a_question_or_offer() -> None:
    assert c.asks("Want me to copy it into the repo and commit it? Something like "
                  "`session.jsonl`?")
    assert c.asks("Should I add a retry?")
    assert not c.asks("I copied it into the repo and committed it.")


def test_an_error_that_expected_something_else() -> None:
    quote = "pre-commit: Expected array, but received object"
    assert c.expected_otherwise("Hooks are objects keyed by hook name.", quote)
    assert not c.expected_otherwise("Hooks must be an array, not an object.", quote)


# ---- in the verifier ---------------------------------------------------------------------


def test_a_setting_the_quote_gives_otherwise_is_known_wrong() -> None:
    chat = convo(("assistant", 'The config now reads: "toggleMode" : true and '
                               '"spokenPunctuation" : true'))
    got = verify("openwisprmod uses hold-to-record (toggleMode off).",
                 '"toggleMode" : true', chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")
    ok = verify("openwisprmod uses tap-to-record (toggleMode true).", '"toggleMode" : true',
                chat)
    assert ok.supported and ok.hint is None


def test_a_fact_naming_the_old_side_of_a_move_is_known_wrong() -> None:
    chat = convo(("assistant", "Next: update argument parsing from --one-line to --two-line "
                               "so the name says what it shows."))
    got = verify("The compact two-line mode is enabled with the --one-line flag.",
                 "Update argument parsing from --one-line to --two-line", chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")
    assert verify("The compact two-line mode is enabled with the --two-line flag.",
                  "Update argument parsing from --one-line to --two-line", chat).supported


def test_a_field_given_another_value_is_known_wrong() -> None:
    chat = convo(("assistant", "Create a Static Site on Render:\n**Build command:** leave "
                               "blank (or `echo noop`)\n**Publish directory:** `.`"))
    got = verify("The Render static site uses `npm run build` as its build command.",
                 "**Build command:** leave blank (or `echo noop`)", chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")


def test_an_offer_stated_as_done_is_suspected() -> None:
    chat = convo(("assistant", "The transcript is at ~/.claude/projects/x.jsonl. Want me to "
                               "copy it into the repo and commit it? Something like "
                               "`session.jsonl`?"),
                 ("user", "thanks"))
    got = verify("The session transcript was committed to the repo as session.jsonl.",
                 "Want me to copy it into the repo and commit it? Something like "
                 "`session.jsonl`?", chat)
    assert (got.supported, got.hint) == (True, "hedged")
    assert "want me to" in got.hint_detail
    # The person's question is a request, not a hedge.
    asked = convo(("user", "Can you make the tests use pnpm instead of npm?"))
    assert verify("The user wants the tests run with pnpm instead of npm.",
                  "Can you make the tests use pnpm instead of npm?", asked).hint is None


def test_an_expectation_or_resemblance_is_a_hedge() -> None:
    chat = convo(("assistant", "Rebuilt and relaunched. The alert should appear now asking "
                               "you to open Settings."))
    got = verify("The new accessibility alert works and guides the user to System Settings.",
                 "The alert should appear now asking you to open Settings", chat)
    assert got.hint == "hedged"


def test_a_self_assessment_is_a_judgement_not_a_finding() -> None:
    chat = convo(("assistant", "Done. Summary:\n✅ Comprehensive error handling\n✅ Tests "
                               "pass"))
    got = verify("The status script has comprehensive error handling.",
                 "✅ Comprehensive error handling", chat)
    assert (got.supported, got.hint) == (True, "hedged")
    # Someone's view, said to be someone's view, is no suspicion.
    assert verify("The assistant judged the error handling comprehensive.",
                  "✅ Comprehensive error handling", chat).hint is None


def test_the_person_agreeing_is_a_named_speaker() -> None:
    chat = convo(("user", "why are the todos hidden?"),
                 ("assistant", "The todo predates your prompt. This is actually the correct "
                               "behavior!"))
    got = verify("The user agreed that hiding todos older than the prompt is the correct "
                 "behaviour.", "This is actually the correct behavior!", chat)
    assert (got.supported, got.hint) == (True, "speaker")


def test_a_guess_the_next_search_answers_otherwise_is_suspected() -> None:
    def chat(answer: str) -> list:
        return convo(
            ("user", "I hold down function and it records"),
            ("assistant", "That sounds like **SuperWhisper** — it uses the Fn key as "
                          "push-to-talk. Let me check."),
            ("call", "Bash: ls ~/Library/LaunchAgents/"),
            ("assistant", answer),
        )
    quote = "That sounds like **SuperWhisper**"
    fact = "The Fn push-to-talk app is SuperWhisper."
    got = verify(fact, quote, chat("**`homebrew.mxcl.open-wispr.plist`** — that's it. "
                                   "**Open Wispr**."))
    assert got.hint == "corrected_later" and "open wispr" in got.hint_detail.casefold()
    confirmed = verify(fact, quote, chat("**SuperWhisper** is running — that's it."))
    assert confirmed.hint != "corrected_later"


def test_a_later_actual_name_that_is_a_near_variant_corrects_the_fact() -> None:
    chat = convo(
        ("user", "The folder name is the cwd: /var/home/a/Code/ClaudeStatus would be "
                 "\"var-home-a-Code-ClaudeStatus\"."),
        ("call", "Bash: ls ~/.claude/projects/"),
        ("assistant", "I see the issue! The script looks for `var-home-a-Code-ClaudeStatus` "
                      "but the actual folder is named `-var-home-a-Code-ClaudeStatus` (with "
                      "a leading dash)."),
    )
    fact = "The projects folder name is the cwd without its leading slash: " \
           "var-home-a-Code-ClaudeStatus."
    got = verify(fact, "/var/home/a/Code/ClaudeStatus would be \"var-home-a-Code-ClaudeStatus\"",
                 chat)
    assert (got.hint, got.turn) == ("corrected_later", 0)
    assert "leading dash" in got.hint_detail


def test_the_sessions_last_word_on_a_setting_is_compared() -> None:
    def chat(value: str) -> list:
        return convo(
            ("assistant", "Last 10 dictations in the menu bar: just needs `maxRecordings: 10`."),
            ("user", f"let's do maxrecordings = {value}"),
            ("assistant", f'Wrote the config: "maxRecordings" : {value}'),
        )
    fact = "openwisprmod is configured with maxRecordings = 10."
    quote = "Just needs `maxRecordings: 10`."
    got = verify(fact, quote, chat("30"))
    assert (got.supported, got.hint) == (True, "number_mismatch")
    assert "turn 2" in got.hint_detail and "30" in got.hint_detail
    assert verify(fact, quote, chat("10")).hint is None


def test_an_error_rejecting_what_the_fact_states_is_suspected() -> None:
    chat = convo(("user", "Settings Error: hooks\n  pre-commit: Expected array, but received "
                          "object"))
    got = verify("Claude Code hooks are objects keyed by hook name.",
                 "pre-commit: Expected array, but received object", chat)
    assert (got.supported, got.hint) == (True, "negation_flip")


def test_a_correction_cue_speaks_of_its_own_list_item_only() -> None:
    claim = "The server is likely behind Cloudflare, which might be interfering with " \
            "WebSocket connections"
    later = ("You're right. Let me clarify:\n\n1. **The .js files** - I made an error "
             "creating test-socket.js as JavaScript. My mistake.\n\n2. **Server WebSocket "
             "issue** - there appears to be an issue connecting to the WebSocket endpoint.")
    assert not v.corrects(later, claim, claim)
    same_item = "1. My mistake: the WebSocket connections were never behind Cloudflare."
    assert v.corrects(same_item, claim, claim)


def test_now_working_corrects_a_diagnosis_of_the_same_thing() -> None:
    claim = "The WebSocket endpoint returns a 502 Bad Gateway error."
    assert v.corrects("## Summary\n\nThe WebSocket connection is now working! The socket "
                      "path was wrong.", claim, claim)


# ---- what a written file says, and what came after ---------------------------------------

_PAGE = ("/srv/app/index.html\n<script>\n  // Keyboard shortcut: Enter or Space\n"
         "  function pick(min, max) {\n"
         "    return Math.floor(Math.random() * (max - min + 1)) + min;\n  }\n</script>\n")


def test_a_written_line_a_later_edit_replaced_is_suspected() -> None:
    line = "return Math.floor(Math.random() * (max - min + 1)) + min;"
    edit = ("/srv/app/index.html\n  function pick(min, max) {\n    " + line + "\n  }\n"
            "  function pick(min, max) {\n    return min + secureInt(max - min + 1);\n  }")
    tools = [("input", "Write", _PAGE), ("output", "Write", "File created successfully"),
             ("input", "Edit", edit), ("output", "Edit", "The file has been updated.")]
    chat = convo(("assistant", "Wrote the page."))
    got = verify("The page picks the number with Math.random().", line, chat, tool_texts=tools)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert "index.html" in got.hint_detail
    # Without the edit, the file says so.
    kept = verify("The page picks the number with Math.random().", line, chat,
                  tool_texts=tools[:2])
    assert kept.supported and kept.hint is None
    # A read after the edit that still shows the line: it was not replaced.
    shown = verify("The page picks the number with Math.random().", line, chat,
                   tool_texts=[*tools, ("output", "Read", "  12→    " + line)])
    assert shown.hint is None


def test_a_comment_in_written_code_is_what_the_code_says_of_itself() -> None:
    tools = [("input", "Write", _PAGE), ("output", "Write", "File created successfully")]
    chat = convo(("assistant", "Wrote the page."))
    got = verify("Both Enter and Space trigger GENERATE.", "Keyboard shortcut: Enter or Space",
                 chat, tool_texts=tools)
    assert (got.supported, got.hint) == (True, "tool_line")
    doc = [("input", "Write", "/srv/app/README.md\n# Keys\n\nKeyboard shortcut: Enter or Space\n"),
           ("output", "Write", "File created successfully")]
    assert verify("Both Enter and Space trigger GENERATE.",
                  "Keyboard shortcut: Enter or Space", chat, tool_texts=doc).hint is None


# ---- corrections -------------------------------------------------------------------------


def test_a_suspect_found_sound_corrects_a_claim_that_it_is_broken() -> None:
    def chat(first: str) -> list:
        return convo(
            ("assistant", first),
            ("call", "Bash: ls -la /etc/resolv.conf && cat /etc/resolv.conf"),
            ("assistant", "The host's resolv.conf looks fine, but nspawn bind-mounts it over "
                          "the chroot's."),
        )
    broken = "If systemd-resolved is disabled, the /etc/resolv.conf might be broken or a " \
             "dangling symlink."
    got = verify("The host's /etc/resolv.conf is broken (a dangling symlink).",
                 "the /etc/resolv.conf might be broken or a dangling symlink", chat(broken))
    assert got.hint == "corrected_later"
    # "looks fine" agrees with a claim that it works.
    works = "The /etc/resolv.conf points at the stub resolver and resolves names."
    assert verify("The host's /etc/resolv.conf resolves names.",
                  "The /etc/resolv.conf points at the stub resolver and resolves names",
                  chat(works)).hint is None


def test_the_person_disagreeing_corrects_the_claim() -> None:
    chat = convo(
        ("assistant", "Same root cause: if the audio device changes during recording, the "
                      "engine stops."),
        ("user", "I don't expect the audio source to change during recording. The app could "
                 "crash instead."),
    )
    got = verify("Transcription failures are caused by the audio device changing "
                 "mid-recording.", "same root cause: if the audio device changes during "
                 "recording", chat)
    assert got.hint == "corrected_later" and "turn 1" in got.hint_detail


def test_a_guess_tested_at_once_is_overturned_by_less() -> None:
    def chat(then: str) -> list:
        return convo(
            ("assistant", "There are two whisper-server processes running (84168 and 84237) "
                          "— that's likely the issue. Let me kill both."),
            ("call", "Bash: pkill -f whisper-server"),
            ("assistant", then),
        )
    fact = "Two whisper-server processes running at once caused the problem."
    quote = "There are two whisper-server processes running (84168 and 84237) — that's " \
            "likely the issue."
    got = verify(fact, quote, chat("The two processes are normal — it's a parent/child pair."))
    assert got.hint == "corrected_later"
    # An unrelated "normal" is no correction.
    assert verify(fact, quote, chat("The config file is normal.")).hint == "hedged"


def test_a_fix_reported_then_its_commit_hooks_failing_is_suspected() -> None:
    def chat(failure: str) -> list:
        return convo(
            ("assistant", "The todo filter is now fixed. Both formats are now functionally "
                          "identical in their todo filtering behavior."),
            ("user", "please commit"),
            ("call", "Bash: git commit -m 'Fix todo filtering'"),
            ("fail", failure),
        )
    fact = "The two displays now apply identical todo filtering (verified)."
    quote = "Both formats are now functionally identical in their todo filtering behavior"
    hooks = ("Exit code 1 · mypy.....................Failed\n- hook id: mypy\n"
             "claude_status.py:201: error: incompatible type")
    assert verify(fact, quote, chat(hooks)).hint == "corrected_later"
    # No correction from an unrelated failure (the fact's "(verified)" on a quote that
    # words no check is its own suspicion: test_verify_known).
    other = verify(fact, quote, chat("Exit code 128 · fatal: not a git repository"))
    assert other.hint != "corrected_later"
    assert verify(fact.replace(" (verified)", ""), quote,
                  chat("Exit code 128 · fatal: not a git repository")).hint is None


def test_a_lint_verdict_does_not_refute_a_test_claim() -> None:
    chat = convo(
        ("assistant", "The TodoItem fix is now working. All 173 tests pass."),
        ("call", "Bash: ruff check ."),
        ("fail", "Exit code 1 · src/x.py:135:16: UP038 Use `X | Y`\nFound 3 errors."),
    )
    assert verify("After the fix the suite passed with 173 tests.", "All 173 tests pass.",
                  chat).hint is None


def test_now_working_needs_a_claim_of_failure_to_correct() -> None:
    later = "## Summary\n\nThe claude integration test is now passing, and claude responses " \
            "go to the server."
    claim = "All claude responses are sent to the server via POST /v1/messages"
    assert not v.corrects(later, claim, claim)


def test_a_default_taken_from_an_explicit_value_is_suspected() -> None:
    chat = convo(("assistant", "The implementation now supports:\n\n1. **Default behavior**: "
                               "`--update` (uses 5 seconds)\n2. **Custom interval**: "
                               "`--update 10` (uses 10 seconds)"))
    got = verify("`--update` with no value refreshes every 10 seconds.",
                 "`--update 10` (uses 10 seconds)", chat)
    assert (got.supported, got.hint) == (True, "number_mismatch")
    assert "5 seconds" in got.hint_detail
    assert verify("`--update` with no value refreshes every 5 seconds.",
                  "**Default behavior**: `--update` (uses 5 seconds)", chat).hint is None
    assert verify("`--update 10` refreshes every 10 seconds.",
                  "`--update 10` (uses 10 seconds)", chat).hint is None


def test_an_ellipsis_joining_two_answers_is_a_stitched_quote() -> None:
    ask = ("Please update the todo functionality to only display if the Todo is after the "
           "last user prompt. If not, don't show anything there.")
    chat = convo(
        ("user", ask),
        ("assistant", "The current prompt is: \"Please update the todo functionality to only "
                      "display if the Todo is after the last user prompt. If not, don't show "
                      "anything there.\""),
        ("call", "Bash: python claude_status.py --debug"),
        ("assistant", "The timestamps are the same. Since we're using `>` (greater than) "
                      "rather than `>=`, todos at the same time won't show."),
    )
    got = verify("Todos are shown only if strictly newer than the last prompt (`>`).",
                 "only display if the Todo is after the last user prompt ... Since we're "
                 "using `>` (greater than)", chat)
    assert (got.supported, got.check) == (False, "stitched")
    assert "the person" in got.detail  # the first piece is the person's words, quoted
    # Two answers with the person's words between them: stitched as well.
    answers = convo(("assistant", "Only display if the Todo is after the last prompt."),
                    ("user", "ok"),
                    ("assistant", "Since we're using `>` the same millisecond is hidden."))
    assert verify("Todos show only if newer than the prompt.", "only display if the Todo is "
                  "after the last prompt ... since we're using `>`", answers).check == "stitched"
    # One answer's text blocks, split by nothing said: an elision.
    one = convo(("assistant", "Only display if the Todo is after the last prompt, not before."),
                ("assistant", "Since we're using `>` the same millisecond is hidden."))
    assert verify("Todos show only if newer than the prompt.", "only display if the Todo is "
                  "after the last prompt ... since we're using `>`", one).check == "elision"


def test_opposite_verbs_on_the_same_object_are_suspected() -> None:
    chat = convo(("assistant", "The two-line format converts newlines to spaces. The "
                               "multi-line format continues to preserve the original newlines "
                               "for better readability."))
    got = verify("Both the multi-line and the two-line display convert newlines to spaces.",
                 "The multi-line format continues to preserve the original newlines for "
                 "better readability", chat)
    assert (got.supported, got.hint) == (True, "negation_flip")
    assert "newlines" in got.hint_detail
    assert v.object_flip("It keeps the newlines.", "It preserves the newlines.") == ""
    assert v.object_flip("It does not strip the newlines.", "It preserves the newlines.") == ""


def test_a_hyphenated_name_ties_a_verdict_to_a_reported_state() -> None:
    chat = convo(
        ("user", "Fix the failing test. The generated HTML is missing tool-call divs."),
        ("call", "Bash: go test ./cmd -run TestDebug -v"),
        ("assistant", "Perfect! I can see the HTML output includes `<div class=\"tool-call "
                      "collapsible\"`. The rendering is working correctly."),
    )
    got = verify("The generated HTML was missing tool-call divs, so the renderer had to be "
                 "fixed.", "The generated HTML is missing tool-call divs", chat)
    assert (got.hint, got.hint_detail[:6]) == ("corrected_later", "turn 2")
    # A common compound ties nothing: "built-in" is everywhere.
    assert not v._shared_terms("the built-in check is working correctly",
                               "uses the built-in parser")


def test_a_later_wrong_the_fact_itself_records_is_no_correction() -> None:
    chat = convo(
        ("assistant", "I can see the HTML includes the div. The rendering is working "
                      "correctly."),
        ("call", "Bash: go test ./cmd"),
        ("assistant", "The test expectation is wrong - it looks for `<div class=\"tool-call\"` "
                      "with a closing quote."),
    )
    fact = "The HTML renderer already produced tool-call divs; only the test's expected " \
           "string was wrong."
    assert verify(fact, "The rendering is working correctly.", chat).hint is None
    other = "The HTML renderer produced tool-call divs and the test expectation matched them."
    assert verify(other, "The rendering is working correctly.", chat).hint == "corrected_later"


def test_a_strict_bound_on_the_quotes_own_value_is_an_inversion() -> None:
    assert c.comparison_flipped("Line coverage is below 100%.", "We have 100% line coverage.")
    assert not c.comparison_flipped("Coverage is below 100%.", "Coverage is under 100% now.")
    assert not c.comparison_flipped("Startup takes under 200ms.", "Startup takes about 200ms.")
    chat = convo(("assistant", "All tests pass. We have 100% line coverage."))
    got = verify("Line coverage of the Rust port is below 100%.", "We have 100% line coverage.",
                 chat)
    assert (got.supported, got.check) == (False, "negation_flip")
    assert verify("Line coverage of the Rust port is 100%.", "We have 100% line coverage.",
                  chat).supported


def test_a_claim_borrowed_from_a_guess_beside_the_quote_is_suspected() -> None:
    chat = convo(("assistant", "The 32GB limit is hardcoded in the LiveCD's overlay "
                               "configuration. In a typical Ubuntu LiveCD, this is controlled "
                               "by the casper scripts. Let me try remounting."))
    got = verify("The 32 GB overlay limit is hard-coded by Ubuntu's casper scripts.",
                 "The 32GB limit is hardcoded in the LiveCD's overlay configuration.", chat)
    assert (got.supported, got.hint) == (True, "hedged")
    assert "casper" in got.hint_detail
    plain = convo(("assistant", "The 32GB limit is hardcoded in the LiveCD's overlay "
                                "configuration. The Ubuntu casper scripts set it at boot."))
    assert verify("The 32 GB overlay limit is hard-coded by Ubuntu's casper scripts.",
                  "The 32GB limit is hardcoded in the LiveCD's overlay configuration.",
                  plain).hint is None


def test_a_negative_result_the_next_call_refutes_is_suspected() -> None:
    def chat(answer: str) -> list:
        return [
            Turn("assistant", "tool_call", "Bash: for repo in trixie unstable; do curl -I "
                 "http://deb.debian.org/debian/dists/$repo/Release | grep -q '200 OK' && echo "
                 "ok || echo '✗ Not available'; done", 1, 0, tool="Bash"),
            Turn("user", "detail", "→ : ✗ Not available\n→ : ✗ Not available", 2, 100,
                 tool="Bash"),
            Turn("assistant", "tool_call", "Bash: curl -I http://deb.debian.org/debian/dists/"
                 "trixie/Release | head -1", 3, 200, tool="Bash"),
            Turn("user", "detail", answer, 4, 300, tool="Bash"),
        ]
    fact = "deb.debian.org does not serve trixie or unstable."
    got = verify(fact, ": ✗ Not available", chat("→ HTTP/1.1 200 OK"))
    assert (got.hint, got.hint_detail[:6]) == ("corrected_later", "turn 3")
    assert verify(fact, ": ✗ Not available", chat("→ HTTP/1.1 404 Not Found")).hint is None


def test_a_name_put_for_another_of_the_same_shape_is_suspected() -> None:
    assert v.swapped_name("The default path is computed in get_jsonl_path().",
                          "def get_default_jsonl_path(cwd=None):") == (
        "get_jsonl_path", "get_default_jsonl_path")
    assert v.swapped_name("Tests run with `pytest -x --tb=long`.", "uv run pytest -x --tb=short")
    # A generalisation of the quote's name, or a name of another shape, is no swap.
    assert v.swapped_name("Todo files are named `~/.claude/todos/<uuid>.json`.",
                          "cat ~/.claude/todos/45d15c3e.json") is None
    assert v.swapped_name("The handler in app.py reads PORT.", "PORT is read at startup") is None
    chat = convo(("assistant", "def get_default_jsonl_path(cwd=None): builds the path. "
                               "get_jsonl_path wraps it for the CLI."))
    got = verify("The default JSONL path is computed in get_jsonl_path().",
                 "def get_default_jsonl_path(cwd=None): builds the path", chat)
    assert (got.supported, got.hint) == (True, "identifier_mismatch")


def test_a_flags_value_after_equals_is_a_setting() -> None:
    assert c.settings("git diff --diff-filter=M") == {"diff-filter": "m"}
    assert c.setting_changed("Use `git diff --diff-filter=A` to list them.",
                             "git diff --name-only --diff-filter=M")


def test_more_hedges_opinions_and_speaker_phrases() -> None:
    assert v.hedged("I'd bet the cache is stale")
    assert v.hedged("Chances are the token expired")
    assert v.hedged("Apparently the retry loop is capped")
    assert v.hedged("The job is expected to finish in a minute")
    assert v.opinion("This is the idiomatic way to do it")
    assert v.opinion("a well-structured module")
    assert not v.opinion("The module exports three functions")
    assert v.fact_speaker("According to the user, the build runs nightly.") == "user"
    assert v.fact_speaker("The user-requested limit is 5.") == "user"
    assert v.fact_speaker("Per Claude, the cache is warm.") == "assistant"
    assert v.fact_speaker("The build runs nightly.") is None


def test_more_opposites_invert_a_restated_quote() -> None:
    assert v.flips_meaning("The token is shown in the log output.",
                           "The token is hidden in the log output.")
    assert v.flips_meaning("The `--force` flag is required for the reset.",
                           "The `--force` flag is optional for the reset.")
    assert not v.flips_meaning("The token is shown in the log output.",
                               "The token is shown in the log output.")


def test_a_guess_is_tested_at_once_a_far_cue_leaves_the_hedge() -> None:
    def chat(*middle: tuple[str, str]) -> list:
        return convo(
            ("assistant", "The server is likely behind Cloudflare, which might be interfering "
                          "with WebSocket connections."),
            *middle,
            ("assistant", "I was debugging the socket connection issue and created plain JS "
                          "files. My mistake."),
        )
    fact = "The handy server is behind Cloudflare, which breaks WebSocket connections."
    quote = "The server is likely behind Cloudflare, which might be interfering with " \
            "WebSocket connections"
    far = verify(fact, quote, chat(("user", "where did these .js files come from?")))
    assert far.hint == "hedged"
    near = verify(fact, quote, chat(("call", "Bash: curl -I https://handy.example")))
    assert near.hint == "corrected_later"


def test_an_observation_turned_into_a_certainty_is_suspected() -> None:
    chat = convo(("assistant", "## arch-chroot build\n**DNS Clean**: No resolv.conf bind-mount "
                               "conflicts"))
    quote = "**DNS Clean**: No resolv.conf bind-mount conflicts"
    got = verify("arch-chroot does not touch resolv.conf, so it can't have bind-mount DNS "
                 "conflicts.", quote, chat)
    assert (got.supported, got.hint) == (True, "hedged") and "not" in got.hint_detail
    assert verify("The arch-chroot build had no resolv.conf bind-mount conflicts.", quote,
                  chat).hint is None


def test_a_fix_reported_then_the_person_asking_what_happened_is_suspected() -> None:
    def chat(reply: str) -> list:
        return convo(
            ("assistant", "## DNS Resolution Fixed\n\nThe DNS issue has been resolved: the "
                          "build works now inside the containers."),
            ("user", reply),
        )
    fact = "After the fix the build works inside the containers."
    quote = "the build works now inside the containers"
    got = verify(fact, quote, chat("Cleanup complete (dataset preserved). What happened?"))
    assert got.hint == "corrected_later"
    assert verify(fact, quote, chat("great, now push it")).hint is None


def test_a_name_one_slip_from_the_transcripts_is_known_wrong() -> None:
    chat = convo(("assistant", "The build host's /etc/resolv.conf lists nameserver 9.9.9.9 "
                               "first; package.json declares the licence."))
    got = verify("The build host's /tec/resolv.conf uses Quad9 (nameserver 9.9.9.9).",
                 "/etc/resolv.conf lists nameserver 9.9.9.9 first", chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")
    assert "/etc/resolv.conf" in got.detail
    assert v.slipped_name("The licence is in apckage.json.", "package.json declares it",
                          "package.json declares it") == ("apckage.json", "package.json")
    # A plural, or a name the session does say, is no slip.
    assert v.slipped_name("Both LiveViews render it.", "the LiveView renders it",
                          "the liveview renders it") is None
    assert v.slipped_name("It reads /etc/resolv.conf.", "/etc/resolv.conf lists",
                          "/etc/resolv.conf lists") is None


def test_a_speakers_words_named_as_theirs() -> None:
    assert v.fact_speaker("The user's requirement is a single integration test.") == "user"
    assert v.fact_speaker("Claude's diagnosis was a stale lock file.") == "assistant"
    assert v.fact_speaker("The assistant recommended pnpm.") == "assistant"
    chat = convo(("assistant", "I recommend a single integration test that runs the CLI."))
    got = verify("The user's requirement is a single integration test that runs the CLI.",
                 "I recommend a single integration test that runs the CLI", chat)
    assert (got.supported, got.hint) == (True, "speaker")


def test_a_flag_given_another_word_value() -> None:
    assert c.flag_word_changed("Run it with --format yaml.", "claude -p --format json x")
    assert not c.flag_word_changed("Run it with --format json.", "claude -p --format json x")
    # A word after a flag that is no value, or a value of another type, is no change.
    assert not c.flag_word_changed("Use --verbose for details.", "run --verbose flag")
    assert not c.flag_word_changed("The --update loop redraws.", "python s.py --update 2")
    chat = convo(("assistant", "Export with: claude-history export --format html --out ./x"))
    got = verify("Sessions export as Markdown with --format markdown.",
                 "claude-history export --format html --out ./x", chat)
    assert got.check == "tool_line" or got.hint == "identifier_mismatch"
    prose = convo(("assistant", "I exported it with --format html so it opens in a browser."))
    got = verify("The export used --format markdown.",
                 "I exported it with --format html so it opens in a browser", prose)
    assert (got.supported, got.hint) == (True, "identifier_mismatch")


def test_a_thing_the_claim_names_abandoned_later_corrects_it() -> None:
    claim = "The client fetches sessions with requests."
    assert v.corrects("I switched the client to httpx instead of requests for streaming.",
                      claim, claim)
    said = "The client uses httpx instead of requests."
    assert not v.corrects("As planned it uses httpx instead of requests.", said, said)


def test_a_file_the_fact_names_later_not_found_is_suspected() -> None:
    def chat(*after: tuple[str, str]) -> list:
        return convo(
            ("assistant", "The settings live in config/app.yml, loaded at startup."),
            ("call", "Bash: cat config/app.yml"),
            ("fail", "Exit code 1\ncat: config/app.yml: No such file or directory"),
            *after,
        )
    fact = "The app's settings live in config/app.yml."
    quote = "The settings live in config/app.yml, loaded at startup"
    got = verify(fact, quote, chat())
    assert (got.hint, got.hint_detail[:6]) == ("corrected_later", "turn 2")
    written = [*chat(), Turn("assistant", "tool_call", "Write config/app.yml", 9, 900,
                             tool="Write")]
    assert verify(fact, quote, written).hint is None
    assert verify("config/app.yml is missing from the repo.", quote, chat()).hint != \
        "corrected_later"


def test_a_failure_report_refutes_a_claim_that_it_works_not_a_description() -> None:
    works = "The todo filter now works for the two-line script."
    assert v.corrects("The todos still don't work for the two-line script. Please fix.",
                      works, works, strict=False)
    header = "# ABOUTME: Main status display script for the two-line output"
    assert not v.corrects("The todos still doesn't work for the two-line script. Please "
                          "fix the display.", header, header, strict=False)


def test_an_expectation_to_check_is_no_verdict() -> None:
    claim = "Adding __init__.py files to src/ and tests/ fixes the mypy issue"
    assert not v.corrects("Now let's also test the one-line mode to make sure it still shows "
                          "the summary:", claim, claim)


def test_a_path_word_is_no_shared_name() -> None:
    assert not v._shared_terms("let's also test it", "files in src/ and tests/")
    assert v._shared_terms("the tests/unit/conftest.py file", "see tests/unit/conftest.py")


def test_despite_needs_more_than_one_short_shared_word() -> None:
    claim = "Main status display script for showing project status information"
    assert not v.corrects("The two-line format is empty even though the multi-line format "
                          "shows the todo.", claim, claim)
    ignored = "The cache directory is ignored by the gitignore."
    assert v.corrects("The cache directory is tracked despite the gitignore.", ignored, ignored)


def test_two_places_of_one_long_answer_joined_are_stitched() -> None:
    filler = " ".join(f"Step {w} checks the {w} module and logs what it found." for w in
                      ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"))
    chat = convo(("assistant", "The cache is rebuilt on every start. " + filler +
                  " The index is written once a day."))
    got = verify("The cache index is rebuilt and written on every start.",
                 "The cache is rebuilt on every start ... The index is written once a day",
                 chat)
    assert (got.supported, got.check) == (False, "stitched")
    near = convo(("assistant", "The cache is rebuilt on every start, and then the index is "
                               "written once a day."))
    assert verify("The cache is rebuilt on start; the index is written daily.",
                  "The cache is rebuilt on every start ... the index is written once a day",
                  near).check != "stitched"


def test_a_condition_the_fact_drops_is_suspected() -> None:
    chat = convo(("assistant", "If the cache is cold, the first request takes about five "
                               "seconds to answer."))
    quote = "If the cache is cold, the first request takes about five seconds to answer"
    got = verify("The first request takes five seconds to answer.", quote, chat)
    assert got.hint == "hedged"
    kept = verify("When the cache is cold the first request takes five seconds to answer.",
                  quote, chat)
    assert kept.hint != "hedged" or "condition" not in kept.hint_detail


def test_a_pass_claimed_right_after_the_run_failed_is_suspected() -> None:
    def chat(output: str, kind: str = "fail") -> list:
        return convo(
            ("user", "run the tests"),
            ("call", "Bash: pytest -q"),
            (kind, output),
            ("assistant", "All tests pass now and the fix is in."),
        )
    fact = "After the fix all tests pass."
    got = verify(fact, "All tests pass now", chat("Exit code 1 · FAILED tests/test_a.py::t\n"
                                                  "2 failed, 40 passed"))
    assert (got.hint, got.hint_detail[:6]) == ("corrected_later", "turn 2")
    assert verify(fact, "All tests pass now", chat("exit 0 · 42 passed in 3s")).hint is None


def test_more_correction_cues() -> None:
    claim = "The importer retries on 429 responses."
    assert v.corrects("Wrong. The importer never retries on 429 responses.", claim, claim,
                      strict=False)
    assert v.corrects("I stand corrected: the importer gives up on 429 responses.", claim,
                      claim)
    assert v.corrects("Let me correct that: the importer drops 429 responses.", claim, claim)
    # "wrong" inside a sentence is no cue by itself.
    assert not v.corrects("If the importer gets the 429 responses wrong it logs them.", claim,
                          claim)


def test_the_persons_prompt_wins_over_a_tool_echoing_it() -> None:
    chat = [
        Turn("user", "prompt", "That is working for me. Now make the labels shorter.", 1, 0),
        Turn("assistant", "tool_call", "Bash: python status.py", 2, 100, tool="Bash"),
        Turn("user", "detail", "→ Prompt: That is working for me. Now make the labels shorter.",
             3, 200, tool="Bash"),
    ]
    got = verify("The user confirmed the status display works.", "That is working for me.",
                 chat)
    assert (got.speaker, got.hint) == ("user", None)


def test_a_tools_output_is_not_the_persons_words() -> None:
    chat = convo(("call", "Bash: npm run build"),
                 ("fail", "Exit code 2 · error TS2345: Argument of type 'string' is not "
                          "assignable"))
    got = verify("The user reported that the build fails with TS2345.",
                 "error TS2345: Argument of type 'string' is not assignable", chat)
    assert got.hint == "speaker"
    found = verify("Claude found that the build fails with TS2345.",
                   "error TS2345: Argument of type 'string' is not assignable", chat)
    assert found.hint != "speaker"


def test_actually_inside_a_sentence_corrects_a_diagnosis() -> None:
    claim = "The timeout is caused by the DNS lookup in the proxy."
    assert v.corrects("After tracing it, the timeout is actually caused by the TLS handshake "
                      "in the proxy.", claim, claim)
    assert not v.corrects("So the proxy timeout is actually the correct behaviour here.",
                          claim, claim)


def test_a_hedge_left_out_of_the_quote_beside_it_is_suspected() -> None:
    chat = convo(("assistant", "Looking at the profile, I think the cache lookup is the "
                               "bottleneck for the slow page."))
    got = verify("The cache lookup is the bottleneck for the slow page.",
                 "the cache lookup is the bottleneck for the slow page", chat)
    assert got.hint == "hedged" and "i think" in got.hint_detail
    far = convo(("assistant", "I think we should profile first. " + "Profiling done. " * 5 +
                 "The cache lookup is the bottleneck for the slow page."))
    assert verify("The cache lookup is the bottleneck for the slow page.",
                  "the cache lookup is the bottleneck for the slow page", far).hint is None


def test_a_quote_cut_right_after_its_negation_is_suspected() -> None:
    chat = convo(("user", "For this repo, please never use npm install here; the lockfile "
                          "is pnpm's."))
    got = verify("Dependencies are installed with npm install here.", "use npm install here",
                 chat)
    assert (got.supported, got.hint) == (True, "negation_flip")
    assert "never" in got.hint_detail
    assert v.negated_before("Not only the cache but the index is rebuilt.",
                            "the cache but the index is rebuilt") == ""
    assert v.negated_before("No, use pnpm for installs.", "use pnpm for installs") == ""


def test_a_quote_cut_before_its_limit_is_suspected() -> None:
    chat = convo(("assistant", "The watcher reloads the config on change except on Windows, "
                               "where it polls."))
    got = verify("The watcher reloads the config on change.",
                 "The watcher reloads the config on change", chat)
    assert (got.supported, got.hint) == (True, "elision") and "windows" in got.hint_detail
    assert verify("The watcher reloads the config on change, except on Windows.",
                  "The watcher reloads the config on change", chat).hint is None


def test_the_same_thing_counted_otherwise_is_known_wrong() -> None:
    assert c.number_beside_changed("The client makes 5 retries.", "the client makes 3 retries "
                                   "before giving up")
    assert c.number_beside_changed("The timeout is 60.", "set the timeout of 30 for CI")
    assert not c.number_beside_changed("The client makes 3 retries.", "it makes 3 retries")
    # Numbers of other things are not compared.
    assert not c.number_beside_changed("The client makes 3 retries in 2 files.",
                                       "the client makes 3 retries")
    chat = convo(("assistant", "Ran the suite: all 14 tests of the status script pass. The "
                               "other 12 checks are lint."))
    got = verify("All 12 tests of the status script pass.",
                 "all 14 tests of the status script pass", chat)
    assert (got.supported, got.check) == (False, "number_mismatch")


def test_a_long_dotted_run_is_one_name() -> None:
    """A minified line's `a.a.a…` is one name, read whole (an atomic group: the pattern
    does not backtrack through its dots)."""
    run = "a" + ".a" * 3000
    assert c.settings(run + " = 5") == {run: "5"}
    assert c.settings(run) == {}


def test_a_guess_kept_as_someones_view_is_no_suspicion() -> None:
    chat = convo(("user", "the timer list is like 10 items probably so rewriting it every "
                          "time is probably OK"))
    quote = "the timer list is like 10 items probably so rewriting it every time is probably OK"
    assert verify("The user judged that rewriting the 10-item timer list each time is fine.",
                  quote, chat).hint is None
    assert verify("Rewriting the 10-item timer list each time is fine.", quote,
                  chat).hint == "hedged"


def test_a_report_or_estimate_kept_as_someones_is_no_hedge() -> None:
    chat = convo(("user", "Other than encryption issues things are working smoothly it seems"))
    quote = "Other than encryption issues things are working smoothly it seems"
    assert verify("The user reported that apart from encryption, things work smoothly.",
                  quote, chat).hint is None
    assert verify("Apart from encryption, things work smoothly.", quote, chat).hint == "hedged"


def test_a_guess_stated_as_found_is_still_a_hedge() -> None:
    chat = convo(("assistant", "The cache might be the cause of the slow start."))
    quote = "The cache might be the cause of the slow start"
    assert verify("Claude found that the cache is the cause of the slow start.", quote,
                  chat).hint == "hedged"
    assert verify("Claude suspected the cache is the cause of the slow start.", quote,
                  chat).hint is None


def test_a_question_stated_as_its_answer_is_suspected() -> None:
    chat = convo(("user", "Is the cache cleared on every deploy?"),
                 ("assistant", "Let me check the deploy script."))
    got = verify("The cache is cleared on every deploy.", "Is the cache cleared on every "
                 "deploy?", chat)
    assert got.hint == "hedged"
    assert verify("The user asked whether the cache is cleared on every deploy.",
                  "Is the cache cleared on every deploy?", chat).hint is None


def test_the_candidates_named_speaker_is_checked_before_other_suspicions() -> None:
    chat = convo(("assistant", "The cache might be the cause of the slow start."))
    got = verify("The cache is the cause of the slow start.",
                 "The cache might be the cause of the slow start", chat, said_by="user")
    assert (got.hint, got.hint_detail) == ("speaker", "the quote is the assistant's, not the "
                                                      "user's")
    assert verify("The cache is the cause of the slow start.",
                  "The cache might be the cause of the slow start", chat,
                  said_by="assistant").hint == "hedged"


def test_a_setting_moved_in_the_quote_has_both_values() -> None:
    assert not c.setting_changed("maxRecordings is 30.", "maxRecordings: 10 → 30")
    assert not c.setting_changed("maxRecordings is 30.", "set maxRecordings = 10, then 30")
    assert c.setting_changed("maxRecordings is 50.", "maxRecordings: 10 → 30")


def test_knowledge_checks_leave_true_restatements_alone() -> None:
    # The old side named as obsolete, a field's name far from the fact's code, a bound on
    # a value the quote shows changing: all right.
    assert not c.moved_from("webpack.config.js is obsolete now.",
                            "migrated from webpack.config.js to vite.config.ts")
    assert not c.field_changed("The build command is set in Render; deploys run "
                               "`scripts/post-deploy.sh` after the static site is published.",
                               "**Build command:** leave blank")
    assert not c.comparison_flipped("Coverage dropped below 100%.",
                                    "coverage was 100%, now 97% after the refactor")


def test_the_persons_reply_turning_the_answer_down_is_suspected() -> None:
    def chat(reply: str) -> list:
        return convo(
            ("assistant", "The hang comes from the watcher holding the lock on config.json."),
            ("call", "Bash: lsof config.json"),
            ("assistant", "Confirmed above."),
            ("user", reply),
        )
    fact = "The hang comes from the watcher holding the lock on config.json."
    quote = "The hang comes from the watcher holding the lock on config.json"
    got = verify(fact, quote, chat("I don't think that's it. It hangs with the watcher off."))
    assert (got.hint, got.hint_detail[:6]) == ("corrected_later", "turn 3")
    assert verify(fact, quote, chat("great, commit it")).hint is None
    assert verify(fact, quote, chat("No, leave the tests for now")).hint is None


def test_a_number_is_read_beside_its_word_not_across_punctuation_or_inside_a_name() -> None:
    # "python3" is a name, not python and 3; "line 1: python" does not count pythons.
    assert not c.number_beside_changed("Scripts run with python3.",
                                       "/bin/bash: line 1: python: command not found")
    assert c.number_beside_changed("The suite passed with 137 tests.",
                                   "All 173 tests pass.")
    assert c.number_beside_changed("The server listens on 9090.",
                                   "the server listens on 8080 by default")


def test_an_ordinal_given_another_number_is_counted_otherwise() -> None:
    assert c.number_beside_changed("Phase 12 had already been planned.",
                                   "Phase 9 was already fully planned in the document")
    assert not c.number_beside_changed("Phase 9 had already been planned.",
                                       "Phase 9 was already fully planned in the document")


# ---- what condensation now sends (issue 21, after cond4): edits whole, script lines,
# the lines of results an answer relies on. Each on a transcript made here. -------------


def _session(tmp_path: Path, records: list[dict[str, Any]]) -> tuple[list[Turn], Any]:
    """The turns condensation sends of `records`, and what the tools were given/gave."""
    turns, stats, _ = read_turns(write_jsonl(tmp_path / "s.jsonl", records), tool_texts=True)
    return turns, stats.tool_texts


_FLAG_EDIT = {
    "file_path": "status.py",
    "old_string": 'parser.add_argument(\n    "--update",\n    action="store_true",\n'
                  '    help="Continuously update status display until interrupted",\n)',
    "new_string": 'parser.add_argument(\n    "--update",\n    nargs="?",\n    const=5,\n'
                  '    type=int,\n    help="Continuously update status display until '
                  'interrupted (default: 5 seconds)",\n)',
}


def test_a_flag_named_by_its_bare_word_in_an_edit_is_no_slip(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path, [
        user("Let --update take an interval."),
        call("Edit", _FLAG_EDIT, "e1", "m1"),
        result("The file status.py has been updated.", "e1"),
        say("Done: `--update` alone refreshes every 5 seconds.", "m2"),
    ])
    assert any(t.text.startswith("was: ") for t in turns)  # the edit is sent whole
    ok = verify("`--update` with no value refreshes every 5 seconds.",
                "Continuously update status display until interrupted (default: 5 seconds)",
                turns, tool_texts=tools)
    assert ok.supported, ok
    # A name one letter away is still a slip.
    assert v.code_variant("`--updates` refreshes", "run --update-all now --update")


_KEYS_PAGE = "\n".join([
    "<script>",
    "function generate() {",
    "  const n = randomInRange(min, max);",
    "  show(n);",
    "}",
    "function randomInRange(min, max) {",
    "  return min + Math.floor(Math.random() * (max - min + 1));",
    "}",
    "// Keyboard shortcut: Enter or Space",
    "document.addEventListener('keydown', (e) => {",
    "  if (e.key === 'Enter') generate();",
    "});",
    "</script>",
])


def test_a_comment_of_written_code_or_an_edits_old_side_is_not_what_the_file_does(
        tmp_path: Path) -> None:
    turns, tools = _session(tmp_path, [
        user("Build the page."),
        call("Write", {"file_path": "index.html", "content": _KEYS_PAGE}, "w1", "m1"),
        result("File created successfully at: index.html", "w1"),
        call("Edit", {"file_path": "app.yaml", "old_string": "name: NPU-ML",
                      "new_string": "name: NPU"}, "e1", "m2"),
        result("The file app.yaml has been updated.", "e1"),
        say("Done: one page, and the app renamed.", "m3"),
    ])
    sent = "\n".join(t.text for t in turns)
    assert "notes: " in sent and "// Keyboard shortcut: Enter or Space" in sent
    assert "was: name: NPU-ML\nnow: name: NPU" in sent
    said = verify("Both Enter and Space trigger generate.", "Keyboard shortcut: Enter or Space",
                  turns, tool_texts=tools)
    assert said.supported and said.hint == "tool_line", said
    old = verify("The app is named NPU-ML.", "name: NPU-ML", turns, tool_texts=tools)
    assert old.hint == "corrected_later" and "was:" in old.hint_detail, old
    # What the code does, and what the edit made it, stand.
    assert verify("The page picks a number with Math.random.",
                  "return min + Math.floor(Math.random() * (max - min + 1));", turns,
                  tool_texts=tools).hint is None
    assert verify("The app is named NPU.", "now: name: NPU", turns, tool_texts=tools).hint \
        is None


def test_a_files_extension_in_a_script_line_does_not_name_another_file(
        tmp_path: Path) -> None:
    filler = [r for i in range(8) for r in (
        user(f"Next step {i}: tidy module_{i}."), say(f"Tidied module_{i}.", f"f{i}"))]
    script = ("launchctl unload ~/Library/LaunchAgents/homebrew.mxcl.open-wispr.plist\n"
              "cp build/openwisprmod /usr/local/bin/\n"
              "launchctl load ~/Library/LaunchAgents/com.openwisprmod.plist")
    turns, tools = _session(tmp_path, [
        user("What starts whisper at login?"),
        say("VoiceMode does, via `~/Library/LaunchAgents/com.voicemode.whisper.plist`.", "m1"),
        *filler,
        call("Bash", {"command": script}, "b1", "m2"),
        result("", "b1"),
        say("Done. The original `open-wispr` LaunchAgent is disabled; `com.openwisprmod` "
            "takes over at login.", "m3"),
    ])
    assert any("com.openwisprmod.plist" in t.text for t in turns)  # the script's line
    far = verify("openwisprmod starts at login via com.voicemode.whisper.plist.",
                 "The original `open-wispr` LaunchAgent is disabled; `com.openwisprmod` "
                 "takes over at login.", turns, tool_texts=tools)
    assert far.hint == "identifier_missing", far
    # A member named by its last part is still said (`func ScanInto` in package jsonl).
    assert v.missing_terms("Use jsonl.ScanInto.", "func ScanInto(r io.Reader)")[0] == []


def test_a_recheck_whose_answer_was_sent_once_before_still_refutes(tmp_path: Path) -> None:
    loop = ('for repo in trixie trixie-updates; do echo -n " $repo: "; if curl -I '
            '"http://deb.debian.org/debian/dists/$repo/Release" 2>/dev/null | grep -q "200 OK";'
            ' then echo "✓ Available"; else echo "✗ Not available"; fi; done')
    ok = "HTTP/1.1 200 OK\nServer: Apache"
    turns, tools = _session(tmp_path, [
        user("Is the mirror up?"),
        call("Bash", {"command": "curl -I http://deb.debian.org/debian/"}, "c0", "m0"),
        result(ok, "c0"),
        say("The mirror answers.", "m1"),
        call("Bash", {"command": loop}, "c1", "m2"),
        result(" : ✗ Not available\n : ✗ Not available", "c1"),
        call("Bash", {"command": 'curl -I "http://deb.debian.org/debian/dists/trixie/Release"'},
             "c2", "m3"),
        result(ok, "c2"),
        call("Bash", {"command": "git status"}, "c3", "m4"),
        result("nothing to commit", "c3"),
        say("Now let me update the sources.", "m5"),
    ])
    sent = "\n".join(t.text for t in turns)
    assert sent.count("→ HTTP/1.1 200 OK") == 1  # the second curl's answer is not sent again
    got = verify("deb.debian.org does not serve trixie or trixie-updates.",
                 ": ✗ Not available", turns, tool_texts=tools)
    assert got.hint == "corrected_later", got
    # Without the recheck's answer there is nothing to refute it.
    bare = verify("deb.debian.org does not serve trixie or trixie-updates.",
                  ": ✗ Not available", turns)
    assert bare.hint is None, bare


def test_a_later_correction_of_the_claim_outranks_a_value_printed_later() -> None:
    chat = convo(
        ("user", "The two-line view shows no todos."),
        ("assistant", "The issue is on line 206 where I'm setting `todos = None` when they "
                      "shouldn't be shown. Let me fix this."),
        ("call", "Bash: python status.py"),
        ("assistant", "The debug shows `todos=True, show_todos=False`."),
        ("assistant", "No, line 206 wasn't the cause of the two-line bug after all; the "
                      "real issue is the timestamp filter."),
    )
    got = verify("The two-line todo bug was caused by `todos = None` on line 206.",
                 "The issue is on line 206 where I'm setting `todos = None`", chat)
    assert got.hint == "corrected_later", got
    # With no correction, the value given later is still the hint.
    alone = verify("The two-line todo bug was caused by `todos = None` on line 206.",
                   "The issue is on line 206 where I'm setting `todos = None`", chat[:4])
    assert alone.hint == "identifier_mismatch", alone


def test_result_lines_and_script_lines_keep_their_provenance(tmp_path: Path) -> None:
    hits = "\n".join([f"src/mod_{i}.py:{i}: import os" for i in range(30)]
                     + ["src/queue_ops.py:12: QUEUE_OPERATION = 'enqueue_prompt'"])
    script = "cd /srv/app\ncat config/queue_settings.yaml\nsystemctl restart queue-worker"
    turns, tools = _session(tmp_path, [
        user("Where is the queue operation named?"),
        call("Grep", {"pattern": "QUEUE_OPERATION", "path": "src"}, "g1", "m1"),
        result(hits, "g1"),
        say("`QUEUE_OPERATION` in src/queue_ops.py is 'enqueue_prompt'.", "m2"),
        call("Bash", {"command": script}, "b1", "m3"),
        result("done", "b1"),
        say("Restarted.", "m4"),
    ])
    sent = "\n".join(t.text for t in turns)
    assert "» src/queue_ops.py:12: QUEUE_OPERATION = 'enqueue_prompt'" in sent
    assert "Bash ⋯ cat config/queue_settings.yaml" in sent
    found = verify("QUEUE_OPERATION is set to 'enqueue_prompt' in src/queue_ops.py.",
                   "src/queue_ops.py:12: QUEUE_OPERATION = 'enqueue_prompt'", turns,
                   tool_texts=tools)
    assert found.supported and found.speaker == "tool", found  # a search's output
    # A script's read-only line shows what was looked at (a hint), its restart what ran.
    look = verify("The queue settings live in config/queue_settings.yaml.",
                  "cat config/queue_settings.yaml", turns, tool_texts=tools)
    assert look.supported and look.hint == "tool_line", look
    ran = verify("The queue worker restarts itself.", "systemctl restart queue-worker",
                 turns, tool_texts=tools)
    assert not ran.supported and ran.check == "tool_line", ran


def test_the_last_word_on_a_setting_is_an_edits_new_side(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path, [
        user("Keep ten recordings."),
        call("Write", {"file_path": "config.json", "content": '{"maxRecordings": 10}'},
             "w1", "m1"),
        result("File created successfully at: config.json", "w1"),
        say("Set `maxRecordings: 10` in config.json.", "m2"),
        user("Make it 30."),
        call("Edit", {"file_path": "config.json", "old_string": '"maxRecordings": 10',
                      "new_string": '"maxRecordings": 30'}, "e1", "m3"),
        result("The file config.json has been updated.", "e1"),
        say("Done.", "m4"),
    ])
    assert any(t.text.startswith('was: "maxRecordings": 10') for t in turns)
    got = verify("The app keeps 10 recordings (maxRecordings: 10).",
                 "Set `maxRecordings: 10` in config.json.", turns, tool_texts=tools)
    assert got.hint == "number_mismatch" and "to 30" in got.hint_detail, got


def test_a_written_line_sent_whole_that_a_later_edit_replaced_is_suspected(
        tmp_path: Path) -> None:
    small = ("function pick(min, max) {\n"
             "  return Math.floor(Math.random() * (max - min + 1)) + min;\n}")
    big = "function pick(min, max) {\n  return min + secureInt(max - min + 1);\n}\n" + "\n".join(
        f"// note {i}: the range is inclusive of both ends, checked by test_{i}" for i in range(8))
    turns, tools = _session(tmp_path, [
        user("Write the picker."),
        call("Write", {"file_path": "pick.js", "content": small}, "w1", "m1"),
        result("File created successfully at: pick.js", "w1"),
        say("Written.", "m2"),
        user("Use a secure source."),
        call("Edit", {"file_path": "pick.js", "old_string": small, "new_string": big}, "e1",
             "m3"),
        result("The file pick.js has been updated.", "e1"),
        say("Done.", "m4"),
    ])
    assert not any(t.text.startswith("was: ") for t in turns)  # too big to send whole
    line = "return Math.floor(Math.random() * (max - min + 1)) + min;"
    got = verify("The picker uses Math.random().", line, turns, tool_texts=tools)
    assert got.hint == "corrected_later" and "pick.js" in got.hint_detail, got


def test_a_fact_giving_the_value_an_edit_replaced_is_known_wrong(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path, [
        user("Raise the retries."),
        call("Edit", {"file_path": "app.yaml", "old_string": "retries: 3",
                      "new_string": "retries: 5"}, "e1", "m1"),
        result("The file app.yaml has been updated.", "e1"),
        say("Done.", "m2"),
    ])
    quote = "was: retries: 3\nnow: retries: 5"
    wrong = verify("The app retries 3 times (retries: 3).", quote, turns, tool_texts=tools)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch"), wrong
    assert verify("The app retries 5 times (retries: 5).", quote, turns,
                  tool_texts=tools).supported
    # A fact that tells of the change names the old value rightly.
    assert verify("Retries were raised from 3 to 5 (retries: 5, was retries: 3).", quote,
                  turns, tool_texts=tools).supported
    edit = "was: verbose: false now: verbose: true"
    assert c.edit_reverted("Logging is verbose (verbose: true).", edit) == ""
    assert "verbose to true" in c.edit_reverted("Logging is quiet (verbose: false).", edit)


def test_an_edit_taking_a_missing_file_out_does_not_write_it(tmp_path: Path) -> None:
    turns, tools = _session(tmp_path, [
        user("Where do the settings live?"),
        say("The settings are read from config/legacy.yml at startup.", "m1"),
        call("Bash", {"command": "cat config/legacy.yml"}, "b1", "m2"),
        result("cat: config/legacy.yml: No such file or directory", "b1", error=True),
        call("Edit", {"file_path": "app.py", "old_string": 'load("config/legacy.yml")',
                      "new_string": 'load("config/app.yml")'}, "e1", "m3"),
        result("The file app.py has been updated.", "e1"),
        say("Removed the dead reference.", "m4"),
    ])
    assert any(t.text.startswith('was: load("config/legacy.yml")') for t in turns)
    got = verify("Settings are read from config/legacy.yml.",
                 "The settings are read from config/legacy.yml at startup.", turns,
                 tool_texts=tools)
    assert got.hint == "corrected_later" and "No such file" in got.hint_detail, got
