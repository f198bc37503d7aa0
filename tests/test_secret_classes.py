"""Secret classes of issue 20's third round, with values made here (never a battery's).

A service's key named only by the service, a name and its value given apart (an env list,
a plist, ``--name``/``--value``), an OAuth fragment, a CSV export's secret columns, the
condenser's ``→`` line marks, password words in more languages; and the store's memory of
what a job redacted, however the model spells the value back.
"""

from __future__ import annotations

import json
import random
import string
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeapi import Facts, FakeMessagesAPI
from helpers import make_repo
from test_secrets_everywhere import Transcript

from capture.pipeline import capture_now
from reviewer.sanitize.detect import collecting, redact, redact_obj
from reviewer.sanitize.named import service_names

RNG = random.Random(2020)
B62 = string.ascii_letters + string.digits


def tok(n: int) -> str:
    while True:
        v = "".join(RNG.choice(B62) for _ in range(n))
        if any(c.isupper() for c in v) and any(c.islower() for c in v) and \
                sum(c.isdigit() for c in v) >= 2:
            return v


def hexkey(n: int) -> str:
    return "".join(RNG.choice("0123456789abcdef") for _ in range(n))


def pw() -> str:
    return tok(6) + RNG.choice("!#%*") + tok(5)


def hidden(text: str, *values: str) -> bool:
    out = redact(text)
    return all(v not in out for v in values)


# --------------------------------------------------------------------------- service names


def test_service_names_come_from_the_rule_set_data() -> None:
    names = service_names()
    assert len(names) >= 80
    assert {"mailchimp", "launchdarkly", "sendgrid", "mapbox"} <= set(names)
    assert not {"github", "google", "aws", "access", "token", "password"} & set(names)


@pytest.mark.parametrize("phrase", [
    "{Name}: {v}", "the {name} one is {v}", "for {Name} use {v} please",
    "{Name} → {v}", "- **{Name}**: `{v}`",
])
def test_a_key_named_only_by_its_service(phrase: str) -> None:
    for name in RNG.sample(service_names(), 12):
        for v in (hexkey(32), tok(36)):
            text = phrase.format(Name=name.capitalize(), name=name, v=v)
            assert hidden(text, v), text


@pytest.mark.parametrize("label", ["Zyxcloud", "PayQuik", "Meowmail", "Smtpify"])
def test_a_random_key_labelled_by_a_product_no_list_holds(label: str) -> None:
    v = tok(32)
    assert hidden(f"{label}: {v}", v)
    h = hexkey(40)
    assert hidden(f"{label} = {h}", h)


@pytest.mark.parametrize("text", [
    "Commit: {h40}", "Sentry release {h40} built fine", "Mailchimp list {h10} synced",
    "Stripe charge ch_3MmlLrLkdIwHu7ix0snN0B15 failed", "Datadog request {uuid}",
    "see github.com/AcmeCorp/Widget2x for the code", "Version: 1.24.3-rc2",
    "Image digest: sha256:{h64}", "Build: 20261203.4",
])
def test_ids_and_digests_beside_a_service_name_stay(text: str) -> None:
    t = text.format(h40=hexkey(40), h10=hexkey(10), h64=hexkey(64),
                    uuid="3f2a1c4e-1b2c-4d5e-8f90-123456789abc")
    assert redact(t) == t


# --------------------------------------------------------------------------- name, then value


@pytest.mark.parametrize("template", [
    "env:\n  - name: SMTP_PASSWORD\n    value: \"{v}\"\n  - name: LOG_LEVEL\n    value: info",
    '[{{"Name": "BILLING_API_TOKEN", "Value": "{v}"}}]',
    "<dict>\n  <key>Password</key>\n  <string>{v}</string>\n</dict>",
    "aws ssm put-parameter --name /prod/db/password --value '{v}' --type SecureString",
    'gh secret set DEPLOY_TOKEN --body "{v}"',
    "kubectl create secret generic db --from-literal=db_password={v}",
    "ParameterKey=DBMasterPassword,ParameterValue={v}",
])
def test_a_name_and_its_value_given_apart(template: str) -> None:
    v = pw()
    assert hidden(template.format(v=v), v)


@pytest.mark.parametrize("text", [
    "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: PORT\n    value: \"8080\"",
    "<key>CFBundleVersion</key>\n<string>1.4.2</string>",
    "aws ssm get-parameter --name /prod/db/host --with-decryption",
])
def test_names_that_are_not_secrets_keep_their_values(text: str) -> None:
    assert redact(text) == text


def test_an_oauth_fragment() -> None:
    v = tok(40)
    text = f"redirected to https://app.example.com/cb#access_token={v}&token_type=Bearer"
    assert hidden(text, v)
    plain = "https://example.com/docs#section=install&lang=en"
    assert redact(plain) == plain


# --------------------------------------------------------------------------- CSV columns


def test_a_password_managers_export_hides_its_secret_columns() -> None:
    word = "".join(RNG.choice(string.ascii_lowercase) for _ in range(11))  # no rule sees it
    seed = "".join(RNG.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(32))
    text = ("name,url,username,password,totp,note\n"
            f"router,http://192.168.0.1/,admin,{word},{seed},\n"
            f'nas,http://nas.lan/,root,"{pw()},x",,"kept, here"')
    out = redact(text)
    assert word not in out and seed not in out
    assert "router,http://192.168.0.1/,admin," in out and "kept, here" in out


def test_a_csv_without_secret_columns_stays() -> None:
    text = "id,name,token_count,created\n1,foo,12,2026-01-01\n2,bar,7,2026-01-02"
    assert redact(text) == text


# --------------------------------------------------------------------------- line marks


def test_shapes_read_through_the_condensers_line_marks() -> None:
    """A command's output reaches the redactor with each line marked "→ ": a CSV header
    and a key under its header line are still theirs (they failed before)."""
    word = "".join(RNG.choice(string.ascii_lowercase) for _ in range(11))
    csv = f"→ name,username,password\n→ vpn,jdoe,{word}"
    assert word not in redact(csv)
    key = "A" + tok(80)
    block = f"→ untrusted comment: minisign encrypted secret key\n→ {key}"
    assert key not in redact(block)


# --------------------------------------------------------------------------- languages


@pytest.mark.parametrize("sentence", [
    "Kalmar sirri ta uwar garken ita ce {v}.",  # Hausa
    "Nywila ya seva ni {v}.",  # Swahili
    "Ang kontrasenya ng server ay {v}.",  # Tagalog
    "La pasvorto de la servilo estas {v}.",  # Esperanto
    "It wachtwurd fan de server is {v}.",  # Frisian
    "Furaha sirta ee server-ka waa {v}.",  # Somali
    "Ny teny miafina dia {v}.",  # Malagasy
])
def test_password_words_of_more_languages(sentence: str) -> None:
    v = "_".join(RNG.choice(["walrus", "cobalt", "tundish", "quarry", "bramble"])
                 for _ in range(3)) + str(RNG.randint(10, 99))
    assert hidden(sentence.format(v=v), v)


# --------------------------------------------------------------------------- memory


def test_a_value_replaced_whole_for_its_key_is_remembered() -> None:
    v = "".join(RNG.choice(string.ascii_lowercase) for _ in range(12))  # a word, bare
    assert redact(f"signs in with {v} now") == f"signs in with {v} now"
    with collecting() as found:
        out = redact_obj({"host": "db", "password": v})
        assert out["password"].startswith("[REDACTED:")
        assert redact(f"signs in with {v} now") == "signs in with [REDACTED:remembered] now"
    assert v in found


@pytest.mark.parametrize("spell", [
    lambda v: urllib.parse.quote(v, safe=""),
    lambda v: json.dumps(v)[1:-1],
    urllib.parse.unquote,
])
def test_a_value_spelled_back_differently_is_still_remembered(spell: Callable[[str], str]
                                                              ) -> None:
    v = "Zq9@x" + tok(8) + "/+é"  # percent-encoding and JSON escaping both change it
    with collecting():
        assert v not in redact(f"the password is {v}")
        back = spell(v)
        assert back not in redact(f"deploys use {back} first")


def test_the_store_keeps_no_spelling_of_a_redacted_value(home: Path, tmp_path: Path) -> None:
    """End to end: the job redacts a password in its context; the careless model writes
    it back percent-encoded and JSON-escaped, with no context words."""
    v = 'Kx7"w@' + tok(8)
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    t = Transcript(repo)
    t.user(f"I changed the staging password to {v} this morning.")
    path = t.write(tmp_path / "t.jsonl")
    encoded, escaped = urllib.parse.quote(v, safe=""), json.dumps(v)[1:-1]
    with FakeMessagesAPI() as api:
        api.script(Facts([{
            "fact": f"Staging signs in with {encoded} and {escaped}.",
            "category": "environment", "files": [], "confidence": 0.9, "evidence": escaped,
        }]), lane="extract")
        capture_now(path, project=str(repo), extractor="api", api_key="k", base_url=api.url)
    stored = b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())
    for form in (v, encoded, escaped):
        assert form.encode() not in stored


# --------------------------------------------------------------------------- cuts


@pytest.mark.parametrize("head_share", [1 / 3, 2 / 3, 1.0])
def test_a_long_text_is_never_cut_through_a_token(head_share: float) -> None:
    """Condensation keeps a long body's opening and end: a cut inside a key would send
    half of it, a piece no rule recognises. The cut moves to a space."""
    from capture.written import cut_middle

    for at in range(60, 140, 7):
        key = tok(40)
        text = "a " * (at // 2) + key + " b" * 600
        out = cut_middle(text, int((at + 20) / head_share) + 1, head_share=head_share)
        assert key in out or key[:8] not in out, (at, out[:200])
        if head_share >= 1:
            continue  # the opening alone is kept
        end_key = tok(40)
        text = "c " * 600 + end_key + " d" * (at // 2)
        out = cut_middle(text, int((at + 20) / (1 - head_share)) + 1, head_share=head_share)
        assert end_key in out or end_key[-8:] not in out, (at, out[-200:])


# --------------------------------------------------------------------------- plain passwords

WORDS = ("walrus", "cobalt", "tundish", "quarry", "bramble", "saffron", "lattice", "juniper")


@pytest.mark.parametrize("sentence", [
    "Das WLAN-Passwort ist {v}.", "Пароль от сервера: {v}", "数据库密码是 {v}",
    "I reset the admin password to {v} this morning", "Mật khẩu là {v}", "Salasana on {v}",
])
def test_a_password_without_capitals_or_signs_right_after_its_word(sentence: str) -> None:
    diceware = "-".join(RNG.sample(WORDS, 4))
    words_number = "".join(RNG.sample(WORDS, 2)) + str(RNG.randint(10, 999))
    for v in (diceware, words_number):
        assert hidden(sentence.format(v=v), v)


@pytest.mark.parametrize("text", [
    "the password is stored in 1Password under 'Staging DB'",
    "the password-reset-email-template was updated",
    "Passwords are hashed with argon2id",
    "see password_reset_token_expiry.py",
    "token_type=Bearer expires_in=3600",
    "Google Doc: https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "Figma file https://www.figma.com/file/Xk2LmZp7Vb3Nc8Wd4qRt/Design",
    "Twilio SID AC0123456789abcdef0123456789abcdef",
    "stripe_secret: ENC[AES256_GCM,data:Xk2LmZp7Vb3Nc8Wd4qRtYu9I,iv:Qw3Er5Ty7Ui9Op1A=,type:str]",
])
def test_ordinary_text_about_passwords_and_documents_stays(text: str) -> None:
    assert redact(text) == text


def test_a_webhooks_last_segment_is_still_a_secret() -> None:
    v = tok(24)
    assert hidden(f"https://hooks.example.com/services/T01/B02/{v}", v)
