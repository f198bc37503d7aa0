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


NATO = [
    "alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu",
]
SPOKEN = [*NATO, "zero", "seven", "four"]


def test_a_value_read_aloud_in_the_phonetic_alphabet() -> None:
    words = [RNG.choice(SPOKEN) for _ in range(8)]
    while len({w for w in words if w in NATO}) < 3 or [w for w in words if w in NATO] == sorted(
            w for w in words if w in NATO):
        words = [RNG.choice(SPOKEN) for _ in range(8)]
    spoken = " ".join(words)
    hidden(f"reading it off the sticker: {spoken}. that's the wifi password", spoken)
    unchanged("the NATO alphabet starts alfa, bravo, charlie, delta, echo, foxtrot")
    unchanged("we met Mike and Oscar at the Hotel India in Lima")


def test_a_value_wrapped_over_the_lines_under_its_word() -> None:
    a, b = hexs(12), hexs(12)
    hidden(f"api secret (it wrapped when I copied it)\n{a}\n{b}\nwhy is it rejected", a, b)
    unchanged("Token usage:\nprompt_tokens\ncompletion_tokens_total")


def test_an_aside_between_a_password_word_and_its_value() -> None:
    v = "".join(RNG.choice(string.ascii_lowercase + string.digits) for _ in range(12))
    v = "x7" + v
    hidden(f"the admin pw backwards (so it's not in plain text lol) is {v}", v)


def test_a_password_inside_a_percent_encoded_connection_string() -> None:
    p = alnum()
    text = ('URL = "mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BODBC+Driver+18%7D%3B'
            f'SERVER%3Dsql01%3BUID%3Dapp%3BPWD%3D{p}"')
    hidden(text, p)
    unchanged("https://example.com/search?q=a%3Db%26c%3Dd&page=2")


def test_a_user_and_password_under_an_auth_key() -> None:
    p = alnum()
    hidden(f"filebeat setup -E cloud.id=prod:abc -E cloud.auth=elastic:{p}", p)
    unchanged("oauth: client:abc")


def test_a_signature_parameter_behind_a_vendors_prefix() -> None:
    h = hexs(40)
    text = ("https://bucket.cos.example.com/a.mp4?q-sign-algorithm=sha1&q-sign-time="
            f"1764800000;1764900000&q-key-time=1764800000;1764900000&q-signature={h}")
    red = redact(text)
    assert h not in red and "q-key-time=1764800000;1764900000" in red


def test_a_url_in_brackets_keeps_its_token_path_rule() -> None:
    t = f"zt-{alnum(6).lower()}-{alnum(24)}"
    hidden(f"- shared an invite link (https://chat.example.com/join/shared_invite/{t}) today", t)


def test_a_bitlocker_recovery_key() -> None:
    key = "-".join(f"{RNG.randrange(10**5, 10**6)}" for _ in range(8))
    hidden(f"BitLocker Drive Encryption\n    Numerical Password:\n      Password:\n        {key}",
           key)


def test_a_ping_hosts_path_token() -> None:
    t = alnum(22)
    hidden(f"HC_PING=https://hc-ping.example.com/{t}/backup-nightly", t)


def test_a_file_named_for_its_secret_in_a_secrets_folder() -> None:
    t = alnum(14)
    hidden(f"volumes:\n  - ./secrets/{t}:/run/pw:ro", t)
    unchanged("see ./secrets/db_password.txt and keys/id_ed25519 and tokens/GithubActionsRunner")


def test_a_cookie_jar_after_condensing_collapsed_its_tabs() -> None:
    v = "".join(RNG.choice(string.ascii_lowercase + string.digits) for _ in range(32))
    hidden("    ┆ → # Netscape HTTP Cookie File\n"
           f"    ┆ → .example.com TRUE / TRUE 1796000000 app_session {v}", v)
    unchanged("set DEBUG TRUE and FALSE flags")


def test_the_rest_of_a_value_sent_after_an_early_enter() -> None:
    rest = f"{alnum(5)}_{RNG.randrange(10, 99)}"
    hidden(f"{rest} sorry hit enter", rest)
    unchanged("sorry, hit enter too early - anyway the build passed")
