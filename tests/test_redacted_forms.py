"""A value the job redacted is refused by the store's door in the forms a model writes it
back in: base64 decoded (a k8s Secret's ``data:``), XML entities undone, hex in the other
case. Values are generated here."""

from __future__ import annotations

import base64
import secrets
import string
from pathlib import Path

from fakeapi import Facts, FakeMessagesAPI
from helpers import make_repo
from test_secrets_everywhere import Transcript

from capture.pipeline import capture_now
from reviewer.sanitize.detect import forms


def _password() -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(10)) + "-7Qz"


def test_the_forms_of_a_value_hold_its_decoded_unescaped_and_recased_spellings() -> None:
    pw = _password()
    assert pw in forms(base64.b64encode(pw.encode()).decode())
    assert f"{pw}&x" in forms(f"{pw}&amp;x")
    h = secrets.token_hex(20)
    assert h.upper() in forms(h)


def test_a_model_writing_back_a_redacted_value_in_another_form_stores_nothing(
    home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    decoded, entity, hexkey = _password(), _password(), secrets.token_hex(32)
    b64 = base64.b64encode(decoded.encode()).decode()
    t = Transcript(repo)
    t.tool("Bash", {"command": "kubectl get secret db -o yaml", "description": "read"},
           f"apiVersion: v1\nkind: Secret\ndata:\n  password: {b64}\nmetadata:\n  name: db\n")
    t.tool("Bash", {"command": "cat conf/broker.xml", "description": "read"},
           f'<broker><user name="app" password="{entity}&amp;x"/></broker>\n')
    t.user(f"the signing key is {hexkey}, keep it out of git")
    path = t.write(tmp_path / "t.jsonl")
    echoes = [decoded, f"{entity}&x", hexkey.upper()]
    facts = [{"fact": f"Deploy step {i} uses {e} before release.", "category": "environment",
              "files": [], "confidence": 0.9, "evidence": e} for i, e in enumerate(echoes)]
    with FakeMessagesAPI() as api:
        api.script(Facts(facts), lane="extract")
        capture_now(path, project=str(repo), extractor="api", api_key="k", base_url=api.url)
    stored = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    for value in (decoded, entity, hexkey.upper(), hexkey):
        assert value.encode() not in stored, value
