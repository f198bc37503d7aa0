"""Verifier mechanisms of issue 21 (session 10), each on a small conversation of its own
words: what a fact gets wrong against the form of its quote (a move reversed, a look that
found nothing, a quoted value, a command in backticks, a `[y/N]` default, a compound
key's number, a default, a line a call printed from its own literal) marks it ungrounded
in any language; what is only suspected (a subagent's guess, a speaker named by a verb,
a failure reported in Japanese after a fix, a comment as proof of an act, a check the
quote never words) is a hint. Each case has a true twin the check must leave alone."""

from __future__ import annotations

from pathlib import Path

from records import assistant, convo, user, write_jsonl

from capture.transcript import Turn, read_turns
from capture.verify import verify


def _result(text: str, line: int) -> Turn:
    return Turn("user", "detail", text, line, line * 100, tool="Bash")


def test_a_move_the_fact_reverses_is_a_negation() -> None:
    chat = convo(("assistant", "見出しの色を変更しました: `text-black` → `text-gray-900`"))
    quote = "`text-black` → `text-gray-900`"
    wrong = verify("The heading was switched from text-gray-900 to text-black.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "negation_flip")
    assert verify("The heading was switched from text-black to text-gray-900.", quote,
                  chat).supported


def test_a_look_that_found_nothing_stated_as_existing() -> None:
    chat = convo(("call", "Glob: tailwind.config.*"), ("assistant", "No files found"))
    wrong = verify("The project has a tailwind.config file.", "No files found", chat)
    assert (wrong.supported, wrong.check) == (False, "negation_flip")
    assert verify("The project has no tailwind.config file.", "No files found",
                  chat).supported


def test_a_quoted_value_the_fact_gives_otherwise() -> None:
    chat = convo(("assistant", 'settings.json now reads: "statusLine": { "type": "command", '
                               '"command": "/Users/me/.claude/statusline.sh" }'))
    quote = '"type": "command",'
    wrong = verify('The status line is configured with type "static".', quote, chat)
    assert (wrong.supported, wrong.check) == (False, "identifier_mismatch")
    assert verify('The status line is configured with type "command".', quote, chat).supported


def test_a_command_in_backticks_with_one_word_changed() -> None:
    chat = convo(("assistant", 'The check prompts once a week. On "y", runs `make update` '
                               "from the repo directory."))
    quote = 'On "y", runs `make update` from the repo directory'
    wrong = verify("Accepting the prompt runs `make install`.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "identifier_mismatch")
    assert verify("Accepting the prompt runs `make update`.", quote, chat).supported


def test_a_default_marked_by_case_given_the_other_way() -> None:
    chat = convo(("assistant", 'It prompts: "mrk1 updates available. Update now? [y/N]"'))
    quote = 'prompts: "mrk1 updates available. Update now? [y/N]"'
    wrong = verify("The update prompt defaults to yes ([Y/n]).", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "identifier_mismatch")
    assert verify("The update prompt defaults to no ([y/N]).", quote, chat).supported


def test_a_number_beside_a_part_of_a_compound_key() -> None:
    chat = convo(("assistant", "Policy loaded: flash loan check enabled (ratio_threshold=100.0),"
                               " 500 slots of history."))
    quote = "flash loan check enabled (ratio_threshold=100.0)"
    wrong = verify("The flash-loan check fires at a ratio threshold of 500.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("The flash-loan check fires at a ratio threshold of 100.0.", quote,
                  chat).supported


def test_a_default_the_fact_gives_otherwise() -> None:
    chat = convo(("assistant", "GET /logs is paginated. Query params: `limit` (default 50), "
                               "`offset`. Up to 10 filters may be combined."))
    quote = "Query params: `limit` (default 50), `offset`."
    wrong = verify("GET /logs returns 10 entries per page unless a limit is passed.", quote,
                   chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("GET /logs returns 50 entries per page unless a limit is passed.", quote,
                  chat).supported


def test_a_line_the_call_printed_from_its_own_words() -> None:
    chat = [*convo(("call", 'Bash: npm run build; echo "Build finished without errors"')),
            _result("→ Build finished without errors", 2)]
    quote = "Build finished without errors"
    wrong = verify("The build finished without errors.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "tool_line")
    alone = [*convo(("call", 'Bash: echo "Build finished without errors"')),
             _result("→ Build finished without errors", 2)]
    assert verify("The build finished without errors.", quote, alone).check == "tool_line"
    # printed on a condition, the line says what the condition found
    cond = [*convo(("call", 'Bash: bash -n core.sh && echo "Syntax check passed"')),
            _result("→ Syntax check passed", 2)]
    assert verify("bash -n on core.sh passed.", "Syntax check passed", cond).supported
    outputs = [("input", "Bash", 'npm run build; echo "Build finished without errors"'),
               ("output", "Bash", "Build finished without errors")]
    bare = convo(("assistant", "Let me build it."))
    assert verify("The build finished without errors.", quote, bare,
                  tool_texts=outputs).check == "tool_line"


def test_a_subagent_guess_is_a_guess() -> None:
    chat = convo(("assistant", "I asked the setup agent to look."))
    answer = ("I found the issue! The settings file uses ~/.claude/statusline.sh, but the "
              "tilde (~) may not be properly expanded when Claude Code executes the command.")
    outputs = [("input", "Task", "statusline-setup\nCheck the status line"),
               ("output", "Task", answer)]
    quote = "the tilde (~) may not be properly expanded when Claude Code executes the command"
    got = verify("Claude Code does not expand ~ in the statusLine command.", quote, chat,
                 tool_texts=outputs)
    assert (got.supported, got.hint) == (True, "hedged")
    found = "The settings file uses ~/.claude/statusline.sh"
    assert verify("The settings file uses ~/.claude/statusline.sh.", found, chat,
                  tool_texts=outputs).hint is None


def test_the_user_named_by_a_present_tense_verb() -> None:
    chat = convo(("user", "why does my status line not show?"),
                 ("assistant", "For changes like this you'll need to use the "
                               "statusline-setup agent specifically."))
    quote = "you'll need to use the statusline-setup agent specifically"
    got = verify("The user requires status line changes to go through the statusline-setup "
                 "agent.", quote, chat)
    assert (got.supported, got.hint) == (True, "speaker")
    assert verify("Status line changes go through the statusline-setup agent.", quote,
                  chat).hint is None
    # the person as an object, not the subject: no speaker named
    assert verify("Hooks read what the user types; status line changes go through the "
                  "statusline-setup agent.", quote, chat).hint is None


def test_a_fix_the_person_says_does_not_work_in_japanese() -> None:
    said = "修正しました。修正により、ダークモード切り替えボタンが正常に動作するようになりました。"
    chat = convo(("assistant", said),
                 ("user", "切り替わりの動作はしてそうなのですが背景やテキストカラーとかうまく"
                          "動作していないです。"))
    quote = "修正により、ダークモード切り替えボタンが正常に動作するようになりました。"
    got = verify("Fixing the typo made the theme toggle work.", quote, chat)
    assert (got.supported, got.hint) == (True, "corrected_later")
    fine = convo(("assistant", said), ("user", "ありがとう！次はブログのページを作ってください。"))
    assert verify("Fixing the typo made the theme toggle work.", quote, fine).hint is None


def test_a_comment_is_no_proof_of_an_act() -> None:
    chat = convo(("assistant", "Updated the script."))
    outputs = [("input", "Edit", "/home/me/.claude/statusline.sh\n#!/bin/bash\n#!/bin/bash\n"
                                 "# Ensure script is executable")]
    quote = "# Ensure script is executable"
    got = verify("statusline.sh was made executable during the fix.", quote, chat,
                 tool_texts=outputs)
    assert (got.supported, got.hint) == (True, "tool_line")


def test_a_check_the_quote_never_words() -> None:
    chat = convo(("assistant", "The status line configuration has been fixed. It should "
                               "appear after a restart."))
    quote = "The status line configuration has been fixed."
    got = verify("The status line was confirmed to show up again.", quote, chat)
    assert (got.supported, got.hint) == (True, "hedged")
    assert verify("The status line configuration was fixed.", quote, chat).hint is None
    seen = convo(("assistant", "Verified: the status line shows up again after a restart."))
    assert verify("The status line was confirmed to show up again.",
                  "Verified: the status line shows up again after a restart.",
                  seen).hint is None


def test_a_slash_command_output_is_evidence_for_the_verifier(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("<command-name>/mcp</command-name>\n<command-message>mcp</command-message>"),
        user("<local-command-stdout>No MCP servers configured. Please run /doctor if this "
             "is unexpected.</local-command-stdout>"),
        user("how do I install one?"),
        assistant([{"type": "text", "text": "Run `claude mcp add` with the server's name."}]),
    ])
    turns, stats, _ = read_turns(path, tool_texts=True)
    got = verify("No MCP servers were set up in this installation.",
                 "No MCP servers configured.", turns, tool_texts=stats.tool_texts)
    assert (got.supported, got.speaker) == (True, "tool")
    assert verify("Three MCP servers were set up.", "No MCP servers configured.", turns,
                  tool_texts=stats.tool_texts).check == "negation_flip"
    assert verify("No MCP servers were set up.", "No MCP servers installed.", turns,
                  tool_texts=stats.tool_texts).check == "not_found"


def test_a_share_no_tool_printed_is_the_assistants_own_figure() -> None:
    def chat(printed: str) -> list[Turn]:
        return [*convo(("call", "Bash: npx jest csv-chunker")), _result(printed, 2),
                *convo(("assistant", "Done: the chunker has 100% test coverage (23 passing "
                                     "tests)."))]
    quote = "100% test coverage (23 passing tests)"
    fact = "The CSV chunker has 100% test coverage."
    got = verify(fact, quote, chat("→ Tests: 23 passed, 23 total"))
    assert (got.supported, got.hint) == (True, "hedged")
    assert verify(fact, quote, chat("→ All files | 100 % | 100 % |")).hint is None


def test_a_fact_naming_the_folder_of_the_quotes_example_swaps_no_name() -> None:
    quote = "ファイル名がURLになります（例: `my-article.md` → `/blog/my-article`）"
    chat = convo(("assistant", "記事を追加するには src/routes/blog/posts/ に Markdown を置きます。"
                               + quote))
    fact = ("A new blog post is a Markdown file in src/routes/blog/posts/; its file name "
            "becomes the /blog/ URL.")
    assert verify(fact, quote, chat).hint is None
    # a sibling in the quote's folder is another name, still suspected
    listed = convo(("assistant", "Findings: File:        Docs/M-BOOK-SEC.md (3 hardcoded IPs)"),
                   ("assistant", "The scan's raw output is in Docs/Results.json."))
    got = verify("The hardcoded-IP findings came from Docs/Results.json.",
                 "File:        Docs/M-BOOK-SEC.md", listed)
    assert got.hint == "identifier_mismatch"


def test_the_quote_said_again_later_with_other_figures() -> None:
    first = "GitHub found 21 vulnerabilities on the default branch (7 high, 6 moderate, 8 low)"
    again = "GitHub found 19 vulnerabilities on the default branch (2 high, 8 moderate, 9 low)"
    fact = "The last push reported 21 Dependabot vulnerabilities, 7 of them high."
    chat = convo(("assistant", f"Pushed. {first}."), ("user", "bump the deps and push"),
                 ("assistant", f"Pushed again. {again}."))
    got = verify(fact, first, chat)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert "19 vulnerabilities" in got.hint_detail
    same = convo(("assistant", f"Pushed. {first}."), ("user", "push the docs too"),
                 ("assistant", f"Pushed again. {first}."))
    assert verify(fact, first, same).hint is None
    # a pasted report before any call: what tools printed later is the later word
    pasted = convo(("user", f"Context from before: {first}. Continue the release."),
                   ("assistant", "Pushing now."))
    printed = [("input", "Bash", "git push"), ("output", "Bash", f"remote: {again}.")]
    got = verify(fact, first, pasted, tool_texts=printed)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert verify(fact, first, pasted, tool_texts=printed[:1]).hint is None


def test_figures_inside_names_dates_and_line_numbers_are_no_restatement() -> None:
    line = "Fingerprint: docs/m-book-sec.md:hardcoded-ip:655 left in the allow list"
    chat = convo(("assistant", f"Added. {line}."), ("user", "next one"),
                 ("assistant", "Added. Fingerprint: docs/m-book-sec.md:hardcoded-ip:702 left "
                               "in the allow list."))
    got = verify("The fingerprint docs/m-book-sec.md:hardcoded-ip:655 is in the allow list.",
                 line, chat)
    assert got.hint != "corrected_later"


def test_a_value_holding_the_quotes_is_the_same_value() -> None:
    chat = convo(("assistant", 'The test fails: HTML missing expected element: <div '
                               'class="tool-call"'))
    quote = 'HTML missing expected element: <div class="tool-call"'
    got = verify('The test searched for a div with class="tool-call collapsible".', quote, chat)
    assert got.check != "identifier_mismatch"


def test_a_fact_saying_nothing_was_checked_is_no_overclaim() -> None:
    chat = convo(("assistant", "The alert should appear now asking you to open Settings."))
    got = verify("The alert was built but never confirmed working by the user.",
                 "The alert should appear now asking you to open Settings", chat)
    assert got.hint != "hedged" or "confirmed" not in got.hint_detail


def test_an_error_said_fixed_that_shows_again() -> None:
    def chat(after: str) -> list[Turn]:
        return convo(("assistant", "Changed the logger: export default createLogger();"),
                     ("call", "Bash: npm start"), ("fail", after))
    fact = ("Exporting `createLogger()` as the default instance fixed the 'Class "
            "constructors cannot be invoked without new' startup error.")
    quote = "export default createLogger();"
    again = chat("> node index.ts\nerror: Failed to start service: Class constructors "
                 "cannot be invoked without 'new'")
    got = verify(fact, quote, again)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert verify(fact, quote, chat("error: listen EADDRINUSE :::3000")).hint != \
        "corrected_later"


def test_a_comment_the_code_under_it_bears_out_is_evidence() -> None:
    def written(code: str) -> list[tuple[str, str, str]]:
        return [("input", "Write", "/home/me/redact.py\nimport re\n\n\ndef redact(s):\n"
                 f"    # keep first 4 and last 4 characters\n    {code}\n")]
    chat = convo(("assistant", "Wrote the redactor."))
    fact = "Redaction keeps the first 4 and last 4 characters of a secret."
    quote = "keep first 4 and last 4 characters"
    assert verify(fact, quote, chat, tool_texts=written(
        "return s[:4] + '***' + s[-4:]")).hint is None
    assert verify(fact, quote, chat, tool_texts=written(
        "return s[:2] + '***'")).hint == "tool_line"
