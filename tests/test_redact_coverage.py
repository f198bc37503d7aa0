"""Issue 11's secret shapes: every kind in the six places a secret turns up, the unnamed
shapes one by one, the over-redactions that are gone, and what must survive.

The corpus is tests/secret_corpus.py (fake values generated in each provider's format);
the scorecard printed here is the figure SECURITY.md quotes.
"""

from __future__ import annotations

import base64
import json
import random
from collections import Counter

import pytest
from secret_corpus import SECRETS, Secret

from reviewer.sanitize.redact import KINDS, MARKER_RE, redact

ISSUE_CONTEXTS = ("prompt", "keyline", "prose", "bash", "error", "echoed")


def _first(s: Secret) -> str:
    return s.snippet.splitlines()[0] if "\n" in s.snippet else s.snippet


def place(s: Secret, ctx: str) -> str:
    """The secret where a session would hold it: a prompt, a ``NAME=`` line, prose, a Bash
    command, an error line, and a model's answer echoing it (fact, evidence, cited file)."""
    named = s.snippet.startswith(s.name + "=")
    what = s.value if s.bare else s.snippet
    if ctx == "prompt":
        return f"I pasted {what} into the config and the API still answers 401, why?"
    if ctx == "keyline":
        return f"NODE_ENV=production\n{s.name}={s.value if s.bare or named else s.snippet}\n"
    if ctx == "prose":
        if "\n" in what:
            return f"The file holds this block:\n\n```\n{what}\n```\n\nMove it to the vault."
        return f"The worker now reads `{what}` at start-up, so the deploy succeeds."
    if ctx == "bash":
        if "\n" in what:
            return f"$ cat <<'EOF' > creds.txt\n{what}\nEOF"
        if named:
            return f"$ export {s.snippet} && ./deploy.sh --region eu-west-1"
        if s.name.endswith("_CMD"):
            return f"$ {s.snippet}"
        return f"$ ./deploy.sh --region eu-west-1 --config '{what}'"
    if ctx == "error":
        return (
            "Traceback (most recent call last):\n  File \"deploy.py\", line 12, in <module>\n"
            f"PermissionError: 401 Unauthorized for credential {_first(s)}"
        )
    if ctx == "echoed":  # each field is redacted on its own before storage, as the pipeline does
        fact = f"Service {s.name} authenticates with {what} when deploying."
        return json.dumps(
            {"fact": fact, "evidence": place(s, "prompt"), "files": [f"keys/{_first(s)}"]}
        )
    raise ValueError(ctx)


def _redact_placed(s: Secret, ctx: str) -> str:
    text = place(s, ctx)
    if ctx != "echoed":
        return redact(text)
    answer = json.loads(text)
    return json.dumps(
        {
            "fact": redact(answer["fact"]),
            "evidence": redact(answer["evidence"]),
            "files": [redact(f) for f in answer["files"]],
        }
    )


def _caught(s: Secret, ctx: str) -> bool:
    out = _redact_placed(s, ctx)
    return not any(f in out for f in s.must_vanish())


CASES = [(s, c) for s in SECRETS for c in ISSUE_CONTEXTS]


@pytest.mark.parametrize("case", CASES, ids=[f"{s.kind}:{s.name}:{c}" for s, c in CASES])
def test_every_kind_in_every_context(case: tuple[Secret, str]) -> None:
    s, ctx = case
    out = _redact_placed(s, ctx)
    assert [f for f in s.must_vanish() if f in out] == [], out
    if s.bare and ctx in ("prompt", "prose", "keyline"):
        assert f"[REDACTED:{s.kind}]" in out, out
    assert redact(out) == out or ctx == "echoed"


def test_scorecard_by_context() -> None:
    by_ctx = Counter(c for s, c in CASES if _caught(s, c))
    kinds = {s.kind for s in SECRETS}
    line = ", ".join(f"{c} {by_ctx[c]}/{len(SECRETS)}" for c in ISSUE_CONTEXTS)
    false_pos = [o for o in SURVIVE if redact(o) != o]
    print(
        f"\nissue-11 scorecard: caught {sum(by_ctx.values())}/{len(CASES)} ({line}); "
        f"{len(kinds)} kinds planted of {len(set(KINDS))} known; "
        f"false positives {len(false_pos)}/{len(SURVIVE)} ordinary strings"
    )
    assert len(kinds) >= 80 and kinds <= set(KINDS)
    assert sum(by_ctx.values()) == len(CASES)
    assert false_pos == []


# ----------------------------------------------------------------------------- shapes, one by one

_RG = random.Random(7)
_GH = "ghp_" + "".join(_RG.choice("abcdefghijkLMNOPQRS0123456789") for _ in range(36))
_B64_ENV = base64.b64encode(b"DB_PASSWORD=Tr0ub4dor-x9\n").decode()
_B64_PAIR = base64.b64encode(b"dana:Dock3rPass!").decode()

UNNAMED = [
    # (text, secret that must vanish)
    ("the password is hunter2-Xy9!", "hunter2-Xy9"),
    ("Our wifi password is Sommer2024 for guests", "Sommer2024"),
    ("Das Passwort lautet Geheim-123 für den Server", "Geheim-123"),
    ("le mot de passe est Soleil2024! pour root", "Soleil2024"),
    ("la contraseña es Perro-1234", "Perro-1234"),
    ("a senha é Gato#5678x", "Gato#5678x"),
    ("пароль: Zxcv1234qq", "Zxcv1234qq"),
    ("密码：Mima2024abc", "Mima2024abc"),
    ("パスワードは Himitsu99x です", "Himitsu99x"),
    ("비밀번호: Bimil-2024k", "Bimil-2024k"),
    ("the password for the staging db is Stg-db-77q", "Stg-db-77q"),
    ("Password:\nhunter2-Xy9!\n", "hunter2-Xy9"),
    ("use password Xy9-hunter2 to log in", "Xy9-hunter2"),
    (f'{{"auths": {{"ghcr.io": {{"auth": "{_B64_PAIR}"}}}}}}', _B64_PAIR),
    (f"echo {_B64_PAIR} | base64 -d", _B64_PAIR),
    ("API key:\n  Zk3vQ9pL2mN8xR4tW7yB1cD5fG6hJ0kA\n", "Zk3vQ9pL2mN8xR4tW7yB1cD5fG6hJ0kA"),
    ("my api key is Zk3vQ9pL2mN8xR4tW7yB1cD5fG6hJ0kA ok", "Zk3vQ9pL2mN8xR4tW7yB1cD5fG6hJ0kA"),
    (f"token was pasted wrapped: {_GH[:20]}\n{_GH[20:]}\nthen it failed", _GH[20:]),
    (f"{_GH[:18]}\\n    12→{_GH[18:]} (a Read of a wrapped file)", _GH[18:]),
    (f"split by a zero-width space: {_GH[:10]}\u200b{_GH[10:]}", _GH[10:]),
    (f"split by a soft hyphen: {_GH[:30]}\u00ad{_GH[30:]}", _GH[:30]),
    (f"data:\n  DB_PASSWORD: {_B64_ENV}\n", _B64_ENV),
    ("client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFB", "LS0tLS1CRUdJ"),
    ('users:\n- name: admin\n  user:\n    token: "Zk3vQ9pL2mN8xR4tW7yB1cD5fG6hJ0kA"', "Zk3vQ9pL2m"),
    ("postgres://app:pa/ss@w0rd@db.example.com:5432/app", "pa/ss@w0rd"),
    ("mongodb://root:p@ss/w0rd!@mongo.internal:27017/admin", "p@ss/w0rd!"),
    ("mysql -u root -pS3cret-pw9 shop", "S3cret-pw9"),
    ("mysqldump --password=S3cret-pw9 shop > dump.sql", "S3cret-pw9"),
    ("redis-cli -h cache -a Sup3rSecret99 ping", "Sup3rSecret99"),
    ("docker login -u dana -p Dock3rPass! registry.example.com", "Dock3rPass"),
    ("htpasswd -bc /etc/nginx/.htpasswd admin Adm1nPass", "Adm1nPass"),
    ("sshpass -p 'Ssh9pass' ssh root@host", "Ssh9pass"),
    ("echo 'Sud0Pass!' | sudo -S apt update", "Sud0Pass"),
    ("echo Sud0Pass | sudo -k -S systemctl restart app", "Sud0Pass"),
    ("smbclient //srv/share -U dana%Smb9Pass! -c ls", "Smb9Pass"),
    ("net use Z: \\\\srv\\share /user:dana NetUse9Pass", "NetUse9Pass"),
    ("machine api.example.com login dana password Netrc9Pass", "Netrc9Pass"),
    ("machine git.example.org\n  login dana\n  password Netrc9Pass\n", "Netrc9Pass"),
    ("db.example.com:5432:app:app_user:PgPass9word", "PgPass9word"),
    ("*:*:*:postgres:PgPass9word\n", "PgPass9word"),
]


@pytest.mark.parametrize("case", UNNAMED, ids=[f"unnamed-{i}" for i in range(len(UNNAMED))])
def test_unnamed_secret_shapes(case: tuple[str, str]) -> None:
    text, secret = case
    out = redact(text)
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert redact(out) == out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${API_KEY:?missing}", "${API_KEY:?missing}"),
        ('test -n "${DB_PASSWORD:?set DB_PASSWORD first}"', None),
        ("${TOKEN:+--token $TOKEN}", None),
        (
            f"git clone https://x-access-token:{_GH}@github.com/o/r",
            "git clone https://x-access-token:[REDACTED:github-token]@github.com/o/r",
        ),
        (
            f"https://oauth2:{_GH}@gitlab.example.com/group/repo.git",
            "https://oauth2:[REDACTED:github-token]@gitlab.example.com/group/repo.git",
        ),
        (
            "postgres://app:pa/ss@w0rd@db.example.com:5432/app",
            "postgres://app:[REDACTED:url-password]@db.example.com:5432/app",
        ),
        ("the password is [REDACTED:password] now", None),
    ],
)
def test_no_over_redaction(text: str, expected: str | None) -> None:
    assert redact(text) == (text if expected is None else expected)


# ----------------------------------------------------------------------------- must survive

_R = random.Random(11)
_SHA1 = "".join(_R.choice("0123456789abcdef") for _ in range(40))
_SHA256 = "".join(_R.choice("0123456789abcdef") for _ in range(64))
_SRI = base64.b64encode(_R.randbytes(64)).decode()
_IMG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + _R.randbytes(300)).decode()
_TEXT_B64 = base64.b64encode(b"This is only a test of base64 encoding, nothing more.").decode()

SURVIVE = [
    f"commit {_SHA1}",
    f"git cherry-pick {_SHA1[:12]} && git show {_SHA1[:7]}",
    f"sha256:{_SHA256}",
    f"{_SHA256}  mem_review-0.4.0.tar.gz",
    "request 123e4567-e89b-12d3-a456-426614174000 and trace 9f8e7d6c-5b4a-4f3e-8d2c-1b0a9f8e7d6c",
    f'"integrity": "sha512-{_SRI}"',
    f"![chart](data:image/png;base64,{_IMG})",
    f'<img src="data:image/png;base64,{_IMG}">',
    f"echo {_TEXT_B64} | base64 -d",
    "AbstractSingletonProxyFactoryBean, TransactionAwarePersistenceManagerFactoryProxy",
    "src/reviewer/sanitize/redact.py:412: def _find_phrases(text, low)",
    "/home/dana/.claude/projects/-work-main/3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60.jsonl",
    "https://docs.python.org/3/library/re.html#re.Pattern.finditer",
    "https://unpkg.com:443/react@18.2.0/umd/react.production.min.js",
    "npm i @scope/pkg@1.2.3 && pip install 'textual>=8.2.8,<9'",
    "git@github.com:acme/mem-review.git",
    "version 2.1.332, semver 1.0.0-rc.1+build.5, v3.12.7",
    "color: #1e90ff; background: #fff; border-color: #12345678",
    "Donaudampfschifffahrtsgesellschaftskapitänswitwe",
    "достопримечательности Санкт-Петербурга",
    "自然言語処理の研究者がパスワードの強度について論文を書いた",
    "προγραμματισμός υπολογιστών",
    "the password is stored in the vault, never in the repository",
    "Passwort vergessen? Le mot de passe est requis. La contraseña es obligatoria.",
    "パスワードを入力してください",
    "the token is valid for 3600 seconds and the API key is missing",
    "Password:\n\nUsername: dana",
    "the password field_1 is shown; the password reset2024 flow",
    "password: ********",
    "token: string",
    "Vault tokens start with hvs. and Doppler tokens with dp.st.; OpenRouter uses sk-or-.",
    "${API_KEY:?missing}",
    "echo $SUDO_PASS | sudo -S true",
    "mysql -p",
    "redis-cli -a $REDIS_PASSWORD ping",
    'docker login -u dana -p "$DOCKER_TOKEN" ghcr.io',
    "machine example.com login dana password $NETRC_PW",
    "at 10:30:45:12 the MAC 12:34:56:78:90:ab and fe80::1ff:fe23:4567:890a",
    "localhost:5432:app:user:* is not a line here",
    "TOKEN_COUNT=4096 max_tokens=1024 input_tokens: 5123",
    "See RFC 7519 (JWT) and https://github.com/gitleaks/gitleaks for formats.",
    "the password is SHA256-hashed and argon2id-hashed; the secret is AES256-encrypted",
    "Le mot de passe est obligatoire. Das Passwort ist zu kurz. A senha é inválida.",
    "Пароль: не задан. 密码：错误. パスワードは8文字以上. 비밀번호는 필수입니다.",
    "flags such as `echo pw | sudo -S`, `smbclient -U u%pw`, `docker login -p`",
    "API-Reference-Documentation and the sk-learn tutorial",
]


@pytest.mark.parametrize("text", SURVIVE, ids=[f"survive-{i}" for i in range(len(SURVIVE))])
def test_ordinary_strings_survive(text: str) -> None:
    assert redact(text) == text


def test_a_whole_token_is_not_joined_to_the_next_line() -> None:
    text = f"GITHUB_TOKEN={_GH}\nNEXT_VAR=1\nlines_follow"
    assert redact(text) == "GITHUB_TOKEN=[REDACTED:github-token]\nNEXT_VAR=1\nlines_follow"


def test_markers_are_well_formed_kinds() -> None:
    assert all(MARKER_RE.fullmatch(f"[REDACTED:{k}]") for k in KINDS)
    assert len(set(KINDS)) >= 80
