"""Random-looking runs that their place shows to be ordinary data stay as they are, and
the same runs where a secret stands are still redacted (values made here, not a battery's)."""

from __future__ import annotations

import base64
import hashlib
import secrets
import string

import pytest

from reviewer.sanitize import detect
from reviewer.sanitize.ordinary import ordinary_run, percent_piece, typed_id_base64


def _rand(n: int, seed: int) -> str:
    """A run a generator made: capitals, small letters and digits (fixed by ``seed``)."""
    import random

    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in v) and any(c.isupper() for c in v):
            return v


def _node_id(kind: str, n: int) -> str:
    return base64.b64encode(f"0{len(kind)}:{kind}{n}".encode()).decode()


def _sheet(i: str) -> str:
    return f"// https://docs.example.org/sheets/d/{i}/edit\nsheetId := \"{i}\""


ORDINARY = [
    # an object's id, quoted where the URL that shows it is in the same text
    lambda: _sheet(_rand(44, 1)),
    # a commit a workflow pins
    lambda: f"      - uses: someone/vercel-deploy@{hashlib.sha1(b'v4').hexdigest()} # v4.1.0",
    # an anchor of a document link, whatever words it holds
    lambda: " - [Password reset tokens](#password-reset-tokens-and-logs)",
    # a property name, a product and its version
    lambda: "-Djava.net.preferIPv4Stack=true",
    lambda: 'ua += " MyFancyPlugin/3.2.14 (https://plugin.example.org)"',
    # ids a program printed as bracketed fields of its log records
    lambda: (f"[2021-03-04 10:58:57,847][INFO ][cluster.service ] [Arc] new_master "
             f"[Arc][{_rand(22, 3)}][es-master-x1][inet[/10.2.15.2:9300]]"),
    # an owner's and a project's name in a URL's path, beside "authenticator"
    lambda: "Work around aws-iam-authenticator ([#894](https://git.example.org/"
            "terraform-cloud-modules/terraform-cloud-eks/issues/894))",
    # a GitHub node id: base64 of its type and number
    lambda: f'  node_id: "{_node_id("Repository", 132935648)}",\n  name: "hello-world",',
]


@pytest.mark.parametrize("make", ORDINARY)
def test_ordinary_runs_by_their_place_are_not_redacted(make):
    text = make()
    assert detect.redact(text) == text


def test_wrapped_base64_cut_above_its_head_is_data_unless_a_private_key_ends_it():
    lines = [base64.b64encode(secrets.token_bytes(57)).decode() for _ in range(6)]
    body = "\n".join(lines)
    cert = body + "\n-----END CERTIFICATE-----\n"
    assert detect.redact(cert) == cert
    key = body + "\n-----END PRIVATE KEY-----\n"
    assert not ordinary_run(key, 0, len(lines[0]), "high-entropy")
    assert ordinary_run(cert, 0, len(lines[0]), "high-entropy")


SECRET = [
    # a token in a URL's path after a segment that names it
    lambda t: f"https://api.example.org/integration/{t}/enqueue\nkey is {t}",
    # a token in a fragment, as OAuth's implicit flow sends it
    lambda t: f"https://app.example.org/cb#access_token={t}&state=1",
    # a token in a log record, as a key's value
    lambda t: f"[2021-03-04 10:58:57][INFO] [auth] token={t} [user 10.0.0.1]",
    # a token quoted alone
    lambda t: f"here you go: {t}",
]


@pytest.mark.parametrize("make", SECRET)
def test_the_same_runs_where_a_secret_stands_are_still_redacted(make):
    t = _rand(32, 9)
    assert t not in detect.redact(make(t))


def test_typed_ids_only_decode_to_a_type_and_a_number():
    assert typed_id_base64(_node_id("User", 583231))
    assert not typed_id_base64(base64.b64encode(b"admin:Hunter22x").decode())


def test_a_piece_of_a_percent_encoded_query_of_words_is_ordinary():
    q = "https://git.example.org/o/r/issues?q=is%3Aissue+default_tags+is%3Aclosed"
    s = q.index("3Aissue")
    assert percent_piece(q, s, s + len("3Aissue+default_tags+is"))
    t = _rand(24, 5)
    q = f"https://db.example.org/?pw=p%40{t}%21"
    s = q.index(t)
    assert not percent_piece(q, s, s + len(t))


def test_a_block_cut_above_its_head_is_data_to_its_last_short_line_and_first_piece():
    lines = [base64.b64encode(secrets.token_bytes(48)).decode() for _ in range(5)]
    tail = base64.b64encode(secrets.token_bytes(18)).decode()
    cert = "\n".join(lines) + f"\n{tail}\n-----END CERTIFICATE-----\n"
    assert detect.redact(cert) == cert
    cut = lines[0][-18:] + "\\n" + "\\n".join(lines[1:]) + '\\n",'
    assert detect.redact(cut) == cut
    key = "\n".join(lines) + f"\n{tail}\n-----END PRIVATE KEY-----\n"
    s = key.index(tail)
    assert not ordinary_run(key, s, s + len(tail), "high-entropy")


def test_an_id_a_log_prints_in_brackets_is_ordinary_where_it_is_printed_again():
    node = "-" + _rand(21, 4)
    text = (f"[2021-03-04 10:58:57,847][INFO ][discovery ] [Arc] mycluster/{node}\n"
            f"[2021-03-04 10:59:05,167][INFO ][cluster.service ] [Arc] new_master "
            f"[Arc][{node}][es-master-x1][inet[/10.2.15.2:9300]]{{data=false}}\n")
    assert detect.redact(text) == text


def test_an_anchor_with_a_version_in_it_is_a_heading():
    text = ("Please see [upgrade docs](https://git.example.org/o/r/blob/master/docs/"
            "upgrades.md#upgrade-module-to-v1700-for-managed-node-groups) for more.")
    s = text.index("upgrade-module")
    assert ordinary_run(text, s, s + 20, "secret-value")


def test_a_capability_url_is_no_id_for_ending_in_more_path_even_written_twice():
    t = _rand(22, 6)
    text = f"HC_PING=https://hc-ping.example.com/{t}/backup-nightly\n"
    assert t not in detect.redact(text)
    assert t not in detect.redact(text + text)


@pytest.mark.parametrize("text", [
    "    fill_in 'password', with: 'abc'",
    '    params: { user: { password: "password", password_confirmation: "password" } }',
])
def test_the_syntax_between_two_quoted_literals_is_no_value(text):
    assert ", with: " not in text or ", with: " in detect.redact(text)
    assert ", password_confirmation: " not in text or (
        ", password_confirmation: " in detect.redact(text))


def test_a_name_an_operator_tests_is_an_operand_not_a_value():
    text = ("headers = _cfg.headers, _cfg$withCr = _cfg.withCredentials, withCredentials = "
            "_cfg$withCr === void 0 ? 'same-origin' : _cfg$withCr, fetchOptions;")
    assert detect.redact(text) == text
    t = _rand(20, 7)
    assert t not in detect.redact(f"password = {t} # set by ops")


@pytest.mark.parametrize("make", [
    lambda v: f'\tsheetId := "{v}"\n\treadRange := "sheet1"',
    lambda v: f"<key>application-identifier</key>\n<string>{v}</string>",
])
def test_a_value_named_an_identifier_in_any_language_is_ordinary(make):
    v = _rand(32, 8)
    assert detect.redact(make(v)) == make(v)
    assert v not in detect.redact(f'\tsessionToken := "{v}"\n')


def test_a_token_before_a_shell_operator_is_still_a_value():
    t = _rand(40, 10)
    assert t not in detect.redact(f"$ export SERVICE_TOKEN={t} && ./deploy.sh")
    assert t not in detect.redact(f"$ export SERVICE_TOKEN={t}; [ $X == {t} ] && ok")


def test_words_joined_by_dashes_near_authenticator_are_no_recovery_code():
    text = "- Work around path bug in aws-iam-authenticator for terraform-cloud-modules users"
    assert detect.redact(text) == text
    codes = "Recovery codes:\nychbi-hlzka\nkwxz8-vijud\n"
    assert "ychbi-hlzka" not in detect.redact(codes)


def test_a_short_commit_linked_to_its_full_digest_is_ordinary():
    full = hashlib.sha1(b"fix").hexdigest()
    text = (f"* Fix Karpenter EC2 pass role permission ([#3193](https://git.example.org/o/r/"
            f"issues/3193)) ([{full[:7]}](https://git.example.org/o/r/commit/{full}))")
    assert detect.redact(text) == text


def test_a_ruby_symbol_is_a_name():
    text = '    assert_named_route "/users/password/edit", :edit_user_password_path\n'
    assert detect.redact(text) == text


@pytest.mark.parametrize("make", [
    # a log that prints a credential in its brackets
    lambda t: f"[2021-03-04 10:58:57][INFO ][auth] issued token [{t}] for [10.0.0.1]",
    # an id quoted elsewhere whose URL names a hook two segments up
    lambda t: f"https://api.example.org/webhooks/123/{t}/run\nthe id is {t}",
])
def test_places_that_say_credential_keep_the_shape_rules(make):
    t = _rand(24, 11)
    assert t not in detect.redact(make(t))


def test_short_pieces_of_letters_and_digits_are_no_words():
    text = "docs: (#ab3-9xQz-Lm2P-x8Rk-Tq4w)"
    s = text.index("ab3")
    assert not ordinary_run(text, s, s + 24, "secret-value")
    q = "https://db.example.org/login?u=ops&password=Pa%24%24w0rd%21"
    s = q.index("Pa%24")
    assert not percent_piece(q, s, len(q))


@pytest.mark.parametrize("text", [
    "my password is sunshine%2Dmonkey%2Dpurple",
    "the password is Zq7vXm2Pk9LwT4rB\nsee https://app.example.com/u/Zq7vXm2Pk9LwT4rB/settings",
])
def test_a_password_a_word_named_stays_hidden_whatever_its_place(text: str) -> None:
    """The place checks clear a run found by its shape, never a value a word for a
    password named: percent-encoded, or also in a URL's path, it is still the password."""
    from reviewer.sanitize.redact import redact

    out = redact(text)
    assert "[REDACTED:password]" in out
    assert out.startswith(("my password is [REDACTED", "the password is [REDACTED")), out
