"""The verifier: each check on its own, then `verify` on small conversations.

Every misleading kind from issue 12 has a case that a substring match passed (the
`was_grounded` assertions use the old check's rule: the quote's words are in the text).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from records import convo

from capture import verify as v
from capture.verify import Verdict, verify

CHAT = convo(
    ("user", "The dev server doesn't start when PORT is unset; set PORT=4000 in .env first."),
    ("assistant", "Let me check the config in config/dev.exs to see how the port is read."),
    ("call", "Bash: mix phx.server"),
    ("fail", "Exit code 1 · ** (ArgumentError) could not fetch environment variable PORT"),
    ("assistant", "The endpoint reads PORT with System.fetch_env!/1, so it must be set."),
    ("user", "did you push?"),
    ("call", "Bash: git push origin main"),
    ("assistant", "Pushed to origin main. The migration runs in CI, not locally."),
)


# ---- small pure functions ---------------------------------------------------------------


def test_clean_quote_drops_wrapping_labels_and_edge_ellipses() -> None:
    assert v.clean_quote('"User: we use **pnpm**, not npm…"') == "we use pnpm, not npm"
    assert v.clean_quote("  · Bash: git push") == "bash: git push"
    assert v.clean_quote("... the fix is in ...") == "the fix is in"


def test_too_short_counts_words_not_labels() -> None:
    assert v.too_short("did you push?")
    assert v.too_short("User: ok then")
    assert not v.too_short("did you push the branch?")


def test_identifiers_and_numbers() -> None:
    ids = v.identifiers("Set PORT_NUMBER in config/dev.exs via `mix setup` and --no-cov, "
                        "e.g. System.fetch_env!/1 or fetchEnv.")
    assert {"PORT_NUMBER", "config/dev.exs", "--no-cov", "System.fetch_env", "fetchEnv"} <= ids
    assert "e.g" not in ids and "mix setup" not in ids
    assert v.numbers("port 4000 on v2.1.39, 3 retries") == ["2.1.39", "3", "4000"]


def test_flips_negation_needs_the_same_word_on_both_sides() -> None:
    assert v.flips_negation("A file named nonexistent.txt exists in the workspace.",
                            "cat: nonexistent.txt: No such file or directory")
    # Sharing a word or two is not restating the quote: left to the reviewer.
    assert not v.flips_negation("The pre-commit hook runs a format check.",
                                "Pre-commit validation failed: [FORMAT] Code is not formatted.")
    assert v.flips_negation("The dev server starts without PORT.",
                            "the dev server doesn't start when port is unset")
    assert v.flips_negation("The cache is not invalidated on write.",
                            "the cache is invalidated on every write")
    # Same polarity, or a negation about something else: no flip.
    assert not v.flips_negation("The dev server does not start when PORT is unset.",
                                "the dev server doesn't start when port is unset")
    assert not v.flips_negation("python is not installed; scripts use python3.",
                                "/bin/bash: line 1: python: command not found")
    assert not v.flips_negation("Check the logs when the server does not start.",
                                "it doesn't start, so check the logs")


def test_region_differs_names_what_changed() -> None:
    assert v.region_differs("the migration runs in ci", "the migration never runs in ci") == (
        "negation_flip")
    assert v.region_differs("listens on port 5434", "listens on port 5433") == "number_mismatch"
    assert v.region_differs("edit config/dev.exs first", "edit config/prod.exs first") == (
        "identifier_mismatch")
    assert v.region_differs("the stagin database listens", "the staging database listens") is None


def test_dropped_words_ignores_cut_markers() -> None:
    assert not v.dropped_words(" [… 1,234 characters elided …] ")
    assert not v.dropped_words(", ")
    assert v.dropped_words(" doesn't ")


def test_missing_terms_accepts_a_path_by_its_file_name() -> None:
    assert v.missing_terms("Edit dev.exs on port 4000.", "see config/dev.exs, port 4000") == (
        [], [])
    assert v.missing_terms("Edit prod.exs on port 4001.", "see config/dev.exs, port 4000") == (
        ["prod.exs"], ["4001"])


def test_key_values_and_corrects() -> None:
    assert v.key_values("The server listens on port 8080.") == {"port": "8080"}
    assert v.key_values("MAX_RETRIES = 3") == {"max_retries": "3"}
    assert v.corrects("no wait, it's port 8081", "it listens on port 8080", "port 8080")
    assert v.corrects("Actually test_checkout fails because of the seed",
                      "test_checkout fails because of the timezone", "timezone")
    assert not v.corrects("Actually, let me run the tests first.",
                          "test_checkout fails because of the timezone", "timezone")
    assert not v.corrects("All 397 tests pass.", "All 84 tests pass.", "84 tests pass")


# ---- verify: where the quote is, and each way to fail -----------------------------------


def test_a_true_quote_is_located_with_turn_and_speaker() -> None:
    verdict = verify("The dev server does not start when PORT is unset.",
                     "The dev server doesn't start when PORT is unset", CHAT)
    assert verdict == Verdict(True, None, 0, "user")
    tool = verify("The endpoint fails with ArgumentError when the PORT variable is missing.",
                  "** (ArgumentError) could not fetch environment variable PORT", CHAT)
    assert (tool.supported, tool.turn, tool.speaker) == (True, 3, "tool")


def test_typos_and_reflow_still_match() -> None:
    verdict = verify("The endpoint reads PORT with System.fetch_env!/1.",
                     "The endpoint reads PORT  with System.fetch_env!/1, so it must bee set.",
                     CHAT)
    assert verdict.supported and verdict.turn == 4


def test_not_found() -> None:
    assert verify("Deploys go through Heroku.", "deploys go through heroku on fridays",
                  CHAT).check == "not_found"
    assert verify("Anything.", "", CHAT).check == "not_found"


def test_three_word_quote_is_found_not_suspected() -> None:
    # Issue 21: found, so not known wrong; a short quote is no suspicion either (the
    # reviewer sees its length: a hint on every short true quote was noise).
    verdict = verify("The branch was pushed to origin.", "did you push?", CHAT)
    assert (verdict.supported, verdict.hint, verdict.speaker) == (True, None, "user")
    assert verify("The branch was pushed.", "did you merge?", CHAT).check == "not_found"


def test_elision_that_drops_doesnt_is_refused() -> None:
    verdict = verify("The dev server starts when PORT is unset.",
                     "The dev server … start when PORT is unset", CHAT)
    assert (verdict.supported, verdict.check) == (False, "elision")
    assert "doesn't" in verdict.detail


def test_elision_over_a_cut_marker_only_is_fine() -> None:
    turns = convo(("assistant", "The build needs Node 20 [… 2,000 characters elided …] "
                                "and pnpm 9 to install."))
    assert verify("The build needs Node 20 and pnpm 9.",
                  "The build needs Node 20 … and pnpm 9 to install", turns).supported


def test_fuzzy_match_that_flips_a_negation_is_refused() -> None:
    verdict = verify("The migration runs locally.",
                     "The migration runs in CI, and locally.", CHAT)
    assert verdict.check in ("not_found", "negation_flip")
    flip = verify("The migration runs in CI.", "Pushed to origin main. The migration runs "
                  "in CI, now locally.", CHAT)
    assert flip.check == "negation_flip"


def test_fuzzy_match_that_changes_a_number_or_name_is_refused() -> None:
    assert verify("PORT=4001 goes in .env.", "set PORT=4001 in .env first", CHAT).check == (
        "number_mismatch")
    assert verify("The config lives in config/prod.exs.",
                  "Let me check the config in config/prod.exs to see how the port is read",
                  CHAT).check == "identifier_mismatch"


def test_inverted_quote_is_a_negation_flip() -> None:
    verdict = verify("The dev server starts when PORT is unset.",
                     "The dev server doesn't start when PORT is unset", CHAT)
    assert (verdict.check, verdict.turn) == ("negation_flip", 0)


def test_a_tool_call_line_is_not_evidence() -> None:
    verdict = verify("Changes are pushed to origin main.", "Bash: git push origin main", CHAT)
    assert (verdict.check, verdict.speaker) == ("tool_line", "tool")


def test_a_quote_stitched_from_distant_turns_is_refused() -> None:
    verdict = verify("PORT must be set and the migration runs in CI.",
                     "set PORT=4000 in .env first. The migration runs in CI, not locally.",
                     CHAT)
    assert verdict.check == "stitched"
    near = verify("The endpoint needs PORT.",
                  "could not fetch environment variable PORT. The endpoint reads PORT with "
                  "System.fetch_env!/1", CHAT)
    assert near.supported and near.turn == 3


def test_names_and_numbers_of_the_fact_must_be_near_the_quote() -> None:
    assert verify("PORT=4000 must be set in .env.", "set PORT=4000 in .env first",
                  CHAT).supported
    # The tool lines between two spoken turns are near both of them.
    assert verify("config/dev.exs is read when mix phx.server starts.",
                  "Let me check the config in config/dev.exs", CHAT).supported
    # Named in the same stretch of work: what the fact joins is near enough.
    joined = verify("PORT=4000 must be set for System.fetch_env.",
                    "set PORT=4000 in .env first", CHAT)
    assert (joined.supported, joined.hint) == (True, None)
    # Named only far away in the session: the fact may join two places; a hint.
    far = CHAT[:1] + convo(*[("assistant", f"Step {i} looks at widget_{i}.")
                             for i in range(v.NEAR_TURNS + 2)]) + CHAT[1:]
    joined = verify("PORT=4000 must be set for System.fetch_env.",
                    "set PORT=4000 in .env first", far)
    assert (joined.supported, joined.hint) == (True, "identifier_missing")
    assert verify("PORT must be set in config/runtime.exs.",
                  "set PORT=4000 in .env first", CHAT).check == "identifier_missing"
    assert verify("The dev server needs PORT=4000 and 2 workers.",
                  "set PORT=4000 in .env first", CHAT).check == "number_mismatch"


def test_an_assistant_guess_corrected_later() -> None:
    turns = convo(
        ("assistant", "The test server listens on port 8080 by default."),
        ("call", "Bash: curl localhost:8080"),
        ("fail", "Exit code 7 · curl: (7) Failed to connect to localhost port 8080"),
        ("user", "no, the test server is on port 8081"),
    )
    guess = verify("The test server listens on port 8080.",
                   "The test server listens on port 8080 by default.", turns)
    # A suspicion, not knowledge: supported, with the later turn quoted beside it.
    assert (guess.supported, guess.hint, guess.speaker) == (True, "corrected_later", "assistant")
    assert "port 8081" in guess.hint_detail
    fix = verify("The test server listens on port 8081.", "the test server is on port 8081",
                 turns)
    assert fix.supported and fix.speaker == "user"


def test_a_correction_cue_needs_the_same_thing() -> None:
    turns = convo(
        ("assistant", "test_checkout fails because of the timezone offset."),
        ("user", "Actually, let me run the whole suite first."),
        ("assistant", "Actually test_checkout fails because the random seed changes."),
    )
    guess = verify("test_checkout fails because of the timezone offset.",
                   "test_checkout fails because of the timezone offset.", turns)
    assert (guess.hint, guess.hint_detail.startswith("turn 2")) == ("corrected_later", True)
    unrelated = turns[:2]
    assert not verify("test_checkout fails because of the timezone offset.",
                  "test_checkout fails because of the timezone offset.", unrelated).hint


def test_what_the_user_said_is_not_a_guess_to_correct() -> None:
    turns = convo(("user", "We deploy staging from the release branch only."),
                  ("assistant", "No, wait: I will deploy staging once the release branch is "
                                "tagged."))
    assert verify("Staging deploys from the release branch only.",
                  "We deploy staging from the release branch only.", turns).supported


def test_a_compaction_summary_alone_never_supports_a_confident_fact() -> None:
    turns = convo(("summary", "Summary: the team decided to pin Elixir 1.17 for the build."),
                  ("assistant", "Continuing with the build."))
    confident = verify("The build pins Elixir 1.17.",
                       "the team decided to pin Elixir 1.17 for the build", turns, confidence=0.9)
    assert confident.check == "summary_only"
    assert verify("The build pins Elixir 1.17.", "the team decided to pin Elixir 1.17 for the "
                  "build", turns, confidence=0.4).supported
    both = convo(("user", "We pin Elixir 1.17 for the build."),
                 ("summary", "Summary: we pin Elixir 1.17 for the build."))
    found = verify("The build pins Elixir 1.17.", "We pin Elixir 1.17 for the build", both,
                   confidence=0.9)
    assert found.supported and found.turn == 0


@pytest.mark.parametrize("check", v.CHECKS)
def test_every_check_has_words_for_the_tui(check: str) -> None:
    from reviewer.tui.widgets.detail import CHECK_TEXT

    assert check in CHECK_TEXT


def test_a_large_turn_stays_fast() -> None:
    import time

    filler = " ".join(f"word{i % 997} is here" for i in range(20_000))
    turns = convo(("assistant", filler + " The real quote says the cache is warm. " + filler))
    start = time.perf_counter()
    assert verify("The cache is warm.", "the real quote says the cache is warm", turns).supported
    assert verify("x", "the real quote sayz the cache is warm", turns).supported
    assert time.perf_counter() - start < 2.0


def test_paraphrased_negations_keep_their_polarity() -> None:
    # "need no X" says what "don't need X" says; a typed "doesnt" is a negation too.
    assert not v.flips_negation("LiveViews need no manual handler for AshComputer events.",
                                "So I don't need a manual handler")
    assert not v.flips_negation("mix phx.server does not start.",
                                "mix phx.server doesnt seem to start")
    assert v.flips_negation("mix phx.server starts.", "mix phx.server doesnt seem to start")
    assert not v.flips_negation("5 credo suggestions in waiting_summary.ex are pre-existing.",
                                "no new credo issues (the 5 are pre-existing)")


def test_an_implied_negation_is_a_paraphrase_not_an_inversion() -> None:
    # Found by the demo: the offline extractor's fact for a user's correction.
    quote = "No, don't use requests in src/acme/client.py, use httpx instead."
    assert not v.flips_negation("Use httpx instead of requests in src/acme/client.py.", quote)
    assert not v.flips_negation("Avoid requests in src/acme/client.py; use httpx.", quote)
    assert v.flips_negation("Use requests in src/acme/client.py.", "don't use requests in "
                            "src/acme/client.py")


_PIECES = [*"ab cd.,!?…'\"`*-_/:;\n", "not ", "no ", "port 80", "User: ", "[…]", "doesn't "]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT, st.lists(st.tuples(st.sampled_from(["user", "assistant", "call", "fail",
                                                        "summary"]), _TEXT), max_size=6),
       st.floats(0, 1))
def test_verify_never_raises_and_names_a_known_check(fact, evidence, specs, confidence) -> None:
    verdict = verify(fact, evidence, convo(*specs), confidence=confidence)
    assert verdict.supported == (verdict.check is None)
    assert verdict.check is None or verdict.check in v.CHECKS
    assert verdict.speaker is None or verdict.speaker in v.SPEAKERS
    if verdict.supported:
        assert verdict.turn is not None


def test_a_page_long_quote_is_matched_exactly_and_fast() -> None:
    import time

    page = " ".join(f"line {i} says the cache is warm" for i in range(600))
    turns = convo(("assistant", page))
    start = time.perf_counter()
    assert verify("The cache is warm.", page, turns).supported
    assert verify("The cache is warm.", page.replace("line 7 ", "line 8 "), turns).check == (
        "not_found")
    assert time.perf_counter() - start < 2.0


def test_a_claim_that_something_works_is_corrected_by_its_later_failure() -> None:
    turns = convo(
        ("assistant", "The migration in db/migrate/0042_orders.sql works on Postgres 16."),
        ("call", "Bash: psql -f db/migrate/0042_orders.sql"),
        ("fail", "Exit code 3 · psql:db/migrate/0042_orders.sql:7: ERROR: syntax error"),
    )
    claim = verify("db/migrate/0042_orders.sql works on Postgres 16.",
                   "The migration in db/migrate/0042_orders.sql works on Postgres 16.", turns)
    assert (claim.hint, claim.hint_detail.startswith("turn 2")) == ("corrected_later", True)
    other = convo(("fail", "Exit code 1 · cat: notes.txt: No such file"))
    assert not verify("db/migrate/0042_orders.sql works on Postgres 16.",
                  "The migration in db/migrate/0042_orders.sql works on Postgres 16.",
                  [turns[0], *other[1:]]).hint  # a failure of something else


def test_a_later_failure_of_another_call_does_not_correct_a_claim() -> None:
    turns = convo(
        ("assistant", "All 397 tests pass and the 5 credo issues are in waiting_summary.ex."),
        ("call", "Bash: git commit -m wip"),
        ("fail", "Pre-commit validation failed: · [CREDO] lib/waiting_summary.ex:12"),
    )
    assert verify("5 credo issues in waiting_summary.ex predate the work.",
                  "the 5 credo issues are in waiting_summary.ex", turns).supported


def test_a_queued_prompt_between_prose_and_its_call_keeps_them_near() -> None:
    turns = convo(("user", "start phoenix in background"), ("call", "Bash: mix phx.server"),
                  ("user", "/mcp"), ("assistant", "Phoenix server is starting in the background."))
    assert verify("The Phoenix server runs in the background via mix phx.server.",
                  "Phoenix server is starting in the background.", turns).supported


# ---- issue 21: what the checks know, what they only suspect -------------------------------


def test_a_correction_cue_followed_by_punctuation_matches() -> None:
    turns = convo(("assistant", "The build cache lives in /tmp/build-cache on every runner."),
                  ("user", "No, the build cache lives in ~/.cache/build on the runners."))
    got = verify("The build cache lives in /tmp/build-cache.",
                 "The build cache lives in /tmp/build-cache on every runner.", turns)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert "~/.cache/build" in got.hint_detail  # the later turn, quoted


def test_a_correction_must_be_about_the_same_claim() -> None:
    claim = "The retry loop in sync_worker.py handles upstream timeouts."
    for later in (
        "If the parser gets that wrong, the retry loop in sync_worker.py logs it.",
        "Filed: wrong encoding in export; unrelated to sync_worker.py retries.",
        "Despite the noise, the retry loop in sync_worker.py is what we keep.",
    ):
        turns = convo(("assistant", claim), ("user", later))
        got = verify(claim, claim, turns)
        assert got.supported and got.hint is None, later


def test_numbers_with_units_are_compared() -> None:
    turns = convo(("assistant", "The full suite took 209s on CI and the cache hit rate "
                   "was 97% today."))
    assert v.numbers("took 209s, 48.7s, every 10s, 500ms") == ["10", "209", "48.7", "500"]
    got = verify("The full suite takes 48.7s on CI.", "The full suite took 209s on CI", turns)
    assert (got.supported, got.check) == (False, "number_mismatch")


def test_a_flag_value_after_equals_is_compared() -> None:
    turns = convo(("assistant", "List the changed files with git log --diff-filter=M "
                   "--name-only before the release."))
    got = verify("Added files are listed with git log --diff-filter=A --name-only.",
                 "List the changed files with git log --diff-filter=M --name-only", turns)
    # The quote gives the same flag another value: the mismatch itself, not a missing name.
    assert (got.supported, got.check) == (False, "identifier_mismatch")
    assert "diff-filter" in got.detail


def test_a_negation_flipped_inside_a_long_elided_quote() -> None:
    turns = convo(("assistant", "The importer does not retry on 429 responses, and it logs "
                   "each failure to import.log before moving on to the next file in the "
                   "batch."))
    got = verify("The importer retries on 429 responses.",
                 "The importer does retry on 429 responses, … moving on to the next file "
                 "in the batch", turns)
    assert (got.supported, got.check) == (False, "negation_flip")


def test_a_hedged_quote_stated_as_fact_is_a_hint() -> None:
    turns = convo(("assistant", "The crash is probably caused by the stale lockfile in "
                   "build/.lock."))
    got = verify("The crash is caused by the stale lockfile in build/.lock.",
                 "The crash is probably caused by the stale lockfile in build/.lock.", turns)
    assert (got.supported, got.hint) == (True, "hedged")
    kept = verify("The crash is probably caused by the stale lockfile (a guess).",
                  "The crash is probably caused by the stale lockfile in build/.lock.", turns)
    assert kept.hint is None


def test_another_speaker_than_the_model_said_is_a_hint() -> None:
    got = verify("The endpoint reads PORT with System.fetch_env!/1.",
                 "The endpoint reads PORT with System.fetch_env!/1, so it must be set.",
                 CHAT, said_by="user")
    assert (got.supported, got.hint, got.speaker) == (True, "speaker", "assistant")


def test_a_refuted_step_and_a_fix_that_still_fails() -> None:
    turns = convo(
        ("assistant", "Clearing node_modules/.vite fixes the blank page in dev."),
        ("user", "That didn't work, the blank page in dev is still there after clearing "
                 "node_modules/.vite."),
    )
    got = verify("Clearing node_modules/.vite fixes the blank page.",
                 "Clearing node_modules/.vite fixes the blank page in dev.", turns)
    assert got.hint == "corrected_later"
    fixed = convo(("assistant", "The login redirect loop in auth/session.py is fixed now."),
                  ("user", "the login redirect in auth/session.py still fails for me"))
    got = verify("The login redirect loop in auth/session.py is fixed.",
                 "The login redirect loop in auth/session.py is fixed now.", fixed)
    assert got.hint == "corrected_later"


def test_a_quote_only_a_tool_printed_is_in_the_transcript() -> None:
    """The conversation lacks it, a tool's output has it: supported, said by the tool;
    a changed number there is still known wrong; a quote of what was run is a tool line,
    with a hint when that call then failed."""
    outputs = [
        ("input", "Bash", "cat package.json"),
        ("output", "Bash", '{\n  "name": "slopus",\n  "version": "0.1.4",\n  "license": "MIT"\n}'),
        ("input", "Bash", "python3 -c 'from app.db import Session; print(Session)'"),
        ("error", "Bash", "ModuleNotFoundError: No module named 'app'"),
    ]
    ok = verify("The package is named slopus.", '"name": "slopus",', CHAT, tool_texts=outputs)
    assert (ok.supported, ok.speaker, ok.hint) == (True, "tool", None)
    # The file a read's output came from is named by the call: near the quote.
    named = verify("package.json names the package slopus.", '"name": "slopus",', CHAT,
                   tool_texts=outputs)
    assert (named.supported, named.hint) == (True, None)
    bad = verify("The package is at version 0.4.1.", '"version": "0.1.4",', CHAT,
                 tool_texts=outputs)
    assert (bad.supported, bad.check) == (False, "number_mismatch")
    ran = verify("from app.db import Session works from the repo root.",
                 "from app.db import Session", CHAT, tool_texts=outputs)
    assert (ran.supported, ran.check, ran.hint) == (False, "tool_line", "corrected_later")
    assert verify("x", "never printed by anything at all", CHAT,
                  tool_texts=outputs).check == "not_found"


def test_a_quote_inside_a_failure_stated_as_the_way_is_a_hint() -> None:
    turns = convo(("call", "Bash: ./monitor-build.sh"),
                  ("fail", "Exit code 127 · /bin/sh: ./monitor-build.sh: No such file or "
                           "directory"))
    # A fact that says it failed, from the same line, is what the line says.
    failed = verify("./monitor-build.sh is missing: No such file on the runner.",
                    "/bin/sh: ./monitor-build.sh", turns)
    assert failed.hint != "corrected_later"
    stated = verify("Build progress is watched with ./monitor-build.sh on the runner.",
                    "/bin/sh: ./monitor-build.sh", turns)
    assert (stated.supported, stated.hint) == (True, "corrected_later")
    assert "No such file" in stated.hint_detail or "no such file" in stated.hint_detail


def test_units_in_any_case_and_an_elision_inside_a_tool_output() -> None:
    assert v.numbers("The venv was 4.2G; / is 32G with 785M free, limit 100.00 MB") == [
        "100.00", "32", "4.2", "785"]
    outputs = [("output", "Bash", "Filesystem Size Used\n/cow 32G 31G 785M 98% /\n"
                "warning: the overlay is not resizable at runtime")]
    got = verify("The overlay is resizable at runtime.",
                 "warning: the overlay is … resizable at runtime", CHAT, tool_texts=outputs)
    assert (got.supported, got.check) == (False, "elision")
    ran = [("input", "Bash", "uv run pytest -x --tb=short"), ("output", "Bash", "1 passed")]
    flag = verify("Tests run with uv run pytest -x --tb=long.", "uv run pytest -x --tb=short",
                  CHAT, tool_texts=ran)
    assert (flag.supported, flag.check) == (False, "identifier_missing")
