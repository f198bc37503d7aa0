"""Fitting what is sent to 1/send_ratio of the transcript, on real sessions and by rule."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from shared import TRANSCRIPTS, need_transcripts, real_sessions

from capture.condense import condense_file, render, render_turn
from capture.fit import LOOKUPS, MIN_BUDGET, budget_for, fit
from capture.noise import only_looks
from capture.pipeline import sent_windows
from capture.transcript import Turn, read_turns
from reviewer.config import Config, ConfigError, load
from reviewer.sanitize.redact import redact

SESSIONS = real_sessions()


def turn(kind: str, text: str, tool: str | None = None) -> Turn:
    role = "user" if kind == "prompt" else "assistant"
    return Turn(role, kind, text, line=1, offset=0, tool=tool)  # type: ignore[arg-type]


def size(turns: list[Turn]) -> int:
    return len(render(turns).encode())


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.relative_to(TRANSCRIPTS).as_posix())
def test_real_sessions_fit_and_keep_every_prompt_and_failure(path: Path) -> None:
    need_transcripts()
    windows = sent_windows(path, Config())
    sent = "\n\n".join(windows)
    assert len(sent.encode()) <= max(path.stat().st_size / Config().send_ratio, MIN_BUDGET)
    turns, _, _ = read_turns(path)
    for t in turns:
        if t.kind in ("prompt", "tool_error"):
            shown = render_turn(dataclasses.replace(t, text=redact(t.text)))
            assert shown[:300] in sent, f"{t.kind} lost: {t.text[:60]!r}"


def test_a_big_tool_heavy_session_is_sent_as_condensed() -> None:
    """Well under budget already: nothing is shed but the looks (issue 21: a read-only
    call says nothing durable, whatever the room), except those something hangs under."""
    need_transcripts()
    path = TRANSCRIPTS / "spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    cond = condense_file(path)
    sent = fit(cond.turns, budget_for(cond.source_bytes, 40))
    turns = cond.turns
    looks = [t for i, t in enumerate(turns) if t.kind == "tool_call" and (
        t.tool in LOOKUPS or (t.tool == "Bash" and only_looks(t.text[6:])))
        and not (t.tool == "Bash" and i + 1 < len(turns)
                 and turns[i + 1].kind in ("detail", "tool_error"))]
    assert looks and [t for t in sent if t.kind != "summary"] == [
        t for t in cond.turns if t not in looks and t.kind != "summary"]


def test_ratio_zero_sends_everything_condensation_kept() -> None:
    need_transcripts()
    path = TRANSCRIPTS / "fasthooks" / "sample_main_transcript.jsonl"
    cond = condense_file(path)
    assert budget_for(cond.source_bytes, 0) is None
    assert sent_windows(path, Config(send_ratio=0)) == [redact(w) for w in cond.windows]
    # The default fits it (its looks go) and fills its room under the floor: not the same.
    assert sent_windows(path, Config()) != [redact(w) for w in cond.windows]


CHAT = [
    turn("prompt", "Use tabs in the Makefile, never spaces."),
    turn("prose", "Let me look at the Makefile first. It has mixed indentation in places."),
    turn("tool_call", "Read Makefile", "Read"),
    turn("tool_call", "Grep \"^  \"", "Grep"),
    turn("prose", "I will convert every recipe line to tabs now, then run make to check."),
    turn("tool_call", "Edit Makefile", "Edit"),
    turn("tool_call", "Bash: make -n", "Bash"),
    turn("tool_error", "Exit code 2 · Makefile:4: *** missing separator", "Bash"),
    turn("prose", "Fixed. Recipe lines in the Makefile now start with a tab; line 4 had "
                  "spaces, which make rejects with 'missing separator'. " * 3),
]


def test_shedding_goes_from_look_ups_to_narration_to_answers() -> None:
    whole = size(CHAT)
    no_lookups = [t for t in CHAT if t.tool not in LOOKUPS]
    step1 = fit(CHAT, size(no_lookups))
    assert step1 == no_lookups  # look-ups first, nothing else touched
    step2 = fit(CHAT, size(no_lookups) - 25)
    narration = [t.text for t in step2 if t.kind == "prose"][:2]
    # What the narration found stays, its announcement goes (issue 21).
    assert narration == ["It has mixed indentation in places. […]",
                         "I will convert every recipe line to tabs now, then run make to "
                         "check."]
    assert [t.text for t in step2 if t.kind == "prose"][-1] == CHAT[-1].text  # answer whole
    tight = fit(CHAT, whole // 2)
    assert size(tight) <= whole // 2
    assert not [t for t in tight if t.kind == "tool_call"]
    kept = [t.text for t in tight if t.kind in ("prompt", "tool_error")]
    assert kept == [CHAT[0].text, CHAT[7].text]


def test_edits_and_commands_outlive_a_long_answer_while_a_paragraph_is_left() -> None:
    # (A narration that only announces its call goes first: 200 bytes cut the answer.)
    out = fit(CHAT, size(CHAT) - 200)
    assert [t.text for t in out if t.kind == "tool_call"] == ["Edit Makefile", "Bash: make -n"]
    assert out[-1].text.endswith(" […]") and len(out[-1].text) >= 240


def test_prompts_and_failures_are_never_cut_even_over_budget() -> None:
    words = "Never retry uploads inline; use the queue. " * 40  # a person's words, 1.7 kB
    turns = [turn("prompt", words), turn("tool_error", "y" * 300, "Bash"),
             turn("prose", "z " * 400)]
    out = fit(turns, 1_000)
    assert out[0].text == words and out[1].text == "y" * 300
    assert len(out[2].text) < 200


def test_fit_never_lengthens_and_is_stable() -> None:
    for budget in (50, 200, 400, 800, 5_000):
        once = fit(CHAT, budget)
        assert size(once) <= size(CHAT)
        assert fit(once, budget) == once or size(fit(once, budget)) <= size(once)


def test_send_ratio_is_a_checked_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path))
    monkeypatch.setenv("MEM_REVIEW_SEND_RATIO", "-1")
    with pytest.raises(ConfigError, match="send_ratio"):
        load()
    monkeypatch.setenv("MEM_REVIEW_SEND_RATIO", "0")
    assert load().send_ratio == 0


@pytest.mark.parametrize("word", ["word", "слово", "単語です", "emoji🙂"])
def test_the_budget_is_counted_in_bytes_whatever_the_script(word: str) -> None:
    turns = [turn("prompt", "Summarise.")]
    for i in range(12):
        turns += [turn("prose", f"{word} " * 40 + "."), turn("tool_call", f"Edit f{i}.py", "Edit")]
    turns.append(turn("prose", f"{word} " * 200))
    budget = size(turns) // 5
    out = fit(turns, budget)
    assert size(out) <= budget
    assert all(t.text.encode() for t in out)  # no split character


def test_many_narrations_without_sentence_ends_still_fit() -> None:
    turns = [turn("prompt", "Go.")]
    turns += [turn("prose", "working on the next step " * 3) for _ in range(400)]
    turns.append(turn("prose", "Done: all tests pass."))
    budget = size(turns) // 40
    out = fit(turns, budget)
    assert size(out) <= budget and out[0].text == "Go."


def test_a_pasted_log_shrinks_to_its_opening_errors_and_end_so_the_answer_is_heard() -> None:
    """Issue 21: a log pasted into a prompt took most of a session's budget and every
    answer was cut to a sliver. Over half the budget, a long paste keeps its opening,
    the lines that name an error and its end (the person's question after it)."""
    log = "\n".join([f"12:00:{i:02d} INFO request {i} ok" for i in range(200)]
                    + ["12:03:20 ERROR db timeout after 30s (pool size 5)"]
                    + [f"12:04:{i:02d} INFO request {i} ok" for i in range(200)]
                    + ["why does the db time out?"])
    answer = "The pool is too small for 40 workers; raise it to 20. " * 8
    turns = [turn("prompt", log), turn("prose", answer)]
    out = fit(turns, len(log) // 3)
    assert out[0].text.startswith("12:00:00 INFO request 0 ok") and len(out[0].text) < 2_000
    assert "ERROR db timeout after 30s (pool size 5)" in out[0].text
    assert out[0].text.endswith("why does the db time out?")
    assert out[1].text == answer


def test_narration_is_cut_longest_first_and_only_as_far_as_needed() -> None:
    long = "Next I will rewrite the parser. " + "Then I'll cover each branch with a test. " * 10
    short = "Then run the tests. They are quick to run here."
    turns = [turn("prompt", "Refactor."), turn("prose", short),
             turn("tool_call", "Edit a.py", "Edit"), turn("prose", long),
             turn("tool_call", "Edit b.py", "Edit"), turn("prose", "All done.")]
    out = fit(turns, size(turns) - 100)
    assert out[1].text == short  # the cut of the longest was enough
    assert out[3].text == "Next I will rewrite the parser. […]"


def test_narration_keeps_what_it_found() -> None:
    """Prose followed by a call may hold a finding ("Found the root cause! …") before its
    announcement ("Now I'll write the plan:"): the announcement goes, the finding stays;
    prose that only announces keeps its first sentence."""
    found = ("Found the root cause! The TodoItem model expects id and priority, but "
             "TodoWrite items carry content and status. Now I'll write a new plan:")
    turns = [turn("prompt", "Why 0 todos?"), turn("prose", found),
             turn("tool_call", "Write plan.md", "Write"),
             turn("prose", "Let me check the loader. Then the parser."),
             turn("tool_call", "Bash: make check", "Bash"), turn("prose", "Done.")]
    # (Short by more than shortening saves, the announcement would go whole.)
    out = fit(turns, size(turns) - 30)
    prose = [t.text for t in out if t.kind == "prose"]
    assert prose == [found.removesuffix(" Now I'll write a new plan:") + " […]",
                     "Let me check the loader. […]", "Done."]


def test_a_colon_does_not_end_a_sentence() -> None:
    text = "The root cause: the cache key ignored the locale. Let me fix that."
    turns = [turn("prompt", "Why?"), turn("prose", text), turn("tool_call", "Edit c.py", "Edit"),
             turn("prose", "Done.")]
    out = fit(turns, size(turns) - 10)
    assert out[1].text == "The root cause: the cache key ignored the locale. […]"


def test_a_long_prompt_a_person_typed_is_never_cut() -> None:
    spec = "\n".join(f"Requirement {i}: uploads over {i} MB go through the resumable "
                     "endpoint, never the inline one." for i in range(60))
    turns = [turn("prompt", spec), turn("prose", "Understood. " * 50)]
    out = fit(turns, len(spec) // 2)
    assert out[0].text == spec


def test_a_mid_sized_sessions_findings_fit_its_floor(tmp_path: Path) -> None:
    """A 300 KB session (1/25 of it is 12 KB) whose answers hold 28 KB of findings sends
    them all: the floor is what a session of this size says (issue 21, session 9: a
    332 KB session that read its project's config and docs lost 9 of 13 facts at 24 KiB,
    5 at 32 KiB; each 8 KiB costs ~$0.0023 per session at Haiku's price)."""
    from records import assistant, call, result, user, write_jsonl

    records: list[dict[str, object]] = [user("Document every contract's settings.")]
    for i in range(14):
        records += [
            call("Bash", {"command": f"./inspect.sh contract_{i}"}, f"t{i}", f"c{i}"),
            result("\n".join(f"row {k} of contract {i}: " + "x" * 180 for k in range(100)),
                   f"t{i}"),
            assistant([{"type": "text", "text": f"Finding {i}: contract_{i} settles after "
                        f"{i + 3} blocks. " + "It keeps its ledger in escrow. " * 60}],
                      f"a{i}"),
        ]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    assert 250_000 < path.stat().st_size < 400_000
    sent = "\n\n".join(sent_windows(path, Config()))
    for i in range(14):
        assert f"Finding {i}: contract_{i} settles after {i + 3} blocks." in sent
    assert sent.count("It keeps its ledger in escrow.") == 14 * 60  # none cut


def test_a_file_written_again_keeps_its_latest_version_whole() -> None:
    """Two versions of the same document written, too big for the room together: the
    older one is cut first, though the newer is the longer (issue 21: "the latest
    description wins the budget")."""
    from records import t

    v1 = "\n".join(f"- step {i}: deploy with `make ship` from the laptop" for i in range(30))
    v2 = "\n".join(f"- step {i}: deploy from CI only, `make ship` is removed" for i in range(30))
    turns = [t("prompt", "Write the deploy runbook."),
             t("tool_call", "Write docs/RUNBOOK.md", "Write"), t("detail", v1, "Write"),
             t("prose", "Changed my mind on the laptop path; rewriting it."),
             t("tool_call", "Write docs/RUNBOOK.md", "Write"), t("detail", v2, "Write")]
    bodies = [x.text for x in fit(turns, size(turns) - 600) if x.kind == "detail"]
    assert bodies[1] == v2  # the latest version, whole
    assert bodies[0] != v1 and bodies[0].startswith("- step 0: deploy with `make ship`")


def test_two_edits_of_a_file_change_two_places_neither_is_older() -> None:
    """A second Edit of a file changes another hunk: the first is not an older version
    of it, and is not cut before the other bodies. A Write of the whole file replaces
    what came before; a small Edit whose replaced text holds what an earlier one wrote
    replaces that one (its path named whole the first time, relative later)."""
    from records import t

    from capture.fit import _rewritten

    hunk1 = "\n".join(f"- retry {i}: back off {i * 2}s before the vendor call" for i in range(30))
    hunk2 = "\n".join(f"- cache {i}: keep entries {i + 5} minutes in redis" for i in range(30))
    other = "\n".join(f"- note {i}: the staging database is rebuilt nightly" for i in range(30))
    turns = [t("prompt", "Document retries and caching."),
             t("tool_call", "Edit docs/OPS.md", "Edit"), t("detail", hunk1, "Edit"),
             t("tool_call", "Edit docs/NOTES.md", "Edit"), t("detail", other, "Edit"),
             t("tool_call", "Edit docs/OPS.md", "Edit"), t("detail", hunk2, "Edit")]
    assert _rewritten(turns) == set()
    bodies = [x.text for x in fit(turns, size(turns) - 600) if x.kind == "detail"]
    assert bodies[0] == hunk1  # not cut first for being the first edit of its file
    assert bodies[2] == hunk2

    small = [t("tool_call", "Edit /home/u/proj/app.toml", "Edit"),
             t("detail", "was: port = 80\nnow: port = 8080", "Edit"),
             t("tool_call", "Edit app.toml", "Edit"), t("detail", "timeout = 30", "Edit"),
             t("tool_call", "Edit app.toml", "Edit"),
             t("detail", "was: port = 8080\nnow: port = 9090", "Edit"),
             t("tool_call", "Write app.toml", "Write"), t("detail", "port = 1", "Write")]
    assert _rewritten(small[:6]) == {1}  # its `was:` holds what the first one wrote
    assert _rewritten(small) == {1, 3, 5}  # the whole file written again
