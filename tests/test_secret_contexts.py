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


def test_a_quoted_value_cut_by_a_message_end_is_hidden_whole() -> None:
    v = _token(20)
    a, b = v[:9], v[9:]
    window = f"User: ssh pw for the pi is `{a}\n\nUser: {b}` — sorry, phone keyboard\n"
    out = redact(window)
    assert a not in out and b not in out
    window = f"User: here it is `{a}\n\nUser: {b}` — sorry, phone keyboard\n"
    out = redact(window)
    assert a not in out and b not in out


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
