"""No planted secret escapes, end to end: hook → queue → real worker → fake API → store.

Every secret of tests/secret_corpus.py (every kind, at least two of each) is planted in a
realistic transcript in the current Claude Code JSONL format: user prompts, Bash commands,
tool outputs (`tool_result` content and `toolUseResult`), failing tool results, assistant
prose and files shown by Read. The fake Messages API plays a careless (or hostile) model
whose facts, evidence and cited files repeat the secrets. Then every place a secret could
land is read as bytes: the requests the API received, the database, its WAL before and
after a checkpoint, the queue rows, the log, `preview` and `list --json`. Not one raw
value, nor any 24-character piece of one, may be there.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeapi import Error, Facts, FakeMessagesAPI, requests_text
from helpers import make_repo, worker_env
from secret_corpus import SECRETS, Secret, leaked, render, secret_values

from capture.candidate import CATEGORIES
from reviewer.sanitize.redact import MARKER_RE
from reviewer.store import db

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0  # a guard against hanging, never a speed assertion
PIECE = 24  # a leak of this many consecutive characters of a secret counts as a leak
SESSION = "5b0e7c1e-2f4a-4d8e-9a61-0c3d2b1a9f77"


# --------------------------------------------------------------------------- leak checks


def _pieces() -> dict[str, str]:
    """Every PIECE-character slice of every secret fragment → the fragment it comes from."""
    out: dict[str, str] = {}
    for value in secret_values():
        for i in range(0, max(1, len(value) - PIECE + 1)):
            if len(value) >= PIECE:
                out.setdefault(value[i : i + PIECE], value)
    return out


PIECES = _pieces()


def partial_leaks(data: str | bytes) -> list[str]:
    """Secrets of which a PIECE-long slice (or the whole, if shorter) is in `data`: catches
    a secret cut in half by a truncation as well as a whole one."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    found = set(leaked(text))
    grams = {text[i : i + PIECE] for i in range(0, max(0, len(text) - PIECE + 1))}
    found.update(PIECES[g] for g in grams & PIECES.keys())
    return sorted(found)


# --------------------------------------------------------------------------- the transcript


def _first_line(s: Secret) -> str:
    return s.snippet.splitlines()[0] if "\n" in s.snippet else s.snippet


class Transcript:
    """Writes records the way Claude Code 2.1.x does: a uuid chain, cwd, session, version."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = str(cwd)
        self.records: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.places = 0  # how many times a secret was written into the file

    def _add(self, rtype: str, message: dict[str, Any], **extra: Any) -> None:
        rid = str(uuid.uuid4())
        self.records.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": self.cwd,
                "sessionId": SESSION,
                "version": "2.1.332",
                "gitBranch": "main",
                "type": rtype,
                "message": message,
                "uuid": rid,
                "timestamp": "2026-03-02T10:00:00.000Z",
                **extra,
            }
        )
        self.parent = rid

    def user(self, text: str) -> None:
        self._add("user", {"role": "user", "content": text})
        self.places += 1

    def assistant(self, blocks: list[dict[str, Any]]) -> None:
        mid = f"msg_{uuid.uuid4().hex[:24]}"
        self._add(
            "assistant",
            {"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-5",
             "content": blocks, "stop_reason": None},
        )

    def tool(self, name: str, tool_input: dict[str, Any], result: str, *, error: bool = False,
             tool_use_result: Any = None) -> None:
        tid = f"toolu_{uuid.uuid4().hex[:24]}"
        self.assistant([{"type": "tool_use", "id": tid, "name": name, "input": tool_input}])
        extra: dict[str, Any] = {}
        if tool_use_result is not None:
            extra["toolUseResult"] = tool_use_result
            self.places += 1
        self._add(
            "user",
            {"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": result, "is_error": error}
            ]},
            **extra,
        )
        self.places += 1

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as fh:
            for rec in self.records:
                fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        return path


def plant_everything(cwd: Path, path: Path) -> tuple[Path, int]:
    """A session that leaks every corpus secret in every place a transcript can hold it."""
    t = Transcript(cwd)
    t.user("We need to fix the deploy of the billing service today.")
    for i, s in enumerate(SECRETS):
        t.user(render(s, "prompt"))
        t.assistant([{"type": "text", "text": render(s, "prose")}])
        t.places += 1
        # Bash: the command itself is sent as a one-line summary.
        command = (
            f"cat keys/{s.name.lower()}.pem" if "\n" in s.snippet
            else f"export {s.snippet} && ./deploy.sh" if s.snippet.startswith(s.name + "=")
            else f"./deploy.sh --auth '{s.snippet}'"
        )
        env_out = render(s, "tool-env")
        t.tool("Bash", {"command": command, "description": "deploy"}, env_out,
               tool_use_result={"stdout": env_out, "stderr": "", "interrupted": False,
                                "isImage": False})
        t.places += 1
        # Read: a file with the secret in it, numbered as Claude Code shows it.
        shown = render(s, "read")
        t.tool("Read", {"file_path": f"{cwd}/config/settings_{i}.py"}, shown,
               tool_use_result={"type": "text", "file": {
                   "filePath": f"{cwd}/config/settings_{i}.py", "content": shown,
                   "numLines": shown.count("\n") + 1, "startLine": 1,
                   "totalLines": shown.count("\n") + 1}})
        # A failing call: its first line is kept, so the secret must be redacted there.
        t.tool("Bash", {"command": "./deploy.sh --check"},
               f"Error: credentials rejected: {_first_line(s)}\n{render(s, 'tool-json')}",
               error=True, tool_use_result=f"Error: {render(s, 'tool-json')}")
    t.assistant([{"type": "text", "text": "The deploy works again with rotated credentials."}])
    return t.write(path), t.places


def careless_facts() -> list[dict[str, Any]]:
    """What a model that repeats secrets would answer: every secret in fact, evidence, files."""
    out = []
    for i, s in enumerate(SECRETS):
        out.append(
            {
                "fact": f"Service number {i} ({s.kind}, {s.name}) authenticates with "
                f"{s.snippet} when deploying.",
                "category": CATEGORIES[i % len(CATEGORIES)],
                "files": [f"config/settings_{i}.py", f"keys/{_first_line(s)}"],
                "confidence": 0.9,
                "evidence": render(s, "prompt"),
            }
        )
    return out


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"deploy.sh": "#!/bin/sh\necho deploy\n"})


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def cli(env: dict[str, str], *args: str, stdin: bytes | None = None,
        cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "reviewer.cli", *args], input=stdin, env=env, cwd=cwd,
        capture_output=True, timeout=WAIT, check=False,
    )


def hook_payload(transcript: Path, repo: Path) -> bytes:
    return json.dumps(
        {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(repo),
         "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    ).encode()


# --------------------------------------------------------------------------- the proof


def test_no_planted_secret_lands_anywhere(
    home: Path, repo: Path, api: FakeMessagesAPI, tmp_path: Path
) -> None:
    transcript, places = plant_everything(
        repo, tmp_path / "claude" / "projects" / "-repo" / f"{SESSION}.jsonl"
    )
    assert partial_leaks(transcript.read_bytes())  # the file really is full of secrets
    api.script(Facts(careless_facts()), lane="extract")
    env = worker_env(home, api.url)

    hook = cli(env, "hook", "session-end", stdin=hook_payload(transcript, repo))
    assert (hook.returncode, hook.stdout) == (0, b"")

    db_file = home / "store.db"
    reader = sqlite3.connect(db_file)  # holds the WAL open: it is read before any checkpoint
    try:
        reader.execute("SELECT COUNT(*) FROM job").fetchone()
        work = cli(env, "worker", "--once")
        assert work.returncode == 0, work.stderr.decode()[-2000:]
        wal = Path(f"{db_file}-wal").read_bytes()
        before_checkpoint = db_file.read_bytes()
        assert len(wal) > 0
        reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        after_checkpoint = db_file.read_bytes()
    finally:
        reader.close()

    conn = db.connect(db_file)
    try:
        jobs = [dict(r) for r in conn.execute("SELECT * FROM job")]
        facts = [dict(r) for r in conn.execute("SELECT * FROM fact")]
        history = [dict(r) for r in conn.execute("SELECT * FROM fact_history")]
    finally:
        conn.close()
    assert [j["state"] for j in jobs] == ["done"], jobs
    assert len(facts) >= len(SECRETS) // 2  # the careless facts were stored, redacted
    assert all("[REDACTED:" in f["text"] for f in facts)

    sent = requests_text(api)
    assert len(api.messages("extract")) >= 1
    preview = cli(env, "preview", str(transcript))
    listing = cli(env, "list", "--json", "--project", str(repo))
    assert preview.returncode == 0 and listing.returncode == 0, listing.stderr
    log = (home / "mem-review.log").read_bytes()

    places_checked = {
        "requests to the API": sent,
        "database file (before checkpoint)": before_checkpoint,
        "WAL file (before checkpoint)": wal,
        "database file (after checkpoint)": after_checkpoint,
        "queue rows": json.dumps(jobs),
        "fact rows": json.dumps(facts),
        "fact history": json.dumps(history),
        "log file": log,
        "preview output": preview.stdout + preview.stderr,
        "list --json output": listing.stdout + listing.stderr,
    }
    found = {where: partial_leaks(data) for where, data in places_checked.items()}
    print(
        f"\nsecrets everywhere: {len(SECRETS)} secrets of {len({s.kind for s in SECRETS})} kinds"
        f" written {places} times into a transcript and {2 * len(SECRETS)} times into model "
        f"answers; raw values (or {PIECE}-char pieces) found in "
        + ", ".join(f"{where}: {len(v)}" for where, v in found.items())
    )
    assert found == {where: [] for where in places_checked}

    # What was sent and what a person sees carry the markers, not silence.
    assert "[REDACTED:" in sent
    shown = preview.stdout.decode()
    kinds_shown = {s.kind for s in SECRETS if f"[REDACTED:{s.kind}]" in shown}
    assert len(kinds_shown) >= len({s.kind for s in SECRETS}) * 3 // 4, kinds_shown
    exported = json.loads(listing.stdout)
    assert exported and all("[REDACTED:" in item["fact"] for item in exported)
    assert any("[REDACTED:" in item["evidence"] for item in exported)


def test_a_secret_cut_by_a_one_line_summary_is_still_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tool calls and failing results are cut to one short line; a cut through a secret
    (`redis://:pw` without its `@host`) must not leave a piece the redactor cannot see.
    Nothing is fitted away here (send_ratio 0), so every cut line is shown."""
    from capture.pipeline import preview_text

    monkeypatch.setenv("MEM_REVIEW_SEND_RATIO", "0")
    t = Transcript(tmp_path)
    cases = 0
    for s in SECRETS:
        line = _first_line(s)
        for pad in range(60, 200, 9):  # the secret straddles the 400/200-character cuts
            # (a command line keeps 400 characters since issue 21, a failure line 200)
            t.tool("Bash", {"command": f"echo {'x' * (pad + 240)} {line}"}, "ok")
            t.tool("Bash", {"command": "./check.sh"}, f"Error: {'y' * pad} {line}", error=True)
            cases += 2
    shown = preview_text(t.write(tmp_path / "cut.jsonl"))
    assert shown.count("…") >= cases // 4  # many lines really were cut
    assert partial_leaks(shown) == []


def test_a_secret_in_prose_cut_to_fit_is_still_hidden(tmp_path: Path) -> None:
    """Fitting to send_ratio cuts assistant prose at any character: it runs on redacted
    text, so a cut can only split a placeholder, never a secret."""
    from capture.pipeline import preview_text

    t = Transcript(tmp_path)
    t.user("Set up the deploy.")
    for s in SECRETS:
        for pad in range(0, 120, 17):
            text = f"{'word ' * pad}the credential is {s.snippet} and more words follow "
            t.assistant([{"type": "text", "text": text + "filler " * 60}])
    t.tool("Bash", {"command": "true"}, "ok")
    path = t.write(tmp_path / "prose.jsonl")
    shown = preview_text(path)
    assert shown.count("[…]") > len(SECRETS)  # prose really was cut
    assert partial_leaks(shown) == []


def test_what_a_person_typed_is_redacted_before_it_is_sent(
    home: Path, repo: Path, api: FakeMessagesAPI, tmp_path: Path
) -> None:
    """Existing facts and reject reasons go to the model as context: a secret a person
    typed into an edit or a reason must not leave the machine with them."""
    from reviewer.store.facts import NewFact, Store

    edit_secret, reason_secret = SECRETS[7], SECRETS[30]  # a github token, a discord token
    store = Store()
    try:
        kept = store.import_facts(
            [NewFact(project=str(repo), text=f"Placeholder {i}.", norm=f"placeholder {i}",
                     category="decision") for i in range(2)],
            keep_status=False,
        )
        assert kept == (2, 0)
        first, second = (f.id for f in store.facts(str(repo)))
        assert first is not None and second is not None
        store.edit(first, f"CI publishes with {edit_secret.snippet}.", "environment")
        store.reject([second], f"wrong, the key is {reason_secret.snippet}")
    finally:
        store.close()

    t = Transcript(repo)
    t.user("Remember that releases are cut on Mondays.")
    transcript = t.write(tmp_path / "p" / f"{SESSION}.jsonl")
    env = worker_env(home, api.url)
    hook = cli(env, "hook", "session-end", stdin=hook_payload(transcript, repo))
    assert hook.returncode == 0
    assert cli(env, "worker", "--once").returncode == 0
    (request,) = api.messages("extract")
    body = requests_text(api)
    assert "CI publishes with" in body and "wrong, the key is" in body
    assert partial_leaks(body) == []
    assert request.status == 200


def test_an_error_message_echoing_a_secret_is_not_stored(
    home: Path, repo: Path, api: FakeMessagesAPI, tmp_path: Path
) -> None:
    """An API (or proxy) error that quotes the request, and an unusable answer full of
    secrets: the job's last_error and the log keep the reason, not the secret."""
    echoed = SECRETS[0]
    t = Transcript(repo)
    t.user("The CI image is python:3.12-slim.")
    first = t.write(tmp_path / "p" / "a.jsonl")
    second = Transcript(repo)
    second.user("The staging host is staging.internal.")
    other = second.write(tmp_path / "p" / "b.jsonl")
    api.script(
        Error(400, message=f"messages.0: invalid content near '{echoed.snippet}'"),
        Error(500, message=f"upstream said {SECRETS[8].snippet}"),
        lane="extract",
    )
    env = worker_env(home, api.url)
    for path in (first, other):
        out = cli(env, "hook", "session-end", stdin=hook_payload(path, repo).replace(
            SESSION.encode(), path.stem.encode()))
        assert out.returncode == 0
    assert cli(env, "worker", "--once").returncode == 0
    conn = db.connect()
    try:
        jobs = {Path(r["transcript_path"]).name: dict(r) for r in conn.execute("SELECT * FROM job")}
    finally:
        conn.close()
    assert jobs["a.jsonl"]["state"] == "failed"
    assert jobs["a.jsonl"]["last_error"].startswith("invalid_request: HTTP 400")
    assert "[REDACTED:anthropic-key]" in jobs["a.jsonl"]["last_error"]
    assert jobs["b.jsonl"]["state"] == "queued"
    assert "[REDACTED:" in jobs["b.jsonl"]["last_error"]
    stored = json.dumps(jobs) + (home / "mem-review.log").read_text()
    assert partial_leaks(stored) == []
    assert partial_leaks((home / "store.db").read_bytes()) == []


# Kinds the redactor before issue 11 did not know (it stored 45 of 83 echoed secrets raw).
_OLD_KINDS_TEXT = (
    "private private-key gcp-service-account anthropic-key openai-key github-token "
    "gitlab-token slack-token slack-webhook stripe-key google-api-key google-oauth npm-token "
    "huggingface-token sendgrid-key twilio-key azure-connection-string azure-key "
    "discord-token discord-webhook mailgun-key pypi-token aws-access-key aws-secret-key "
    "datadog-key jwt url-password bearer-token basic-auth cookie api-token "
    "secret-assignment high-entropy"
)
OLD_KINDS = frozenset(_OLD_KINDS_TEXT.split())


def test_a_model_echoing_new_kinds_stores_none_of_them(
    home: Path, repo: Path, api: FakeMessagesAPI, tmp_path: Path
) -> None:
    """The careless model repeats every secret of a kind added for issue 11 (Vault, Doppler,
    Heroku, OpenRouter, Groq, Docker Hub, Atlassian, Sentry, Fly.io…, netrc, pgpass, CLI
    flags, base64…) in its fact, evidence and cited files: the worker stores each fact,
    redacted, and no raw value reaches the database, its WAL, the log or `list --json`."""
    new = [s for s in SECRETS if s.kind not in OLD_KINDS]
    assert len({s.kind for s in new}) >= 80
    t = Transcript(repo)
    t.user("Deploy the billing service; the credentials are in the vault.")
    transcript = t.write(tmp_path / "p" / f"{SESSION}.jsonl")
    facts = [
        {
            "fact": f"Service {i} ({s.name}) signs in with {s.snippet} on deploy.",
            "category": CATEGORIES[i % len(CATEGORIES)],
            "files": [f"config/{s.name.lower()}.env", f"keys/{_first_line(s)}"],
            "confidence": 0.9,
            "evidence": f"the user said: {s.snippet}",
        }
        for i, s in enumerate(new)
    ]
    api.script(Facts(facts), lane="extract")
    env = worker_env(home, api.url)
    assert cli(env, "hook", "session-end", stdin=hook_payload(transcript, repo)).returncode == 0
    work = cli(env, "worker", "--once")
    assert work.returncode == 0, work.stderr.decode()[-2000:]
    listing = cli(env, "list", "--json", "--project", str(repo))
    assert listing.returncode == 0, listing.stderr
    stored = json.loads(listing.stdout)
    db_file = home / "store.db"
    places = {
        "database": db_file.read_bytes(),
        "WAL": Path(f"{db_file}-wal").read_bytes() if Path(f"{db_file}-wal").exists() else b"",
        "log": (home / "mem-review.log").read_bytes(),
        "list --json": listing.stdout,
    }
    raw = {s.value for s in new}
    raw_in_db = [v for v in raw if v.encode() in places["database"] + places["WAL"]]
    print(
        f"\nnew kinds echoed: {len(new)} secrets of {len({s.kind for s in new})} kinds, "
        f"{len(stored)} facts stored, {len(raw_in_db)} raw values in the store"
    )
    assert len(stored) >= len(new) // 2
    kinds_stored = {k for item in stored for k in new_kinds_in(item["fact"] + item["evidence"])}
    assert len(kinds_stored) >= 60, sorted(kinds_stored)
    assert {where: [v for v in raw if v.encode() in data] for where, data in places.items()} == {
        where: [] for where in places
    }
    assert {where: partial_leaks(data) for where, data in places.items()} == {
        where: [] for where in places
    }


def new_kinds_in(text: str) -> set[str]:
    return {k for k in (m[10:-1] for m in MARKER_RE.findall(text)) if k not in OLD_KINDS}
