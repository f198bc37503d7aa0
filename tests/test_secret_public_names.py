"""Public names the detector redacted in the project's real transcripts (precision): a
parameter's type (`secret: Uint8Array`) and an OpenPGP key's id or fingerprint, which
keyservers and `apt-key` print. Values are made here; the secrets beside them stay caught."""

from __future__ import annotations

import random

import pytest

from reviewer.sanitize.detect import redact

RNG = random.Random(2026)


def hexid(n: int, upper: bool = True) -> str:
    v = "".join(RNG.choice("0123456789abcdef") for _ in range(n))
    return v.upper() if upper else v


@pytest.mark.parametrize("text", [
    "export async function authGetToken(secret: Uint8Array) {",
    "export function authChallenge(secret: Uint8Array): { challenge: Uint8Array }",
    "fn derive(key: BigUint64Array, salt: Float64Array)",
    "def sign(token: int64, password_len: uint32_t):",
])
def test_a_parameters_type_is_no_value(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("shape", [
    "pub   rsa4096/{k16} 2022-11-27 [SC] [expires: 2032-11-24]",
    "sub   cv25519/{k16} 2021-01-01 [E]",
    "Missing Proxmox GPG key: key `{k40}` was not in the keyring",
    "gpg --keyserver keyserver.ubuntu.com --recv-keys {k40}",
    "Key fingerprint = {k40}",
])
def test_an_openpgp_key_id_or_fingerprint_is_public(shape: str) -> None:
    text = shape.format(k16=hexid(16), k40=hexid(40))
    assert redact(text) == text


@pytest.mark.parametrize("shape", [
    "export API_SECRET={k40}",
    "the signing secret for the webhook is {k40}",
    "GITHUB_TOKEN={k40l}",
    "const secret: string = \"{tok}\";",
])
def test_the_same_shapes_stay_secret_elsewhere(shape: str) -> None:
    k40, k40l = hexid(40), hexid(40, upper=False)
    tok = "".join(RNG.choice("abcdefghijkmnpqrstuvwxyzABCDEFGH23456789") for _ in range(20))
    text = shape.format(k40=k40, k40l=k40l, tok=tok)
    red = redact(text)
    assert "[REDACTED:" in red
    assert all(v not in red for v in (k40, k40l, tok))
