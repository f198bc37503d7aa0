"""Carriers of a secret the detector did not read (recall by class, issue 20): a password
glued to another script's punctuation, any client's ``-u USER -p PASSWORD``, wire
protocols' logins (SASL PLAIN/LOGIN, IMAP, POP3/FTP, Redis), cookie jars. Values are made
here; the ordinary look-alikes beside each stay untouched."""

from __future__ import annotations

import base64
import random
import string

import pytest

from reviewer.sanitize.detect import redact

RNG = random.Random(777)


def pw(n: int = 8) -> str:
    """A typed password: short runs (no random-token layer can see it whole), a sign."""
    body = "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(n))
    return f"{body[:4]}Q7x{body[4:]}#{RNG.randrange(10, 99)}"


def alnum(n: int = 12) -> str:
    """A password of letters and digits, too short for the random-token layer."""
    body = "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(n - 3))
    return f"k{body}7Q"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def hidden(text: str, *values: str) -> None:
    red = redact(text)
    assert "[REDACTED:" in red, red
    assert all(v not in red for v in values), red


def unchanged(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("shape", [
    "مۇلازىمېتىرنىڭ پارولى {pw}، ھېچكىمگە دېمە.",
    "رمز عبور سرور {pw}، را به کسی نگو",
    "新密码是 {pw}，别告诉别人。",
])
def test_a_password_glued_to_another_scripts_punctuation(shape: str) -> None:
    p = pw()
    hidden(shape.format(pw=p), p)


@pytest.mark.parametrize("shape", [
    "ran `smbmap -H 10.1.1.5 -u Administrator -p '{pw}' -d ACME` and it fails",
    "hydra -l admin -p {pw} ssh://10.0.0.7",
    "crackmapexec smb 10.0.0.0/24 -u svc_backup -p {pw} --shares",
    "somecli --user deploy --password={pw} sync",
])
def test_any_clients_user_and_password_flags(shape: str) -> None:
    p = alnum()
    hidden(shape.format(pw=p), p)


@pytest.mark.parametrize("text", [
    "ssh -l deploy -p 2222 bastion.example.com",
    "docker run -u 1000 -p 8080:80 -p 127.0.0.1:5432:5432 postgres:16",
    "mysql -u root -p mydb < dump.sql",
    "psql -U app -p 5432 -h db.internal",
    "cp -u -p src/a.txt dst/",
    "kubectl patch deploy web -p '{\"spec\":{\"replicas\":2}}' -u admin",
])
def test_ports_paths_and_prompts_are_no_passwords(text: str) -> None:
    unchanged(text)


def test_sasl_plain_and_login() -> None:
    p1, p2 = pw(), pw()
    plain = b64(b"\0mailer@example.com\0" + p1.encode())
    hidden(f"S: 250-AUTH PLAIN LOGIN\nC: AUTH PLAIN {plain}\nS: 235 2.7.0 ok", plain)
    user, secret = b64(b"mailer@example.com"), b64(p2.encode())
    text = (f"C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: {user}\nS: 334 UGFzc3dvcmQ6\n"
            f"C: {secret}\nS: 235 OK")
    red = redact(text)
    assert secret not in red and user in red


@pytest.mark.parametrize("shape", [
    'a001 LOGIN ana "{pw}"',
    ". login ana {pw}",
    "USER ana\nPASS {pw}\n+OK logged in",
    "127.0.0.1:6379> AUTH {pw}\nOK",
    "127.0.0.1:6379> AUTH default {pw}",
])
def test_plain_text_protocol_logins(shape: str) -> None:
    p = alnum()
    hidden(shape.format(pw=p), p)


@pytest.mark.parametrize("text", [
    "please login admin now",
    "pass the tests first\nthen auth works",
    "S: 250-AUTH PLAIN LOGIN\nC: AUTH LOGIN\nS: 334 VXNlcm5hbWU6",
])
def test_prose_about_logins_is_untouched(text: str) -> None:
    unchanged(text)


def test_a_cookie_jars_session_value() -> None:
    v = "".join(RNG.choice(string.ascii_lowercase + string.digits) for _ in range(32))
    jar = ("# Netscape HTTP Cookie File\n"
           f".example.com\tTRUE\t/\tTRUE\t1796000000\tapp_session\t{v}\n"
           ".example.com\tTRUE\t/\tFALSE\t1796000000\ttheme\tdark")
    red = redact(jar)
    assert v not in red and "theme\tdark" in red


def hexs(n: int) -> str:
    return "".join(RNG.choice("0123456789abcdef") for _ in range(n))


def test_a_tables_secret_column() -> None:
    k1, k2 = hexs(40), alnum(20)
    psql = ("$ psql -c 'select id, provider, api_key from integrations'\n"
            " id | provider  | api_key\n----+-----------+---------\n"
            f"  1 | crm       | {k1}\n  2 | helpdesk  | {k2}\n(2 rows)")
    red = redact(psql)
    assert k1 not in red and k2 not in red and "helpdesk" in red
    box = ("┌──────────┬───────────┬──────────┐\n│ id       │ label     │ token    │\n"
           f"├──────────┼───────────┼──────────┤\n│ 41229873 │ terraform │ {k1} │\n"
           "└──────────┴───────────┴──────────┘")
    red = redact(box)
    assert k1 not in red and "41229873" in red and "terraform" in red


def test_a_table_without_a_secret_column_is_untouched() -> None:
    unchanged("| name | token_count | cost |\n|---|---|---|\n| a | 1234567 | 3 |")


@pytest.mark.parametrize("shape", [
    'r = requests.get(url, auth=("export-bot", "{pw}"), timeout=30)',
    '    s.login("alerts@example.com", "{pw}")',
    "client = HTTPBasicAuth(user, '{pw}')",
    'var cred = new NetworkCredential("svc", "{pw}");',
])
def test_a_user_and_password_handed_to_code_that_logs_in(shape: str) -> None:
    p = alnum()
    hidden(shape.format(pw=p), p)


def test_a_value_stored_as_a_secret_whatever_its_name() -> None:
    v = alnum(16).upper()
    hidden("aws ssm put-parameter --name /prod/quotes/vendor --type SecureString "
           f"--overwrite --value {v}", v)
    unchanged("aws ssm put-parameter --name /prod/host --type String --value db.internal")


def test_escaped_key_bytes_under_a_secrets_name() -> None:
    raw = "".join(f"\\x{RNG.randrange(256):02x}" for _ in range(24))
    hidden(f"app.secret_key = b'{raw}'", raw)


def test_a_path_segment_named_for_its_token() -> None:
    t = hexs(32)
    hidden(f"url: https://calendar.example.com/ical/team%40example.com/private-{t}/basic.ics",
           t)
    unchanged("https://example.com/docs/private-networking-guide/setup.html")


def test_recovery_codes_in_a_checkbox_list() -> None:
    codes = [f"{alnum(5).lower()}-{alnum(5).lower()}" for _ in range(4)]
    text = "backup codes for the admin account:\n" + "\n".join(f"- [ ] {c}" for c in codes)
    hidden(text, *codes)


@pytest.mark.parametrize("shape", [
    "Το μυστικό κλειδί του παρόχου είναι {hex}.",
    "کلید سرویس این است: {hex}",
])
def test_key_words_in_greek_and_persian(shape: str) -> None:
    h = hexs(32)
    hidden(shape.format(hex=h), h)


def test_a_value_starting_with_a_percent_sign() -> None:
    p = f"%{alnum(8)}_X-{alnum(6)}"
    hidden(f"pw for the nas is {p} btw", p)
    unchanged("the password field is %s and the token is %(token)s")


def test_an_archive_locked_with_a_password() -> None:
    p = f"Yarrow_{alnum(6).lower()}2967"
    hidden(f"zip is locked with {p}", p)


def test_a_secret_word_then_private() -> None:
    h = hexs(32)
    hidden(f"MJ_APIKEY_PRIVATE:         {h}", h)


def test_a_word_after_a_services_value_does_not_make_it_a_digest() -> None:
    h = hexs(64)
    hidden(f"mailgun one is {h} lol dont commit it this time", h)
