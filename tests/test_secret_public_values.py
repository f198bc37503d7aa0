"""Values that look random but are public by their context or content (precision, issue 20).

Each class is a reason a value is public, not a list of examples: the key it stands under
names an identifier, its bytes are a file format's, it is a public key's id as a tool
prints it, a reference to where a secret is kept, a literal code hands to a string
operation, a JWT's header alone, a chain address, a shell prompt, a placeholder made of
words or mask characters. Values are generated here; the same shapes where a secret
stands stay caught."""

from __future__ import annotations

import base64
import random
import string

import pytest

from reviewer.sanitize.detect import redact

RNG = random.Random(4242)
ALNUM = string.ascii_letters + string.digits
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def tok(n: int, alphabet: str = ALNUM) -> str:
    while True:
        v = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(
                c.islower() for c in v):
            return v


def hexs(n: int, upper: bool = False) -> str:
    v = "".join(RNG.choice("0123456789abcdef") for _ in range(n))
    return v.upper() if upper else v


def b64_of(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def unchanged(text: str) -> None:
    assert redact(text) == text


def hidden(text: str, *values: str) -> None:
    red = redact(text)
    assert "[REDACTED:" in red, red
    assert all(v not in red for v in values), red


# ------------------------------------------------------------------ under an identifier's key

@pytest.mark.parametrize("shape", [
    "< x-amz-id-2: {b64}",
    "x-request-id: {tok}",
    '{{"version": 4, "lineage": "{tok}"}}',
    "traceId={tok}",
    '"build_id": "{tok}"',
])
def test_a_value_under_a_key_that_names_an_id_is_public(shape: str) -> None:
    unchanged(shape.format(b64=b64_of(RNG.randbytes(57)), tok=tok(32)))


@pytest.mark.parametrize("shape", [
    "x-api-key: {tok}",
    '"session_id": "{tok}"',
    "client_secret={tok}",
    "access_key_id: {tok}",
])
def test_a_key_that_also_names_a_secret_is_not_an_id(shape: str) -> None:
    t = tok(32)
    hidden(shape.format(tok=t), t)


# ------------------------------------------------------------------ file formats in base64

@pytest.mark.parametrize("magic", [b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0", b"GIF89a",
                                   b"%PDF-1.7", b"PK\x03\x04", b"\x1f\x8b\x08\x00"])
def test_base64_of_a_file_format_is_data(magic: str) -> None:
    body = b64_of(magic + RNG.randbytes(60))
    unchanged('{"output_type": "display_data", "data": {"image/png": "' + body + '"}}')
    unchanged(f"attachment: {body}")


def test_random_base64_without_a_signature_is_still_judged() -> None:
    t = tok(40)
    hidden(f"the api key is {t}", t)


# ------------------------------------------------------------------ public key ids

@pytest.mark.parametrize("shape", [
    "gpg: Signature made Fri Dec  4 10:11:02 2026 UTC\n"
    "gpg:                using EDDSA key {k16}\ngpg: Good signature",
    "gpg:                using RSA key {k40}",
    "Primary key fingerprint: see above; signed with ECDSA key {k16}",
])
def test_a_key_id_as_gpg_prints_it_is_public(shape: str) -> None:
    unchanged(shape.format(k16=hexs(16, upper=True), k40=hexs(40, upper=True)))


def test_a_hex_secret_after_a_key_word_stays_caught() -> None:
    k = hexs(40)
    hidden(f"the webhook secret is {k}", k)


# ------------------------------------------------------------------ references to a secret

def test_a_secret_managers_reference_is_where_not_what() -> None:
    arn = (f"arn:aws:secretsmanager:eu-west-1:{RNG.randrange(10**11, 10**12)}:secret:"
           f"prod/app/db-{tok(6)}")
    unchanged(f"SecretId: {arn}")
    unchanged(f'"SecretArn": "{arn}"')


# ------------------------------------------------------------------ code

@pytest.mark.parametrize("shape", [
    'function(e){{var t=gr(e);return t.replace(/[A-Za-z0-9+/=]/g,"{tok}")}}',
    "const s = input.split('{tok}');",
    'x.startsWith("{tok}")',
    '!function(){{var a="{tok}",b=function(c){{return c+a}};window.q=b}}();',
])
def test_a_literal_code_works_with_is_data(shape: str) -> None:
    unchanged(shape.format(tok=tok(24)))


@pytest.mark.parametrize("shape", [
    'client = Client(api_key="{tok}")',
    'headers = {{"Authorization": "Bearer {tok}"}}',
    'apiKey:"{tok}",authDomain:"x.example.com"',
])
def test_a_named_literal_in_code_stays_caught(shape: str) -> None:
    t = tok(32)
    hidden(shape.format(tok=t), t)


@pytest.mark.parametrize("text", [
    "const token = process.argv[2]; const socket = io(url)",
    'Grep "proxmox.*key|gpg.*proxmox|deadbeef" src',
    "[ERROR] Failed to process message: SyntaxError: Unexpected token 'e', \"eyJ0eXBlIj\"... "
    "is not valid JSON",
    '{"version":3,"names":["token","secret"],"mappings":"hT6j7,6wPH,hQNBNP,CPb4d;+wj5U,/5R0c"}',
])
def test_code_and_data_that_name_a_secret_hold_none(text: str) -> None:
    unchanged(text)


# ------------------------------------------------------------------ tokens' headers

def test_a_jwts_header_alone_is_public() -> None:
    header = base64.urlsafe_b64encode(b'{"alg":"EdDSA"}').decode().rstrip("=")
    unchanged(f"Connecting with token: {header}...")


def test_a_whole_jwt_stays_caught() -> None:
    def seg(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    jwt = ".".join((seg(b'{"alg":"HS256"}'), seg(b'{"sub":"' + tok(12).encode() + b'"}'),
                    seg(RNG.randbytes(32))))
    hidden(f"Connecting with token: {jwt}", jwt)


# ------------------------------------------------------------------ chain addresses

def b58_address() -> str:
    n = int.from_bytes(RNG.randbytes(32), "big") | (1 << 255)
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return out


def test_a_solana_address_beside_chain_words_is_public() -> None:
    a, b = b58_address(), b58_address()
    unchanged(f"- Program: `{a}` (devnet)\n- Vault PDA: {b}")


def test_a_solana_private_key_is_not_an_address() -> None:
    n = int.from_bytes(RNG.randbytes(64), "big") | (1 << 511)
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    hidden(f"devnet keypair secret key: {out}", out)


# ------------------------------------------------------------------ shell prompts

def test_a_shell_prompts_user_and_host_are_no_password() -> None:
    host = "DESKTOP-" + "".join(RNG.choice(string.ascii_uppercase + string.digits)
                                for _ in range(7))
    unchanged(f"(venv) jim@{host}:/mnt/c/src$ make test")
    unchanged(f"root@{host}:~# uptime")


def test_a_typed_password_with_an_at_sign_stays_caught() -> None:
    pw = f"Qx@{tok(6)}-9!k"
    hidden(f"it is {pw} now", pw)


# ------------------------------------------------------------------ placeholders

@pytest.mark.parametrize("text", [
    "DB_PASS=changeme-in-prod",
    "SLACK_BOT_TOKEN=xoxb-your-token",
    "docs: your identity file looks like AGE-SECRET-KEY-1" + "X" * 58 + " (all X here)",
    'API_KEY = "sk-ant-api03-real-secret"',
    "Redacts each secret: `sk-ant-api03-xxx...xxx` → `sk-a***REDACTED***123`",
    "GITHUB_TOKEN=ghp_my_test_token_here",
])
def test_a_placeholder_made_of_words_or_masks_is_no_secret(text: str) -> None:
    unchanged(text)


@pytest.mark.parametrize("shape", [
    "DB_PASS=correct-horse-battery-staple",
    "smtp.password=****{tok} (masked)",
    "SLACK_BOT_TOKEN=xoxb-{digits}-{tok}",
])
def test_words_or_masks_around_a_real_value_stay_caught(shape: str) -> None:
    t = tok(16)
    text = shape.format(tok=t, digits=RNG.randrange(10**11, 10**12))
    red = redact(text)
    assert "[REDACTED:" in red and t not in red and "correct-horse" not in red


# ------------------------------------------------------------------ made to be public

def b58check_address() -> str:
    import hashlib

    payload = b"\0" + RNG.randbytes(20)
    raw = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def test_a_bitcoin_address_is_public_by_its_checksum() -> None:
    unchanged(f"donate: {b58check_address()}")


def test_a_base58_value_without_the_checksum_is_still_judged() -> None:
    v = "1" + tok(33, B58)
    hidden(f"the api key is {v}", v)


@pytest.mark.parametrize("shape", [
    '<div class="g-recaptcha" data-sitekey="6Lc{tok}"></div>',
    "RECAPTCHA_SITE_KEY={tok}",
    'algolia: {{appId: "B1G2GM9NG0", searchOnlyApiKey: "{hex}"}}',
    "NEXT_PUBLIC_ANALYTICS_KEY={tok}",
    "const stripe = Stripe('pk_live_{tok}');",
    "Message-ID: <CAF={tok}@mail.example.com>",
    "Cf-Ray: {hex16}-FRA",
    "x-amzn-trace-id: Root=1-{hex8}-{hex24}",
])
def test_keys_and_ids_made_to_be_public(shape: str) -> None:
    unchanged(shape.format(tok=tok(37), hex=hexs(32), hex16=hexs(16), hex8=hexs(8),
                           hex24=hexs(24)))


@pytest.mark.parametrize("shape", [
    "RECAPTCHA_SECRET_KEY={tok}",
    "ALGOLIA_ADMIN_API_KEY={hex}",
    "const stripe = Stripe('sk_live_{tok}');",
])
def test_their_secret_counterparts_stay_caught(shape: str) -> None:
    t, h = tok(37), hexs(32)
    text = shape.format(tok=t, hex=h)
    red = redact(text)
    assert t not in red and h not in red


@pytest.mark.parametrize("shape", [
    "cosign: tlog entry created with index: 12345678; signature MEUCIQD{tok}",
    "the totp period is 30 and digits 6, algorithm SHA1",
    "Sentry DSN host: o{num}.ingest.example.io/{num}",
])
def test_signatures_settings_and_hosts_are_no_secrets(shape: str) -> None:
    unchanged(shape.format(tok=tok(40), num=RNG.randrange(10**5, 10**7)))


def test_recovery_codes_in_groups_stay_caught() -> None:
    codes = [f"{tok(4).lower()}7-{tok(4).lower()}2" for _ in range(3)]
    hidden("2fa recovery codes:\n" + "\n".join(codes), *codes)


@pytest.mark.parametrize("shape", [
    "pbkdf2_sha256$600000${salt}${b64}",
    "scrypt:32768:8:1${salt}${hex}",
    "$6${salt}${b64}",
])
def test_a_password_hash_and_its_salt_are_no_secret(shape: str) -> None:
    salt = tok(22)
    unchanged(f"users.password = '{shape.format(salt=salt, b64=tok(43), hex=hexs(64))}'")


def test_an_armoured_signature_is_public() -> None:
    body = b64_of(RNG.randbytes(48))
    unchanged(f"-----BEGIN PGP SIGNATURE-----\n\n{body}\n-----END PGP SIGNATURE-----")


@pytest.mark.parametrize("text", [
    'fixtures: user_token = "test-token-123" and api_key="dummy-key"',
    "the secret name is db-credentials-7f9k2 in namespace prod",
    "password policy: min 12 chars, 1 upper, 1 digit, 1 symbol (e.g. Tr0ub4dor&3)",
])
def test_names_examples_and_self_describing_values(text: str) -> None:
    unchanged(text)


@pytest.mark.parametrize("shape", [
    "the password for root is {pw}",
    'user_token = "{pw}"',
    "DB_PASSWORD=secret-password-{n}",
])
def test_a_real_value_beside_the_same_words_stays_caught(shape: str) -> None:
    pw = f"Xk{tok(8)}!2"
    text = shape.format(pw=pw, n=RNG.randrange(100, 999))
    assert "[REDACTED:" in redact(text)


@pytest.mark.parametrize("shape", [
    "posthog.init('phc_{tok}', {{api_host: 'https://eu.posthog.com'}})",
    "accessor: {tok}",
    "state={tok}&code_challenge={tok}&code_challenge_method=S256",
    'webpack chunk: {{"main": "main.{tok}.js"}}',
    "Lighthouse run id lhr-{tok}",
    "Mixpanel project token (public, goes in the browser): {hex}",
])
def test_more_values_public_by_context(shape: str) -> None:
    unchanged(shape.format(tok=tok(24), hex=hexs(32)))


def test_a_public_word_about_something_else_keeps_the_key_secret() -> None:
    t = tok(24)
    hidden(f"the repo is public, and the key is {t}", t)


def test_a_url_on_the_line_after_a_token_word_is_no_token() -> None:
    """Found by hypothesis (tests/test_redact.py::test_mixed_documents) on the code before
    this round too: two ordinary strings joined by a line break."""
    unchanged("Authorization: Bearer $API_TOKEN\n"
              "https://sentry.io/organizations/acme/issues/?project=42&query=is%3Aunresolved")
    t = tok(32)
    hidden(f"API_TOKEN:\n{t}", t)
