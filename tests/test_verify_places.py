"""Knowledge checks made general in session 9 (issue 21): a path on another branch than
its quote's, a variable the session points elsewhere, a labelled count ("approvals: 2"),
and a verb's opposite said of the same subject in a short quote."""

from __future__ import annotations

from records import convo

from capture import claims as c
from capture.verify import flips_meaning, verify
from capture.verify.places import pointed_elsewhere, sibling_path


def test_a_path_on_another_branch_than_the_quotes_is_a_changed_name() -> None:
    quote = "- `lib/plugins/Scheduler.ts` - cron integration for the sync jobs"
    assert sibling_path("The scheduler plugin lives in lib/core/ beside the others.", quote)
    chat = convo(("assistant", "Layout: lib/core/ holds the kernel.\n" + quote))
    got = verify("The scheduler plugin lives in lib/core/ beside the others.", quote, chat)
    assert (got.supported, got.check) == (False, "identifier_mismatch")


def test_a_path_the_quote_holds_or_lies_under_is_no_branch() -> None:
    quote = "- `lib/plugins/Scheduler.ts` - cron integration for the sync jobs"
    assert not sibling_path("The scheduler plugin lives in lib/plugins/.", quote)
    assert not sibling_path("The scheduler is lib/plugins/Scheduler.ts.", quote)
    # moved from one branch to the other: the quote's branch is the fact's too
    assert not sibling_path("Scheduler.ts moved from lib/core/ to lib/plugins/.", quote)
    # no shared named root: a home directory is not a branch point
    assert not sibling_path("Hooks are in ~/.claude/hooks.", "found /home/ann/.claude/hooks/")
    assert not sibling_path("See https://example.com/a/b for the docs.",
                            "see https://example.com/a/c for the docs")


def test_a_variable_pointed_where_the_session_never_points_it_is_known() -> None:
    said = ['Edit settings.json: "CACHE_ROOT": "__HOME__/.cache" → "CACHE_ROOT": "/srv/app/.cache"']
    fact = "CACHE_ROOT was corrected to the checkout, /srv/app/repo/.cache."
    assert "never to /srv/app/repo/.cache" in pointed_elsewhere(fact, said)
    assert not pointed_elsewhere("CACHE_ROOT was corrected to /srv/app/.cache.", said)
    # a value built from another variable may be anything
    assert not pointed_elsewhere(fact, ["export CACHE_ROOT=$HOME/.cache"])
    # never set in the session: nothing known
    assert not pointed_elsewhere(fact, ["the cache lives under /srv/app/.cache"])


def test_a_variable_pointed_at_the_same_path_spelt_otherwise_is_no_change() -> None:
    claude = ["export CLAUDE_DIR=/home/alice/.claude"]
    assert not pointed_elsewhere("CLAUDE_DIR is set to ~/.claude", claude)
    assert not pointed_elsewhere("CLAUDE_DIR is set to /home/alice/.claude",
                                 ["CLAUDE_DIR=~/.claude"])
    assert not pointed_elsewhere("CLAUDE_DIR is set to /Users/al/.claude",
                                 ['"CLAUDE_DIR": "~/.claude"'])
    assert not pointed_elsewhere("Set DATA_DIR=./data/cache", ["DATA_DIR=data/cache"])
    assert not pointed_elsewhere("DATA_DIR was set to data/cache/", ["DATA_DIR=./data/cache"])
    # another place under the home, another user's home, a parent's directory: changed
    assert pointed_elsewhere("CLAUDE_DIR is set to ~/.claude2", claude)
    assert pointed_elsewhere("CLAUDE_DIR is set to /home/bob/.claude", claude)
    assert pointed_elsewhere("DATA_DIR was set to ../data/cache", ["DATA_DIR=data/cache"])
    chat = convo(("assistant", "Done: `export CLAUDE_DIR=/home/alice/.claude` is in ~/.bashrc."))
    got = verify("CLAUDE_DIR is set to ~/.claude in ~/.bashrc.",
                 "export CLAUDE_DIR=/home/alice/.claude", chat)
    assert got.check != "identifier_mismatch"


def test_a_labelled_count_is_read_beside_its_label() -> None:
    assert c.number_beside_changed("A treasury proposal needs 3 approvals to execute.",
                                   "- Required approvals: 2 (configurable)")
    assert not c.number_beside_changed("A treasury proposal needs 2 approvals to execute.",
                                       "- Required approvals: 2 (configurable)")
    # the time of day is no label
    assert not c.number_beside_changed("The job runs at 10:30 daily.", "runs at 10:30")


def test_a_verbs_opposite_said_of_the_same_subject_is_an_inversion() -> None:
    fact = "The hook scripts were missing from the home directory, so we used the repo copy."
    assert flips_meaning(fact, "The hooks exist at `/home/ann/.claude/hooks/`.")
    assert not flips_meaning(fact, "The tests exist at `/home/ann/project/tests/`.")


def test_two_files_of_one_directory_are_no_branch() -> None:
    assert not sibling_path("The finding came from reports/scan.json.",
                            "File: reports/SECURITY-NOTES.md")
    assert sibling_path("The scan wrote reports/daily/scan.json.",
                        "File: reports/weekly/scan.json")


def test_the_next_sentences_hedge_is_not_the_quotes() -> None:
    from capture.ground import normalise
    from capture.verify.hedges import _hedge_around

    text = ("The plugin contracts are listed but not documented in detail. Let me check "
            "what else might be missing.")
    quote = normalise("The plugin contracts are listed but not documented in detail.")
    assert not _hedge_around(text, quote)
    assert _hedge_around(text.replace("are listed", "might be listed"), quote[:20])
    chat = convo(("assistant", text))
    got = verify("The docs already cover the plugin contracts in full detail.",
                 "The plugin contracts are listed but not documented in detail.", chat)
    assert got.hint == "negation_flip"


def test_a_count_spelt_out_is_a_number() -> None:
    chat = convo(("assistant", "Updated the planner agent's header.\nversion: 8.0.0 now."))
    got = verify("All five edited agents are at metadata version 8.0.0.",
                 "Updated the planner agent's header", chat)
    assert (got.supported, got.check) == (False, "number_mismatch")
    said = convo(("assistant", "Updated the 5 agents' headers.\nversion: 8.0.0 now."))
    assert verify("All five edited agents are at metadata version 8.0.0.",
                  "Updated the 5 agents' headers", said).supported
    # inside a name it is no count
    named = convo(("assistant", "The compact mode prints each todo on its own line."))
    assert verify("The two-line mode prints each todo on its own line.",
                  "The compact mode prints each todo on its own line", named).check is None


def test_a_denied_quote_whose_own_instead_the_fact_leaves_out_is_still_denied() -> None:
    quote = "`ROOT_DIR` is set to `__HOME__/app` (a placeholder) instead of the real path"
    chat = convo(("assistant", "The issue is that it is not true that " + quote + ". Odd."))
    got = verify("The startup errors came from ROOT_DIR still holding the __HOME__ "
                 "placeholder.", quote, chat)
    assert got.hint == "negation_flip"
    # the fact that says the opposite of the quote agrees with the sentence
    assert verify("ROOT_DIR is not set to `__HOME__/app` instead of the real path.", quote,
                  chat).hint != "negation_flip"


def test_a_later_works_correctly_corrects_no_claim_of_a_fault() -> None:
    from capture.verify import corrects

    later = "## Summary\n3. Authentication works correctly with the server"
    claim = "the server issues new tokens for each authentication request, so they differ"
    assert not corrects(later, claim, "Each authentication request gets a fresh token.")
    # it does correct a report that something is broken
    assert corrects(later, "authentication is broken against the server",
                    "Authentication against the server is broken.")
