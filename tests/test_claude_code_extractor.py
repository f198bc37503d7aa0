"""Claude Code as the extractor, with a scripted stand-in for `claude` on PATH: the
arguments and environment it is run with, how its one JSON result is read, and how each
way it can fail lands in the queue (done, waiting uncounted, retried, failed).

The result shapes scripted here are the ones the real CLI (2.1.332) printed against the
fake API (see capture/extractors/claude_code.py); tests/test_e2e_claude_code_extractor.py
runs the real CLI end to end.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from capture.extractors import choose, claude_code, resolve
from capture.extractors.base import ExtractionError, Request
from capture.extractors.claude_code import (
    NOT_FOUND,
    SIGN_IN,
    STRUCTURED_TOOL,
    ClaudeCodeExtractor,
    build_args,
    child_env,
    prompt_for,
    read_result,
)
from capture.extractors.prompt import SYSTEM_PROMPT, TOOL, TOOL_NAME
from reviewer import config
from reviewer.config import Config

UV = {
    "fact": "The project installs packages with uv, never pip.",
    "category": "convention",
    "files": [],
    "confidence": 0.95,
    "evidence": "we use uv, never pip",
}
WAL = {
    "fact": "src/db.py opens SQLite in WAL mode.",
    "category": "decision",
    "files": ["src/db.py"],
    "confidence": 0.9,
    "evidence": "src/db.py must use WAL mode",
}


def result(**fields: Any) -> dict[str, Any]:
    """A `claude -p --output-format json` result as 2.1.332 prints it (keys that matter)."""
    out: dict[str, Any] = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "num_turns": 2,
        "stop_reason": "tool_use",
        "api_error_status": None,
        "result": json.dumps({"facts": []}),
        "structured_output": {"facts": []},
        "total_cost_usd": 0.000417,
        "usage": {
            "input_tokens": 342,
            "cache_creation_input_tokens": 10,
            "cache_read_input_tokens": 5,
            "output_tokens": 15,
        },
        "modelUsage": {"claude-haiku-4-5": {"inputTokens": 342, "costUSD": 0.000417}},
    }
    out.update(fields)
    return out


def api_error(status: int | None, kind: str | None, message: str, **fields: Any) -> dict:
    """An API failure after the CLI's own retries: exit 1, is_error, nothing spent."""
    base = result(
        is_error=True, num_turns=1, stop_reason="stop_sequence", api_error_status=status,
        result=message, total_cost_usd=0, modelUsage={},
        usage={"input_tokens": 0, "output_tokens": 0},
    )
    base.pop("structured_output")
    if kind:
        base["api_error_type"] = kind
    base.update(fields)
    return base


# --------------------------------------------------------------------------- fake claude

FAKE = r'''#!PYTHON
"""A scripted `claude`: answers `auth status` and `-p` runs from $FAKE_CLAUDE_SPEC."""
import json, os, subprocess, sys, time
spec_path = os.environ["FAKE_CLAUDE_SPEC"]
spec = json.load(open(spec_path))
early = spec["runs"][0].get("early") if spec["runs"] else None
if early and sys.argv[1:3] != ["auth", "status"]:  # an old CLI refusing an option, unread stdin
    sys.stderr.write(early)
    sys.exit(1)
stdin = "" if sys.argv[1:3] == ["auth", "status"] else sys.stdin.read()
with open(spec_path + ".calls", "a") as log:
    keep = {k: v for k, v in os.environ.items() if k != "FAKE_CLAUDE_SPEC"}
    log.write(json.dumps({"argv": sys.argv[1:], "stdin": stdin, "env": keep,
                          "cwd": os.getcwd()}) + "\n")
if sys.argv[1:3] == ["auth", "status"]:
    auth = spec.get("auth", {"loggedIn": True, "authMethod": "claude.ai"})
    sys.stdout.write(auth if isinstance(auth, str) else json.dumps(auth))
    sys.exit(0 if not isinstance(auth, dict) or auth.get("loggedIn") else 1)
counter = spec_path + ".n"
n = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(n + 1))
runs = spec["runs"]
run = runs[min(n, len(runs) - 1)]
if run.get("child"):  # something the CLI started, which a timeout must stop too
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    open(spec_path + ".child", "w").write(str(child.pid))
time.sleep(run.get("sleep", 0))
out = run.get("stdout", "")
sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
sys.stderr.write(run.get("stderr", ""))
sys.exit(run.get("code", 0))
'''


class FakeClaude:
    """A `claude` executable in its own bin dir, scripted through a spec file."""

    def __init__(self, root: Path) -> None:
        self.bin_dir = root / "fakebin"
        self.bin_dir.mkdir()
        self.path = self.bin_dir / "claude"
        self.path.write_text(FAKE.replace("PYTHON", sys.executable, 1))
        self.path.chmod(0o755)
        self.spec = root / "spec.json"
        self.script([result()])

    def script(self, runs: list[Any], auth: Any = None) -> None:
        spec: dict[str, Any] = {"runs": [self._run(r) for r in runs]}
        if auth is not None:
            spec["auth"] = auth
        self.spec.write_text(json.dumps(spec))
        for suffix in (".n", ".calls", ".child"):
            Path(str(self.spec) + suffix).unlink(missing_ok=True)

    @staticmethod
    def _run(run: Any) -> dict[str, Any]:
        if isinstance(run, dict) and not {"stdout", "sleep", "early"} & set(run):
            code = 1 if run.get("is_error") else 0
            return {"stdout": run, "code": code}
        return run

    def calls(self, kind: str = "run") -> list[dict[str, Any]]:
        log = Path(str(self.spec) + ".calls")
        if not log.exists():
            return []
        out = [json.loads(line) for line in log.read_text().splitlines()]
        auth = [c for c in out if c["argv"][:2] == ["auth", "status"]]
        return auth if kind == "auth" else [c for c in out if c not in auth]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("MEM_REVIEW_HOME", str(home))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    monkeypatch.delenv("MEM_REVIEW_CLAUDE_BIN")
    for var in ("ANTHROPIC_BASE_URL", "MEM_REVIEW_MAX_RETRIES", "MEM_REVIEW_API_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    # Only places under this test's HOME: never a claude installed on the machine.
    monkeypatch.setattr(config, "CLAUDE_PLACES", ("~/.claude/local/claude", "~/.local/bin/claude"))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    (tmp_path / "userhome").mkdir()
    return home


@pytest.fixture
def fake(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    fake = FakeClaude(tmp_path)
    monkeypatch.setenv("FAKE_CLAUDE_SPEC", str(fake.spec))
    monkeypatch.setenv("PATH", f"{fake.bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    return fake


def extractor(cfg: Config | None = None) -> ClaudeCodeExtractor:
    ex = choose(cfg or Config())
    assert isinstance(ex, ClaudeCodeExtractor)
    return ex


# --------------------------------------------------------------------------- arguments


def test_arguments_are_the_documented_ones_with_the_api_schema() -> None:
    args = build_args("/x/claude", "claude-haiku-4-5", "SYSTEM")
    assert args[:2] == ["/x/claude", "-p"]

    def value(flag: str) -> str:
        return args[args.index(flag) + 1]

    assert value("--model") == "claude-haiku-4-5"
    assert value("--output-format") == "json"
    assert json.loads(value("--json-schema")) == TOOL["input_schema"]  # the same, not a copy
    assert value("--tools") == ""
    assert json.loads(value("--settings")) == {"disableAllHooks": True}
    assert value("--system-prompt") == "SYSTEM"
    assert "--no-session-persistence" in args and "--strict-mcp-config" in args
    assert "--bare" not in args  # it refuses OAuth: subscription users could not run it


def test_prompt_names_the_cli_tool_but_never_rewrites_the_window() -> None:
    window = f"user: the {TOOL_NAME} tool is ours\nassistant: ok"
    system, stdin = prompt_for(window, index=1, total=2, existing=["A known fact."],
                               rejected=[("A bad fact.", "wrong")])
    assert SYSTEM_PROMPT.replace(TOOL_NAME, STRUCTURED_TOOL) in system
    assert TOOL_NAME not in system
    assert window in stdin  # evidence is quoted from it: byte for byte
    assert "- A known fact." in stdin and "A bad fact. (rejected because: wrong)" in stdin
    assert stdin.rstrip().splitlines()[-1].startswith(
        f"Record the durable facts of this window with {STRUCTURED_TOOL}"
    )


def test_environment_keeps_the_sign_in_and_drops_our_knobs_and_the_session() -> None:
    base = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "ANTHROPIC_AUTH_TOKEN": "tok",
        "ANTHROPIC_BASE_URL": "http://proxy",
        "CLAUDE_CONFIG_DIR": "/home/u/.claude-work",
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "HTTPS_PROXY": "http://corp:3128",
        "MEM_REVIEW_HOME": "/data",
        "MEM_REVIEW_TEST_PAUSE": "store",
        "MEM_REVIEW_EXTRACTOR": "claude-code",
        "CLAUDECODE": "1",
        "CLAUDE_CODE_SESSION_ID": "a-session",
        "CLAUDE_PROJECT_DIR": "/proj",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-cli",
        "CLAUDE_CODE_CHILD_SESSION": "1",
    }
    env = child_env(Config(api_timeout=45, max_retries=3), base)
    for kept in ("PATH", "HOME", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_USE_BEDROCK", "HTTPS_PROXY"):
        assert env[kept] == base[kept]
    assert not [k for k in env if k.startswith("MEM_REVIEW_")]
    for dropped in ("CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_PROJECT_DIR",
                    "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_CHILD_SESSION"):
        assert dropped not in env
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "3" and env["API_TIMEOUT_MS"] == "45000"
    assert env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1"  # the user's CLAUDE.md is not context


# --------------------------------------------------------------------------- the result


def test_a_result_gives_candidates_tokens_and_the_cli_cost() -> None:
    data = result(structured_output={"facts": [UV, {**WAL, "confidence": 7}]})
    found, dropped, spent = read_result(json.dumps(data), "", 0, "claude-haiku-4-5")
    assert [c.fact for c in found] == [UV["fact"]]
    assert len(dropped) == 1 and "confidence 7" in dropped[0]
    assert (spent.input_tokens, spent.output_tokens) == (357, 15)
    assert spent.cost_usd == pytest.approx(0.000417) and spent.model == "claude-haiku-4-5"


def test_the_answer_carries_source_and_supersedes_through_the_cli() -> None:
    item = {**UV, "source": "user", "supersedes": 7}
    found, _, _ = read_result(json.dumps(result(structured_output={"facts": [item]})), "", 0,
                              "claude-haiku-4-5")
    assert (found[0].source, found[0].supersedes) == ("user", 7)


def test_a_result_without_a_cost_is_priced_from_its_tokens() -> None:
    data = result(total_cost_usd=None)
    *_, spent = read_result(json.dumps(data), "", 0, "claude-haiku-4-5")
    assert spent.cost_usd == pytest.approx((357 * 1 + 15 * 5) / 1_000_000)


@pytest.mark.parametrize("cost", [float("nan"), -1.0, True, "0.5", None, float("inf")])
def test_a_nonsense_cost_or_usage_is_never_trusted(cost: Any) -> None:
    usage = {"input_tokens": "many", "output_tokens": -3, "cache_read_input_tokens": True}
    text = json.dumps(result(total_cost_usd=cost, usage=usage, modelUsage=[]))
    *_, spent = read_result(text, "", 0, "claude-haiku-4-5")
    assert (spent.input_tokens, spent.output_tokens) == (0, 0)
    assert spent.cost_usd == 0.0 and spent.model == "claude-haiku-4-5"


@pytest.mark.parametrize(
    ("data", "kind", "permanent"),
    [
        (api_error(401, "authentication_error", "Failed to authenticate. API Error: 401"),
         "unavailable", False),
        (api_error(None, None, "Not logged in · Please run /login"), "unavailable", False),
        (api_error(403, "permission_error", "OAuth token revoked"), "unavailable", False),
        (api_error(402, "billing_error", "Credit balance is too low"), "unavailable", False),
        (api_error(429, "rate_limit_error", "API Error: Request rejected (429)"),
         "rate_limit", False),
        (api_error(529, "overloaded_error", "API Error: 529 Overloaded"), "overloaded", False),
        (api_error(500, "api_error", "API Error: 500"), "server", False),
        (api_error(404, "not_found_error", "There's an issue with the selected model"),
         "invalid_request", True),
        (api_error(400, "invalid_request_error", "API Error: 400 prompt is too long"),
         "invalid_request", True),
        (api_error(None, None, "API Error: Connection refused (ECONNREFUSED)",
                   api_error="connection_failed"), "connection", False),
    ],
)
def test_api_errors_map_like_the_api_extractor(data: dict, kind: str, permanent: bool) -> None:
    with pytest.raises(ExtractionError) as caught:
        read_result(json.dumps(data), "", 1, "claude-haiku-4-5")
    assert (caught.value.kind, caught.value.permanent) == (kind, permanent)
    assert caught.value.status == data["api_error_status"]
    assert caught.value.partial is not None and caught.value.partial.cost_usd == 0


def test_unusable_answers_are_transient_and_keep_what_they_cost() -> None:
    retries = result(
        is_error=True, subtype="error_max_structured_output_retries", total_cost_usd=0.003,
        errors=["Failed to provide valid structured output after 5 attempts"],
    )
    retries.pop("structured_output")
    retries.pop("result")  # as 2.1.332 prints it: the reason is in `errors`
    text_only = result(result="OK", stop_reason="end_turn")
    text_only.pop("structured_output")
    for data in (retries, text_only, result(structured_output={"nope": 1}),
                 result(structured_output=[UV])):
        with pytest.raises(ExtractionError) as caught:
            read_result(json.dumps(data), "", 0, "claude-haiku-4-5")
        assert (caught.value.kind, caught.value.permanent) == ("bad_answer", False), data
        assert caught.value.partial is not None
        assert caught.value.partial.cost_usd == data["total_cost_usd"]
    with pytest.raises(ExtractionError, match="5 attempts"):
        read_result(json.dumps(retries), "", 1, "claude-haiku-4-5")


@pytest.mark.parametrize(
    ("stdout", "stderr", "code", "kind"),
    [
        ("", "", 0, "bad_answer"),
        ("Segmentation fault", "", 139, "bad_answer"),
        ('{"type": "result", "is_err', "", 1, "bad_answer"),  # cut off
        ("[1, 2]", "", 0, "bad_answer"),
        ("", "error: unknown option '--json-schema'", 1, "unavailable"),  # an old CLI
    ],
)
def test_output_that_is_not_a_result(stdout: str, stderr: str, code: int, kind: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        read_result(stdout, stderr, code, "claude-haiku-4-5")
    assert (caught.value.kind, caught.value.permanent) == (kind, False)
    assert caught.value.partial is None  # nothing known to be spent


def test_a_warning_line_before_the_result_is_tolerated() -> None:
    out = "Warning: something\n" + json.dumps(result(structured_output={"facts": [UV]}))
    found, _, _ = read_result(out, "", 0, "claude-haiku-4-5")
    assert [c.fact for c in found] == [UV["fact"]]


# --------------------------------------------------------------------------- running it


def test_one_run_per_window_on_stdin_from_an_empty_dir(fake: FakeClaude, home: Path) -> None:
    fake.script([result(structured_output={"facts": [UV]}, total_cost_usd=0.002),
                 result(structured_output={"facts": [UV, WAL]}, total_cost_usd=0.003)])
    ex = extractor()
    assert ex.binary == str(fake.path)
    out = ex.extract(Request(["window one: we use uv, never pip", "window two"], [],
                             [(7, "Known.")], []))
    assert [c.fact for c in out.candidates] == [UV["fact"], WAL["fact"]]
    assert any("repeats an earlier fact" in d for d in out.dropped)
    assert out.requests == 2 and out.cost_usd == pytest.approx(0.005)
    first, second = fake.calls()
    assert "window one: we use uv, never pip" in first["stdin"]
    assert "- #7: Known." in first["stdin"]  # with its id: a candidate may supersede it
    assert f"- {UV['fact']}" in second["stdin"]  # this job's facts are known to the next window
    assert first["argv"][0] == "-p" and first["argv"][first["argv"].index("--model") + 1] == (
        "claude-haiku-4-5"
    )
    assert Path(first["cwd"]) == home / "claude-code" and not os.listdir(first["cwd"])
    assert not [k for k in first["env"] if k.startswith("MEM_REVIEW_")]


def test_signed_out_or_missing_cli_is_unavailable(fake: FakeClaude, tmp_path: Path) -> None:
    fake.script([result()], auth={"loggedIn": False, "authMethod": "none"})
    assert extractor().unavailable() == SIGN_IN
    fake.script([result()], auth={"loggedIn": True, "authMethod": "oauth_token"})
    assert extractor().unavailable() is None
    fake.script([result()], auth="error: unknown command 'auth'")  # an older CLI: let it run
    assert extractor().unavailable() is None
    missing = ClaudeCodeExtractor(Config(), binary=None, env={"PATH": str(tmp_path / "none"),
                                                             "HOME": str(tmp_path)})
    assert missing.unavailable() == NOT_FOUND
    with pytest.raises(ExtractionError) as caught:
        missing.extract(Request(["w"], []))
    assert caught.value.kind == "unavailable"


def test_a_hung_cli_is_killed_with_what_it_started(
    fake: FakeClaude, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(claude_code, "STARTUP_SECONDS", 0.0)
    fake.script([{"sleep": 30, "child": True}])
    start = time.monotonic()
    with pytest.raises(ExtractionError) as caught:
        extractor(Config(api_timeout=0.5, max_retries=0)).extract(Request(["w"], []))
    assert time.monotonic() - start < 10
    assert (caught.value.kind, caught.value.permanent) == ("timeout", False)
    child = int(Path(str(fake.spec) + ".child").read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not reaped by its dead parent yet) is not running
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def test_exit_codes_and_garbage_through_a_real_process(fake: FakeClaude) -> None:
    fake.script([{"stdout": "not json at all", "code": 0},
                 {"stdout": "", "stderr": "Killed\n", "code": 137},
                 {"stdout": api_error(529, "overloaded_error", "Overloaded"), "code": 1}])
    for kind, said in (("bad_answer", "not a JSON result: not json at all"),
                       ("bad_answer", "claude exited 137 with no output (Killed)"),
                       ("overloaded", "Overloaded")):
        with pytest.raises(ExtractionError) as caught:
            extractor().extract(Request(["w"], []))
        assert caught.value.kind == kind and not caught.value.permanent
        assert said in str(caught.value)


def test_a_failing_second_window_keeps_the_first_windows_spend(fake: FakeClaude) -> None:
    fake.script([result(structured_output={"facts": [UV]}, total_cost_usd=0.002),
                 api_error(500, "api_error", "API Error: 500")])
    with pytest.raises(ExtractionError) as caught:
        extractor().extract(Request(["one", "two"], []))
    partial = caught.value.partial
    assert partial is not None and partial.requests == 2
    assert partial.cost_usd == pytest.approx(0.002)
    assert [c.fact for c in partial.candidates] == [UV["fact"]]


# --------------------------------------------------------------------------- auto


def test_auto_prefers_a_key_then_claude_then_the_rules(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    cfg = Config()
    assert cfg.extractor == "auto"
    choice = resolve(cfg)
    assert choice.name == "rules" and "no ANTHROPIC_API_KEY" in choice.reason
    assert type(choose(cfg)).__name__ == "RulesExtractor"

    local = tmp_path / "userhome" / ".local" / "bin" / "claude"  # the native installer's
    local.parent.mkdir(parents=True)
    local.write_text("#!/bin/sh\n")
    local.chmod(0o755)
    choice = resolve(cfg)
    assert (choice.name, choice.claude) == ("claude-code", str(local))
    assert str(local) in choice.reason
    assert extractor().binary == str(local)

    (tmp_path / "p").mkdir()
    on_path = FakeClaude(tmp_path / "p")
    monkeypatch.setenv("PATH", str(on_path.bin_dir))
    assert resolve(cfg).claude == str(on_path.path)  # PATH first

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert resolve(cfg).name == "api" and "ANTHROPIC_API_KEY is set" in resolve(cfg).reason
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert resolve(cfg, api_key="given").name == "api"  # a caller's key (tests, the SDK path)


def test_the_claude_bin_variable_and_forcing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeClaude
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    monkeypatch.setenv("MEM_REVIEW_EXTRACTOR", "claude-code")
    cfg = config.load()
    choice = resolve(cfg)
    assert choice.name == "claude-code" and choice.reason.startswith(
        "MEM_REVIEW_EXTRACTOR=claude-code"
    )
    monkeypatch.setenv("MEM_REVIEW_CLAUDE_BIN", str(tmp_path / "nope"))
    choice = resolve(cfg)
    assert choice.claude is None and "MEM_REVIEW_CLAUDE_BIN" in choice.reason
    assert extractor(cfg).unavailable() == NOT_FOUND  # forced: the job waits, and says why
    monkeypatch.delenv("MEM_REVIEW_EXTRACTOR")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert resolve(config.load()).name == "rules"  # auto skips a named binary that is not there
    monkeypatch.setenv("MEM_REVIEW_CLAUDE_BIN", str(fake.path))
    assert resolve(config.load()).claude == str(fake.path)
    assert resolve(config.load(), "rules").name == "rules"  # the demo asks for the rules


# --------------------------------------------------------------------------- the pipeline


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    import subprocess

    root = tmp_path / "repo"
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "db.py").write_text("import sqlite3\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


PROMPT = "Remember: we use uv, never pip. src/db.py must use WAL mode."


def _job(repo: Path, tmp_path: Path) -> tuple[Any, sqlite3.Connection, Any]:
    from reviewer.store import db, queue
    from reviewer.store.facts import Store

    transcript = tmp_path / "s.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": PROMPT}},
        {"type": "assistant", "message": {"role": "assistant", "id": "m1",
                                          "content": [{"type": "text", "text": "Noted."}]}},
    ]
    transcript.write_text("".join(json.dumps(x) + "\n" for x in lines))
    store = Store()
    conn = db.connect(store.path)
    job_id = queue.enqueue(conn, session_id="s", transcript_path=str(transcript),
                           project=str(repo), cwd=str(repo), event="SessionEnd")
    job = queue.claim(conn, os.getpid(), job_id=job_id)
    return store, conn, job


def _row(conn: sqlite3.Connection, job_id: int) -> dict[str, Any]:
    conn.row_factory = sqlite3.Row
    return dict(conn.execute("SELECT * FROM job WHERE id = ?", (job_id,)).fetchone())


CFG = Config(max_retries=0, send_ratio=0)


def test_pipeline_stores_pending_facts_and_the_cli_cost(
    fake: FakeClaude, repo: Path, tmp_path: Path
) -> None:
    """The answers name no speaker, so the verifier suspects both quotes (the user's, not
    the assistant's); a second run, through the same CLI, judges the suspicions."""
    from capture import pipeline

    judged = {"judgments": [
        {"id": 0, "supported": True, "reason": "the user stated it"},
        {"id": 1, "supported": False, "reason": "a requirement, not what the code does"},
    ]}
    fake.script([result(structured_output={"facts": [UV, WAL]}, total_cost_usd=0.0042),
                 result(structured_output=judged, total_cost_usd=0.0003)])
    store, conn, job = _job(repo, tmp_path)
    out = pipeline.process(store, conn, job, CFG)
    assert out.state == "done" and len(out.new_ids) == 2, out
    row = _row(conn, job.id)
    assert row["state"] == "done" and row["cost_usd"] == pytest.approx(0.0045)
    assert row["model"] == "claude-haiku-4-5" and row["input_tokens"] == 2 * 357
    facts = conn.execute(
        "SELECT text, status, grounded, source, verify_hint FROM fact ORDER BY id").fetchall()
    assert [tuple(f) for f in facts] == [
        (UV["fact"], "pending", 1, "model", None),
        (WAL["fact"], "pending", 1, "model",
         "speaker: the quote is the user's, not the assistant's · the model agrees: "
         "a requirement, not what the code does"),
    ]
    assert len(fake.calls("auth")) == 1 and len(fake.calls()) == 2
    extract_run, judge_run = fake.calls()
    assert '"judgments"' in judge_run["argv"][judge_run["argv"].index("--json-schema") + 1]
    assert "<candidate id=0>" in judge_run["stdin"] and "<candidate id=1>" in judge_run["stdin"]
    assert STRUCTURED_TOOL in judge_run["argv"][judge_run["argv"].index("--system-prompt") + 1]
    assert judge_run["cwd"] == extract_run["cwd"]  # our empty dir, as for extraction
    assert pipeline.spent_today(conn) == pytest.approx(0.0045)  # both count against the cap
    store.close()
    conn.close()


def test_a_failed_judgment_run_settles_nothing_and_loses_nothing(
    fake: FakeClaude, repo: Path, tmp_path: Path
) -> None:
    from capture import pipeline

    fake.script([result(structured_output={"facts": [UV]}, total_cost_usd=0.0042),
                 {"stdout": "garbage", "code": 1}])
    store, conn, job = _job(repo, tmp_path)
    out = pipeline.process(store, conn, job, CFG)
    assert out.state == "done" and len(out.new_ids) == 1, out
    (hint,) = conn.execute("SELECT verify_hint FROM fact").fetchone()
    assert hint == "speaker: the quote is the user's, not the assistant's"
    assert len(fake.calls()) == 2  # the judgment was asked, and failed
    store.close()
    conn.close()


@pytest.mark.parametrize(
    ("answer", "auth", "state", "attempts", "error"),
    [
        # Signed out before the run: waits, uncounted, the CLI is not even asked.
        (result(), {"loggedIn": False}, "queued", 0, SIGN_IN),
        # Signed out mid-run (a lapsed token): waits, uncounted.
        (api_error(401, "authentication_error", "Failed to authenticate. API Error: 401"),
         None, "queued", 0, "unavailable: Claude Code cannot authenticate"),
        (api_error(529, "overloaded_error", "API Error: 529"), None, "queued", 1,
         "overloaded: API Error: 529"),
        (api_error(404, "not_found_error", "There's an issue with the selected model"), None,
         "failed", 1, "invalid_request: There's an issue"),
        ({"stdout": "garbage", "code": 0}, None, "queued", 1, "bad_answer: claude exited 0"),
    ],
)
def test_pipeline_failures_land_in_the_queue(
    fake: FakeClaude, repo: Path, tmp_path: Path, answer: Any, auth: Any, state: str,
    attempts: int, error: str,
) -> None:
    from capture import pipeline

    fake.script([answer], auth=auth)
    store, conn, job = _job(repo, tmp_path)
    out = pipeline.process(store, conn, job, CFG)
    row = _row(conn, job.id)
    assert (out.state, row["state"], row["attempts"]) == (state, state, attempts), row
    assert row["last_error"].startswith(error), row["last_error"]
    assert out.stop == (attempts == 0)  # no sign-in: take no more jobs this run
    assert conn.execute("SELECT COUNT(*) FROM fact").fetchone()[0] == 0
    if auth is not None:
        assert fake.calls() == []
    store.close()
    conn.close()


def test_the_daily_cap_holds_claude_code_jobs_too(
    fake: FakeClaude, repo: Path, tmp_path: Path
) -> None:
    from capture import pipeline

    store, conn, job = _job(repo, tmp_path)
    tiny = Config(max_retries=0, send_ratio=0, daily_spend_cap_usd=0.000001)
    out = pipeline.process(store, conn, job, tiny)
    assert out.state == "failed" and "over the daily spend cap" in (out.error or "")
    assert fake.calls() == []
    store.close()
    conn.close()


# --------------------------------------------------------------------------- what is said


def test_status_says_which_extractor_runs_and_why(fake: FakeClaude, repo: Path) -> None:
    from reviewer.commands import status

    data = status.gather(str(repo))
    spend = data["spend"]
    assert (spend["extractor"], spend["extractor_setting"]) == ("claude-code", "auto")
    assert str(fake.path) in spend["extractor_reason"]
    text = status.render(data)
    assert f"extract  claude-code (claude-haiku-4-5): auto: no ANTHROPIC_API_KEY; Claude Code at " \
           f"{fake.path}" in text


def test_status_and_empty_state_say_plainly_when_only_rules_run(
    home: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.commands import status
    from reviewer.tui.widgets.empty_state import empty_content

    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    text = status.render(status.gather(str(repo)))
    assert "extract  rules: auto: no ANTHROPIC_API_KEY" in text
    assert "find nothing in agent-driven sessions" in text
    assert "nothing in agent-driven sessions" in empty_content("/p", 0, 0, 0).plain
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert "agent-driven" not in empty_content("/p", 0, 0, 0).plain


def test_doctor_checks_the_sign_in(fake: FakeClaude) -> None:
    from reviewer.commands.doctor import check_extractor

    check = check_extractor(Config())
    assert check.ok and check.detail.startswith("claude-code, claude-haiku-4-5 (auto: ")
    assert check.detail.endswith("signed in")
    fake.script([result()], auth={"loggedIn": False, "authMethod": "none"})
    check = check_extractor(Config())
    assert not check.ok and check.detail.endswith(SIGN_IN)
    assert fake.calls() == []  # the doctor asks `auth status`, never the model


def test_the_demo_and_capture_now_still_use_the_rules(
    fake: FakeClaude, repo: Path, tmp_path: Path
) -> None:
    from capture import pipeline

    transcript = tmp_path / "demo.jsonl"
    line = {"type": "user", "message": {"role": "user", "content": PROMPT}}
    transcript.write_text(json.dumps(line) + "\n")
    ids = pipeline.capture_now(transcript, project=str(repo))
    assert ids and fake.calls() == [] and fake.calls("auth") == []


def test_an_old_cli_that_refuses_an_option_before_reading_stdin(fake: FakeClaude) -> None:
    fake.script([{"early": "error: unknown option '--json-schema'\n"}])
    with pytest.raises(ExtractionError) as caught:
        extractor().extract(Request(["x" * 2_000_000], []))  # more than a pipe holds
    assert caught.value.kind == "unavailable" and "too old" in str(caught.value)
