"""Verifier mechanisms of issue 21 found on a fourth held-out set, each on a small
conversation of its own words (not the set's): what the checks know (a rate or size in
another unit, the old side of a moved quantity, a numbered name the session never says,
a switch set the other way) marks a candidate ungrounded; what they suspect (a plan the
person turned down, one alternative of a guess, an absence only a report saw, an offer
or an intention stated as done, a speaker named by "by the user") is a hint. Each case
has a true twin the same check must leave alone."""

from __future__ import annotations

from records import convo

from capture.transcript import Turn
from capture.verify import verify
from capture.verify.inversion import denied_value
from capture.verify.values import unit_changed


def test_a_rate_or_size_in_another_unit_is_a_changed_value() -> None:
    chat = convo(("call", "Bash: nft add rule inet filter input limit rate 25/second accept"),
                 ("assistant", "The API cache now holds 64 MB; requests are throttled to "
                               "25 per second."))
    quote = "requests are throttled to 25 per second"
    wrong = verify("API requests are throttled to 25 per minute.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("API requests are throttled to 25 per second.", quote, chat).supported
    assert verify("API requests are throttled to 25/s.", quote, chat).supported
    size = "The API cache now holds 64 MB"
    assert verify("The API cache holds 64 KB.", size, chat).check == "number_mismatch"
    assert unit_changed("a 2 minute wait", "waits 2 min") == []  # the same unit, spelt out


def test_a_value_the_fact_denies_is_not_a_changed_value() -> None:
    chat = convo(("assistant", "top shows 212% CPU for the indexer, but that counts every "
                               "core: it really uses 0.9 cores (45%) on this 2-core box."))
    quote = "it really uses 0.9 cores (45%)"
    got = verify("The indexer really uses 45% of the machine, not the 212% top shows.",
                 quote, chat)
    assert (got.supported, got.check) == (True, None)
    assert verify("The indexer really uses 212% of the machine.", quote,
                  chat).check == "number_mismatch"


def test_the_old_side_of_a_moved_quantity_stated_as_current() -> None:
    chat = convo(("assistant", "Raised the journal's retention: 14 days → 90 days, and the "
                               "upload chunk size from 8 MB to 32 MB."))
    quote = "Raised the journal's retention: 14 days → 90 days"
    wrong = verify("The journal keeps 14 days of entries.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("The journal keeps 90 days of entries.", quote, chat).supported
    told = verify("Journal retention was raised from 14 days to 90 days.", quote, chat)
    assert told.supported
    chunk = "the upload chunk size from 8 MB to 32 MB"
    assert verify("Uploads are sent in 8 MB chunks.", chunk, chat).check == "number_mismatch"


def test_a_numbered_name_the_session_never_says_is_known_wrong() -> None:
    chat = convo(("call", "Bash: ip -s link show enp3s0"),
                 ("assistant", "The drops are on enp3s0: 4,112 RX errors since boot."))
    quote = "The drops are on enp3s0"
    wrong = verify("The packet drops are on enp4s0.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "identifier_missing")
    assert verify("The packet drops are on enp3s0.", quote, chat).supported
    # A brand written with a digit is a word, not a device's name.
    assert verify("The packet drops are on enp3s0 (a Quad9 resolver is unrelated).",
                  quote, chat).check is None


def test_a_switch_set_the_other_way_is_an_inversion() -> None:
    chat = convo(("call", "Bash: uci set dhcp.lan_ipv6_ra.enabled='0' && uci commit"),
                 ("assistant", "Done: `uci set dhcp.lan_ipv6_ra.enabled='0'` applied."))
    quote = "uci set dhcp.lan_ipv6_ra.enabled='0'"
    wrong = verify("IPv6 router advertisements on the LAN were enabled.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "negation_flip")
    right = verify("IPv6 router advertisements on the LAN were disabled.", quote, chat)
    assert right.check != "negation_flip"
    # A fact about something the key does not name is no inversion of it.
    other = verify("The guest Wi-Fi stays enabled.", quote, chat)
    assert other.check != "negation_flip"


def _planned(answer: Turn | None = None) -> list[Turn]:
    turns = convo(
        ("assistant", "Plan summary:\n- **Export**: `/notes:dump` writes every note to "
                      "NOTES_DIR as Markdown\n- **Sync**: a cron entry every 15 minutes"),
    )
    turns.append(Turn("assistant", "tool_call", "ExitPlanMode: # Plan", 2, 100,
                      tool="ExitPlanMode"))
    turns.append(Turn("user", "tool_error", "ExitPlanMode failed: User chose to stay in plan "
                      "mode and continue planning", 3, 200, tool="ExitPlanMode"))
    turns.append(Turn("user", "prompt", "- call it /notes:export\n- keep the cron entry", 4,
                      300))
    turns.append(answer or Turn("assistant", "prose", "Updated: `/notes:export` writes every "
                                "note as Markdown; the cron entry stays.", 5, 400))
    return turns


def test_what_a_turned_down_plan_named_and_nobody_names_again_is_suspected() -> None:
    turns = _planned()
    quote = "`/notes:dump` writes every note to NOTES_DIR as Markdown"
    got = verify("The export command is /notes:dump.", quote, turns)
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert "/notes:export" in got.hint_detail  # the person's words it rests on
    # The plan's other part, named again after the rejection, is not suspected.
    kept = verify("Notes are synced by a cron entry every 15 minutes.",
                  "a cron entry every 15 minutes", turns)
    assert kept.hint is None
    # Named again (the person kept it): no suspicion.
    again = _planned(Turn("assistant", "prose", "Kept `/notes:dump` as the name.", 5, 400))
    assert verify("The export command is /notes:dump.", quote, again).hint is None


def test_one_alternative_of_a_guess_is_suspected() -> None:
    chat = convo(("assistant", "The cache was empty (probably because the warm-up job never "
                               "ran, or the volume was mounted after the service started)."))
    quote = "or the volume was mounted after the service started"
    got = verify("The cache was empty because the volume was mounted after the service "
                 "started.", quote, chat)
    assert got.hint == "hedged"
    plain = convo(("assistant", "Run it with the flag, or the volume is mounted read-only."))
    assert verify("The volume is mounted read-only without the flag.",
                  "or the volume is mounted read-only", plain).hint is None


def test_an_absence_a_report_saw_stated_as_none() -> None:
    chat = convo(("assistant", "Scan results:\n- **Dependencies:** No known CVEs found\n"
                               "- **Lint:** clean"))
    quote = "No known CVEs found"
    got = verify("The project's dependencies have no CVEs.", quote, chat)
    assert got.hint == "hedged"
    assert verify("The dependency scan found no known CVEs.", quote, chat).hint is None


def test_an_offer_or_an_intention_stated_as_done() -> None:
    chat = convo(("assistant", "Want to try the failover? Here's how: stop the primary with "
                               "`systemctl stop pg-primary` and watch the replica promote."),
                 ("assistant", "Let me add the retry wrapper to the upload client."))
    offer = "Want to try the failover? Here's how: stop the primary"
    got = verify("The failover was tested by stopping the primary.", offer, chat)
    assert got.hint == "hedged"
    intent = "add the retry wrapper to the upload client"
    assert verify("The retry wrapper was added to the upload client.", intent,
                  chat).hint == "hedged"
    assert verify("The upload client is to get a retry wrapper.", intent, chat).hint is None


def test_a_speaker_named_by_the_passive_is_checked() -> None:
    chat = convo(("user", "Use port 5433, 5432 is taken by the old cluster."),
                 ("assistant", "The old cluster still listens on 5432, so I moved the new "
                               "one to 5433."))
    quote = "The old cluster still listens on 5432"
    got = verify("Port 5433 was chosen by the user because the old cluster holds 5432.",
                 "Use port 5433, 5432 is taken by the old cluster", chat)
    assert got.hint is None
    wrong = verify("That the old cluster listens on 5432 was reported by the user.", quote,
                   chat)
    assert wrong.hint == "speaker"


def test_a_range_is_no_move() -> None:
    chat = convo(("assistant", "Chunk sizes range from 8 MB to 32 MB depending on the link."))
    got = verify("Chunks can be 8 MB.", "Chunk sizes range from 8 MB to 32 MB", chat)
    assert got.check is None


def test_a_state_claimed_reached_then_the_person_pastes_a_failure() -> None:
    def chat(reply: str) -> list[Turn]:
        return convo(("assistant", "✅ The formatter hook is now installed and enabled. Your "
                                   "next commit runs it automatically."),
                     ("user", reply))
    quote = "The formatter hook is now installed and enabled"
    fact = "The formatter hook runs on every commit."
    got = verify(fact, quote, chat("git commit said: ⛔ hook rejected the commit, "
                                   "formatter not found"))
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert verify(fact, quote, chat("thanks, now update the README")).hint is None


def test_a_quote_cut_after_a_negation_that_governs_its_clause() -> None:
    chat = convo(("assistant", "It is not true that the importer drops duplicate rows; the "
                               "counts match before and after."))
    quote = "the importer drops duplicate rows"
    got = verify("The importer drops duplicate rows.", quote, chat)
    assert got.hint == "negation_flip"
    said = convo(("assistant", "I checked: the importer drops duplicate rows before insert."))
    assert verify("The importer drops duplicate rows.", quote, said).hint is None


def test_two_counts_of_the_quote_swapped_in_the_fact() -> None:
    chat = convo(("assistant", "The pool now runs 4 workers and 12 queues on the box."))
    quote = "The pool now runs 4 workers and 12 queues"
    wrong = verify("The pool runs 12 workers.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("The pool runs 4 workers.", quote, chat).supported
    shared = convo(("assistant", "All 6 jobs passed: 6 of 6 green."))
    assert verify("6 jobs passed.", "All 6 jobs passed: 6 of 6 green", shared).supported


def test_a_command_written_without_backticks_with_one_word_changed() -> None:
    chat = convo(("call", "Bash: restic forget --keep-daily 7 --prune"),
                 ("assistant", "The nightly job runs restic forget --keep-daily 7 --prune."))
    quote = "The nightly job runs restic forget --keep-daily 7 --prune"
    wrong = verify("The nightly job runs restic prune --keep-daily 7.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "identifier_mismatch")
    assert verify("The nightly job runs restic forget --keep-daily 7 with pruning.", quote,
                  chat).supported


def test_a_value_the_quote_states_and_the_fact_denies() -> None:
    chat = convo(("assistant", "The bundle is 4.2 MB after minification; the CDN caps "
                               "files at 5 MB."))
    quote = "The bundle is 4.2 MB after minification"
    wrong = verify("The minified bundle is not 4.2 MB.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "negation_flip")
    # A value the session changed is not denied against the quote that gave it.
    assert denied_value("The bundle is not 4.2 MB any more.", "The bundle was 4.2 MB") == ""
    assert denied_value("The bundle is not 4.2 MB.", quote) == "4.2"


def test_unable_and_a_participle_deny_and_affirm_the_verb() -> None:
    chat = convo(("assistant", "I'm unable to resolve the hostname buildhost from the "
                               "container."),
                 ("assistant", "Rows older than the cutoff will show in the archive view."))
    resolve = verify("The container resolves the hostname buildhost.",
                     "I'm unable to resolve the hostname buildhost", chat)
    assert resolve.check == "negation_flip"
    shown = verify("Rows older than the cutoff are not shown in the archive view.",
                   "Rows older than the cutoff will show in the archive view", chat)
    assert shown.check == "negation_flip"


def test_a_tool_output_quoted_as_the_users_words() -> None:
    from capture.transcript import Turn as T

    turns = [T("user", "prompt", "Check the version.", 1, 0),
             T("assistant", "tool_call", "Bash: cat VERSION", 2, 100, tool="Bash")]
    tools = [("input", "Bash", "cat VERSION"), ("output", "Bash", "release 7.3.1 (lts)")]
    got = verify("The user decided the release is 7.3.1 (lts).", "release 7.3.1 (lts)", turns,
                 tool_texts=tools)
    assert (got.supported, got.hint) == (True, "speaker")
    plain = verify("The release is 7.3.1 (lts).", "release 7.3.1 (lts)", turns,
                   tool_texts=tools)
    assert plain.hint is None


def test_a_unit_spelt_out_is_compared_like_its_short_form() -> None:
    chat = convo(("assistant", "The smoke suite completes in ~40 seconds, well under its "
                               "90-second budget."))
    quote = "The smoke suite completes in ~40 seconds"
    wrong = verify("The smoke suite takes about 40 minutes.", quote, chat)
    assert (wrong.supported, wrong.check) == (False, "number_mismatch")
    assert verify("The smoke suite takes about 40s.", quote, chat).supported
    # A number the quote gives without a unit may be the fact's value with one.
    assert unit_changed("redraws every 2 seconds", "timeout 6s status.py --every 2") == []


def test_a_name_swapped_for_another_of_the_session_goes_before_a_vaguer_suspicion() -> None:
    chat = convo(("assistant", "The parser lives in `reader.py`."),
                 ("assistant", "The cache loader lives in `loader.py` and runs at startup."),
                 ("user", "Wait, the cache loader is actually too slow at startup."))
    quote = "The cache loader lives in `loader.py`"
    got = verify("The cache loader lives in `reader.py`.", quote, chat)
    assert (got.supported, got.hint) == (True, "identifier_mismatch")
    assert verify("The cache loader lives in `loader.py`.", quote,
                  chat).hint == "corrected_later"


def test_a_method_and_its_path_compared_as_a_command() -> None:
    chat = convo(("assistant", "Alerts are acknowledged with `POST /v2/alerts/:id/ack`."),
                 ("assistant", "Events are posted with `POST /v2/events/:id/ack` by the "
                               "worker."))
    quote = "Events are posted with `POST /v2/events/:id/ack`"
    got = verify("Events are posted with `POST /v2/alerts/:id/ack`.", quote, chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")
    assert verify("Events are posted with `POST /v2/events/:id/ack`.", quote, chat).supported


def test_a_name_that_says_not_is_a_negation() -> None:
    turns = [Turn("assistant", "tool_call", "Bash: command -v terraform || echo MISSING_BINARY "
                  "&& test -f .tfstate || echo NOT_PRESENT", 1, 0, tool="Bash"),
             Turn("user", "detail", "NOT_PRESENT", 2, 100, tool="Bash")]
    got = verify("The .tfstate file is present, so the plan can be applied.", "NOT_PRESENT",
                 turns)
    assert got.check == "negation_flip"


def test_two_files_of_one_directory_are_names_of_one_kind() -> None:
    chat = convo(("assistant", "The findings JSON is reports/scan_2026-02-01.json."),
                 ("user", "Findings:\n  File:   reports/SECURITY-NOTES.md\n  Line: 12"))
    quote = "File:   reports/SECURITY-NOTES.md"
    got = verify("The finding came from reports/scan_2026-02-01.json.", quote, chat)
    assert got.hint == "identifier_mismatch"
    assert verify("The finding came from reports/SECURITY-NOTES.md.", quote,
                  chat).hint is None


def test_a_verdict_of_safety_stated_as_fact() -> None:
    chat = convo(("assistant", "## Result\n**Still safe:** every token is masked before "
                               "upload."))
    quote = "**Still safe:** every token is masked before upload"
    got = verify("Uploads are safe: every token is masked before upload.", quote, chat)
    assert got.hint == "hedged"


def test_any_past_tense_act_of_a_named_speaker() -> None:
    chat = convo(("user", "The deploy is slow, can you look?"),
                 ("assistant", "Pin the base image to a digest so layers are cached."))
    quote = "Pin the base image to a digest so layers are cached"
    got = verify("The user worked out that pinning the base image to a digest caches "
                 "layers.", quote, chat)
    assert got.hint == "speaker"
    assert verify("Pinning the base image to a digest caches layers.", quote,
                  chat).hint != "speaker"


def test_a_japanese_sentence_is_not_a_short_quote() -> None:
    chat = convo(("assistant", "全部のアドレスを単純合計すると回数が水増しされます。"))
    quote = "単純合計すると回数が水増しされます"
    got = verify("Summing every address's count always inflates the total.", quote, chat)
    assert got.hint != "too_short"


def test_an_approximate_number_and_a_reading_under_a_condition_are_hedges() -> None:
    chat = convo(("assistant", "両方とも約 $2.50 で一致しています。"),
                 ("assistant", "失敗した2件は再送だと解釈すれば、合計は一致します。"))
    assert verify("Both vaults settled exactly $2.50.", "両方とも約 $2.50 で一致しています",
                  chat).hint == "hedged"
    assert verify("The 2 failed ones were resends.", "失敗した2件は再送だと解釈すれば",
                  chat).hint == "hedged"


def test_one_cause_picked_from_a_list_of_possible_ones() -> None:
    chat = convo(("assistant", "Unsettled jobs include cases such as the worker dying "
                               "mid-batch, the broker rejecting the ack, or a full disk."))
    quote = "cases such as the worker dying mid-batch, the broker rejecting the ack"
    got = verify("The jobs stayed unsettled because the worker died mid-batch.", quote, chat)
    assert got.hint == "hedged"
    plain = convo(("assistant", "The jobs stayed unsettled: the worker died mid-batch."))
    assert verify("The jobs stayed unsettled because the worker died mid-batch.",
                  "the worker died mid-batch", plain).hint is None


def test_a_count_the_session_gives_otherwise_after_the_person_spoke() -> None:
    def chat(reply: str) -> list[Turn]:
        return convo(("assistant", "The migration touched 40 tenants in total."),
                     ("user", "Are you sure? Check the audit log."),
                     ("assistant", reply))
    quote = "The migration touched 40 tenants in total"
    fact = "The migration touched 40 tenants."
    got = verify(fact, quote, chat("The audit log shows the migration touched 178 tenants "
                                   "(180 attempted)."))
    assert (got.supported, got.hint) == (True, "corrected_later")
    assert verify(fact, quote, chat("Confirmed: 40 tenants, per the audit log.")).hint is None
    # Another thing counted, or a unit, is no recount.
    assert verify(fact, quote, chat("The audit log has 12 entries for 3 admins.")).hint is None


def test_a_denial_of_what_the_quote_states_of_the_same_names() -> None:
    chat = convo(("assistant", "`libfoo-dev` stays installed (a dependency of "
                               "`foo-runtime`)."))
    quote = "`libfoo-dev` stays installed (a dependency of `foo-runtime`)"
    got = verify("libfoo-dev was not kept because foo-runtime depends on it.", quote, chat)
    assert (got.supported, got.hint) == (True, "negation_flip")
    # A denial the fact infers from the quote ("…, so it is not …") is no inversion.
    infer = convo(("assistant", "The CSS lives in `static/assets/`, which is gitignored."))
    assert verify("The CSS in static/assets/ is gitignored, so it is not tracked.",
                  "The CSS lives in `static/assets/`, which is gitignored", infer).hint is None


def test_a_thing_that_expected_or_reported_is_no_persons_view() -> None:
    chat = convo(("assistant", "I think the `Job` model expects `id` and `queue` fields."))
    quote = "the `Job` model expects `id` and `queue` fields"
    got = verify("The Job model expected `id` and `queue` fields.", quote, chat)
    assert got.hint == "hedged"
    kept = verify("Claude expected the Job model to need `id` and `queue` fields.", quote, chat)
    assert kept.hint != "hedged"


def test_a_negation_before_a_quote_that_negates_flips_it_back() -> None:
    chat = convo(("assistant", "It is not true that the cache cannot be shared between "
                               "workers; they share it through the volume."))
    quote = "the cache cannot be shared between workers"
    got = verify("The cache cannot be shared between workers.", quote, chat)
    assert got.hint == "negation_flip"
    said = convo(("assistant", "Note that the cache cannot be shared between workers."))
    assert verify("The cache cannot be shared between workers.", quote, said).hint is None


def test_a_word_put_for_another_is_no_slip_of_the_pen() -> None:
    chat = convo(("assistant", "The SQLite database is NOT required for session "
                               "functionality; the JSON files are enough."))
    wrong = verify("Sessions work without the SQLite database.",
                   "The SQLite database is NOT required for backup functionality", chat)
    assert (wrong.supported, wrong.check) == (False, "not_found")
    for near in ("The SQLite database is NOT requried for session functionality",
                 "The SQLite database isn't required for session functionality"):
        assert verify("The SQLite database is not required for sessions.", near,
                      chat).supported
