"""A private key's base64 body with its BEGIN line out of view is redacted (issue 20): a
Read from the key file's middle, its tail, a body pasted without armour, a body in a JSON
string; and what only looks like one is not: certificates and public keys (in part or
whole), images, fonts and archives whose start is in view, SSH public keys, checksums.
Keys and certificates are made fresh for each run (``cryptography``), never stored."""

from __future__ import annotations

import base64
import datetime
import functools
import hashlib
import json
import os
import textwrap

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization as ser
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from reviewer.sanitize import detect, headless


@functools.cache
def _rsa(bits: int) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def _pem(key: object, fmt: ser.PrivateFormat) -> str:
    return key.private_bytes(ser.Encoding.PEM, fmt, ser.NoEncryption()).decode()  # type: ignore[attr-defined]


def _body(pem: str) -> list[str]:
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


def _read(lines: list[str], first: int) -> str:
    """Lines as Claude Code's Read tool shows them: right-aligned number, then "→"."""
    return "\n".join(f"{first + i:>6}→{line}" for i, line in enumerate(lines))


def _cert(key: object, cn: str = "build.example.org") -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example Builders Ltd")])
    start = datetime.datetime(2025, 3, 1, tzinfo=datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key())  # type: ignore[attr-defined]
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=90))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(cn)]), critical=False)
            .sign(key, hashes.SHA256()))  # type: ignore[arg-type]
    return cert.public_bytes(ser.Encoding.DER)


def _wrap(raw: bytes, width: int = 64) -> list[str]:
    return textwrap.wrap(base64.b64encode(raw).decode(), width)


def _leaks(out: str, lines: list[str]) -> list[str]:
    """The key's lines (any 24 characters of them) still readable in ``out``."""
    return [line for line in lines
            if any(line[i : i + 24] in out for i in range(0, max(1, len(line) - 23), 20))]


def _found(text: str) -> list[tuple[int, int, str]]:
    return list(headless.find_headless_keys(text, text.lower()))


# --------------------------------------------------------------------------- keys found

_FORMATS = [
    ("rsa2048 pkcs8", 2048, ser.PrivateFormat.PKCS8),
    ("rsa2048 pkcs1", 2048, ser.PrivateFormat.TraditionalOpenSSL),
    ("rsa3072 openssh", 3072, ser.PrivateFormat.OpenSSH),
]


@pytest.mark.parametrize(("name", "bits", "fmt"), _FORMATS, ids=[f[0] for f in _FORMATS])
def test_a_read_from_the_middle_of_a_key_file_is_redacted(name: str, bits: int,
                                                          fmt: ser.PrivateFormat) -> None:
    body = _body(_pem(_rsa(bits), fmt))
    for first, count in ((6, 12), (9, 8), (len(body) // 2, 10)):
        lines = body[first - 1 : first - 1 + count]
        out = detect.redact(_read(lines, first))
        assert not _leaks(out, lines), (name, first, count, out)
        assert "private-key" in out
    lines = body[4:14]  # as `cat -n` numbers them: a tab after the number
    out = detect.redact("\n".join(f"{5 + i:>6}\t{x}" for i, x in enumerate(lines)))
    assert not _leaks(out, lines) and "private-key" in out, out


def test_a_keys_tail_with_its_end_line_is_redacted() -> None:
    pem = _pem(_rsa(2048), ser.PrivateFormat.TraditionalOpenSSL)
    tail = pem.splitlines()[-7:]
    assert tail[-1] == "-----END RSA PRIVATE KEY-----"
    for text in ("\n".join(tail), _read(tail, 20)):
        out = detect.redact(text)
        assert not _leaks(out, tail[:-1]), out


def test_a_body_pasted_without_its_armour_is_redacted() -> None:
    body = _body(_pem(_rsa(2048), ser.PrivateFormat.PKCS8))
    text = "can you tell what this is?\n\n" + "\n".join(body) + "\n\nthanks"
    out = detect.redact(text)
    assert not _leaks(out, body) and out.startswith("can you tell what this is?")
    middle = "\n".join(body[7:13])  # nor its start: the key's parts in a row tell
    assert not _leaks(detect.redact(middle), body[7:13])


def test_a_body_in_a_json_string_with_newline_escapes_is_redacted() -> None:
    body = _body(_pem(_rsa(2048), ser.PrivateFormat.PKCS8))
    text = json.dumps({"path": "deploy/key.part", "content": "\n".join(body[4:16]) + "\n"})
    out = detect.redact(text)
    assert not _leaks(out, body[4:16]), out
    assert json.loads(out)["path"] == "deploy/key.part"


def test_a_key_wrapped_at_76_columns_is_redacted() -> None:
    der = _rsa(2048).private_bytes(ser.Encoding.DER, ser.PrivateFormat.PKCS8,
                                   ser.NoEncryption())
    lines = _wrap(der, 76)[5:14]
    assert not _leaks(detect.redact(_read(lines, 6)), lines)


def test_openssh_ed25519_and_ec_bodies_are_found() -> None:
    ed = _body(_pem(ed25519.Ed25519PrivateKey.generate(), ser.PrivateFormat.OpenSSH))
    p521 = _body(_pem(ec.generate_private_key(ec.SECP521R1()), ser.PrivateFormat.OpenSSH))
    assert _found("\n".join(ed[1:]))
    assert _found("\n".join(p521[2:9]))


# --------------------------------------------------------------------------- left alone

def _windows(lines: list[str]) -> list[list[str]]:
    return [lines[a:b] for a in range(len(lines)) for b in range(a + 3, len(lines) + 1)]


@pytest.mark.parametrize("key", ["rsa", "ec"])
def test_no_part_of_a_certificate_or_public_key_is_taken_for_a_private_key(key: str) -> None:
    k = _rsa(2048) if key == "rsa" else ec.generate_private_key(ec.SECP384R1())
    spki = k.public_key().public_bytes(ser.Encoding.DER,
                                       ser.PublicFormat.SubjectPublicKeyInfo)
    for der in (_cert(k), spki):
        for window in _windows(_wrap(der)):
            assert not _found(_read(window, 3).replace("→", " ")), window
    cert = _wrap(_cert(k))
    whole = "\n".join(cert)
    assert detect.redact(whole) == whole
    tail = "\n".join([*cert[-6:], "-----END CERTIFICATE-----"])
    assert not _found(tail)


def test_ssh_public_keys_are_left_alone() -> None:
    pub = _rsa(3072).public_key().public_bytes(ser.Encoding.OpenSSH,
                                               ser.PublicFormat.OpenSSH).decode()
    line = f"{pub} deploy@ci"
    assert detect.redact(line) == line
    rfc4716 = textwrap.wrap(pub.split()[1], 70)  # ssh-keygen -e: 70 columns, no header
    for window in _windows(rfc4716):
        assert not _found("\n".join(window)), window


@pytest.mark.parametrize("magic", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"\xff\xd8\xff\xe0",
                                   b"wOF2\x00\x01\x00\x00", b"\x1f\x8b\x08\x00",
                                   b"PK\x03\x04\x14\x00"])
def test_files_whose_start_is_in_view_are_left_alone(magic: bytes) -> None:
    lines = _wrap(magic + os.urandom(3000), 76)
    assert not _found("\n".join(lines))
    uri = 'src: url("data:font/woff2;base64,' + "\\n".join(lines) + '")'
    assert not _found(uri)


def test_checksums_are_left_alone() -> None:
    sums = "\n".join(f"{hashlib.sha256(str(i).encode()).hexdigest()}  dist/pkg-{i}.whl"
                     for i in range(8))
    digests = "\n".join(base64.b64encode(hashlib.sha384(str(i).encode()).digest()).decode()
                        for i in range(8))  # 64 characters each, a line apiece
    assert not _found(sums) and not _found(digests)


def test_random_bytes_are_not_a_key() -> None:
    """Compressed data read from its middle is as random as a key but has none of its
    structure: no run of it is taken for one."""
    for _ in range(20):
        lines = _wrap(os.urandom(4000))
        assert not _found("\n".join(lines[3:40]))


def test_the_gate_lets_short_or_lone_lines_pass_without_decoding(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(body: str) -> bytes:
        raise AssertionError("decoded")

    monkeypatch.setattr(headless, "_decoded", fail)
    b64 = base64.b64encode(os.urandom(48)).decode()
    assert not _found(f"{b64}\n{b64}\nprose between\n{b64}")
    assert not _found(f"{b64}{b64}\n{b64}{b64}\n{b64}{b64}")  # too wide for a PEM


def test_a_key_in_a_condensed_commands_output_is_redacted() -> None:
    """The condenser hangs a command's output under its call as ``    ┆ → `` lines."""
    body = _body(_pem(_rsa(2048), ser.PrivateFormat.TraditionalOpenSSL))
    lines = body[6:15]
    text = "  · Bash: sed -n 8,16p deploy/id_rsa\n" + "\n".join(f"    ┆ → {x}" for x in lines)
    out = detect.redact(text)
    assert not _leaks(out, lines), out
    assert out.endswith("    ┆ → [REDACTED:private-key]")  # the run whole, not line by line


def test_a_short_tail_above_a_private_keys_end_line_is_redacted() -> None:
    """Fewer lines than a run needs: the END line says what they are."""
    pem = _pem(_rsa(2048), ser.PrivateFormat.TraditionalOpenSSL).splitlines()
    ossh = _pem(ed25519.Ed25519PrivateKey.generate(), ser.PrivateFormat.OpenSSH).splitlines()
    for text, lines in (("\n".join(pem[-3:]), pem[-3:-1]), (_read(pem[-2:], 26), pem[-2:-1]),
                        ("\n".join(ossh[-3:]), ossh[-3:-1]),
                        (json.dumps({"c": "…\n" + "\n".join(pem[-4:])}), pem[-4:-1])):
        out = detect.redact(text)
        assert not _leaks(out, lines) and "private-key" in out, out
    cert = "\n".join([*pem[-4:-1], "-----END CERTIFICATE-----"])
    assert not _found(cert)
