"""Secrets whose context is one line away or one message away, and key pairs' id halves.

Every value is generated here; none comes from a battery."""

from __future__ import annotations

import secrets
import string

import pytest

from reviewer.sanitize.detect import redact


def _token(n: int = 14) -> str:
    """Letters and digits, at least one of each class, as generators write."""
    alphabet = string.ascii_letters + string.digits
    while True:
        v = "".join(secrets.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(
                c.islower() for c in v):
            return v


@pytest.mark.parametrize("ask, show", [
    ("(gdb) x/s cfg->db_pass", '0x5555555592a0:\t"{v}"'),
    ("(gdb) p cfg->db_pass", '$1 = "{v}"'),
    ("(lldb) p config.api_token", '(const char *) $0 = "{v}"'),
    (">>> settings.SECRET_KEY", "'{v}'"),
    ('irb(main):001> ENV["DB_PASSWORD"]', '=> "{v}"'),
    ("In [3]: conf.api_token", "Out[3]: '{v}'"),
])
def test_a_value_printed_for_a_credential_name_is_hidden(ask: str, show: str) -> None:
    v = _token()
    out = redact(f"{ask}\n{show.format(v=v)}\n")
    assert v not in out


@pytest.mark.parametrize("ask, value", [
    (">>> user.name", "alice-smith"),
    (">>> conf.key", "production"),
    ("(gdb) p cfg->db_port", "5432"),
    ("(gdb) p cfg->host_name", "db-primary-7"),
])
def test_a_value_printed_for_an_ordinary_name_stays(ask: str, value: str) -> None:
    text = f"{ask}\n'{value}'\n"
    assert redact(text) == text


def test_quoted_lines_after_long_lines_are_read_in_linear_time() -> None:
    """Not timed: each quoted line once searched back from the text's start for its asking
    expression (minutes at this size); a slow regression shows in the suite."""
    from reviewer.sanitize.printed import find_printed_values

    v = _token()
    text = ("a" * 10_000 + "\n'abcd'\n") * 200 + f">>> settings.SECRET_KEY\n'{v}'\n"
    assert [text[s:e] for s, e, _ in find_printed_values(text, text.lower())] == [v]


def test_a_quoted_value_cut_by_a_message_end_is_hidden_whole() -> None:
    from reviewer.sanitize.shapes import random_token

    v = _token(20)
    while not random_token(v):  # generated as keys are (the split is what is tested)
        v = _token(20)
    a, b = v[:9], v[9:]
    window = f"User: ssh pw for the pi is `{a}\n\nUser: {b}` — sorry, phone keyboard\n"
    out = redact(window)
    assert a not in out and b not in out
    window = f"User: here it is `{a}\n\nUser: {b}` — sorry, phone keyboard\n"
    out = redact(window)
    assert a not in out and b not in out
    # JSON text: the break is an escaped "\n" (the first piece once swallowed it)
    window = f"User: here it is `{a}\\n\\nUser: {b}` — sorry, phone keyboard\\n"
    out = redact(window)
    assert a not in out and b not in out


@pytest.mark.parametrize("brk", ["\n", "\n\n", "\\n", "\\n\\n"])
def test_the_cut_value_of_the_finders_docstring_is_hidden(brk: str) -> None:
    a, b = "Gx7UVhyQ2k", "S5aTNQ6pLm9"  # reviewer/sanitize/continued.py's example
    for window in (f"the pw is `{a}{brk}{b}` — sorry, phone keyboard",
                   f"User: the pw is `{a}{brk}User: {b}` — sorry, phone keyboard"):
        out = redact(window)
        assert a not in out and b not in out


def test_the_context_finders_judge_a_value_generated_by_one_rule() -> None:
    """An auth subcommand's argument, a quote cut by a message end and a prefix naming a
    key ask one rule (shapes.generated): a token of small letters and digits is generated
    for each, as a UUID and 32+ hex are; words and names are not."""
    import uuid

    from reviewer.sanitize import continued, positional, prefixed, shapes

    while not shapes.random_lower(low := "".join(
            secrets.choice(string.ascii_lowercase + string.digits) for _ in range(24))):
        pass
    for v in (low, _token(24), _letters(24), secrets.token_hex(20), str(uuid.uuid4())):
        assert shapes.generated(v), v
    for v in ("deployment-pipeline-config", "HTTPServerNameResolver", "1" * 40, "a" * 32,
              "getUserAccessTokenFromCache"):
        assert not shapes.generated(v), v

    def found(find, text: str) -> list[str]:  # type: ignore[no-untyped-def]
        return [text[s:e] for s, e, _ in find(text, text.lower())]

    assert found(positional.find_auth_arguments, f"$ acme-cli login {low}\n") == [low]
    assert found(continued.find_continued_values, f"key `{low[:10]}\n{low[10:]}` ok") == [
        low[:10], low[10:]]
    assert found(prefixed.find_prefixed_tokens, f"acme_sk_{low}") == [f"acme_sk_{low}"]
    for text in ("$ acme-cli login deployment-pipeline-config\n", "run `make\nrelease-notes`"):
        assert not found(positional.find_auth_arguments, text)
        assert not found(continued.find_continued_values, text)


def test_words_quoted_over_a_message_end_stay() -> None:
    text = "User: run `make\n\nUser: test` please, then `git\nstatus`\n"
    assert redact(text) == text


@pytest.mark.parametrize("form", [
    "access key id {v}", "AWS access key id: {v}", "Access Key ID: {v}",
    "ACCESS_KEY_ID={v}", 'accessKeyId: "{v}"',
])
def test_an_access_key_id_is_a_credential(form: str) -> None:
    v = secrets.token_hex(16)
    assert v not in redact(form.format(v=v))


@pytest.mark.parametrize("form", [
    "request id: {v}", "key id: {v}", "api_key_id={v}", "trace_id={v}",
])
def test_other_ids_stay(form: str) -> None:
    text = form.format(v=secrets.token_hex(16))
    assert redact(text) == text


def test_an_app_id_query_parameter_of_hex_is_a_key() -> None:
    v = secrets.token_hex(16)
    url = f"https://rates.example.org/api/latest.json?app_id={v}&base=USD"
    assert v not in redact(url)
    for public in ("app_id=1234567890123456", "app_id=com.example.mobile",
                   "app_id=2f0c2a8e-58c4-4bb5-9f0e-0f6f2b8e4e11"):
        text = f"https://graph.example.org/oauth?{public}&x=1"
        assert redact(text) == text


def test_a_graphql_node_id_is_public_and_user_password_base64_is_not() -> None:
    import base64

    for decoded in ("010:Repository132935648", "04:User583231", "Issue:4417"):
        b = base64.b64encode(decoded.encode()).decode()
        text = f'{{ node_id: "{b}", name: "demo" }}'
        assert redact(text) == text
    b = base64.b64encode(f"deploy:{_token(16)}".encode()).decode()
    assert b not in redact(f'{{ node_id: "{b}", name: "demo" }}')


def test_a_typed_id_is_known_by_one_rule_where_base64_is_opened_and_where_it_is_judged() -> None:
    import base64

    from reviewer.sanitize import ordinary
    from reviewer.sanitize import redact as rd

    for decoded in ("010:Repository132935648", "0104:User1", "Id:4417", "Issue:4417",
                    "gid://shopify/Product/1234567", "04:User583231:refs:main"):
        b = base64.b64encode(decoded.encode()).decode()
        assert ordinary.typed_id_base64(b), decoded
        assert rd._b64_secret(b)[0] is False, decoded
        text = f'{{ node_id: "{b}", name: "demo" }}'
        assert redact(text) == text


def test_an_id_assigned_with_go_or_ruby_operators_is_public() -> None:
    v = _token(44)
    for line in (f'\tspreadsheetId := "{v}"', f'"document_id" => "{v}"'):
        assert redact(line) == line
    for line in (f'\tapiToken := "{v}"', f'"secret" => "{v}"'):
        assert v not in redact(line)


def _letters(n: int) -> str:
    """A generated value with no digit (as one in sixty 24-character base62 keys is)."""
    from reviewer.sanitize.redact import _random_letters

    while True:
        v = "".join(secrets.choice(string.ascii_letters) for _ in range(n))
        if _random_letters(v):
            return v


def test_a_token_without_digits_under_a_token_flag_is_hidden() -> None:
    v = _letters(24)
    assert v not in redact(f"vercel deploy --token {v}")
    assert v not in redact(f"API_TOKEN={v}")
    for name in ("getUserAccessTokenFromCache", "HTTPServerNameResolver", "withCredentialsFlag"):
        text = f"--token {name}"
        assert redact(text) == text


@pytest.mark.parametrize("form", [
    "snyk auth {u}", "snyk config set api={u}", "fly auth token {t}", "acme-cli login {t}",
    "tool token set {h}",
])
def test_a_credential_given_after_an_auth_subcommand_is_hidden(form: str) -> None:
    import uuid

    u, t, h = str(uuid.uuid4()), _token(24), secrets.token_hex(20)
    out = redact(form.format(u=u, t=t, h=h))
    assert u not in out and t not in out and h not in out


@pytest.mark.parametrize("text", [
    "gh auth login", "npm login --registry https://registry.example.com",
    "git config set user.name alice", "docker login registry.example.com",
    "az login --tenant 2f0c2a8e-58c4-4bb5-9f0e-0f6f2b8e4e11",
    "gcloud auth login someone@example.com",
])
def test_auth_subcommands_without_a_credential_stay(text: str) -> None:
    assert redact(text) == text


def test_an_authorization_value_under_its_json_key_is_hidden() -> None:
    v = secrets.token_hex(16)
    assert v not in redact(f'fetch(url, {{ headers: {{ "Authorization": "{v}" }} }})')
    for text in ('"authorization": "required"', "authorization: enabled"):
        assert redact(text) == text


def test_a_share_link_hosts_path_grant_is_hidden() -> None:
    v = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(27)) + "7"
    out = redact(f"served from `https://link.storjshare.example/raw/{v}/marketing/hero.mp4`.")
    assert v not in out and "marketing/hero.mp4" in out
    for url in ("https://share.streamlit.io/user/repo/main/app.py",
                "https://links.example.com/docs/v2/getting-started"):
        assert redact(url) == url


@pytest.mark.parametrize("command", [
    "$ vault kv get -field=password secret/db",
    "$ gcloud secrets versions access latest --secret=stripe-webhook",
    "$ op read op://Prod/db/password",
    "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "$ pass show email/work",
    "$ security find-generic-password -s db -w",
    "$ aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
    "  · Bash: openssl rand -hex 32\n    ┆ → ",
    "$ echo $DB_PASSWORD",
])
@pytest.mark.parametrize("shape", ["token", "words", "short"])
def test_the_output_of_a_command_that_prints_a_secret_is_hidden(command: str, shape: str) -> None:
    v = {"token": _token(24), "short": _token(8),
         "words": "-".join(secrets.choice(["amber", "birch", "cobalt", "delta", "ember"])
                           for _ in range(4))}[shape]
    out = redact(f"{command}{v}\n" if command.endswith(" ") else f"{command}\n{v}\n")
    assert v not in out
    assert command.split()[1] in out  # the command stays readable


def test_a_long_one_line_output_of_a_secret_reading_command_is_hidden_whole() -> None:
    import base64
    import json

    # ``aws ecr get-login-password`` prints ~2.4 KB of base64 on one line (past 512)
    body = json.dumps({"payload": base64.b64encode(secrets.token_bytes(1300)).decode(),
                       "datakey": base64.b64encode(secrets.token_bytes(180)).decode(),
                       "version": "2", "type": "DATA_KEY", "expiration": 1764980000})
    v = base64.b64encode(body.encode()).decode()
    assert len(v) > 2000
    for command in ("$ aws ecr get-login-password --region us-east-1\n",
                    "  · Bash: aws ecr get-login-password --region eu-west-1\n    ┆ → "):
        out = redact(f"{command}{v}\n$ ls\n")
        assert v[:64] not in out and v[1000:1064] not in out and v[-64:] not in out


def test_a_literal_newline_ends_a_secret_reading_command() -> None:
    from reviewer.sanitize.reveal import find_revealed

    v = _token(20)
    one = '{"cmd": "aws ssm get-parameter --name /a --with-decryption --output text"}'
    two = '{"cmd": "aws ssm get-parameter --name /a --with-decryption\\necho --output text"}'
    for script, found in ((one, 1), (two, 0)):  # two commands of a JSON-escaped script
        text = f"{script}\n{v}\n"
        assert len(list(find_revealed(text, text.lower()))) == found


def test_secret_reading_commands_on_one_long_line_stay_linear() -> None:
    """Not timed: at these sizes the unbounded gaps took many minutes (cubic on the
    script, quadratic on the selectors); a slow regression shows in the suite."""
    from reviewer.sanitize.reveal import find_revealed

    script = '{"script": "' + "aws ssm get-parameter --name /app/db --with-decryption\\n" * 3000
    for text in (script + '"}', '"jsonpath={"' * 40_000, ("vault kv get " + "x " * 50) * 4000):
        assert list(find_revealed(text, text.lower())) == []


def test_words_after_a_secret_reading_command_stay() -> None:
    text = ("$ gcloud secrets versions access latest --secret=stripe-webhook\n"
            "ERROR: (gcloud.secrets.versions.access) NOT_FOUND: Secret [x] not found\n"
            "$ pass show email/work\nError: email/work is not in the password store.\n")
    assert redact(text) == text


def test_a_secret_reading_command_inside_a_substitution_prints_nothing() -> None:
    text = '--password="$(pass show acme/db)"\n\nSLACK_BOT_TOKEN=xoxb-your-token\n'
    assert redact(text) == text
    text = 'psql "$(op read op://infra/db/url)"\nDEPLOY_ENV=staging-eu\n'
    assert redact(text) == text


def test_a_websocket_handshake_nonce_and_a_credential_id_name_stay_readable() -> None:
    import base64

    key = base64.b64encode(secrets.token_bytes(16)).decode()
    text = f"> GET /ws HTTP/1.1\n> Upgrade: websocket\n> Sec-WebSocket-Key: {key}\n"
    assert redact(text) == text
    v = _token(20)
    assert v not in redact(f"my credential is {v}")


def test_a_prefixed_uuid_right_after_a_token_word_is_hidden() -> None:
    import uuid

    v = f"xq{secrets.choice('abcdef')}t-{uuid.uuid4()}"
    assert v not in redact(f"our logs api token {v} dataset web-logs")
    text = f"cache key Linux-pip-{uuid.uuid4()}"
    assert redact(text) == text


@pytest.mark.parametrize("command", [
    "$ kubectl get fooscret app -o jsonpath='{.spec.authentication.serviceToken}'",
    "$ cat creds.json | jq -r .api_key",
    "$ gcloud sql users describe app --format='value(password)'",
])
def test_the_output_of_a_command_selecting_a_credential_field_is_hidden(command: str) -> None:
    v = f"st.{secrets.token_hex(8)}.{secrets.token_hex(16)}"
    assert v not in redact(f"{command}\n{v}\n")


@pytest.mark.parametrize("command", [
    "$ kubectl get pod x -o jsonpath='{.status.podIP}'", "$ jq -r .version package.json",
])
def test_the_output_of_a_command_selecting_another_field_stays(command: str) -> None:
    text = f"{command}\nember-cobalt-quarry-2\n"  # a secret only if the command says so
    assert redact(text) == text


def test_a_wallet_key_where_a_config_says_it_signs_is_hidden() -> None:
    h = "0x" + secrets.token_hex(32)
    for text in (f'networks: {{ sepolia: {{ url: "https://rpc.example.org", accounts: ["{h}"] }}}}',
                 f"acct = Account.from_key('{h}')", f"const w = new Wallet('{h}')"):
        assert h not in redact(text)
    for text in (f"tx hash {h}", f'"blockHash": "{h}"'):
        assert redact(text) == text


def test_a_url_whose_user_and_host_are_tokens_is_hidden() -> None:
    from reviewer.sanitize.shapes import random_lower

    def lower_token() -> str:
        while True:
            v = "".join(secrets.choice(string.ascii_lowercase + string.digits)
                        for _ in range(30))
            if random_lower(v):
                return v

    a, b = lower_token(), lower_token()
    out = redact(f"NOTIFY_URL=pover://{a}@{b}")
    assert a not in out and b not in out
    for url in ("ssh://git@github.com/org/repo", "redis://default@cache01/0",
                "postgres://app@db-primary:5432/app"):
        assert redact(url) == url
    for name in ("kubernetes1234", "ubuntu2204server01", "python311slim2024"):
        assert not random_lower(name)


def test_a_token_whose_prefix_names_a_secret_key_is_hidden_without_context() -> None:
    from reviewer.sanitize.shapes import random_lower

    while not random_lower(rest := "".join(secrets.choice(string.ascii_lowercase + string.digits)
                                           for _ in range(24))):
        pass
    for v in (f"zq_sk_{rest}", f"acme-secret-{_token(32)}", f"svc_pat_{secrets.token_hex(20)}"):
        assert v not in redact(f"Die Integration nutzt jetzt {v}, bitte nicht committen.")
    for text in (f"pk_live_{rest}", "node_modules/some-token-lib/index.js",
                 f"cache-key-{secrets.token_hex(20)}"):
        assert redact(text) == text


def test_a_value_printed_for_a_key_name_needs_no_digit() -> None:
    v = _letters(24)
    assert v not in redact(f"> process.env.PUSHBULLET_KEY\n'{v}'\n")
    text = f'{{"credentialId": "{_token(24)}", "aaguid": "916cd768-dffc-4e6e-877c-57aec5b5df38"}}'
    assert redact(text) == text


def test_the_password_half_of_a_user_option_is_hidden() -> None:
    v = _token(12) + "-64"
    for text in (f'# ~/.curlrc\nuser = "ci-reader:{v}"\nretry = 3\n', f"proxy-user = bob:{v}\n",
                 f"basic_auth: admin:{v}\n"):
        out = redact(text)
        assert v not in out and ("ci-reader" in out or "bob" in out or "admin" in out)
    for text in ('user = "alice:${PASSWORD}"\n', "user: root:8080\n", "user: nobody:nogroup\n"):
        assert redact(text) == text


@pytest.mark.parametrize("value", ["k9mq2lp@zq7w", "0dnmuzmflncuq4"])
def test_a_revealed_value_with_an_at_or_a_leading_digit_goes_whole(value: str) -> None:
    """A value holding "@" is no shell prompt's "user@host" (that goes on: ":~$"), and its
    leading digit is no Read's line number (that has its "→")."""
    out = redact(f"$ pass show email/work\n{value}\n")
    assert value not in out and value[0] + "[REDACTED" not in out, out
