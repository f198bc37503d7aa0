"""Values that identify or check something public stay as they are; the same shapes where a
secret stands are still redacted (``reviewer/sanitize/identifiers.py``; values made here,
from a seeded generator, not a battery's)."""

from __future__ import annotations

import base64
import hashlib
import random
import string

import pytest

from reviewer.sanitize import detect
from reviewer.sanitize.identifiers import b58check, public_identifier
from reviewer.sanitize.public import under_id_key
from reviewer.sanitize.redact import public_name

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _rng(seed: int) -> random.Random:
    return random.Random(seed)


def _b58(raw: bytes) -> str:
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = _B58[r] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


def _b58check(payload: bytes) -> str:
    return _b58(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])


def _extended(version: str, seed: int) -> str:
    """A BIP32 extended key: version, depth, parent fingerprint, child number, chain code
    and key data (random here), in base58check."""
    body = _rng(seed).randbytes(74)
    return _b58check(bytes.fromhex(version) + body)


def _token(n: int, seed: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    rng = _rng(seed)
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(
                c.islower() for c in v):
            return v


def _b64url(nbytes: int, seed: int) -> str:
    return base64.urlsafe_b64encode(_rng(seed).randbytes(nbytes)).decode().rstrip("=")


def _b64(nbytes: int, seed: int) -> str:
    return base64.b64encode(_rng(seed).randbytes(nbytes)).decode()


def _program_id(seed: int) -> str:
    rng = _rng(seed)
    while True:
        v = _b58(rng.randbytes(32))
        if len(v) >= 43 and any(c.isdigit() for c in v):
            return v


def _cid_v0(seed: int) -> str:
    """An IPFS CIDv0: base58 of a SHA-256 multihash (0x12, 0x20, then the digest)."""
    return _b58(b"\x12\x20" + hashlib.sha256(_rng(seed).randbytes(16)).digest())


def _jwk(n: str) -> str:
    return ('{\n  "keys": [\n    {\n      "kid": "k1",\n      "e": "AQAB",\n'
            f'      "n": "{n}",\n      "kty": "RSA",\n      "alg": "RS256"\n    }}\n  ]\n}}')


# (text, the public value in it) — each was redacted before identifiers.py.
PUBLIC = [
    # its own checksum: an extended public key
    lambda: (f'assert ext_pub == "{(v := _extended("0488b21e", 1))}", "failure"', v),
    lambda: (f"  tpub:\n    '{(v := _extended('043587cf', 2))}',", v),
    # what names it: a JWK's public modulus, an element naming a digest, a date
    lambda: (_jwk(v := _b64url(256, 3)), v),
    lambda: (f'<pin-set>\n  <pin digest="SHA-256">{(v := _b64(32, 4))}</pin>\n</pin-set>', v),
    lambda: ('<pin-set expiration="2031-04-05">\n  <pin digest="SHA-256">x</pin>', "2031-04-05"),
    # where it sits: an object's URL, its share tag, a content address, a strong name
    lambda: (f'"trackUrl": "https://open.example-music.com/track/{(v := _token(22, 5))}",', v),
    lambda: (f'<a href="https://open.example-music.com/album/{_token(22, 6)}'
             f'?si={(v := _token(22, 7))}">', v),
    lambda: (f"useState('https://arweave.net/{(v := _b64url(32, 8))}')", v),
    lambda: (f'uri: "https://{_token(20, 9).lower()}.arweave.net/{(v := _b64url(32, 10))}",', v),
    lambda: (f'<%@ Register Assembly="{(v := "NorthWind.Grid.v19.2")}, Version=14.2.3.0, '
             'Culture=neutral, PublicKeyToken=0f1e2d3c4b5a6978" Namespace="Acme" %>', v),
    lambda: (f'"image": "https://gw.example.net/ipfs/{(v := _cid_v0(13))}"', v),
    lambda: (f"https://short.example/{_token(11, 14)}?si={(v := _token(16, 15))}", v),
    lambda: (f"annex.key=SHA256E-s1048576--{(v := _rng(16).randbytes(32).hex())}.tar.gz", v),
    lambda: (f"PODS:\n  - Foo (1.2.0)\n\nSPEC CHECKSUMS:\n  Foo: {_rng(17).randbytes(20).hex()}\n"
             f"  Quux: {(v := _rng(18).randbytes(20).hex())}\n\nCOCOAPODS: 1.15.2", v),
    lambda: ("Cache restored from key: Linux-node-modules-"
             f"{(v := _rng(19).randbytes(20).hex()[:37])}", f"Linux-node-modules-{v}"),
    lambda: ("The key fingerprint is:\n" + ":".join(f"{b:02x}" for b in _rng(20).randbytes(16))
             + f" {(v := 'anna@WS7Q2X9-Lab')}", v),
    lambda: (f'    "{(v := _program_id(11))}", // Token program', v),
    lambda: (f'  TOKEN_PROGRAM: "{(v := _program_id(12))}";', v),
]


@pytest.mark.parametrize("case", range(len(PUBLIC)))
def test_public_identifiers_stay(case: int) -> None:
    text, value = PUBLIC[case]()
    assert value in detect.redact(text), text


# The same shapes where a secret stands: still redacted.
SECRET = [
    # an extended *private* key (its version says so), whatever the checksum
    lambda: (f'xprv = "{(v := _extended("0488ade4", 21))}"', v),
    # a value under its secret's name, beside a digest element
    lambda: (f'<pin digest="SHA-256">x</pin>\nclient_secret = "{(v := _token(32, 22))}"', v),
    # a capability link: the URL names what it does, not an object
    lambda: (f"reset your password: https://app.example.com/reset/{(v := _token(40, 23))}", v),
    # a token in an object URL's query under a credential's name
    lambda: (f"https://open.example-music.com/track/{_token(22, 24)}"
             f"?token={(v := _token(32, 25))}", v),
    # a value that starts as a CID does but is no multihash, under a key's name
    lambda: (f'api_key = "Qm{(v := _token(44, 26, _B58))[2:]}"', "Qm" + v[2:]),
    # a digest-shaped value under a digests' heading, on a line that names a credential
    lambda: (f"SPEC CHECKSUMS:\n  api_key: {(v := _rng(27).randbytes(20).hex())}\n", v),
    # a credential word between "cache" and "key"
    lambda: (f"redis cache password key: {(v := _token(24, 28))}", v),
    # a date-looking password under a password's name
    lambda: ('password: "2031-04-05"', "2031-04-05"),
]


@pytest.mark.parametrize("case", range(len(SECRET)))
def test_secrets_in_the_same_shapes_are_still_redacted(case: int) -> None:
    text, value = SECRET[case]()
    assert value not in detect.redact(text), text


def test_b58check_reads_the_checksum() -> None:
    key = _extended("0488b21e", 31)
    assert b58check(key) is not None and len(b58check(key) or b"") == 78
    broken = key[:-1] + ("2" if key[-1] != "2" else "3")
    assert b58check(broken) is None


def test_jwk_private_members_are_not_cleared() -> None:
    """A private JWK's ``d`` stands beside ``kty`` too: only the public members are data."""
    d = _b64url(256, 41)
    text = _jwk(_b64url(256, 42)).replace('"kty"', f'"d": "{d}",\n      "kty"')
    start = text.index(d)
    assert not public_identifier(text, start, start + len(d), "high-entropy")


def test_provider_kinds_are_never_asked() -> None:
    """A provider's format is its own proof: the guard answers only shape and context kinds."""
    text = f"https://arweave.net/{(v := _b64url(32, 51))}"
    start = text.index(v)
    assert public_identifier(text, start, start + len(v), "url-secret")
    assert not public_identifier(text, start, start + len(v), "github-pat")


# --------------------------------------------------------------------------- one id rule

def test_one_rule_reads_every_way_a_name_is_given() -> None:
    """``public.under_id_key`` is the one rule for a value under a name that says id: a key
    on the value's line with an index (``BuildID[sha1]=``), a plist's key on the line above,
    a Go name; a credential's name is never one, whatever says "id" in it."""
    v = _token(32, 61)
    for text in (f"BuildID[sha1]={v}", f"<key>application-identifier</key>\n<string>{v}",
                 f'spreadsheetId := "{v}"', f"x-amz-id-2: {v}"):
        assert under_id_key(text, text.index(v)), text
    for text in (f"session_id = {v}", f"access key id: {v}", f'"access_key_id": "{v}"'):
        assert not under_id_key(text, text.index(v)), text


def test_every_shape_kind_asks_the_one_rule() -> None:
    """Before the merge an MFA seed under ``BuildID[sha1]=`` and a secret-assignment under a
    plist's identifier key were each asked only one of the two copies, and kept."""
    seed = "".join(_rng(71).choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for _ in range(32))
    text = f"BuildID[sha1]={seed}"
    assert public_name(text, text.index(seed), len(text), "mfa-secret")
    v = _token(24, 72)
    text = f"<key>application-identifier</key>\n<string>{v}</string>"
    s = text.index(v)
    assert public_name(text, s, s + len(v), "secret-assignment")
