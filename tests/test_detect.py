"""The full detector (reviewer/sanitize/detect.py): gitleaks' rules as data, our layers.

The rules are gitleaks' own file; these tests prove it is read as gitleaks reads it
(keywords, secret group, entropy, allowlists), that the JSON the worker loads is the
TOML as vendored, and that the context layers catch what a per-run rule cannot.
"""

from __future__ import annotations

import base64
import random
import string
import textwrap
import tomllib

import pytest

from reviewer.sanitize import detect, gitleaks, layers
from reviewer.sanitize.detect import redact

_rng = random.Random(20)


def _r(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def test_the_json_the_worker_loads_is_the_vendored_toml() -> None:
    """rules.json is generated from gitleaks.toml (scripts/gitleaks_rules.py); an update
    that replaced one and not the other fails here."""
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gr", root / "scripts" / "gitleaks_rules.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert json.loads(gitleaks.RULES_FILE.read_text()) == json.loads(json.dumps(mod.digest()))
    toml = tomllib.loads((gitleaks.RULES_FILE.parent / "gitleaks.toml").read_text())
    assert len(toml["rules"]) >= 200
    assert "MIT License" in (gitleaks.RULES_FILE.parent / "LICENSE").read_text()


def test_every_text_rule_compiles_in_python() -> None:
    rules, glob = gitleaks.rules()
    assert len(rules) >= 200 and glob is not None
    broken = [r.id for r in rules if r.regex is gitleaks._NEVER]
    assert broken == []


@pytest.mark.parametrize(("go", "py"), [
    (r"dp\.pt\.(?i)[a-z0-9]{43}", r"dp\.pt\.(?i:[a-z0-9]{43})"),
    (r"\b(p8e-(?i)[a-z0-9]{32})(?:x|$)", r"\b(p8e-(?i:[a-z0-9]{32}))(?:x|$)"),
    (r"(?i)abc", r"(?i)abc"),
    (r"a(?:[^\w-]|\z)", r"a(?:[^\w-]|\Z)"),
    (r"[\z]", r"[\z]"),
])
def test_go_regex_translation(go: str, py: str) -> None:
    assert gitleaks.go_to_python(go) == py


def test_provider_shapes_come_from_the_rule_set() -> None:
    """Shapes the hand-written table never had are found through gitleaks' rules."""
    cases = {
        "linear-api-key": "lin_api_" + _r(40),
        "flutterwave-secret-key": "FLWSECK_TEST-" + _r(32, "abcdef0123456789") + "-X",
        "dynatrace-api-token": "dt0c01." + _r(24).upper() + "." + _r(64).upper(),
    }
    for kind, value in cases.items():
        out = redact(f"the deploy uses {value} today")
        assert value not in out, kind


def test_gitleaks_allowlists_hold() -> None:
    """AWS's documentation key (…EXAMPLE) is allowlisted by gitleaks, and stays."""
    text = "see AKIAIOSFODNN7EXAMPLE in the AWS docs"
    spans = list(gitleaks.find(text, text.lower()))
    assert spans == []


def test_windows_find_what_a_full_scan_finds() -> None:
    """In a long text rules run near their keywords only: same findings as a full scan."""
    filler = "ordinary words and code = value; " * 400
    secrets = ["lin_api_" + _r(40), "glpat-" + _r(20), "dop_v1_" + _r(64, "0123456789abcdef")]
    text = filler + " ".join(f"x {s} y {filler[:500]}" for s in secrets) + filler
    low = text.lower()
    windowed = sorted(gitleaks.find(text, low))
    full = sorted(
        (m.span(), r.id) for r, in ((r,) for r in gitleaks.rules()[0])
        if any(k in low for k in r.keywords) for m in r.regex.finditer(text)
    )
    assert len(text) > gitleaks._WINDOW_MIN_TEXT
    assert {text[s:e] for s, e, _ in windowed} >= set(secrets)
    assert len(windowed) <= len(full)


def test_base64_of_a_pem_wrapped_at_76_columns_is_hidden_whole() -> None:
    """Only the first line of such a block decodes to "-----BEGIN…"; the lines are joined
    and decoded together, and every line goes."""
    body = "\n".join(textwrap.wrap(base64.b64encode(_rng.randbytes(900)).decode(), 64))
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
    lines = textwrap.wrap(base64.b64encode(pem.encode()).decode(), 76)
    for wrapper in ("tls.key: |\n" + "\n".join("    " + x for x in lines),
                    "\n".join(f'"{x}" +' for x in lines), "\\n".join(lines)):
        out = redact(wrapper)
        assert [x for x in lines if x in out] == [], wrapper[:40]


def test_wrapped_base64_that_is_not_a_secret_stays() -> None:
    data = base64.b64encode(b"just some harmless text, repeated. " * 40).decode()
    text = "\n".join(textwrap.wrap(data, 76))
    assert redact(text) == text


@pytest.mark.parametrize("line", [
    "sqlcmd -S db -U sa -P {v}",
    "ldapsearch -x -D cn=admin,dc=ex -w {v} -b dc=ex",
    "mongosh --username admin --password {v}",
    "az login --service-principal -u app -p {v} --tenant t",
    "openssl pkcs12 -export -passout pass:{v} -out a.p12",
    "keytool -list -keystore k.jks -storepass {v}",
    "wget --http-password={v} https://example.com/f",
    "zip -P {v} backup.zip db.sql",
    "rabbitmqctl add_user deploy {v}",
])
def test_password_flags_of_common_clients(line: str) -> None:
    v = _r(10) + "7"
    out = redact("$ " + line.format(v=v))
    assert v not in out and "[REDACTED:" in out


@pytest.mark.parametrize("line", [
    "openssl pkcs12 -export -passout file:pw.txt -out a.p12",
    "sqlcmd -S db -U sa -P $SA_PASSWORD",
    "keytool -list -storepass:env STOREPASS",
    "zip -r backup.zip dir",
    "the az cli is installed",
])
def test_cli_flags_without_a_literal_stay(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize("code", [
    'os.environ["DB_PASSWORD"] = "{v}"',
    "ENV['SECRET_KEY'] = '{v}'",
    'System.setProperty("db.password", "{v}");',
    '$env:API_TOKEN = "{v}"',
    'client = Client(api_key="{v}")',
    '<add key="DbPassword" value="{v}" />',
    "<password>{v}</password>",
    '<entry key="api.token">{v}</entry>',
])
def test_code_and_config_assignments(code: str) -> None:
    v = _r(20)
    out = redact(code.format(v=v))
    assert v not in out and "[REDACTED:" in out


@pytest.mark.parametrize("code", [
    'os.environ["DB_PASSWORD"] = password_from_vault',
    'password = os.environ["DB_PASSWORD"]',
    "<password>${DB_PASSWORD}</password>",
    '<add key="PasswordMinLength" value="12" />',
    'token_type = "bearer"',
])
def test_code_naming_a_secret_without_a_literal_stays(code: str) -> None:
    assert redact(code) == code


@pytest.mark.parametrize("text", [
    "I changed the staging password to {v} this morning.",
    "Das Passwort für staging ist jetzt {v}",
    "パスワードは {v} です",
    "The admin creds are admin / {v}",
])
def test_a_password_near_its_word_in_any_phrasing(text: str) -> None:
    v = "Kx7#" + _r(8)
    out = redact(text.format(v=v))
    assert v not in out


@pytest.mark.parametrize("text", [
    "the password must be at least 12 characters, e.g. min_length=12",
    "password: str = Field(min_length=12)",
    "reset your password in Settings > Security",
    "PASSWORD_MIN_LENGTH=12",
])
def test_password_words_in_ordinary_text_stay(text: str) -> None:
    assert redact(text) == text


def test_collecting_remembers_and_hides_a_bare_repeat() -> None:
    with detect.collecting() as found:
        first = redact("the staging password is tr0ub4dor.3xq")
        again = redact("use tr0ub4dor.3xq on staging")
    assert "tr0ub4dor.3xq" in found and "tr0ub4dor.3xq" not in first + again
    assert "[REDACTED:remembered]" in again
    assert redact("use tr0ub4dor.3xq on staging") == "use tr0ub4dor.3xq on staging"


def test_the_detector_runs_inside_redact_once_imported() -> None:
    """Importing detect adds gitleaks and the layers to redact's rules in this process
    (the worker, preview, the store's door); a hook, which never imports it, keeps the
    stdlib redactor alone (pyproject's import-linter contract)."""
    from reviewer.sanitize import redact as base

    finders = [getattr(f, "__wrapped__", f) for f in base._EXTRA]  # seen through line marks
    assert gitleaks.find in finders
    assert all(finders.count(f) == 1 for f in layers.FINDERS)


def test_a_hook_never_loads_the_detector(tmp_path: object) -> None:
    """SessionStart and SessionEnd run in Claude Code's critical path: they log through
    the stdlib redactor and never import the detector or its rules (a fresh interpreter
    per hook, its real stdin; the modules it loaded are listed as it exits)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    work = Path(str(tmp_path))
    (work / "t.jsonl").write_text("{}\n")
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sorted(m for m in "
        "sys.modules if m.startswith(('reviewer.sanitize', 'reviewer.store.redacted'))))))\n"
        "from reviewer.cli import main\n"
        "sys.exit(main(['hook', sys.argv[1]]))\n"
    )
    env = {**os.environ, "MEM_REVIEW_HOME": str(work / "home"), "MEM_REVIEW_NO_SPAWN": "1"}
    payload = json.dumps({"session_id": "s", "transcript_path": str(work / "t.jsonl"),
                          "cwd": str(work), "hook_event_name": "SessionEnd",
                          "source": "startup", "reason": "exit"}).encode()
    for event in ("session-start", "session-end"):
        out = subprocess.run([sys.executable, "-c", code, event], cwd=root, env=env,
                             input=payload, capture_output=True, timeout=60, check=True)
        loaded = out.stderr.decode().rsplit("MODULES", 1)[1].split()
        assert "reviewer.sanitize.redact" in loaded or event == "session-start", loaded
        assert not {"reviewer.sanitize.detect", "reviewer.sanitize.gitleaks",
                    "reviewer.sanitize.layers", "reviewer.store.redacted"} & set(loaded)
    assert "not a Claude Code transcript" in (work / "home" / "mem-review.log").read_text()


def test_many_remembered_values_are_all_found() -> None:
    """Past a few dozen values the job's memory is one alternation: same result."""
    values = [f"Zq{i:03d}-secret-{_r(8)}" for i in range(60)]
    with detect.collecting() as found:
        for v in values:
            redact(f"the password is {v}")
        out = redact("repeated: " + " and ".join(values[::-1]))
    assert len(found) >= 60 and not any(v in out for v in values)
