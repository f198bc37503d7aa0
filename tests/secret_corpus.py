"""Realistic FAKE secrets, planted in realistic places, for proving nothing secret escapes.

Every secret is generated at import time from a seeded RNG in the provider's real format
(prefix, length, charset), so the corpus is the same on every run and no secret-looking
literal sits in the repository for scanners to flag. None of them is valid anywhere.

Use it from any test:

- ``SECRETS``: one ``Secret`` per example (kind, raw value, …); at least 2 of every kind.
- ``render(secret, context)`` / ``all_planted_texts()``: each secret placed in a user prompt,
  a ``cat .env`` tool output, a JSON document, assistant prose, a file shown by Read (numbered
  lines) and a transcript JSONL line (JSON-escaped).
- ``secret_values()``: every raw substring that must never appear in anything stored or sent
  (for a key block: each of its body lines).
- ``plant(template)``: your own text with ``{secret}`` (or ``{value}``, ``{name}``) filled in.
- ``leaked(text_or_bytes)``: which raw secrets a text, a file's bytes, a request body… holds.
- ``ORDINARY``: strings that look a little like secrets and must survive unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Iterable
from typing import NamedTuple

CONTEXTS: tuple[str, ...] = ("prompt", "tool-env", "tool-json", "prose", "read", "jsonl")

_rng = random.Random(0x5EC12E7)
_ALNUM = string.ascii_letters + string.digits
_UPPER_DIGITS = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "-_"
_PW = _ALNUM + "!%*_-+~"


class Secret(NamedTuple):
    """One planted secret. ``snippet`` is how it appears in the wild; ``value`` is the part
    that is secret; ``fragments`` are the substrings that must never survive."""

    kind: str  # expected marker: [REDACTED:<kind>]
    value: str
    name: str  # the variable it usually lives in
    snippet: str  # the value itself, NAME=value, a URL, a header, a PEM block, a JSON file…
    bare: bool = False  # recognisable by shape alone, placed without any name in a prompt
    fragments: tuple[str, ...] = ()

    def must_vanish(self) -> tuple[str, ...]:
        return self.fragments or (self.value,)


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    while True:  # a random hex string without a digit or a letter would look too tame
        s = _r(n, _HEX)
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def _pw(n: int = 18) -> str:
    """A password: mixed, with a digit, ending alphanumeric."""
    return _r(n - 2, _PW) + _r(1, string.digits) + _r(1, string.ascii_letters)


def _digits(n: int) -> str:
    return _r(1, "123456789") + _r(n - 1, string.digits)


def _b64(nbytes: int, urlsafe: bool = False) -> str:
    raw = _rng.randbytes(nbytes)
    return (base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)).decode()


def _b64url_json(obj: dict[str, object]) -> str:
    data = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _bare(kind: str, value: str, name: str) -> Secret:
    return Secret(kind, value, name, value, bare=True)


def _named(kind: str, value: str, name: str) -> Secret:
    """Only the name gives it away (a bare 32-hex string is not a secret)."""
    return Secret(kind, value, name, f"{name}={value}")


def _pem(label: str, body: str, width: int = 64) -> tuple[str, tuple[str, ...]]:
    lines = [body[i : i + width] for i in range(0, len(body), width)]
    block = f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"
    return block, tuple(x for x in lines if len(x) >= 16)


def _pgp() -> tuple[str, tuple[str, ...]]:
    body = "lQOYBF" + _b64(700)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    label = "PGP PRIVATE KEY BLOCK"  # kept apart from the dashes: no header literal in source
    block = (
        f"-----BEGIN {label}-----\n\n"
        + "\n".join(lines)
        + f"\n={_r(4, _B64)}\n-----END {label}-----"
    )
    return block, tuple(x for x in lines if len(x) >= 16)


def _gcp() -> Secret:
    pkcs8 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + _b64(900)
    pem, lines = _pem("PRIVATE KEY", pkcs8)
    key_id = _hex(40)
    project = f"acme-{_r(6, string.ascii_lowercase)}-{_digits(6)}"
    doc = {
        "type": "service_account",
        "project_id": project,
        "private_key_id": key_id,
        "private_key": pem + "\n",
        "client_email": f"ci-deployer@{project}.iam.gserviceaccount.com",
        "client_id": _digits(21),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return Secret(
        "gcp-service-account",
        key_id,
        "GOOGLE_APPLICATION_CREDENTIALS_JSON",
        json.dumps(doc, indent=2),
        fragments=(key_id, *lines),
    )


def _jwt(alg: str, sig_len: int) -> str:
    header = _b64url_json({"alg": alg, "typ": "JWT"})
    payload = _b64url_json(
        {
            "sub": _r(12),
            "name": "Dana Example",
            "iat": 1716000000 + _rng.randrange(10**6),
            "scope": "read:all write:all",
        }
    )
    return f"{header}.{payload}.{_r(sig_len, _URLSAFE)}"


def _discord_token() -> str:
    user_id = base64.b64encode(_digits(18).encode()).decode().rstrip("=")
    return f"{user_id}.{_r(6, _URLSAFE)}.{_r(38, _URLSAFE)}"


def _azure_client_secret() -> str:
    return _r(3, _ALNUM) + _r(1, string.digits) + "Q~" + _r(33, _ALNUM + "_~.-") + _r(1)


def _build() -> list[Secret]:
    out: list[Secret] = []
    add = out.append
    # --- provider tokens, recognisable by shape alone
    add(_bare("anthropic-key", "sk-ant-api03-" + _r(93, _URLSAFE) + "AA", "ANTHROPIC_API_KEY"))
    add(_bare("anthropic-key", "sk-ant-admin01-" + _r(93, _URLSAFE) + "AA", "ANTHROPIC_ADMIN_KEY"))
    add(
        _bare(
            "openai-key",
            "sk-proj-" + _r(74, _URLSAFE) + "T3BlbkFJ" + _r(74, _URLSAFE),
            "OPENAI_API_KEY",
        )
    )
    add(_bare("openai-key", "sk-" + _r(20) + "T3BlbkFJ" + _r(20), "OPENAI_KEY"))
    add(
        _bare(
            "openai-key",
            "sk-svcacct-" + _r(64, _URLSAFE) + "T3BlbkFJ" + _r(64, _URLSAFE),
            "OPENAI_SERVICE_KEY",
        )
    )
    add(_bare("aws-access-key", "AKIA" + _r(16, _UPPER_DIGITS), "AWS_ACCESS_KEY_ID"))
    add(_bare("aws-access-key", "ASIA" + _r(16, _UPPER_DIGITS), "AWS_ACCESS_KEY_ID"))
    add(_bare("github-token", "ghp_" + _r(36), "GITHUB_TOKEN"))
    add(_bare("github-token", "github_pat_11" + _r(20, _UPPER_DIGITS) + "_" + _r(59), "GH_TOKEN"))
    add(_bare("github-token", "gho_" + _r(36), "GITHUB_OAUTH_TOKEN"))
    add(_bare("gitlab-token", "glpat-" + _r(20, _URLSAFE), "GITLAB_TOKEN"))
    add(_bare("gitlab-token", "glpat-" + _r(20, _URLSAFE), "CI_JOB_PAT"))
    add(_bare("gitlab-token", "gldt-" + _r(20, _URLSAFE), "GITLAB_DEPLOY_TOKEN"))
    add(_bare("slack-token", f"xoxb-{_digits(12)}-{_digits(13)}-{_r(24)}", "SLACK_BOT_TOKEN"))
    add(
        _bare(
            "slack-token",
            f"xoxp-{_digits(12)}-{_digits(12)}-{_digits(13)}-{_hex(32)}",
            "SLACK_USER_TOKEN",
        )
    )
    add(_bare("stripe-key", "sk_live_51" + _r(97), "STRIPE_SECRET_KEY"))
    add(_bare("stripe-key", "rk_live_" + _r(24), "STRIPE_RESTRICTED_KEY"))
    add(_bare("stripe-key", "sk_test_" + _r(24), "STRIPE_TEST_KEY"))
    add(_bare("google-api-key", "AIza" + _r(35, _URLSAFE), "GOOGLE_API_KEY"))
    add(_bare("google-api-key", "AIza" + _r(35, _URLSAFE), "GEMINI_API_KEY"))
    add(_bare("google-oauth", "GOCSPX-" + _r(28, _URLSAFE), "GOOGLE_CLIENT_SECRET"))
    add(_bare("google-oauth", "ya29.a0" + _r(120, _URLSAFE), "GOOGLE_ACCESS_TOKEN"))
    add(_bare("npm-token", "npm_" + _r(36), "NPM_TOKEN"))
    add(_bare("npm-token", "npm_" + _r(36), "NODE_AUTH_TOKEN"))
    add(_bare("huggingface-token", "hf_" + _r(34, string.ascii_letters), "HF_TOKEN"))
    add(_bare("huggingface-token", "hf_" + _r(34, string.ascii_letters), "HUGGING_FACE_HUB_TOKEN"))
    add(_bare("sendgrid-key", f"SG.{_r(22, _URLSAFE)}.{_r(43, _URLSAFE)}", "SENDGRID_API_KEY"))
    add(_bare("sendgrid-key", f"SG.{_r(22, _URLSAFE)}.{_r(43, _URLSAFE)}", "MAIL_KEY"))
    add(_bare("twilio-key", "SK" + _hex(32), "TWILIO_API_KEY"))
    add(_bare("twilio-key", "SK" + _hex(32), "TWILIO_KEY_SID"))
    add(_bare("azure-key", _azure_client_secret(), "AZURE_CLIENT_SECRET"))
    add(_bare("discord-token", _discord_token(), "DISCORD_BOT_TOKEN"))
    add(_bare("discord-token", _discord_token(), "BOT_TOKEN"))
    add(_bare("mailgun-key", "key-" + _hex(32), "MAILGUN_API_KEY"))
    add(_bare("mailgun-key", f"{_hex(32)}-{_hex(8)}-{_hex(8)}", "MAILGUN_KEY"))
    add(_bare("pypi-token", "pypi-AgEIcHlwaS5vcmc" + _r(150, _URLSAFE), "PYPI_TOKEN"))
    add(_bare("pypi-token", "pypi-AgENdGVzdC5weXBpLm9yZw" + _r(150, _URLSAFE), "TWINE_PASSWORD"))
    add(_bare("shopify-token", "shpat_" + _hex(32), "SHOPIFY_ACCESS_TOKEN"))
    add(_bare("digitalocean-token", "dop_v1_" + _hex(64), "DIGITALOCEAN_TOKEN"))
    add(_bare("linear-key", "lin_api_" + _r(40), "LINEAR_API_KEY"))
    add(
        _bare(
            "age-secret-key",
            "AGE-SECRET-KEY-1" + _r(58, string.ascii_uppercase + string.digits),
            "SOPS_AGE_KEY",
        )
    )
    tok = "AA" + _r(33, _URLSAFE)
    add(Secret("telegram-bot-token", tok, "TELEGRAM_BOT", f"{_digits(10)}:{tok}"))
    tok = "AA" + _r(33, _URLSAFE)
    add(Secret("telegram-bot-token", tok, "TG_BOT", f"{_digits(9)}:{tok}"))
    add(_bare("jwt", _jwt("HS256", 43), "SESSION_JWT"))
    add(_bare("jwt", _jwt("RS256", 342), "ID_TOKEN"))
    # --- only the name gives these away
    add(_named("aws-secret-key", _r(40, _B64), "AWS_SECRET_ACCESS_KEY"))
    add(_named("twilio-key", _hex(32), "TWILIO_AUTH_TOKEN"))
    add(_named("azure-key", _hex(32), "AZURE_OPENAI_API_KEY"))
    add(_named("datadog-key", _hex(32), "DD_API_KEY"))
    add(_named("datadog-key", _hex(40), "DD_APP_KEY"))
    add(_named("datadog-key", _hex(32), "DATADOG_API_KEY"))
    add(_named("secret-assignment", _pw(), "DB_PASSWORD"))
    add(_named("secret-assignment", _pw(24), "API_SECRET"))
    add(_named("secret-assignment", _r(40, _URLSAFE) + "9", "SERVICE_TOKEN"))
    add(_named("high-entropy", _b64(32, urlsafe=True), "FERNET_KEY"))
    add(_named("high-entropy", _b64(24), "SIGNING_SALT"))
    add(_named("high-entropy", _r(48, _URLSAFE) + "7", "SESSION_COOKIE"))
    # --- secrets that live inside something bigger
    aws_secret = _r(40, _B64)
    add(
        Secret(
            "aws-secret-key",
            aws_secret,
            "AWS_CREDENTIALS_CSV",
            f"AKIA{_r(16, _UPPER_DIGITS)},{aws_secret}",
        )
    )
    ac_token = _hex(32)
    add(Secret("twilio-key", ac_token, "TWILIO_CREDENTIALS", f"AC{_hex(32)} / {ac_token}"))
    hook = f"T{_r(8, _UPPER_DIGITS)}/B{_r(10, _UPPER_DIGITS)}/{_r(24)}"
    add(
        Secret(
            "slack-webhook", hook, "SLACK_WEBHOOK_URL", f"https://hooks.slack.com/services/{hook}"
        )
    )
    hook = f"T{_r(10, _UPPER_DIGITS)}/B{_r(11, _UPPER_DIGITS)}/{_r(24)}"
    add(Secret("slack-webhook", hook, "ALERTS_WEBHOOK", f"https://hooks.slack.com/services/{hook}"))
    for host in ("discord.com", "discordapp.com"):
        tok = _r(68, _URLSAFE)
        add(
            Secret(
                "discord-webhook",
                tok,
                "DISCORD_WEBHOOK_URL",
                f"https://{host}/api/webhooks/{_digits(19)}/{tok}",
            )
        )
    key = _b64(64)
    add(
        Secret(
            "azure-connection-string",
            key,
            "AZURE_STORAGE_CONNECTION_STRING",
            "DefaultEndpointsProtocol=https;AccountName=acmeprodstore;"
            f"AccountKey={key};EndpointSuffix=core.windows.net",
        )
    )
    key = _b64(32)
    add(
        Secret(
            "azure-connection-string",
            key,
            "SERVICEBUS_CONNECTION_STRING",
            "Endpoint=sb://acme-bus.servicebus.windows.net/;"
            f"SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={key}",
        )
    )
    key = _hex(32)
    add(Secret("azure-key", key, "APIM_HEADER", f"Ocp-Apim-Subscription-Key: {key}"))
    add(_gcp())
    add(_gcp())
    for label, body in (
        ("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA" + _b64(1190)),
        (
            "OPENSSH PRIVATE KEY",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz"
            "c2gtZWQyNTUxOQAAACB" + _b64(300),
        ),
        ("EC PRIVATE KEY", "MHcCAQEEI" + _b64(110)),
    ):
        block, lines = _pem(label, body, 70 if "OPENSSH" in label else 64)
        add(Secret("private-key", lines[1], "SSH_PRIVATE_KEY", block, fragments=lines))
    block, lines = _pgp()
    add(Secret("private-key", lines[1], "GPG_PRIVATE_KEY", block, fragments=lines))
    for scheme, host in (
        ("postgres", "db.internal.example:5432/app"),
        ("mongodb+srv", "cluster0.ab1cd.mongodb.net/prod?retryWrites=true"),
        ("redis", "cache.example.net:6379/0"),
    ):
        pw = _r(20, _ALNUM + "-_.~") + _r(1)
        user = "" if scheme == "redis" else "app_user"
        add(Secret("url-password", pw, "DATABASE_URL", f"{scheme}://{user}:{pw}@{host}"))
    tok = _r(39, _ALNUM + "-._~") + _r(1, string.digits)
    add(Secret("bearer-token", tok, "AUTH_HEADER", f"Authorization: Bearer {tok}"))
    tok = _r(47, _ALNUM) + _r(1, string.digits)
    add(
        Secret(
            "bearer-token",
            tok,
            "CURL_CMD",
            f"curl -s -H 'Authorization: Bearer {tok}' https://api.example.com/v2/orders",
        )
    )
    cred = base64.b64encode(f"deploy:{_pw()}".encode()).decode()
    add(Secret("basic-auth", cred, "AUTH_HEADER", f"Authorization: Basic {cred}"))
    pw = _pw()
    add(
        Secret(
            "basic-auth", pw, "CURL_CMD", f"curl -u admin:{pw} https://jenkins.example.com/api/json"
        )
    )
    pw = _pw()
    add(Secret("secret-assignment", pw, "BACKUP_CMD", f"pg_dump --password {pw} --host db app"))
    tok = _r(30) + _r(1, string.digits)
    add(
        Secret(
            "secret-assignment",
            tok,
            "EXPORT_URL",
            f"https://api.example.com/v1/export?format=csv&token={tok}",
        )
    )
    pw = _pw()
    add(Secret("secret-assignment", pw, "MYSQL_CMD", f"mysql -u root -p{pw} shop"))
    pw = _pw()
    add(Secret("secret-assignment", pw, "CLIENT_CONF", f"client_secret={pw}"))
    pw = _pw()
    add(Secret("secret-assignment", pw, "CONFIG_YAML", f"password: {pw}"))
    sid = _hex(32)
    add(Secret("cookie", sid, "COOKIE_HEADER", f"Cookie: theme=dark; sessionid={sid}; lang=en"))
    sid = _r(43, _URLSAFE) + "1"
    add(
        Secret(
            "cookie",
            sid,
            "SET_COOKIE",
            f"Set-Cookie: __Host-session={sid}; Path=/; Secure; HttpOnly; SameSite=Lax",
        )
    )
    note = (
        f"my home address is {_digits(2)} {_r(1, string.ascii_uppercase)}"
        f"{_r(6, string.ascii_lowercase)} Road and the door code is {_digits(6)}"
    )
    add(Secret("private", note, "NOTE", f"<private>{note}</private>"))
    note = f"the staging box is 10.{_digits(2)}.3.7 and my badge PIN is {_digits(5)}"
    add(Secret("private", note, "NOTE", f"<PRIVATE>{note}</PRIVATE>"))
    out.extend(_more())
    return out


_UP = string.ascii_uppercase
_LOW = string.ascii_lowercase
_LD = _LOW + string.digits
_B64STD = _ALNUM + "+/"


def _tf() -> str:
    return f"{_r(14, _LD)}.atlasv1.{_r(67, _URLSAFE)}"


# Provider formats (prefix, length, alphabet), two fresh values each: kind -> (name, maker).
_PROVIDER_MAKERS: dict[str, tuple[str, object]] = {
    "vault-token": ("VAULT_TOKEN", lambda: "hvs." + _r(91, _URLSAFE)),
    "doppler-token": ("DOPPLER_TOKEN", lambda: "dp.st.prd." + _r(43)),
    "1password-token": ("OP_SERVICE_ACCOUNT_TOKEN", lambda: "ops_eyJ" + _r(300, _B64STD)),
    "terraform-token": ("TFE_TOKEN", _tf),
    "pulumi-token": ("PULUMI_ACCESS_TOKEN", lambda: "pul-" + _hex(40)),
    "aws-session-token": ("AWS_SESSION_TOKEN", lambda: "IQoJb3JpZ2luX2Vj" + _r(300, _B64STD)),
    "alibaba-key": ("ALIBABA_CLOUD_ACCESS_KEY_ID", lambda: "LTAI" + _r(20)),
    "tencent-key": ("TENCENTCLOUD_SECRET_ID", lambda: "AKID" + _r(32)),
    "yandex-key": ("YC_API_KEY", lambda: "AQVN" + _r(36, _URLSAFE) + "x"),
    "openshift-token": ("OC_TOKEN", lambda: "sha256~" + _r(43, _URLSAFE[:-2]) + ""),
    "tailscale-key": ("TS_AUTHKEY", lambda: f"tskey-auth-{_r(12)}-{_r(32)}"),
    "cloudflare-token": ("CF_ORIGIN_CA_KEY", lambda: f"v1.0-{_hex(24)}-{_hex(146)}"),
    "heroku-key": ("HEROKU_API_KEY", lambda: "HRKU-AA" + _r(58, _URLSAFE)),
    "flyio-token": ("FLY_API_TOKEN", lambda: "FlyV1 fm2_" + _r(180, _B64STD)),
    "vercel-token": ("VERCEL_TOKEN", lambda: "vcp_" + _r(56)),
    "netlify-token": ("NETLIFY_AUTH_TOKEN", lambda: "nfp_" + _r(36)),
    "render-key": ("RENDER_API_KEY", lambda: "rnd_" + _r(32)),
    "dockerhub-token": ("DOCKERHUB_TOKEN", lambda: "dckr_pat_" + _r(27, _URLSAFE) + "x"),
    "buildkite-token": ("BUILDKITE_API_TOKEN", lambda: "bkua_" + _hex(40)),
    "circleci-token": ("CIRCLECI_TOKEN", lambda: f"CCIPAT_{_r(22)}_{_hex(40)}"),
    "bitbucket-token": ("BITBUCKET_APP_PASSWORD", lambda: "ATBB" + _r(32)),
    "sonar-token": ("SONAR_TOKEN", lambda: "squ_" + _hex(40)),
    "scalingo-token": ("SCALINGO_API_TOKEN", lambda: "tk-us-" + _r(48, _URLSAFE[:-1]) ),
    "octopus-key": ("OCTOPUS_API_KEY", lambda: "API-" + _r(25, _UPPER_DIGITS) + "7"),
    "harness-key": ("HARNESS_API_KEY", lambda: f"pat.{_r(22)}.{_r(24)}.{_r(20)}"),
    "infracost-key": ("INFRACOST_API_KEY", lambda: "ico-" + _r(32)),
    "prefect-key": ("PREFECT_API_KEY", lambda: "pnu_" + _r(36)),
    "artifactory-key": ("ARTIFACTORY_API_KEY", lambda: "AKCp" + _r(69)),
    "clojars-token": ("CLOJARS_PASSWORD", lambda: "CLOJARS_" + _r(60)),
    "rubygems-key": ("GEM_HOST_API_KEY", lambda: "rubygems_" + _hex(48)),
    "nuget-key": ("NUGET_API_KEY", lambda: "oy2" + _r(43, _LD)),
    "sourcegraph-token": ("SRC_ACCESS_TOKEN", lambda: f"sgp_{_hex(16)}_{_hex(40)}"),
    "planetscale-token": ("PLANETSCALE_TOKEN", lambda: "pscale_tkn_" + _r(43)),
    "supabase-token": ("SUPABASE_ACCESS_TOKEN", lambda: "sbp_" + _hex(40)),
    "neon-key": ("NEON_API_KEY", lambda: "napi_" + _r(64, _LD)),
    "databricks-token": ("DATABRICKS_TOKEN", lambda: "dapi" + _hex(32)),
    "pinecone-key": ("PINECONE_API_KEY", lambda: f"pcsk_{_r(6)}_{_r(60)}"),
    "airtable-token": ("AIRTABLE_TOKEN", lambda: f"pat{_r(14)}.{_hex(64)}"),
    "sentry-token": ("SENTRY_AUTH_TOKEN", lambda: "sntryu_" + _hex(64)),
    "grafana-token": ("GRAFANA_TOKEN", lambda: f"glsa_{_r(32)}_{_hex(8)}"),
    "newrelic-key": ("NEW_RELIC_API_KEY", lambda: "NRAK-" + _r(27, _UPPER_DIGITS)),
    "dynatrace-token": ("DT_API_TOKEN", lambda: f"dt0c01.{_r(24, _UPPER_DIGITS)}.{_r(64)}"),
    "langsmith-key": ("LANGSMITH_API_KEY", lambda: f"lsv2_pt_{_hex(32)}_{_hex(10)}"),
    "langfuse-key": ("LANGFUSE_SECRET_KEY",
                     lambda: f"sk-lf-{_hex(8)}-{_hex(4)}-{_hex(4)}-{_hex(4)}-{_hex(12)}"),
    "openrouter-key": ("OPENROUTER_API_KEY", lambda: "sk-or-v1-" + _hex(64)),
    "groq-key": ("GROQ_API_KEY", lambda: "gsk_" + _r(52)),
    "xai-key": ("XAI_API_KEY", lambda: "xai-" + _r(80)),
    "perplexity-key": ("PERPLEXITY_API_KEY", lambda: "pplx-" + _r(48)),
    "replicate-token": ("REPLICATE_API_TOKEN", lambda: "r8_" + _r(37)),
    "deepseek-key": ("DEEPSEEK_API_KEY", lambda: "sk-" + _hex(32)),
    "cerebras-key": ("CEREBRAS_API_KEY", lambda: "csk-" + _r(48, _LD)),
    "elevenlabs-key": ("ELEVENLABS_API_KEY", lambda: "sk_" + _hex(48)),
    "fireworks-key": ("FIREWORKS_API_KEY", lambda: "fw_" + _r(24)),
    "tavily-key": ("TAVILY_API_KEY", lambda: "tvly-dev-" + _r(32)),
    "firecrawl-key": ("FIRECRAWL_API_KEY", lambda: "fc-" + _hex(32)),
    "square-token": ("SQUARE_ACCESS_TOKEN", lambda: "EAAA" + _r(60, _URLSAFE)),
    "atlassian-token": ("JIRA_API_TOKEN", lambda: "ATATT3xFfGF0" + _r(180, _URLSAFE) + "=A1B2"),
    "notion-token": ("NOTION_TOKEN", lambda: "ntn_" + _digits(11) + _r(35)),
    "figma-token": ("FIGMA_TOKEN", lambda: "figd_" + _r(40, _URLSAFE)),
    "postman-key": ("POSTMAN_API_KEY", lambda: f"PMAK-{_hex(24)}-{_hex(34)}"),
    "hubspot-token": ("HUBSPOT_ACCESS_TOKEN",
                      lambda: f"pat-na1-{_hex(8)}-{_hex(4)}-{_hex(4)}-{_hex(4)}-{_hex(12)}"),
    "mapbox-token": ("MAPBOX_TOKEN", lambda: f"sk.eyJ{_r(60, _URLSAFE)}.{_r(22, _URLSAFE)}"),
    "dropbox-token": ("DROPBOX_TOKEN", lambda: "sl.u." + _r(140, _URLSAFE)),
    "contentful-token": ("CONTENTFUL_MANAGEMENT_TOKEN", lambda: "CFPAT-" + _r(43, _URLSAFE)),
    "brevo-key": ("BREVO_API_KEY", lambda: f"xkeysib-{_hex(64)}-{_r(16)}"),
    "resend-key": ("RESEND_API_KEY", lambda: f"re_{_r(8)}_{_r(24)}"),
    "shippo-token": ("SHIPPO_API_TOKEN", lambda: "shippo_live_" + _hex(40)),
    "easypost-key": ("EASYPOST_API_KEY", lambda: "EZAK" + _r(54)),
    "duffel-token": ("DUFFEL_ACCESS_TOKEN", lambda: "duffel_test_" + _r(43, _URLSAFE)),
    "readme-key": ("README_API_KEY", lambda: "rdme_" + _r(70, _LD)),
    "frameio-token": ("FRAMEIO_TOKEN", lambda: "fio-u-" + _r(64, _URLSAFE)),
    "adafruit-key": ("ADAFRUIT_IO_KEY", lambda: "aio_" + _r(28)),
    "twitter-token": ("TWITTER_BEARER_TOKEN", lambda: "A" * 21 + _r(80)),
    "facebook-token": ("FACEBOOK_ACCESS_TOKEN", lambda: "EAACEdEose0cBA" + _r(100)),
    "braintree-token": ("BRAINTREE_ACCESS_TOKEN",
                        lambda: f"access_token$production${_r(16, _LD)}${_hex(32)}"),
    "firebase-key": ("FCM_KEY", lambda: f"AAAA{_r(7, _URLSAFE)}:APA91b{_r(134, _URLSAFE)}"),
}

# Kinds only their variable name gives away (no prefix): a 32-64 char value.
_NAMED_MAKERS: dict[str, tuple[str, ...]] = {
    "mistral-key": ("MISTRAL_API_KEY", "MISTRAL_KEY"),
    "cohere-key": ("COHERE_API_KEY", "CO_API_KEY"),
    "wandb-key": ("WANDB_API_KEY", "WANDB_KEY"),
    "together-key": ("TOGETHER_API_KEY", "TOGETHER_KEY"),
    "algolia-key": ("ALGOLIA_ADMIN_KEY", "ALGOLIA_API_KEY"),
    "fastly-token": ("FASTLY_API_TOKEN", "FASTLY_KEY"),
    "mailchimp-key": ("MAILCHIMP_API_KEY", "MAILCHIMP_KEY"),
    "snyk-token": ("SNYK_TOKEN", "SNYK_API_TOKEN"),
    "okta-token": ("OKTA_API_TOKEN", "OKTA_TOKEN"),
}


def _more() -> list[Secret]:
    out: list[Secret] = []
    for kind, (name, make) in _PROVIDER_MAKERS.items():
        for _ in range(2):
            out.append(_bare(kind, make(), name))  # type: ignore[operator]
    for kind, names in _NAMED_MAKERS.items():
        for name in names:
            out.append(_named(kind, _r(39) + _r(1, string.digits), name))
    out.append(_bare("age-secret-key", "AGE-SECRET-KEY-1" + _r(58, _UPPER_DIGITS), "AGE_KEY"))
    out.append(_bare("digitalocean-token", "dop_v1_" + _hex(64), "DO_TOKEN"))
    out.append(_bare("linear-key", "lin_api_" + _r(40), "LINEAR_TOKEN"))
    out.append(_bare("shopify-token", "shpss_" + _hex(32), "SHOPIFY_SHARED_SECRET"))
    for _ in range(2):
        guid = f"{_hex(8)}-{_hex(4)}-{_hex(4)}-{_hex(4)}-{_hex(12)}"
        path = f"{guid}@{_hex(8)}-{_hex(4)}/IncomingWebhook/{_hex(32)}/{_hex(8)}"
        out.append(Secret("teams-webhook", path, "TEAMS_WEBHOOK_URL",
                          f"https://acme.webhook.office.com/webhookb2/{path}"))
        path = f"{_digits(7)}/{_r(7, _LD)}"
        out.append(Secret("zapier-webhook", path, "ZAPIER_HOOK",
                          f"https://hooks.zapier.com/hooks/catch/{path}/"))
    for phrase in ("the API token is", "my secret key is"):
        tok = _r(38, _URLSAFE) + _r(1, string.digits) + "x"
        out.append(Secret("secret-value", tok, "NOTE", f"{phrase} {tok}"))
    # unnamed shapes
    for word, verb in (("password", "is"), ("Passwort", "lautet")):
        pw = _pw(16)
        out.append(Secret("password", pw, "NOTE", f"the {word} {verb} {pw}"))
    for host in ("api.example.com", "git.example.org"):
        pw = _pw(14)
        out.append(Secret("netrc-password", pw, "NETRC",
                          f"machine {host} login dana password {pw}"))
    for db in ("app", "billing"):
        pw = _pw(15)
        line = f"db.internal.example:5432:{db}:app_user:{pw}"
        out.append(Secret("pgpass-password", pw, "PGPASS", line))
    pw = _pw(14)
    cmd = f"redis-cli -h cache.internal -a {pw} ping"
    out.append(Secret("cli-password", pw, "REDIS_CMD", cmd))
    pw = _pw(14)
    out.append(Secret("cli-password", pw, "DOCKER_CMD",
                      f"docker login -u dana -p {pw} registry.example.com"))
    for _ in range(2):
        key = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo" + _b64(600)
        out.append(Secret("kubeconfig-key", key, "KUBECONFIG", f"client-key-data: {key}"))
    for inner in (f"DB_PASSWORD={_pw()}", "ghp_" + _r(36)):
        enc = base64.b64encode(inner.encode()).decode()
        out.append(Secret("base64-secret", enc, "ENCODED", enc, bare=True))
    return out


SECRETS: list[Secret] = _build()


# ----------------------------------------------------------------------------- contexts


def _numbered(lines: Iterable[str], first: int = 10) -> str:
    return "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, first))


def _env_text(s: Secret) -> str:
    if "\n" in s.snippet:
        return f"$ cat {s.name.lower()}.txt\n{s.snippet}\n"
    line = f"{s.name}={s.value}" if s.bare else s.snippet
    if not s.bare and not s.snippet.startswith(s.name + "="):
        line = f"config/settings.ini:12:{s.snippet}"
    return f"$ cat .env\nNODE_ENV=production\nLOG_LEVEL=debug\n{line}\nPORT=8080\n"


def render(s: Secret, context: str) -> str:
    """The secret placed in one context (see CONTEXTS)."""
    multiline = "\n" in s.snippet
    if context == "prompt":
        if s.bare:
            return f"I pasted my key {s.value} into the config but the API still answers 401, why?"
        if multiline:
            return f"The deploy fails with a 401. Here is what I have:\n{s.snippet}\nAny idea?"
        if s.snippet.startswith(s.name + "="):
            return f"Can you check the deploy? I exported {s.snippet} before running it."
        return f"The worker cannot connect, my config has {s.snippet} — can you fix it?"
    if context == "tool-env":
        return _env_text(s)
    if context == "tool-json":
        value: object = s.value if s.bare or s.snippet.startswith(s.name + "=") else s.snippet
        if s.kind == "gcp-service-account":
            value = json.loads(s.snippet)
        return json.dumps(
            {"service": "billing", "region": "eu-west-1", "env": {s.name: value}, "replicas": 3},
            indent=2,
        )
    if context == "prose":
        if s.bare:
            return (
                f"The request used the key `{s.value}`, which the provider rejects; "
                "rotate it and update the secret store."
            )
        if multiline:
            return (
                f"The file contains this block:\n\n```\n{s.snippet}\n```\n\n"
                "That belongs in the secret manager, not in the repository."
            )
        return f"I updated the configuration so that `{s.snippet}` is picked up by the worker."
    if context == "read":
        if multiline:
            return _numbered(s.snippet.splitlines())
        code = (
            f'{s.name} = "{s.value}"'
            if s.bare or s.snippet.startswith(s.name + "=")
            else f'{s.name} = "{s.snippet}"'
            if '"' not in s.snippet
            else s.snippet
        )
        return _numbered(["import os", "", code, "TIMEOUT = 30"])
    if context == "jsonl":
        record = {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": _env_text(s)}
                ],
            },
        }
        return json.dumps(record)
    raise ValueError(f"unknown context {context!r}")


def all_planted_texts() -> list[tuple[Secret, str, str]]:
    """(secret, context, text) for every secret in every context."""
    return [(s, c, render(s, c)) for s in SECRETS for c in CONTEXTS]


def secret_values() -> list[str]:
    """Every raw substring that must never appear in anything sent or stored."""
    return sorted({f for s in SECRETS for f in s.must_vanish()})


def plant(template: str, secrets: Iterable[Secret] | None = None) -> list[tuple[Secret, str]]:
    """Fill ``{secret}`` (the snippet), ``{value}`` and ``{name}`` in ``template``."""
    return [
        (
            s,
            template.replace("{secret}", s.snippet)
            .replace("{value}", s.value)
            .replace("{name}", s.name),
        )
        for s in (SECRETS if secrets is None else secrets)
    ]


def leaked(data: str | bytes) -> list[str]:
    """The raw secret substrings present in ``data`` (empty when nothing leaked).

    Bytes are searched as UTF-8, so a database file, its WAL or a log can be checked as is.
    """
    if isinstance(data, bytes):
        return [v for v in secret_values() if v.encode() in data]
    return [v for v in secret_values() if v in data]


# ----------------------------------------------------------------------------- ordinary text

_SHA1 = "".join(random.Random(1).choice(_HEX) for _ in range(40))
_SHA256 = "".join(random.Random(2).choice(_HEX) for _ in range(64))
_SRI = base64.b64encode(random.Random(3).randbytes(64)).decode()
_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)

ORDINARY: list[str] = [
    f"commit {_SHA1}\nAuthor: Dana Example <dana@example.com>\nDate:   Mon May 6 10:12:01 2024",
    f"{_SHA1[:7]} Fix tokenizer off-by-one\n{_SHA1[7:14]} Add retry to the uploader",
    f"HEAD is now at {_SHA1[:12]} Merge branch 'feature/password-reset'",
    "session 3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60 ended; transcript at "
    "/home/dana/.claude/projects/-work-main/3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60.jsonl",
    '{"session_id": "3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60", "hook_event_name": "SessionEnd"}',
    f'    "integrity": "sha512-{_SRI}",',
    f'hash = "sha256:{_SHA256}"',
    f"{_SHA256}  dist/mem_review-0.3.1-py3-none-any.whl",
    f"FROM python:3.11-slim@sha256:{_SHA256}",
    f"Here is the icon: ![dot](data:image/png;base64,{_PNG}) as requested.",
    "Edit src/capture/redact.py and tests/test_redact.py, then run ./scripts/check.sh",
    "See https://docs.anthropic.com/en/docs/claude-code/hooks#sessionstart for details.",
    "git@github.com:acme/mem-review.git and https://github.com/acme/mem-review/pull/42",
    "password = getpass()",
    "if not token:\n    raise SystemExit('no token configured')",
    'token = os.environ["GITHUB_TOKEN"]',
    "api_key=settings.OPENAI_API_KEY,",
    "def login(username: str, password: str | None = None) -> bool:",
    "self.password = password",
    "if password == confirm_password:\n    save(user)",
    "client = Client(api_key=api_key, timeout=30)",
    "const [token, setToken] = useState(null);",
    "function verifyPassword(password: string): boolean {",
    "headers: { Authorization: `Bearer ${token}` }",
    "Authorization: Bearer $API_TOKEN",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "export API_KEY=$(cat ~/.config/acme/api_key)",
    'export PATH="$HOME/.local/bin:$PATH"',
    "PWD=/home/dana/src/mem-review\nOLDPWD=/home/dana\nSHELL=/bin/bash",
    "echo $PASSWORD | docker login --username dana --password-stdin ghcr.io",
    "The tokenizer splits on whitespace; max_tokens=4096 and temperature=0.2.",
    '{"model": "claude-haiku-4-5", "max_tokens": 1024, "usage": {"input_tokens": 5123}}',
    "tokens_per_second = 42.5\ntoken_count: 1523",
    "Version 2.1.332 (Claude Code), python 3.11.7, textual==8.2.8, pip install torch==2.3.1",
    "AbstractSingletonProxyFactoryBean extends TransactionAwarePersistenceManagerFactoryProxy",
    "docker run -u 1000:1000 -v $PWD:/work image && git push -u origin main",
    "Open http://localhost:8080/api/v1/items?page=2&limit=50 in the browser.",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq3Vb7mYz0c1dS5u6x8Q2WfG9hJkLpR4tN7oE3aB1cD dana@laptop",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
    "-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    "The password reset flow sends a token by email; the secret is never logged.",
    "GitHub tokens start with ghp_ and Anthropic keys with sk-ant-; never paste them here.",
    "primary_key=True, public_key = load_pem_public_key(data)",
    '{"key": "ctrl+shift+p", "command": "workbench.action.showCommands"}',
    "password_hash = bcrypt.hashpw(password.encode(), salt)\nsalt = bcrypt.gensalt()",
    "kubectl get secret db-credentials -o yaml\nkind: Secret\nsecretName: db-credentials",
    "AWS_REGION=us-east-1 aws s3 ls s3://acme-artifacts/builds/2024/05/",
    'cache_key = f"user:{user_id}:profile"',
    "UUID 123e4567-e89b-12d3-a456-426614174000 and request req_011CUxyzAbC123",
    'password: str = Field(min_length=12)\n"password": {"type": "string", "minLength": 8}',
    "PASSWORD_MIN_LENGTH = 12\nTOKEN_TTL_SECONDS = 3600",
    "requests.post(url, auth=(user, password), timeout=10)",
    "The key-value store keeps session state; Basic auth is disabled.",
    "Already redacted: API_KEY=[REDACTED:openai-key] and [REDACTED:private]",
    "https://sentry.io/organizations/acme/issues/?project=42&query=is%3Aunresolved",
    "npm install react@18.2.0 && npm run build -- --mode production",
    "mysql -u root -p shop < dump.sql",
    "curl -s https://api.example.com/health | jq .status",
]
