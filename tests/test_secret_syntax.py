"""Precision by what code and markup make of a run, not by lists of public values (issue 20).

The detector's shape finders (a typed password, a random token, a value after a key word)
met real code and data that has the same shapes: a bundler's renamed names, operators in
minified code, a link's anchor, a shell expansion, base64 blocks of images and
certificates, ids under keys that name them, object ids in URLs. Each test builds its
values here and checks one mechanism both ways: the ordinary text comes out unchanged,
and the same shape where a secret stands is still caught.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from reviewer.sanitize.detect import redact

RNG = random.Random(2020)
ALNUM = string.ascii_letters + string.digits


def tok(n: int) -> str:
    while True:
        v = "".join(RNG.choice(ALNUM) for _ in range(n))
        if sum(c.isdigit() for c in v) >= 3 and sum(c.isupper() for c in v) >= 3 and sum(
                c.islower() for c in v) >= 3:
            return v


def hexs(n: int) -> str:
    return "".join(RNG.choice("0123456789abcdef") for _ in range(n))


def wrapped(raw: bytes, width: int = 64) -> list[str]:
    b64 = base64.b64encode(raw).decode()
    return [b64[i : i + width] for i in range(0, len(b64), width)]


def unchanged(text: str) -> None:
    assert redact(text) == text, redact(text)


def caught(text: str, value: str) -> None:
    out = redact(text)
    assert value not in out, out


# --------------------------------------------------------------------------- code

@pytest.mark.parametrize("text", [
    "    if (!utils$1.isUndefined(config.withCredentials)) {",
    "  return utils$1.isArray(value) ? value.map(normalize) : String(value);",
    "const CancelToken$2 = CancelToken$1;",
    "axios.HttpStatusCode = HttpStatusCode$2;",
    "class AxiosHeaders$1 {\n  constructor(headers) {",
    'var u=[],s=!0;this.q.forEach((function(e){"function"==typeof e.runWhen&&!1===e.runWhen(t)',
    "function Ht(e){return e<0?-1*Math.round(-1*e):Math.round(e)}",
    "See [the FAQ](FAQ.md#posix4ever) for more details.",
    '\tfilename="python-$fullVersion-amd64.exe"',
    "        uses: docker/login-action@v4.4.0",
    f"      - uses: actions/create-github-app-token@{hexs(40)} # v3.2.0",
    "    return withoutSuffix ? format[key][0] : format[key][1];",
])
def test_code_is_not_a_typed_password(text: str) -> None:
    unchanged(text)


@pytest.mark.parametrize("text,value", [
    ("the new wifi password is Sable$Cinder38 for the guests", "Sable$Cinder38"),
    ("Serverin salasana on gH7$kLm2pQzX, älä kerro kenellekään.", "gH7$kLm2pQzX"),
    ("changed it to Velvet.harbor32$ this morning", "Velvet.harbor32$"),
    ("오늘 비밀번호를 tundra_Cinder11#(으)로 바꿨어요.", "tundra_Cinder11#"),
])
def test_a_typed_password_in_prose_is_still_caught(text: str, value: str) -> None:
    caught(text, value)


# --------------------------------------------------------------------------- data blocks

def test_lines_of_a_certificate_without_its_header_are_data() -> None:
    der = bytes([0x30, 0x82, 0x05, 0x33, 0x30, 0x82, 0x03, 0x1B]) + RNG.randbytes(600)
    body = "\n".join(wrapped(der))
    unchanged(f'ira_trust_anchor = <<-EOT\n    {body}\n  EOT')


def test_lines_of_a_notebooks_image_are_data() -> None:
    png = b"\x89PNG\r\n\x1a\n" + RNG.randbytes(900)
    lines = wrapped(png, 76)
    text = '   "image/png": "' + "\\n".join(lines) + '\\n"'
    unchanged(text)


def test_a_word_read_inside_base64_bytes_is_not_a_key_word() -> None:
    # An image's bytes hold "/Pw+" or "key" by chance; the run around it is one value.
    raw = RNG.randbytes(120)
    b64 = base64.b64encode(raw).decode()
    text = '"image/png": "' + b64[:50] + "/Pw+" + b64[50:] + '"'
    unchanged(text)


def test_lines_of_a_private_key_block_are_still_caught() -> None:
    der = bytes([0x30, 0x82, 0x04, 0xBD, 0x02, 0x01, 0x00, 0x30]) + RNG.randbytes(600)
    lines = wrapped(der)
    out = redact("key material from the old box:\n" + "\n".join(lines))
    assert lines[3] not in out and lines[4] not in out, out


# --------------------------------------------------------------------------- keys

@pytest.mark.parametrize("key", ["X-Request-Source", "SignedEntryTimestamp", "logID",
                                 "correlationHash"])
def test_a_random_value_under_a_key_that_names_data(key: str) -> None:
    unchanged(f'"{key}": "{tok(40)}",')
    if key != "SignedEntryTimestamp":  # "Word: token" alone reads as a product's label
        unchanged(f"{key}: {tok(40)}")


@pytest.mark.parametrize("template", [
    "X-Api-Key: {v}", '"session": "{v}"', "secrets:\n  billing: {v}",
    "credentials:\n  stage:\n    main: {v}", "auth tok: {v}",
])
def test_a_random_value_under_a_credentials_key_is_still_caught(template: str) -> None:
    v = tok(32)
    caught(template.format(v=v), v)


# --------------------------------------------------------------------------- URLs

@pytest.mark.parametrize("url", [
    "https://open.example.com/track/{v}?si={h}",
    "https://explorer.example.org/tx/{v}{v}?cluster=devnet",
    "https://graph.example.com/v1.0/me/messages/{v}=/attachments",
])
def test_an_objects_id_in_a_url_path(url: str) -> None:
    unchanged("GET " + url.format(v=tok(22), h=hexs(16)))


def test_a_url_that_ends_in_its_token_is_still_caught() -> None:
    v = tok(34)
    caught(f"EVENT_URL=https://inn.example.io/e/{v}", v)
    caught(f"delete url: https://grafana.example.io/api/snapshots-delete/{v}", v)


# --------------------------------------------------------------------------- values

@pytest.mark.parametrize("text", [
    '        "@scope/auth-token": "^6.0.0",',
    '                "parse-passwd": "~1.0.0"',
    '        password = "#{password}#{klass.pepper}"',
    "        request.withCredentials = !!config.withCredentials;",
    "    cancelToken: defaultToConfig2,",
    "    keystore: conf/.keystore",
    '  "Invalid Email or password" => "Invalid email or password"',
    '  <p><%= f.label :password, "New password" %></p>',
    '  Parameters: {"user"=>{"email"=>"a@b.io", "password"=>"[FILTERED]"}}',
    f'{{"auth": {{"client_token": "hmac-sha256:{hexs(64)}",'
    f' "accessor": "hmac-sha256:{hexs(64)}"}}}}',
    f"  10: 0x55d1c2a3b4c5 - _ZN4core9panicking9panic_fmt17h{hexs(16)}E",
    "                Token::RecursivePrefix",
])
def test_values_code_computes_or_names(text: str) -> None:
    unchanged(text)


def test_a_signature_header_and_its_folded_lines() -> None:
    sig = base64.b64encode(RNG.randbytes(128)).decode()
    bh = base64.b64encode(RNG.randbytes(32)).decode()
    unchanged("DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.io; s=sel;\n"
              f"        h=to:subject:date:from;\n        bh={bh};\n        b={sig}")
    unchanged("ARC-Seal: i=1; a=rsa-sha256; t=1796383922; cv=none; d=example.com;\n"
              f"        b={sig}")


@pytest.mark.parametrize("text,value", [
    ('password = "Tr0ub4dor&3x"', "Tr0ub4dor&3x"),
    ('{"client_token": "Xk2pQ9zLm4Rt7Wv1Yb3Nc6Hd"}', "Xk2pQ9zLm4Rt7Wv1Yb3Nc6Hd"),
    ("API_TOKEN=Kx9mP2vQ8rT4wZ7yB3nL6", "Kx9mP2vQ8rT4wZ7yB3nL6"),
    ('DB_PASSWORD: "velvet.harbor32$"', "velvet.harbor32$"),
])
def test_the_same_places_with_a_secret_are_still_caught(text: str, value: str) -> None:
    caught(text, value)


# --------------------------------------------------------------------------- recall, any service

@pytest.mark.parametrize("template", [
    '{{"cookies": [{{"name": "sessionid", "value": "{low}", "domain": "api.example.io"}}]}}',
    "GET https://nas.example.lan:5001/webapi/entry.cgi?api=List&version=2&_sid={v} -> 200",
    "[wifi-security]\nkey-mgmt=wpa-psk\npsk={pw}\n\n[ipv4]\nmethod=auto",
    "sent you the creds via https://send.example.com/#{v}/{v2} (expires in 1 day)",
    "ACME signing key is signkey-prod-{h} - functions not registering",
    "$p = ConvertTo-SecureString '{v}' -AsPlainText -Force",
])
def test_a_credentials_name_or_carrier_whatever_the_service(template: str) -> None:
    low = "".join(RNG.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(32))
    values = {"v": tok(24), "v2": tok(22), "low": low, "h": hexs(64),
              "pw": tok(12) + "*" + str(RNG.randint(10, 99))}
    text = template.format(**values)
    out = redact(text)
    for name, v in values.items():
        if "{" + name + "}" in template:
            assert v not in out, out


def test_a_powershell_encoded_command_is_read_as_text() -> None:
    pw = tok(14)
    script = f"$p = ConvertTo-SecureString '{pw}' -AsPlainText -Force; New-PSDrive -Name S"
    encoded = base64.b64encode(script.encode("utf-16-le")).decode()
    out = redact(f"CommandLine: powershell.exe -NoProfile -EncodedCommand {encoded}")
    assert encoded not in out, out


@pytest.mark.parametrize("text", [
    "Cache restored from key: Linux-pip-{h}",
    "see https://gcc.example.org/onlinedocs/x86-Options.html#index-momit-leaf-frame-pointer-2",
    "PublicKey = {b}",
    "https://github.example.com/o/r/pull/12/files#diff-{h}",
])
def test_names_and_anchors_that_are_not_credentials(text: str) -> None:
    unchanged(text.format(h=hexs(64), b=base64.b64encode(RNG.randbytes(32)).decode()))


def test_a_signature_header_after_a_speakers_label() -> None:
    # the worker's windows put "User: " before the first line of a turn
    sig = base64.b64encode(RNG.randbytes(128)).decode()
    unchanged(f"User: ARC-Seal: i=1; a=rsa-sha256; cv=none; d=example.com;\n        b={sig}")
