"""One bad row never silences all memory.

An imported approved fact with `decided_at` 1e20 once made `inject` and `list --json`
raise OverflowError, and SessionStart printed nothing for the whole project. Now an
import checks ranges and types and names the item in one line; a row that cannot be read
(written straight into SQLite, or imported before the checks) is skipped with a log line
by `inject` and `list --json`, and the other facts still go out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import make_repo

from reviewer.claude_code.inject import render_context, session_start
from reviewer.errors import UserError
from reviewer.store import db
from reviewer.store.facts_json import validate_item

GOOD = {"fact": "Tests run with pytest.", "category": "convention", "status": "approved"}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"decided_at": 1e20}, "outside 1970..9999"),
        ({"created_at": -5}, "outside 1970..9999"),
        ({"decided_at": "99999-01-01T00:00:00Z"}, "not an ISO 8601 time"),
        ({"approved_at": float("inf")}, "outside 1970..9999"),
        ({"confidence": 1.5}, "[0, 1]"),
        ({"confidence": "high"}, "[0, 1]"),
        ({"confidence": float("nan")}, "[0, 1]"),
        ({"fact": "x" * 5000}, "over 1,000 characters"),
        ({"fact": "\u200b\U000e0041"}, "visible text"),
        ({"evidence": 5}, "must be a string"),
        ({"evidence": "e" * 200_000}, "over 100,000"),
        ({"session_id": "s" * 500}, "over 200"),
        ({"files": ["a.py", 3]}, "list of strings"),
        ({"files": ["p" * 5000]}, "path over"),
        ({"grounded": "yes"}, "true or false"),
        ({"anchors": {"a.py": 5}}, "blob SHAs"),
        ({"category": "secret"}, "not one of"),
        ({"status": "approved!"}, "not one of"),
    ],
)
def test_import_checks_ranges_and_types_in_one_line(change: dict[str, object], words: str) -> None:
    with pytest.raises(UserError) as info:
        validate_item({**GOOD, **change}, 6, "facts.json")
    message = str(info.value)
    assert message.startswith("facts.json: fact #7") and words in message and "\n" not in message


def test_import_cli_names_the_item_and_imports_nothing(tmp_path: Path) -> None:
    export = tmp_path / "x.json"
    export.write_text(json.dumps([GOOD, {**GOOD, "fact": "Bad.", "decided_at": 1e20}]))
    env = dict(os.environ, MEM_REVIEW_HOME=str(tmp_path / "data"), MEM_REVIEW_NO_SPAWN="1")
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "import", str(export)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          start_new_session=True, check=False)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "fact #2" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "data" / "store.db").exists()


BAD_ROWS: list[dict[str, object]] = [
    {"decided_at": 1e20},  # the row
    {"decided_at": -1e20},
    {"decided_at": float("inf")},
    {"decided_at": "yesterday"},
    {"confidence": "high"},
    {"confidence": float("-inf")},
    {"text": b"\x00\xffbytes"},
    {"files": b"\x00blob"},  # a BLOB stays a BLOB whatever the column's affinity
    {"anchors": b"\x00blob"},
    {"category": b"blob"},
    {"text": "\u200b\u2060"},  # nothing visible left
]


def _insert(repo: Path, text: object, **cols: object) -> int:
    conn = db.connect()
    try:
        with db.transaction(conn):
            values: dict[str, object] = {
                "project": str(repo), "text": text, "norm": f"norm {text} {len(cols)} {cols!r}",
                "category": "convention", "files": "[]", "confidence": 0.9, "evidence": "",
                "context": "", "status": "approved", "grounded": 1, "missing_files": "[]",
                "source": "model", "anchors": "{}", "created_at": 1.7e9, "updated_at": 1.7e9,
                "decided_at": 1.7e9,
            }
            values.update(cols)
            cur = conn.execute(
                f"INSERT INTO fact ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                list(values.values()),
            )
            return int(cur.lastrowid or 0)
    finally:
        conn.close()


@pytest.fixture
def repo(home: Path, tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})


def _row_id(bad: dict[str, object]) -> str:
    (key, value), = bad.items()
    return f"{key}={value!r}"[:40]


@pytest.mark.parametrize("bad", BAD_ROWS, ids=_row_id)
def test_a_row_that_cannot_be_read_is_skipped_not_the_whole_injection(
    repo: Path, home: Path, bad: dict[str, object]
) -> None:
    _insert(repo, "Deploys run on Fridays.")
    cols = dict(bad)
    bad_id = _insert(repo, cols.pop("text", "The bad row."), **cols)
    _insert(repo, "Builds use make.", decided_at=1.8e9)
    answer = session_start({"cwd": str(repo), "session_id": "s"})
    assert answer is not None
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    assert "Deploys run on Fridays." in context and "Builds use make." in context
    assert "The bad row." not in context
    text, stats = render_context(repo)
    assert text is not None and stats.approved == 2 and stats.injected == 2
    log = (home / "mem-review.log").read_text()
    assert f"fact {bad_id} skipped" in log


def test_list_json_skips_the_bad_row_with_a_line(repo: Path, home: Path) -> None:
    _insert(repo, "Deploys run on Fridays.")
    bad_id = _insert(repo, "The bad row.", decided_at=1e20)
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1")
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "list", "--json"], env=env,
                          cwd=repo, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    assert [f["fact"] for f in facts] == ["Deploys run on Fridays."]
    assert f"fact {bad_id} skipped" in done.stderr and "Traceback" not in done.stderr


def test_unjudgeable_anchors_withhold_only_what_cites_files(repo: Path) -> None:
    _insert(repo, "Project-wide fact.")
    _insert(repo, "Cites a file.", files='["a.py"]', anchors='{"a.py": ')  # cut-off JSON
    text, _ = render_context(repo)
    assert text is not None and "Project-wide fact." in text


def test_list_table_skips_the_bad_row_and_shows_hidden_characters(repo: Path, home: Path) -> None:
    _insert(repo, "Deploys run\u200b on Fridays.")
    bad_id = _insert(repo, b"\x00blob")
    env = dict(os.environ, MEM_REVIEW_HOME=str(home), MEM_REVIEW_NO_SPAWN="1", COLUMNS="200")
    done = subprocess.run([sys.executable, "-m", "reviewer.cli", "list"], env=env, cwd=repo,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "Deploys run\\u{200b} on Fridays." in done.stdout
    assert "1 fact " in done.stdout.replace("\n", " ")
    assert f"fact {bad_id} skipped" in done.stderr and "Traceback" not in done.stderr
