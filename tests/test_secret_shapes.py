"""Secrets found by class (issue 20): each class with values made here, not the battery's.

Every value is drawn from a seeded generator in the shape the class names (a product's
key with no known prefix, a TOTP seed, recovery codes, a webhook's secret path segment,
a value given in two messages…), placed in phrasings no rule was written for word for
word. The ordinary side holds what must stay: ids, digests, dates, base64 of text, names.
"""

from __future__ import annotations

import base64
import random
import string
import uuid

import pytest

from reviewer.sanitize.detect import collecting, redact

RNG = random.Random(20)
B62 = string.ascii_letters + string.digits
B32 = string.ascii_uppercase + "234567"


def tok(n: int, alphabet: str = B62) -> str:
    """A generated key: every class of the alphabet present, as a generator's output is."""
    while True:
        v = "".join(RNG.choice(alphabet) for _ in range(n))
        if alphabet != B62 or (any(c.isupper() for c in v) and any(c.islower() for c in v)
                               and sum(c.isdigit() for c in v) >= 2):
            return v


def hexkey(n: int) -> str:
    return "".join(RNG.choice("0123456789abcdef") for _ in range(n))


def password() -> str:
    return tok(5, string.ascii_lowercase) + RNG.choice("!#%&*") + tok(3, string.digits) + \
        tok(4, string.ascii_uppercase)


def hidden(text: str, *values: str) -> None:
    out = redact(text)
    for v in values:
        assert v not in out, (text, out)


# --------------------------------------------------------------------------- product keys


@pytest.mark.parametrize("phrase", [
    "my Quillbox key is {v}",
    "here's the Tarnwell API key {v}, wire it in",
    "Use `{v}` as the Brightpath credential for now.",
    "{v} is the Lumio token we got from support",
    "the Ostrava secret: {v}",
])
@pytest.mark.parametrize("value", [tok(32), hexkey(30), str(uuid.UUID(int=RNG.getrandbits(128))),
                                   hexkey(32) + "-us14", "live_" + tok(30)])
def test_a_key_named_by_a_product_word_without_a_known_prefix(phrase: str, value: str) -> None:
    hidden(phrase.format(v=value), value)


def test_a_key_in_a_table_row_beside_its_variable() -> None:
    v = tok(52, string.ascii_lowercase + "234567")
    hidden(f"| Billing | `ZEPHYR_API_TOKEN` | `{v}` |", v)


# --------------------------------------------------------------------------- parts of a value


def test_a_value_given_in_two_messages_is_hidden_in_both_and_when_repeated_whole() -> None:
    first, rest = tok(14), tok(13)
    with collecting():
        a = redact(f"ok the Vantor key starts with {first}")
        b = redact(f"{rest} — that's the rest, paste them together")
        echoed = redact(f"The deploy uses {first}{rest} now.")
    assert first not in a and rest not in b
    assert first not in echoed and rest not in echoed


@pytest.mark.parametrize("phrase", [
    "first half of the token: {v}", "second part is {v}", "der Rest: {v}",
    "el resto es {v}", "残りは {v} です",
])
def test_parts_in_other_phrasings(phrase: str) -> None:
    v = tok(12)
    hidden(phrase.format(v=v), v)


# --------------------------------------------------------------------------- MFA material


def test_a_totp_seed_in_groups_of_four() -> None:
    seed = " ".join(tok(4, B32) for _ in range(8))
    if sum(any(c.isdigit() for c in g) for g in seed.split()) < 2:
        seed = "AB2C DE3F " + seed[10:]
    hidden(f"Authenticator setup key for the ops account: {seed}", seed)


def test_a_bare_base32_seed_beside_totp() -> None:
    seed = tok(14, B32) + "27"
    hidden(f"TOTP secret {seed}", seed)
    hidden(f"otpauth://totp/Acme:ops?secret={seed}&issuer=Acme", seed)


@pytest.mark.parametrize("shape", ["alnum-dash", "digits", "groups"])
def test_recovery_codes_listed_under_their_heading(shape: str) -> None:
    def code() -> str:
        if shape == "alnum-dash":
            return tok(5, string.ascii_lowercase + string.digits) + "-" + tok(
                5, string.ascii_lowercase + string.digits)
        if shape == "digits":
            return tok(8, string.digits)
        return tok(4, string.ascii_lowercase) + "-" + tok(4, string.digits)

    codes = [code() for _ in range(8)]
    text = "Backup codes for the bot account, keep them safe:\n" + "\n".join(codes)
    hidden(text, *codes)
    hidden("Recovery codes: " + ", ".join(codes[:4]), *codes[:4])


def test_a_wallet_seed_phrase() -> None:
    words = " ".join(RNG.choice(["apple", "orbit", "lunar", "cabin", "drift", "ember", "frost",
                                 "grain", "haven", "ivory", "jolly", "koala"]) for _ in range(12))
    hidden(f"the wallet seed phrase: {words}", words)


# --------------------------------------------------------------------------- URL paths


@pytest.mark.parametrize("url", [
    "https://events.example-alerts.io/integration/{h}/enqueue",
    "https://maker.example.com/trigger/build/with/key/{t}",
    "https://hooks.example.net/services/{t}",
    "https://api.example.org/v2/webhooks/{t}/fire",
])
def test_a_secret_path_segment_of_a_webhook(url: str) -> None:
    h, t = hexkey(32), tok(40)
    u = url.format(h=h, t=t)
    out = redact(f"curl -fsS '{u}'")
    assert h not in out and t not in out
    assert "https://" in out  # the host stays readable


def test_a_token_two_segments_after_its_name() -> None:
    t = tok(24)
    hidden(f"POST https://api.example.com/hooks/{RNG.randrange(10**5, 10**6)}/{t}", t)


def test_a_bot_token_in_a_url_path_and_a_token_as_userinfo() -> None:
    bot = f"{RNG.randrange(10**9, 10**10)}:AA{tok(33)}"
    hidden(f"GET https://api.telegram.org/bot{bot}/getMe", bot)
    t = tok(36)
    hidden(f"git clone https://{t}@git.example.com/acme/app.git", t)


# --------------------------------------------------------------------------- other languages


@pytest.mark.parametrize("phrase", [
    "Vaihdoin staging-salasanaksi {v} tänä aamuna.",
    "La contrasenya de staging ara és {v}",
    "Lozinka za staging je sada {v}",
    "Parola staging este acum {v}",
    "Staging parool on nüüd {v}",
    "שיניתי את הסיסמה ל-{v}",
    "staging 的密码改成了{v}",
    "スタッフ用のパスワードを{v}に変えた",
])
def test_a_password_in_a_language_phrase(phrase: str) -> None:
    v = password()
    hidden(phrase.format(v=v), v)


@pytest.mark.parametrize("phrase", [
    "用{v}作为密钥", "{v}를 키로 사용하세요", "tokenul este {v}", "tokennya {v}",
    "ტოკენი არის {v}", "{v} को टोकन के रूप में इस्तेमाल करो",
])
def test_a_token_glued_to_another_script_or_inflected(phrase: str) -> None:
    v = tok(20)
    hidden(phrase.format(v=v), v)


def test_a_token_as_a_urls_user_name_and_a_key_with_one_digit() -> None:
    user, pw = tok(32), password()
    hidden(f"amqp://{user}:{pw}@mq.example.com/", user, pw)
    one = "".join(RNG.choice(string.ascii_letters) for _ in range(30)) + "7Q"
    hidden(f"secrets:\n  billing: {one}", one)


def test_a_random_token_with_no_word_at_all() -> None:
    v = tok(40) + "=="
    hidden('{"argv": ["deploy", "--region", "eu-west-1", "' + v + '"]}', v)


@pytest.mark.parametrize("phrase", [
    "Lozinka za VPN je {p}.", "Parool on {p}.", "Geslo za strežnik je {p}.",
    "The wifi password is {p} now",
])
def test_a_passphrase_of_words_and_a_number_after_a_password_word(phrase: str) -> None:
    p = "-".join(RNG.choice(["walrus", "cobalt", "tundra", "jasper", "nectar", "quarry"])
                 for _ in range(4)) + f"-{RNG.randrange(10, 99)}"
    hidden(phrase.format(p=p), p)


@pytest.mark.parametrize("phrase", [
    "I set the staging one to {v} this morning", "ok → {v}", "{v} (new one, do not share)",
    "mudé la de staging a {v} esta mañana",
])
def test_a_typed_password_whatever_the_words(phrase: str) -> None:
    v = password()
    hidden(phrase.format(v=v), v)


# --------------------------------------------------------------------------- code, DSNs, CLIs


@pytest.mark.parametrize("line", [
    'dbPasswordProd = "{v}"', 'const stripeSecretKeyLive = "{v}";', "$dbPass = '{v}';",
    'MY_TOKEN_PROD="{v}"', 'password2 = "{v}"', 'clientSecretValue = "{v}"',
    'PASSWORD_DB := "{v}"', 'token_value="{v}"',
])
def test_code_assigning_to_a_name_holding_a_secret_word(line: str) -> None:
    v = password()
    hidden(line.format(v=v), v)


@pytest.mark.parametrize("dsn", [
    "app:{v}@tcp(db:3306)/app", "sqlplus scott/{v}@//db.example.com:1521/ORCL",
    "redis://:{v}@cache:6379/0", "amqps://guest:{v}@mq.example.com/vhost",
    "postgresql+psycopg2://app:{v}@db/app", "host=db user=app password={v} dbname=app",
    "ssh deploy:{v}@10.0.0.5", "rsync -a ./ backup:{v}@files.example.com::data",
])
def test_dsn_userinfo_in_its_forms(dsn: str) -> None:
    v = password()
    hidden(dsn.format(v=v), v)


def test_every_password_flag_of_one_command_and_quoted_glued_flags() -> None:
    a, b = password(), password()
    hidden(f"jarsigner -keystore r.jks -storepass {a} -keypass {b} app.apk r", a, b)
    hidden(f"mysqldump -uroot -p'{a}' --single-transaction crm > crm.sql", a)
    hidden(f"CREATE USER 'etl'@'%' IDENTIFIED BY '{a}';", a)
    hidden(f"ALTER ROLE app WITH LOGIN PASSWORD '{b}';", b)
    c = tok(6) + "@%" + tok(6)
    hidden(f'proxy_set_header Authorization "Bearer {c}";', c)


# --------------------------------------------------------------------------- ordinary


ORDINARY = [
    f'"trace_id": "{uuid.UUID(int=RNG.getrandbits(128))}"',
    f"git cherry-pick {hexkey(40)}",
    f"Cache restored from key: Linux-pip-{hexkey(64)}",
    f"FROM python:3.12-slim@sha256:{hexkey(64)}",
    '"integrity": "sha512-' + base64.b64encode(RNG.randbytes(64)).decode() + '"',
    "data:image/png;base64," + base64.b64encode(RNG.randbytes(60)).decode(),
    "\n".join(base64.b64encode(b"harmless words, again and again. " * 6).decode()[i:i + 76]
              for i in range(0, 264, 76)),
    '"id": "msg_01' + tok(22) + '"', '"tool_use_id": "toolu_01' + tok(22) + '"',
    "pk_live_" + tok(24) + " is the publishable key in the bundle",
    "401 Unauthorized: token expired at 2026-12-03T10:00:00Z",
    "ORA-01017: invalid username/password; logon denied",
    "### **Key Features:**\n- fast",
    "const csrfToken = document.querySelector(\"meta[name='csrf-token']\")?.getAttribute(\"x\")",
    "Use the API key from 1Password (entry 'Datadog prod').",
    "api_key: !vault |\n  path: secret/data/api",
    "パスワードは8文字以上にしてください。",
    "Renamed `useInfiniteScrollWithIntersectionObserverAndPrefetchingQueryOptions`.",
    "Upgraded to v2.14.0-rc.3+build.8812 and reran the suite.",
    "the rest of the build passed on 2026-12-01T09:30:00Z",
    "see /var/lib/docker/overlay2/4f1c0b2e9d7a/merged/etc/ssl/private for details",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(43) + " dev@laptop",
    "Note: **Important1!** read the C++17 notes (bug #1234 in Foo2Bar!)",
    "Email me at Bob.Smith42@example.com!",
    "└─ lib/ash_json_api/plug/parser.ex:152:14: AshJsonApi.Plug.Parser.reduce_part/4",
    "image: python:3.12@sha256:" + hexkey(64),
    "filter='url(%23n)' baseFrequency='0.75' numOctaves='4'%3E%3C/svg%3E",
    # public and derived material: checksums, public keys, nonces, entity tags, ciphertext
    "example.org/mod v1.2.0 h1:" + base64.b64encode(RNG.randbytes(32)).decode(),
    "[Peer]\nPublicKey = " + base64.b64encode(RNG.randbytes(32)).decode()
    + "\nAllowedIPs = 10.0.0.0/24",
    "Verify with:\nsigntool -V app.tgz -P " + tok(56),
    '{"kty": "RSA", "use": "sig", "n": "' + tok(120) + '", "e": "AQAB"}',
    "script-src 'self' 'nonce-" + base64.b64encode(RNG.randbytes(16)).decode() + "'",
    '< etag: W/"0' + hexkey(3) + "-" + tok(27) + '"',
    "secret: ENC[AES256_GCM,data:" + tok(20) + ",iv:" + base64.b64encode(RNG.randbytes(32)).decode()
    + ",tag:" + base64.b64encode(RNG.randbytes(16)).decode() + ",type:str]",
    '{"type": "Secret Keyword", "hashed_secret": "' + hexkey(40) + '", "line_number": 14}',
    # where a secret is kept, or a stand-in for one
    "HCLOUD_TOKEN=YOUR_CLOUD_TOKEN_HERE", "DB_PASSWORD=op://Production/Ledger DB/password",
    "api_key: vault:secret/data/integrations/billing#secret",
    "Your API secret: ••••••••••••••••" + hexkey(4) + " (click to reveal)",
    "aws_secret_access_key = " + tok(20) + "EXAMPLEKEY  # from the docs",
    "regex = '(?i)acme[_-]?token\\s*[:=]\\s*[\"]?([a-zA-Z0-9]{64})'",
    # names and references
    f"https://github.com/acme/api/compare/{hexkey(40)}...{hexkey(40)}",
    "PASSED tests/test_auth.py::test_refresh_token_rotation[postgres-async-v2-jwt_rs256]",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_strings_stay(text: str) -> None:
    assert redact(text) == text


# --------------------------------------------------------------------------- key files, CLIs


def test_private_keys_in_their_own_encodings_and_files() -> None:
    nsec = "nsec1" + "".join(RNG.choice("023456789acdefghjklmnpqrstuvwxyz") for _ in range(58))
    hidden(f"the relay bot's identity: {nsec} (keep it)", nsec)
    line = base64.b64encode(RNG.randbytes(60)).decode()
    hidden(f"untrusted comment: signer encrypted secret key\n{line}\n", line)
    body = [base64.b64encode(RNG.randbytes(48)).decode() for _ in range(3)]
    mac = hexkey(64)
    ppk = ("PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3Nza\nPrivate-Lines: 3\n"
           + "\n".join(body) + f"\nPrivate-MAC: {mac}\n")
    hidden(ppk, *body, mac)


@pytest.mark.parametrize("line", [
    "mosquitto_pub -h mqtt.example.com -u gw -P '{v}' -t a/b -m 1",
    "http -a 'admin:{v}' POST https://example.com/api",
    "curl --proxy-user 'jdoe:{v}' -sS https://example.com/",
    "echo '{v}' | sudo openconnect vpn.example.com -u jdoe --passwd-on-stdin",
])
def test_password_flags_of_more_clients(line: str) -> None:
    v = password()
    hidden(line.format(v=v), v)


def test_a_hooks_uuid_and_a_build_hook() -> None:
    u, h = str(uuid.UUID(int=RNG.getrandbits(128))), hexkey(24)
    hidden(f"POST https://open.example.cn/open-apis/bot/v2/hook/{u} -> 200", u)
    hidden(f"curl -X POST https://api.example.com/build_hooks/{h}", h)
    assert redact(f"GET /api/v1/projects/{u}/members") == f"GET /api/v1/projects/{u}/members"


@pytest.mark.parametrize("line", [
    "[db]\nuser = app\npassword_hex = {h}\n", "# .env.ci\nDIST_CERT_P12_BASE64={b}\n",
    "SIGNING_KEYSTORE_B64: {b}",
])
def test_a_config_line_whose_name_holds_a_secret_word_with_a_qualifier(line: str) -> None:
    h, b = hexkey(26), base64.b64encode(RNG.randbytes(90)).decode()
    text = line.format(h=h, b=b)
    hidden(text, h if "{h}" in line else b)


def test_a_config_line_naming_a_variable_stays() -> None:
    text = "          api_key: api_key,\n          max_tokens: 200,"
    assert redact(text) == text


def test_values_listed_under_a_heading_for_credentials() -> None:
    a, b, c = hexkey(20), tok(24), hexkey(40)
    text = (f"Creds for the staging stack (don't lose these):\n\n- **Relaybox**: `{a}`\n"
            f"- **Quillmail**: `{b}`\n- Ledgerly: {c}\n- Sentry: ask Priya\n")
    hidden(text, a, b, c)
    plain = "Keys to remember:\n- **Esc**: close the dialog\n- **Ctrl+K**: open search\n"
    assert redact(plain) == plain
