"""Finer staleness: which part of a cited file a fact is about (reviewer/freshness/parts.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from reviewer.freshness import parts

CLIENT = """import httpx

MAX_BACKOFF_SECONDS = 60


async def charge(client, order_id, amount):
    return await client.post("/charge", json={"order": order_id})


def unrelated():
    return 1
"""
FACT = "Retries back off, capped at 60 seconds (MAX_BACKOFF_SECONDS in src/acme/client.py)."


def test_terms_are_what_code_can_hold_not_english() -> None:
    assert parts.terms(FACT) == ["MAX_BACKOFF_SECONDS", "src/acme/client.py", "60"]
    assert parts.terms("The API returns JSON for every request.") == []
    assert parts.terms("Call `make test` and createOrder in FooBar v2.1") == [
        "createOrder", "make test", "FooBar", "v2.1"]


def test_a_change_to_the_named_line_is_part() -> None:
    after = CLIENT.replace("= 60", "= 30")
    assert parts.grade(CLIENT, after, FACT, "src/acme/client.py") == parts.PART


def test_a_change_elsewhere_is_elsewhere() -> None:
    after = CLIENT.replace("return 1", "return 2")
    assert parts.grade(CLIENT, after, FACT, "src/acme/client.py") == parts.ELSEWHERE


def test_a_neighbouring_line_counts_as_the_part() -> None:
    after = CLIENT.replace("import httpx\n\n", "import httpx\nTIMEOUT = 5\n")
    assert parts.grade(CLIENT, after, FACT, "src/acme/client.py") == parts.PART


def test_the_name_vanishing_or_the_file_going_is_part() -> None:
    renamed = CLIENT.replace("MAX_BACKOFF_SECONDS", "BACKOFF_CAP")
    assert parts.grade(CLIENT, renamed, FACT) == parts.PART
    assert parts.grade(CLIENT, None, FACT) == parts.PART


def test_prose_only_facts_cannot_be_graded() -> None:
    assert parts.grade(CLIENT, CLIENT + "\n", "Use httpx, not requests.") == parts.UNKNOWN
    assert parts.grade(None, CLIENT, FACT) == parts.UNKNOWN
    # Names found in the fact but not in this file: it is cited for context only.
    assert parts.grade(CLIENT, CLIENT + "x = 1\n", "POOL_SIZE is 20.") == parts.UNKNOWN


def test_worst_grade_wins_over_files() -> None:
    assert parts.worst([parts.ELSEWHERE, parts.PART]) == parts.PART
    assert parts.worst([parts.ELSEWHERE, parts.UNKNOWN]) == parts.UNKNOWN
    assert parts.worst([]) == parts.UNKNOWN


def test_cited_lines_mark_only_hunks_touching_the_names() -> None:
    diff = (
        "--- a/x\n+++ b/x\n"
        "@@ -1,3 +1,3 @@\n import httpx\n-MAX_BACKOFF_SECONDS = 60\n+MAX_BACKOFF_SECONDS = 30\n"
        "@@ -10,2 +10,2 @@\n def unrelated():\n-    return 1\n+    return 2\n"
    )
    cited = parts.cited_lines(diff, FACT)
    lines = diff.splitlines()
    assert 2 in cited and all(i in cited for i in range(2, 6))
    assert lines.index("@@ -10,2 +10,2 @@") not in cited


def test_read_blobs_reads_anchored_content_from_git(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(CLIENT)
    run = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], check=True,  # noqa: E731
                                    capture_output=True, text=True).stdout.strip()
    run("init", "-q")
    sha = run("hash-object", "-w", "a.py")
    blobs = parts.read_blobs(str(tmp_path), [sha, "0" * 40, "not-a-sha"])
    assert blobs == {sha: CLIENT, "0" * 40: None}
    (tmp_path / "a.py").write_text(CLIENT.replace("return 1", "return 2"))
    assert parts.grade_files(str(tmp_path), FACT, {"a.py": (sha, "a.py")}, blobs) == (
        parts.ELSEWHERE)
    assert parts.grade_files(str(tmp_path), FACT, {"a.py": (sha, None)}, blobs) == parts.PART
