"""Tool output as a terminal shows it (issue 21): a progress line rewritten by carriage
returns is its last state, and a linter's warning that opens with its line and column
is a warning like any other."""

from __future__ import annotations

from pathlib import Path

from records import assistant, call, result, user, write_jsonl

from capture.noise import last_state, output_warnings
from capture.pipeline import sent_windows
from capture.transcript import read_turns
from reviewer.config import Config

PROGRESS = "".join(f"[{i}/13] Linking tool-{i}...\r" for i in range(1, 14)) + \
    "\r[1/1] Linking hide.sh...\r[mrk1] Linked 14 tool(s) into /home/u/bin\n" + \
    "[mrk1] Running phase: dotfiles\n"


def test_a_line_rewritten_by_carriage_returns_is_its_last_state() -> None:
    assert last_state(PROGRESS).split("\n")[:2] == [
        "[mrk1] Linked 14 tool(s) into /home/u/bin", "[mrk1] Running phase: dotfiles"]
    assert last_state("a\r\nb\r\n") == "a\nb\n"  # a Windows line end is no rewrite
    assert last_state("done 100%\r") == "done 100%"  # nothing written over it
    assert last_state("plain\ntext") == "plain\ntext"


def test_a_short_sessions_output_is_sent_as_the_terminal_left_it(tmp_path: Path) -> None:
    """The outcome after 13 progress steps on one line was past the 400-character cut of
    a restored line: the line as shown is the outcome alone."""
    body = "\n".join(["[mrk1] Installing", PROGRESS] + [f"step {i} ok" for i in range(40)])
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Install mrk1 and tell me what it linked."),
        call("Bash", {"command": "./install.sh"}),
        result(body),
        assistant([{"type": "text", "text": "Installed."}], "m2"),
    ])
    sent = "\n".join(sent_windows(path, Config()))
    assert "→ [mrk1] Linked 14 tool(s) into /home/u/bin" in sent
    assert "Linking tool-3" not in sent


NEXT_BUILD = """> portfolio@0.1.0 build
> next build

   ▲ Next.js 15.5.9

   Creating an optimized production build ...
 ✓ Compiled successfully in 1844ms
   Linting and checking validity of types ...

./app/[locale]/contact/page.tsx
27:14  Warning: 'error' is defined but never used.  @typescript-eslint/no-unused-vars

info  - Need to disable some ESLint rules? Learn more here: https://nextjs.org/docs
""" + "".join(f"   Generating static pages ({i}/19)\n" for i in range(19)) + "Done\n"


def test_a_linters_warning_after_its_line_and_column_is_a_warning() -> None:
    assert output_warnings(NEXT_BUILD) == [
        "27:14 Warning: 'error' is defined but never used. @typescript-eslint/no-unused-vars"]
    stylish = ("/p/src/a.js\n"
               "  3:7   warning  'x' is assigned a value but never used  no-unused-vars\n")
    assert output_warnings(stylish) == [
        "3:7 warning 'x' is assigned a value but never used no-unused-vars"]
    assert output_warnings("12:30  the warning light is on\n") == []


def test_a_build_warning_hangs_under_its_call_when_the_answer_follows(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("ビルドして"),
        call("Bash", {"command": "npm run build"}),
        result(NEXT_BUILD),
        assistant([{"type": "text", "text": "警告を修正します："}], "m2"),
    ])
    turns, _, _ = read_turns(path)
    details = [x.text for x in turns if x.kind == "detail"]
    assert any("27:14 Warning: 'error' is defined but never used." in d for d in details)
