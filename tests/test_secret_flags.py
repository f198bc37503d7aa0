"""A password or a token on any command line, read from the shape of its flag (issue 20,
``reviewer/sanitize/flags.py``). The clients are made up for this test, so no list of
tools can know them: what finds the value is a flag whose name says secret, a one-letter
flag with a credential's value, a user and a password in one value, a Windows ``/p:``,
an auth or add-user subcommand. Ports, paths, names, formats and public keys stay."""

from __future__ import annotations

import random
import string

import pytest

from reviewer.sanitize import flags
from reviewer.sanitize.detect import redact

RNG = random.Random(4242)


def pw() -> str:
    """A typed password: letters, digits and a sign, short (no random-token layer sees it)."""
    body = "".join(RNG.choice(string.ascii_letters + string.digits) for _ in range(7))
    return f"{body[:3]}Q{body[3:]}{RNG.choice('!#%&*^')}{RNG.randrange(10, 99)}"


def alnum() -> str:
    """Letters of both cases and digits, twelve of them: no sign."""
    body = "".join(RNG.choice(string.ascii_letters) for _ in range(8))
    return f"{body[:3]}7{body[3:6]}4{body[6:]}Kq2"


@pytest.mark.parametrize("line", [
    "frobctl sync --db-pass {v} --host db.internal",
    "frobctl sync --db-pass='{v}' --host db.internal",
    "zapp -ssh -pw {v} admin@10.0.0.9 uptime",
    "quxload --oauth2-bearer {v} https://api.internal/v1/items",
    "blorp --client-secret {v} --client-id app-7",
    "vexa -storepass {v} -keystore k.jks",
    "mirx -h cache01 -a {v} -n 100000 -q",
    "lurk -S db -U sa -P '{v}' -Q 'select 1'",
    "flonk -A loadtest:{v} https://staging.internal/",
    "skarn --creds mirror-bot:'{v}' docker://reg/x",
    "rpcq -U 'ACME\\svc%{v}' 10.0.0.3",
    "schtasks /Create /TN nightly /RU ACME\\ops /RP {v} /TR run.cmd",
    "cmdkey /add:fs01 /user:ACME\\bob /pass:{v}",
    "zk addauth digest super:{v}",
    "svcadm add_user alice {v}",
    "xmppctl register alice chat.internal {v}",
    "objcli alias set prod https://store.internal storeadmin {v}",
    "ftpsync -u uploader,{v} sftp://files.internal",
    "net user bob {v} /add",
])
@pytest.mark.parametrize("make", [pw, alnum])
def test_any_clients_secret_flags(line: str, make: object) -> None:
    v = make()  # type: ignore[operator]
    out = redact("$ " + line.format(v=v))
    assert v not in out, out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("text", [
    "ssh -p 2222 deploy@bastion.internal",
    "mkdir -p src/app/models",
    "docker run -p 8080:80 -p 127.0.0.1:5432:5432 postgres:16",
    "curl -w '%{http_code}' -o /dev/null https://example.com",
    "minisign -Vm app.tgz -P RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3",
    "gcloud secrets versions access latest --secret=stripe-webhook",
    "frobctl --password-file /run/secrets/db --token-ttl 3600",
    "git log --author alice --since 2.weeks",
    "find . -perm 644 -name '*.py' -print",
    "date -u '+now=%Y%m%d.%H%M%S'",
    "rg '(?-u)\\x04@' -E none -a some-utf16-file",
    "docker login ghcr.io -u bot --password-stdin",
    "use the --password flag to pass it, or --token for a token",
    "kubectl --server=https://127.0.0.1:6443 --token=foo/system:masters get pods",
    "docker run -t ubuntu:24.04 bash",
    "git config user.name alice",
    "sort -u -t, -k2 users.csv",
    "useradd -m -s /bin/bash bob2024",
])
def test_ports_paths_names_and_formats_stay(text: str) -> None:
    assert list(flags.find_flag_secrets(text, text.lower())) == []
