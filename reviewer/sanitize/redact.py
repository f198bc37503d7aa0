"""Redact secrets before text leaves the machine or reaches storage (GUIDE §5).

Stdlib only and fast: the hooks and the log writer import it. Every pattern starts with a
literal prefix and is compiled on first use; before a rule is even called, its literal is
looked up (in a long text: in the set of its word starts and in its runs of token
characters), so the ~190 rules cost little more than the few whose literal is present.
Provider shapes are data (``providers.py``); generic shapes (phrases in many languages,
CLI password flags, ``.netrc``/``.pgpass``, kubeconfig keys, base64 decode-and-rescan,
tokens wrapped over lines or split by invisible characters) are finders here.

How it works, and why:

- Every rule scans the same text and proposes spans (start, end, kind); no rule sees
  another's output, so their order cannot hide a secret from a later rule. Provider shapes
  come first (``sk-ant-…``, ``ghp_…``, PEM blocks…), then context rules (``KEY=value``
  whose key names a secret, ``user:password@`` in URLs, ``Bearer …``, cookies, values next
  to their companion id such as an AWS secret beside its ``AKIA…``).
- Overlapping spans merge (nothing of either escapes); the kind comes from the most specific
  rule involved. Each merged span becomes ``[REDACTED:<kind>]``.
- Markers already in the text are kept: rules see each one as an opaque token, and spans are
  clipped around it, so a marker never lands inside another one.
- The result is scanned again until nothing changes (one confirming pass in practice):
  ``redact(redact(x)) == redact(x)`` by construction, and a remainder glued to a secret
  cannot survive because the first pass saw it in a different context.

What is replaced: provider tokens whole (with anything glued to them); for assignments,
URLs, headers, cookies and webhook URLs only the secret part, so the text stays readable
(``DB_PASSWORD=[REDACTED:secret-assignment]``, ``postgres://app:[REDACTED:url-password]@db``).
``<private>…</private>`` is replaced *with its tags* by ``[REDACTED:private]``; an unclosed
``<private>`` hides everything to the end of the string (the user asked for privacy).

Not redacted, on purpose: git SHAs, UUIDs, lock-file hashes, data URIs, paths, URLs without a
password, code that names a secret without a literal (``password = getpass()``). A bare
32-hex string is only a secret next to a name that says so (``DD_API_KEY=…``).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from reviewer.sanitize import identifiers as _identifiers
from reviewer.sanitize import ordinary as _ordinary
from reviewer.sanitize import providers as _providers
from reviewer.sanitize import public as _public
from reviewer.sanitize import syntax as _syntax

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_BASE_KINDS: tuple[str, ...] = _words(
    "private private-key gcp-service-account anthropic-key openai-key github-token "
    "gitlab-token slack-token slack-webhook stripe-key google-api-key google-oauth "
    "npm-token huggingface-token sendgrid-key twilio-key azure-connection-string azure-key "
    "discord-token discord-webhook mailgun-key pypi-token aws-access-key aws-secret-key "
    "datadog-key jwt url-password bearer-token basic-auth cookie telegram-bot-token "
    "secret-assignment high-entropy password secret-value cli-password netrc-password "
    "pgpass-password kubeconfig-key base64-secret"
)
# Every marker kind redact can write (the provider table's and the names' kinds included).
KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            *_BASE_KINDS,
            *(k for k, _ in _providers.PREFIXED),
            *(k for _, k in _providers.NAMED),
        )
    )
)

Span = tuple[int, int, str]
Finder = Callable[[str, str], Iterator[Span]]  # (text, text.lower())

# A finder's literal pre-filter, checked before the finder is even called: (literal, where
# to look: "text", "low" (lowercased) or "runs"). Calling ~170 finders per text costs more
# than the ``in`` tests do; and a provider prefix is looked up in the text's long runs of
# token characters only (a few percent of prose), not in all of it.
_NEED: dict[Finder, tuple[str, str]] = {}


_AT_START: set[Finder] = set()  # finders whose match starts where a word starts


def _gate(
    find: Finder, need: str, lower: bool = False, runs: bool = False, at_start: bool = False
) -> Finder:
    _NEED[find] = (need, "low" if lower else "runs" if runs else "text")
    if at_start:
        _AT_START.add(find)
    return find


# A long text's words (from its runs, lowercased, sorted) and their first two characters:
# a rule whose match starts a word, with the literal "ghp_", is skipped at the cost of a
# set lookup when no word starts with "gh", and of a binary search when none starts with
# "ghp"; ``in`` would scan the whole text.
_ASCII_VIEW_MIN = 2048  # below this the copy costs more than the scans it saves


@functools.lru_cache(maxsize=4)
def _ascii_view(text: str) -> str:
    """A long non-ASCII text without its non-ASCII characters: a quarter of the bytes to
    scan for an ASCII literal (one stored as 4 bytes per character costs 4× per ``in``).
    Only for presence tests: a literal in ``text`` is in its view; the reverse may not hold,
    which only runs a rule for nothing."""
    if len(text) < _ASCII_VIEW_MIN or text.isascii():
        return text
    return text.encode("ascii", "ignore").decode("ascii")


# Every token a provider rule can match is inside one run of these characters, 6 or more
# long (a token wrapped over two lines: its first part). Rules whose pattern holds a space
# are gated on the whole text instead.
_RUNS_RE = re.compile(r"[A-Za-z0-9_\-.~+/=$:@%!*#]{6,}")
_RUNS_MIN_TEXT = 4096  # below this, the plain text is as cheap to search as its runs


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# --------------------------------------------------------------------------- value checks

_STOPWORDS = frozenset(
    _words(
        "none null nil true false undefined required optional string str bytes int bool "
        "boolean number object any secret secrets password passwd token redacted hidden masked "
        "include omit same-origin bearer basic env placeholder todo tbd self this value default "
        "empty unset missing invalid expired text secretstr optional[str] getpass list dict "
        "float unknown never void char varchar uuid json array input prompt"
    )
) | {"str | none"}
_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{3,8}\Z")
_REF_RE = re.compile(
    r"^(?:\$|%\(|%[sdr]$|\{[\w.\[\]'\"-]*\}$|<[^<>]*>$|\.{3}$|…|![A-Za-z]+$)|\$\{|\{\{|\{%|\$\(",
)  # "!vault", "!Ref": a YAML tag that says where the value comes from
# Where a secret manager keeps the value, not the value: 1Password, Vault, AWS/GCP/Azure
# secret stores, sops and kin (``op://vault/item/field``, ``vault:secret/data/x#k``).
_SECRET_REF_RE = re.compile(
    r"(?:op|vault|sm|awssm|gcpsm|azkv|akv|keyvault|azure-keyvault|doppler|infisical|bws|ssm|"
    r"secretsmanager|gcp-secret|k8s-secret|kms|sops|onepassword|bitwarden|keeper|conjur|"
    r"akeyless|secret|secrets|ref\+[a-z]+)(?::|://)[\w./#@:\-]"
    r"|arn:aws[\w-]*:(?:secretsmanager|ssm|kms):|ENC\[|\$ANSIBLE_VAULT|AQICAH",
    re.IGNORECASE,
)
_PATH_RE = re.compile(r"^(?:~|\.{1,2})?/[\w.\-/@+~]*$|^[A-Za-z]:\\")
_IDENT_CHAIN_RE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_METAVAR_RE = re.compile(r"^[A-Z][A-Z0-9_-]*$")
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
_B64ISH_RE = re.compile(r"^[A-Za-z0-9+/=_.\-]+$")
_NAMED_DIGEST_RE = re.compile(  # "Linux-pip-<sha256>", "node-modules-<sha1>", "build-<uuid>"
    r"^[A-Za-z][A-Za-z0-9_.]*(?:-[A-Za-z0-9][A-Za-z0-9_.]*)*-(?:[0-9a-f]{40}|[0-9a-f]{64}"
    r"|[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})$"
)


def _is_literal(value: str) -> bool:
    """A value that could be a credential: not a reference, placeholder, mask or path."""
    s = value.strip()
    if len(s) < 3:
        return False
    if s.lower() in _STOPWORDS or not any(c.isalnum() for c in s) or _COLOUR_RE.match(s):
        return False
    if _REF_RE.search(s) or MARKER_RE.fullmatch(s) or _SECRET_REF_RE.match(s):
        return False
    return not (_PATH_RE.match(s) and not _looks_random(s))  # a base64 key may start with /


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


_LOWER_RE = re.compile(r"[a-z]")
_UPPER_RE = re.compile(r"[A-Z]")
_DIGIT_RE = re.compile(r"[0-9]")
_CLASS_RUN_RE = re.compile(r"[a-z]+|[A-Z]+|[0-9]+|[^a-zA-Z0-9]+")


def _looks_random(s: str) -> bool:
    """Long, dense in information, varied: a key, not a word, path, UUID or identifier."""
    if not 16 <= len(s) <= 4096 or not _B64ISH_RE.match(s) or _UUID_RE.match(s):
        return False
    if _NAMED_DIGEST_RE.match(s):
        return False  # "node-modules-<sha1>", "build-<uuid>": a name and a digest or id
    has_lower = _LOWER_RE.search(s) is not None
    has_upper = _UPPER_RE.search(s) is not None
    has_digit = _DIGIT_RE.search(s) is not None
    if _HEX_RE.match(s):
        return len(s) >= 32 and has_digit and (has_lower or has_upper) and _entropy(s) >= 3.0
    if has_lower + has_upper + has_digit < 3 and not (len(s) >= 32 and has_digit):
        return False
    # identifiers change character class rarely (CamelCaseWords); random strings often
    changes = len(_CLASS_RUN_RE.findall(s)) - 1
    return changes / len(s) >= 0.25 and _entropy(s) >= 3.5


def _random_letters(s: str) -> bool:
    """A generated token that happens to hold no digit (a 24-character base62 key lacks one
    about once in sixty): both cases, changing often, few vowels (not words or acronyms:
    ``getUserAccessToken``, ``HTTPServerName``)."""
    if not 16 <= len(s) <= 256 or "." in s or not (_LOWER_RE.search(s) and _UPPER_RE.search(s)):
        return False
    letters = [c for c in s if c.isalpha()]
    if len(letters) < 0.85 * len(s):
        return False
    vowels = sum(c in "aeiouyAEIOUY" for c in letters)
    changes = len(_CLASS_RUN_RE.findall(s)) - 1
    # words are about 40% vowels, random letters 23%; names change case once a word
    return vowels < 0.34 * len(letters) and changes / len(s) >= 0.3 and _entropy(s) >= 3.5


def _tokenish(s: str) -> bool:
    """A bearer-style credential rather than a word: has digits, or is long and mixed-case."""
    if MARKER_RE.fullmatch(s):
        return False
    has_digit = any(c.isdigit() for c in s)
    has_alpha = any(c.isalpha() for c in s)
    mixed = any(c.islower() for c in s) and any(c.isupper() for c in s)
    return (has_digit and has_alpha) or (len(s) >= 32 and mixed)


# --------------------------------------------------------------------------- regex rules
#
# Speed: Python's ``re`` only skips quickly to a *literal* prefix, so every pattern starts with
# one (no leading lookbehind, no IGNORECASE); left boundaries are checked in Python, and
# case-insensitive rules run on a lowercased copy of the text (same offsets).

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_TOKEN_DASH = _TOKEN_CHARS | {"-"}
_WORD_CHARS = _TOKEN_CHARS - {"_"}


_TAIL_RE = re.compile(r"[A-Za-z0-9_\-]*(?:\.[A-Za-z0-9_\-]+)*")


def _left_ok(text: str, s: int, bad: frozenset[str]) -> bool:
    """No token character right before ``s`` (a JSON escape like ``\\n`` does not count)."""
    if s == 0 or text[s - 1] not in bad:
        return True
    return s >= 2 and text[s - 2] == "\\" and text[s - 1] in "nrt"


_META = frozenset(".^$*+?{}[]()|\\")


@functools.cache
def _literal_of(pattern: str) -> str:
    """The literal text every match of ``pattern`` starts with ('' when there is none)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            c, step = pattern[i + 1], 2
        elif c in _META:
            break
        else:
            step = 1
        if pattern[i + step : i + step + 1] in ("?", "*", "{"):
            break  # the last character is optional or repeated
        out.append(c)
        i += step
    return "".join(out)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compile once, and only when a text first needs it (import stays cheap)."""
    return re.compile(pattern)


def _rx(
    kind: str,
    pattern: str,
    *,
    lower: bool = False,
    left: frozenset[str] | None = None,
    tail: bool = False,
    check: Callable[[str], bool] | None = None,
) -> Finder:
    """A rule from one regex: the group named ``v`` if present, else the whole match.

    ``lower``: match against the lowercased text (pattern written in lowercase).
    ``left``: characters that may not precede the match.
    ``tail``: a provider token; its span runs on to the end of the token
    (``[A-Za-z0-9_.-]*``, no final dot), so nothing glued to it is left behind.
    """
    need = _literal_of(pattern)
    has_v = "(?P<v>" in pattern

    def find(text: str, low: str) -> Iterator[Span]:
        hay = low if lower else text
        if need and need not in hay:
            return  # C-speed pre-filter; the pattern is compiled on first real use
        done = 0  # end of the last span: a match inside it is already covered
        for m in _compiled(pattern).finditer(hay):
            if m.end() <= done or (left is not None and not _left_ok(text, m.start(), left)):
                continue
            s, e = m.span("v") if has_v else m.span()
            if tail:  # never leave a glued-on remainder (even dotted, like a JWT) behind
                e = _TAIL_RE.match(text, e).end()
            if s < e and (check is None or check(text[s:e])):
                done = e
                yield s, e, kind

    return _gate(find, need, lower)


# --------------------------------------------------------------------------- provider table
#
# ``providers.PREFIXED``: one finder per row, skipped at C speed when its prefix is absent.
# A token broken over two lines (a terminal's wrap, a pasted block) is matched on a joined
# copy of the few hundred characters after its prefix, and its span mapped back.

_BREAK_RE = re.compile(r"(?:\r?\n|(?:\\r)?\\n)(?:[ \t>]*\d+→)?[ \t>]*")
_JOIN_WINDOW = 600
_JOIN_MAX_BREAKS = 3  # a token wrapped over up to four lines
_RUN_RE = re.compile(r"[A-Za-z0-9_\-.]*")
_BREAKS = ("\n", "\r\n", "\\n", "\\r\\n")


def _joined(text: str, start: int) -> tuple[str, list[int]] | None:
    """``text[start:start+W]`` with line breaks between token characters removed, and each
    kept character's offset in ``text``; None if the window has no such break."""
    stop = min(len(text), start + _JOIN_WINDOW)
    out: list[str] = []
    where: list[int] = []
    pos = start
    joined = False
    for n, b in enumerate(_BREAK_RE.finditer(text, start, stop)):
        if n == _JOIN_MAX_BREAKS:
            break
        bs, be = b.span()
        if bs == pos or be >= stop or not (text[bs - 1] in _TOKEN_DASH and text[be] in _TOKEN_DASH):
            if bs > pos and not joined:
                return None  # the token ended before a break that joins nothing
            break
        out.append(text[pos:bs])
        where.extend(range(pos, bs))
        pos = be
        joined = True
    if not joined:
        return None
    # after the last joined break, on to the end of that line
    end = pos
    while end < stop and text[end] in _TOKEN_DASH:
        end += 1
    out.append(text[pos:end])
    where.extend(range(pos, end))
    return "".join(out), where


def _prefixed(kind: str, pattern: str, left: frozenset[str] = _TOKEN_CHARS) -> Finder:
    need = _literal_of(pattern)
    has_v = "(?P<v>" in pattern
    back = _providers.WALK_BACK.get(kind)

    def find(text: str, low: str) -> Iterator[Span]:
        rx = _compiled(pattern)
        done = 0
        cov: list[tuple[int, int]] = []
        for m in rx.finditer(text):
            s = m.start()
            if m.end() <= done:
                continue
            if back is not None:
                n, chars = back
                i = s
                while i > 0 and s - i < n and text[i - 1] in chars:
                    i -= 1
                if s - i != n or text[s - 1] != ".":
                    continue
                s = i
            if not _left_ok(text, s, left):
                continue
            if has_v:
                s, e = m.span("v")
            else:
                e = _TAIL_RE.match(text, m.end()).end()
            done = e
            cov.append((s, e))
            yield s, e, kind
        if len(need) < 2 or back is not None or has_v:
            return
        if "\n" not in text and "\\n" not in text:
            return
        for q in _compiled(re.escape(need)).finditer(text):  # a token wrapped over two lines
            p = q.start()
            if any(a <= p < b for a, b in cov) or not _left_ok(text, p, left):
                continue
            run_end = _RUN_RE.match(text, p).end()
            if not text.startswith(_BREAKS, run_end):
                continue
            j = _joined(text, p)
            if j is None:
                continue
            joined, where = j
            m = rx.match(joined)
            if m is not None and m.end() > run_end - p:
                e = _TAIL_RE.match(text, where[m.end() - 1] + 1).end()
                cov.append((p, e))
                yield p, e, kind

    return _gate(
        find,
        need,
        runs="[ \\t]" not in pattern and " " not in pattern,
        at_start=left is not _ANY and back is None,
    )


def _basic_ok(v: str) -> bool:
    """``Basic xxx`` is a credential only when it decodes to ``user:password``."""
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in raw and raw.isascii()


def _url_password_ok(v: str) -> bool:
    if "/" in v and v.split("/", 1)[0].isdigit():
        return False  # "host:8080/path@v1": a port and a path, not a password
    return _is_literal(v) and not v.isdigit()


# The password may hold "/" and "@": it runs to the "@" before something that is surely a
# host (dotted, localhost, with a port, an IP literal); failing that, to the first "@".
_URL_END = r"(?:[:/?#,;)\]\s\"'<>\\`]|\Z)"
_URL_PW_RE = re.compile(
    r"://[^\s:/?#@\"'<>\\]{0,256}:(?P<v>[^\s\"'<>\\]{1,256}?)@(?=(?:[\w\-]+\.[\w.\-]*|localhost"
    r"|[\w.\-]+(?=:\d)|\[[0-9A-Fa-f:.]+\])" + _URL_END + ")"
)
_URL_PW_SIMPLE_RE = re.compile(
    r"://[^\s:/?#@\"'<>\\]{0,256}:(?P<v>[^\s@/\"'<>\\]{1,256})@(?=[\w\[.\-])"
)


_SCHEME_SEP_RE = re.compile("://")


def _find_url_password(text: str, low: str) -> Iterator[Span]:
    """``scheme://user:PASSWORD@host``: only the password goes."""
    for scheme in _SCHEME_SEP_RE.finditer(text):
        at = scheme.start()
        m = _URL_PW_RE.match(text, at) or _URL_PW_SIMPLE_RE.match(text, at)
        if m is not None and _url_password_ok(m.group("v")):
            yield *m.span("v"), "url-password"


def _find_cli_user(text: str, low: str) -> Iterator[Span]:
    """``curl -u user:password`` (but not ``docker run -u 1000:1000``)."""
    for m in _CLI_USER_RE.finditer(text):
        s = m.start()
        if (s == 0 or text[s - 1].isspace()) and _url_password_ok(m.group("v")):
            yield *m.span("v"), "basic-auth"


_CLI_USER_RE = re.compile(
    r"-(?:u|-user|-proxy-user|U|a|-auth)[ \t]+\\*[\"']?[^\s:\"'\\]+:(?P<v>[^\s\"'\\]+)"
)


def _find_discord(text: str, low: str) -> Iterator[Span]:
    """Bot tokens ``<base64 user id>.<6>.<27+>``: anchored on the dots, then walk back."""
    for m in _DISCORD_TAIL_RE.finditer(text):
        s = m.start()
        i = s
        while i > 0 and text[i - 1] in _TOKEN_DASH and s - i <= 28:
            i -= 1
        if 24 <= s - i <= 28 and text[i] in "MNO" and _left_ok(text, i, _TOKEN_DASH):
            yield i, m.end(), "discord-token"


_DISCORD_TAIL_RE = re.compile(r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}(?![A-Za-z0-9_\-])")


def _find_azure_client_secret(text: str, low: str) -> Iterator[Span]:
    """Entra ID client secrets: 3 chars, a digit, ``Q~``, 31–34 chars."""
    for m in _AZURE_SECRET_RE.finditer(text):
        s = m.start() - 4
        if (
            s >= 0
            and text[s + 3].isdigit()
            and all(c in _AZ_CHARS for c in text[s : s + 3])
            and _left_ok(text, s, _AZ_CHARS)
        ):
            yield s, m.end(), "azure-key"


_AZ_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-")
_AZURE_SECRET_RE = re.compile(r"Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~\-])")


def _find_mailgun_new(text: str, low: str) -> Iterator[Span]:
    """Newer Mailgun keys: 32 hex, dash, 8 hex, dash, 8 hex."""
    for m in _MAILGUN_TAIL_RE.finditer(text):
        s = m.start() - 32
        if s >= 0 and _HEX_RE.match(text[s : m.start()]) and _left_ok(text, s, _TOKEN_CHARS):
            yield s, m.end(), "mailgun-key"


_MAILGUN_TAIL_RE = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{8}(?![0-9A-Za-z])")


def _find_telegram(text: str, low: str) -> Iterator[Span]:
    """Telegram bot tokens ``<8-10 digit bot id>:AA<33>``; the id stays."""
    for m in _TELEGRAM_RE.finditer(text):
        s = m.start()
        i = s
        while i > 0 and text[i - 1].isdigit() and s - i <= 10:
            i -= 1
        if 8 <= s - i <= 10 and (i == 0 or not text[i - 1].isalnum()):
            yield s + 1, m.end(), "telegram-bot-token"


_TELEGRAM_RE = re.compile(r":AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])")


def _find_cookies(text: str, low: str) -> Iterator[Span]:
    """``Cookie:`` / ``Set-Cookie:`` / ``--cookie``: each long value of the rest of the line
    (a session cookie is as good as a password)."""
    scanned = 0
    for m in _COOKIE_RE.finditer(low):
        if m.end() < scanned or not _left_ok(text, m.start(), _WORD_CHARS):
            continue
        # to the end of the line, a JSON-escaped one too (JSONL lines are long: bounded)
        limit = min(
            x
            for x in (text.find("\n", m.end()), text.find("\\n", m.end()), m.end() + 4000)
            if x >= 0
        )
        scanned = limit
        for p in _COOKIE_PAIR_RE.finditer(text, m.end()):
            if p.start() > limit:
                break
            v = p.group("v")
            if (
                len(v) >= 16
                and any(c.isdigit() for c in v)
                and any(c.isalpha() for c in v)
                and not MARKER_RE.fullmatch(v)
            ):
                yield *p.span("v"), "cookie"


_COOKIE_RE = re.compile(r"cookie\\*[\"']?[ \t]*[:=]?[ \t]*")
_COOKIE_PAIR_RE = re.compile(r"(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]{1,64}=(?P<v>[^;\s\"'\\,]+)")


def _find_mysql_password(text: str, low: str) -> Iterator[Span]:
    """``mysql -u root -pSECRET``: a ``-p`` glued to its value, on a mysql command line."""
    for m in _MYSQL_P_RE.finditer(text):
        s = m.start()
        if s == 0 or text[s - 1] not in " \t":
            continue
        line = max(text.rfind("\n", 0, s), text.rfind("\\n", 0, s), s - 300, 0)
        on_mysql_line = "mysql" in low[line:s] or "mariadb" in low[line:s]
        if on_mysql_line and _is_literal(m.group("v")):
            yield *m.span("v"), "secret-assignment"


_MYSQL_P_RE = re.compile(r"-p(?P<v>[^\s\"'\\\-][^\s\"'\\]*)")


def _find_azure_sig(text: str, low: str) -> Iterator[Span]:
    """A SAS URL's ``sig=`` parameter."""
    for m in _SIG_RE.finditer(text):
        if m.start() > 0 and text[m.start() - 1] in "?&":
            yield *m.span("v"), "azure-key"


_SIG_RE = re.compile(r"sig=(?P<v>[A-Za-z0-9%+/=]{16,})")

_PK_BEGIN_RE = re.compile(r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
_PK_END_RE = re.compile(r"-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----")
_PK_BODY_RE = re.compile(r"[A-Za-z0-9+/=_\s:→.\\-]*")  # base64, armour headers, \n escapes
_PK_MAX = 40_000
_GCP_KEY_RE = re.compile(r'private_key\\*"[ \t]*:[ \t]*\\*"(?=-----BEGIN)')
_ESCAPED_NL_RE = re.compile(r"(?:\\+n)?")


def _key_blocks(text: str) -> dict[int, int]:
    """Start → end of every private key block: BEGIN to the next END (linear, however many
    BEGINs lack an END); a truncated block runs to the end of its base64 body."""
    begins = [m.span() for m in _PK_BEGIN_RE.finditer(text)]
    if not begins:
        return {}
    ends = [m.span() for m in _PK_END_RE.finditer(text)]
    end_starts = [e[0] for e in ends]
    blocks: dict[int, int] = {}
    for i, (bs, be) in enumerate(begins):
        k = bisect.bisect_left(end_starts, be)
        if k < len(ends) and ends[k][0] - be <= _PK_MAX:
            blocks[bs] = ends[k][1]
        else:  # the body, up to the next BEGIN at most (which starts its own block)
            stop = begins[i + 1][0] if i + 1 < len(begins) else len(text)
            body = _PK_BODY_RE.match(text, be, stop)
            blocks[bs] = body.end() if body else be
    return blocks


def _find_private_keys(text: str, low: str) -> Iterator[Span]:
    for s, e in _key_blocks(text).items():
        yield s, e, "private-key"


def _find_gcp_key(text: str, low: str) -> Iterator[Span]:
    """A service-account JSON's ``"private_key": "-----BEGIN…"`` value (names the file kind)."""
    if "private_key" not in text:
        return
    blocks = _key_blocks(text)
    for m in _GCP_KEY_RE.finditer(text):
        e = blocks.get(m.end())
        if e is not None:
            tail = _ESCAPED_NL_RE.match(text, e)
            yield m.end(), tail.end() if tail else e, "gcp-service-account"


_BEARER_V = r"(?P<v>[A-Za-z0-9\-._~+/]{16,}[A-Za-z0-9\-._~+/=]*)"  # the whole run
_T, _TD, _W = _TOKEN_CHARS, _TOKEN_DASH, _WORD_CHARS
_ANY: frozenset[str] = frozenset()


def _tok(kind: str, pattern: str, left: frozenset[str] = _T) -> Finder:
    return _prefixed(kind, pattern, left)


_REGEX_RULES: list[Finder] = [
    # <private>…</private>, tags included; unclosed: to the end of the string
    _rx("private", r"<private\s*>[\s\S]*?(?:</private\s*>|\Z)", lower=True),
    # a service-account JSON's key (before the generic block rule, so it names the file kind)
    _find_gcp_key,
    _rx("gcp-service-account", r'private_key_id\\*"[ \t]*:[ \t]*\\*"(?P<v>[0-9a-f]{40})\\*"'),
    # PEM / OpenSSH / PGP blocks, whole; a truncated block (no END) to the end of its body
    _find_private_keys,
    # provider tokens (a distinctive prefix needs no left boundary: "passwordsk-ant-…" counts)
    _tok("anthropic-key", r"sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_\-]{20,}", _ANY),
    _tok("openai-key", r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}", _ANY),
    _tok("openai-key", r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", _ANY),
    _tok("openai-key", r"sk-[A-Za-z0-9]{40,64}(?![A-Za-z0-9_\-])", _TD),
    _tok("github-token", r"ghp_[A-Za-z0-9]{36,}", _ANY),
    _tok("github-token", r"gho_[A-Za-z0-9]{36,}", _ANY),
    _tok("github-token", r"ghu_[A-Za-z0-9]{36,}", _ANY),
    _tok("github-token", r"ghs_[A-Za-z0-9]{36,}", _ANY),
    _tok("github-token", r"ghr_[A-Za-z0-9]{36,}", _ANY),
    _tok("github-token", r"github_pat_[A-Za-z0-9_]{50,}", _ANY),
    _tok(
        "gitlab-token",
        r"gl(?:pat|dt|ptt|rt|oas|cbt|soat|ffct|imt|agent|ft|wt)-"
        r"[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]+)*",
        _ANY,
    ),
    _tok("gitlab-token", r"GR1348941[A-Za-z0-9_\-]{20,}", _ANY),
    _tok("slack-token", r"xox[abposr]-\d+-[A-Za-z0-9\-]{8,}", _ANY),
    _tok("slack-token", r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9\-]{10,}", _ANY),
    _tok("slack-token", r"xapp-\d-[A-Za-z0-9\-]{10,}", _ANY),
    _rx(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"(?P<v>[A-Za-z0-9_/\-]{20,})",
    ),
    _tok("stripe-key", r"sk_(?:live|test)_[A-Za-z0-9]{20,}"),
    _tok("stripe-key", r"rk_(?:live|test)_[A-Za-z0-9]{20,}"),
    _tok("stripe-key", r"whsec_[A-Za-z0-9+/=]{24,}"),
    _tok("google-api-key", r"AIza[0-9A-Za-z_\-]{35}", _ANY),
    _tok("google-oauth", r"GOCSPX-[A-Za-z0-9_\-]{20,}", _ANY),
    _tok("google-oauth", r"ya29\.[A-Za-z0-9_\-]{20,}", _ANY),
    _tok("npm-token", r"npm_[A-Za-z0-9]{36}", _ANY),
    _tok("huggingface-token", r"hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9])"),
    _tok("sendgrid-key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}(?![A-Za-z0-9_\-])"),
    _tok("twilio-key", r"SK[0-9a-f]{32}(?![A-Za-z0-9])"),
    # (an Account SID, AC + 32 hex, is a public identifier: only its auth token nearby goes)
    _rx("azure-connection-string", r"AccountKey=(?P<v>[^;\"'\s\\]{8,})", left=_W),
    _rx(
        "azure-connection-string", r"SharedAccess(?:Key|Signature)=(?P<v>[^;\"'\s\\]{8,})", left=_W
    ),
    _find_azure_sig,
    _find_azure_client_secret,
    _find_discord,
    _rx(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/\d{5,25}/"
        r"(?P<v>[A-Za-z0-9_\-]{40,})",
    ),
    _tok("mailgun-key", r"key-[0-9a-f]{32}(?![A-Za-z0-9])"),
    _find_mailgun_new,
    _tok("pypi-token", r"pypi-Ag[A-Za-z0-9_\-]{50,}", _ANY),
    _find_telegram,
    _tok("aws-access-key", r"AKIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _tok("aws-access-key", r"ASIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _tok("aws-access-key", r"ABIA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _tok("aws-access-key", r"ACCA[A-Z0-9]{16}(?![A-Za-z0-9])"),
    _tok(
        "jwt",
        r"eyJ[A-Za-z0-9_\-]{8,}\.(?:eyJ[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]+)?"
        r"|[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]+){0,2})",
        _TD,
    ),
    # scheme://user:PASSWORD@host — only the password goes
    _gate(_find_url_password, "://"),
    _rx("bearer-token", r"bearer[ \t]+" + _BEARER_V, lower=True, left=_W, check=_tokenish),
    _rx(
        "bearer-token",
        r"authorization\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?:token|bot)[ \t]+" + _BEARER_V,
        lower=True,
        left=_TD,
        check=_tokenish,
    ),
    _rx(
        "basic-auth",
        r"basic[ \t]+(?P<v>[a-z0-9+/]{6,}={0,2})(?![a-z0-9+/=])",
        lower=True,
        left=_W,
        check=_basic_ok,
    ),
    _find_cli_user,
    _find_cookies,
    _rx("secret-assignment", r"sshpass[ \t]+-p[ \t]*[\"']?(?P<v>[^\s\"']+)", check=_is_literal),
    _find_mysql_password,
]


_PROVIDER_RULES: list[Finder] = [_prefixed(k, p) for k, p in _providers.PREFIXED]


# --------------------------------------------------------------------------- unnamed secrets

# "the password is …", "Passwort: …", "mot de passe : …", "пароль — …", "密码：…", and a
# value alone on the line after its key. Words are looked up with ``in`` first; only the
# ones present go into the (cached) alternation.
_PASSWORD_WORDS: tuple[str, ...] = (
    "password", "passwd", "passphrase", "passcode", "pwd", "passwort", "kennwort",
    "mot de passe", "mdp", "contraseña", "contrasena", "clave", "senha", "palavra-passe",
    "wachtwoord", "hasło", "haslo", "heslo", "jelszó", "lösenord", "losenord", "passord",
    "adgangskode", "salasana", "şifre", "sifre", "parola", "пароль", "密码", "密碼", "口令",
    "パスワード", "暗証番号", "비밀번호", "암호", "पासवर्ड", "كلمة المرور", "كلمة السر",
    "סיסמה", "mật khẩu", "รหัสผ่าน", "κωδικός",
)
_TOKEN_WORDS: tuple[str, ...] = (
    "token", "secret", "api key", "api-key", "apikey", "access key", "secret key",
    "private key", "clé api", "clé secrète", "jeton", "schlüssel", "geheimnis", "clave api",
    "chave", "токен", "ключ", "секрет", "令牌", "密钥", "秘钥", "トークン", "シークレット",
    "토큰", "비밀 키",
)
_PW_SET = frozenset(_PASSWORD_WORDS)
_ALL_WORDS = (*_PASSWORD_WORDS, *_TOKEN_WORDS)
# Words are found by a shared piece first ("pass" → password, passwort, mot de passe…), and
# words in other scripts only when the text holds one of their characters.
_SENTINELS = ("pass", "wort", "has", "key", "api", "clave", "senord", "ifre", "token", "secret")


def _group_words() -> tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...]]:
    groups: dict[str, list[str]] = {}
    other: list[str] = []
    for w in _ALL_WORDS:
        sentinel = next((x for x in _SENTINELS if x in w), w if w.isascii() else None)
        if sentinel is None:
            other.append(w)
        else:
            groups.setdefault(sentinel, []).append(w)
    return tuple((k, tuple(v)) for k, v in groups.items()), tuple(other)


_WORD_GROUPS, _OTHER_WORDS = _group_words()
# each other-script word's first non-ASCII character: a set test, no big charset to build
_OTHER_GATE = frozenset(next(c for c in w if not c.isascii()) for w in _OTHER_WORDS)
_VERBS = (
    r"is|was|are|=|:|ist|lautet|war|est|était|es|era|é|è|är|er|on|jest|je|je to|zijn|is:"
    r"|—|–|-|->|=>|是|为|為|は|が|는|은|：|:"
)
_PHRASE_TAIL = (
    r"(?P<mid>(?:[ \t]+[^\s:=：\"'`]{1,24}){0,4}?)"
    r"(?P<sep>[ \t]*(?:[:=：][ \t]*(?:\r?\n|\\n)[ \t]*|(?:\r?\n|\\n)[ \t]*"
    r"|[ \t]*(?:" + _VERBS + r")[ \t]*:?[ \t]*))"
    r"(?P<q>[\"'`“«„]?)(?P<v>[^\s\"'`”»“<>\\]{1,200})"
)
# Words the assignment rule already reads in "word: value" and "word=value": here only
# "word is value" and a value on the next line (fewer, cheaper candidates).
_ASSIGNED_WORDS = frozenset(
    _words("password passwd passphrase pwd token secret apikey")
) | {"api key", "api-key", "access key", "secret key", "private key"}
_VERB_ONLY_TAIL = (
    r"(?P<mid>(?:[ \t]+[^\s:=：\"'`]{1,24}){0,4}?)"
    r"(?P<sep>[ \t]*[:=：]?[ \t]*(?:\r?\n|\\n)[ \t]*"
    r"|[ \t]+(?:" + _VERBS.replace("=|:|", "").replace("|：|:", "") + r")[ \t]*:?[ \t]*)"
    r"(?P<q>[\"'`“«„]?)(?P<v>[^\s\"'`”»“<>\\]{1,200})"
)
_TRAIL = ".,;:)]}"


# "use password Xy9-hunter2 to log in": a password word, a space, a strong password
_BARE_TAIL = r"(?P<mid>)(?P<sep>[ \t]+)(?P<q>[\"'`“«„]?)(?P<v>[^\s\"'`”»“<>\\]{1,200})"


@functools.cache
def _phrase_rxs(word: str) -> tuple[re.Pattern[str], ...]:
    """Patterns for one word, compiled when a text first holds the word: each starts with
    the word, so ``re`` skips to it at C speed."""
    head = r"(?P<w>" + re.escape(word) + r")" + (r"(?![a-z0-9_])" if word.isascii() else "")
    tail = _VERB_ONLY_TAIL if word in _ASSIGNED_WORDS else _PHRASE_TAIL
    if word in _PW_SET:
        return re.compile(head + tail), re.compile(head + _BARE_TAIL)
    return (re.compile(head + tail),)


_ABOUT_WORDS = frozenset(_words("name names id ids file path type length field variable ref arn"))
_FORMAT_RE = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[sdrifxg(](?![a-z])")
# "the password is SHA256-hashed": how it is stored, not what it is
_TECH_RE = re.compile(
    r"sha-?\d|md5|bcrypt|argon|pbkdf|scrypt|hmac|utf-?\d|base\d\d|aes-?\d|rsa-?\d"
    r"|-(?:hashed|encoded|encrypted|based|protected|salted)\Z"
)


def _password_like(v: str) -> bool:
    """A password a person would type: not a word, a reference, a path, code or a number."""
    if not 6 <= len(v) <= 128 or not _is_literal(v) or MARKER_RE.search(v):
        return False
    if any(c in v for c in "()[]{}$") or "://" in v or v.startswith(("/", "~", "./")):
        return False
    if _FORMAT_RE.search(v) or _TECH_RE.search(v.lower()):
        return False
    if v.isdigit():
        return len(v) >= 6 and len(set(v)) > 2
    has_alpha = any(c.isalpha() for c in v)
    has_digit = any(c.isdigit() for c in v)
    has_sym = any(not c.isalnum() for c in v)
    if not has_alpha:
        return False
    if _IDENT_CHAIN_RE.match(v) and not has_digit:
        return False  # a plain word or dotted name
    if re.fullmatch(r"v?\d+(?:\.\d+)+[\w.\-]*", v):
        return False  # a version
    return has_digit or (has_sym and any(c.isupper() for c in v))


def _strong_password(v: str) -> bool:
    """Only a password would follow its word with no verb: a digit, and a capital or a sign."""
    return (
        len(v) >= 8
        and any(c.isdigit() for c in v)
        and (any(c.isupper() for c in v) or any(not c.isalnum() and c not in "_-." for c in v))
    )


_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]+")


def _other_word_in(word: str, other: str, low: str) -> bool:
    """``word in low`` for a word holding non-ASCII letters, tested first on its longest
    non-ASCII run against the text's non-ASCII runs (``other``)."""
    key = max(_NON_ASCII_RE.findall(word), key=len, default="")
    return (not key or key in other) and word in low


# Letters of scripts passwords are not typed in (Hebrew onwards: Arabic, Indic, Thai, CJK…).
_FAR_SCRIPT_RE = re.compile("[\u0590-\U0010ffff]")


def _find_phrases(text: str, low: str) -> Iterator[Span]:
    ascii_only = low.isascii()
    view = _ascii_view(low)
    # words of other scripts: first looked for among the text's non-ASCII characters only
    other = "" if ascii_only else "\0".join(_NON_ASCII_RE.findall(low))
    found = [
        w
        for sentinel, group in _WORD_GROUPS
        if (sentinel in view if sentinel.isascii() else sentinel in low)
        for w in group
        if (w in view if w.isascii() else not ascii_only and _other_word_in(w, other, low))
    ]
    if other and not _OTHER_GATE.isdisjoint(other):
        found.extend(w for w in _OTHER_WORDS if _other_word_in(w, other, low))
    words = tuple(found)
    if not words:
        return
    for m in (m for w in words for rx in _phrase_rxs(w) for m in rx.finditer(low)):
        w = m.group("w")
        ws = m.start("w")
        if w.isascii() and ws > 0 and low[ws - 1].isalpha():
            continue  # "hashpassword", but "DB_PASSWORD is" and "пароль" are fine
        ks = _key_bounds(text, ws)
        if text[max(0, ks - 3) : ks] == "://":
            continue  # "https://x-access-token:…@host": the URL rule hides the token only
        mid = m.group("mid")
        sep = m.group("sep").strip()
        if mid and sep in ("", "-", ":", "="):
            continue  # words in between only with a verb ("the password for root is …")
        if mid and mid.split()[0] in _ABOUT_WORDS:
            continue  # "the secret name is db-creds-7f9k2": what it is called, not it
        bare_space = not sep and "\n" not in m.group("sep")  # "use password Xy9-hunter2 …"
        if bare_space and w not in _PW_SET:
            continue
        vs, ve = m.span("v")
        v = text[vs:ve]
        far = _FAR_SCRIPT_RE.search(v)
        if far is not None:  # "パスワードはHunter2!xです": the value ends where the script changes
            v, ve = v[: far.start()], vs + far.start()
        while v and v[-1] in _TRAIL:
            v, ve = v[:-1], ve - 1
        if not v or (text[vs - 1 : vs] == "=" and sep != "="):
            continue
        on_next_line = "\n" in m.group("sep") or "\\n" in m.group("sep")
        if on_next_line and _END_OF_LINE_RE.match(text, ve) is None:
            continue  # a value on the line after its key must be alone on that line
        if w in _PW_SET:
            ok = _password_like(v) and (not bare_space or _strong_password(v))
            kind = "password"
        else:
            ok = "://" not in v and (  # a URL is the URL rules' to judge, not a token
                _looks_random(v) or (len(v) >= 20 and _tokenish(v) and _is_literal(v)))
            kind = "secret-value"
        if ok:
            yield vs, ve, kind


# CLI flags that carry a password; each only on its own command's line, within 512
# characters of the command's name: an unbounded gap rescanned a long line (a JSON-escaped
# script is one) from every mention of the command, quadratic in the line's length.
_CLI_RULES: tuple[tuple[str, str], ...] = (
    ("redis-cli", r"redis-cli\b[^\n|;&]{0,512}?[ \t](?:-a|--pass)[ \t]+(?P<v>[^\s\"'`|;&]+)"),
    ("docker", r"docker[ \t]+login\b[^\n|;&]{0,512}?[ \t]-p[ \t]*(?P<v>[^\s\"'`|;&]+)"),
    ("podman", r"podman[ \t]+login\b[^\n|;&]{0,512}?[ \t]-p[ \t]*(?P<v>[^\s\"'`|;&]+)"),
    ("htpasswd", r"htpasswd[ \t]+(?:-[A-Za-z]*[ \t]+)*?-[A-Za-z]*b[A-Za-z]*[ \t]+"
     r"(?:-[A-Za-z]+[ \t]+)*[^\s\"']+[ \t]+[^\s\"']+[ \t]+[\"']?(?P<v>[^\s\"'`|;&]+)"),
    ("sshpass", r"sshpass[ \t]+-p[ \t]*[\"']?(?P<v>[^\s\"'`]+)"),
    ("sudo", r"echo[ \t]+(?:-[ne][ \t]+)?[\"']?(?P<v>[^\s\"'`|;&]+)[\"']?[ \t]*\|[ \t]*sudo[ \t]"
     r"(?:[^\n|;&]{0,512}?[ \t])?-S\b"),
    ("sudo", r"printf[ \t]+[\"']?%s\\n[\"']?[ \t]+[\"']?(?P<v>[^\s\"'`|;&]+)[\"']?[ \t]*\|"
     r"[ \t]*sudo[ \t](?:[^\n|;&]{0,512}?[ \t])?-S\b"),
    ("mysql", r"mysql(?:dump|admin)?\b[^\n|;&]{0,512}?[ \t]--password[ \t]+"
     r"(?P<v>[^\s\"'`|;&\-][^\s\"'`|;&]*)"),
    ("smbclient", r"smbclient\b[^\n|;&]{0,512}?[ \t]-U[ \t]*[^\s%]+%(?P<v>[^\s\"'`|;&]+)"),
    ("net use", r"net[ \t]+use\b[^\n|;&]{0,512}?[ \t]/user:[^\s]+[ \t]+(?P<v>[^\s\"'`/|;&]+)"),
)


def _cli_rule(need: str, pattern: str) -> Finder:
    def find(text: str, low: str) -> Iterator[Span]:
        if need not in text:
            return
        for m in _compiled(pattern).finditer(text):
            v = m.group("v")
            if _is_literal(v) and not v.startswith("-") and not MARKER_RE.fullmatch(v):
                yield *m.span("v"), "cli-password"

    return _gate(find, need)


_NETRC_RE = re.compile(
    r"machine[ \t]+[^\s]+(?:\s+(?:login|account)[ \t]+[^\s]+)*\s+password[ \t]+(?P<v>[^\s\\]+)"
    r"|default(?:\s+login[ \t]+[^\s]+)?\s+password[ \t]+(?P<d>[^\s\\]+)"
)


def _find_netrc(text: str, low: str) -> Iterator[Span]:
    """``.netrc``: ``machine host login user password secret`` (one line or several)."""
    if "password" not in text or ("machine" not in text and "default" not in text):
        return
    for m in _NETRC_RE.finditer(text.replace("\\n", "\n ")):  # same offsets: 2 chars → 2
        g = "v" if m.group("v") is not None else "d"
        if _is_literal(m.group(g)):
            yield *m.span(g), "netrc-password"


_PGPASS_RE = re.compile(r":(?:\d{1,5}|\*):[^:\s\\\"']+:[^:\s\\\"']+:(?P<v>[^\s\\\"':]+)")
_HOSTISH_RE = re.compile(r"(?:\*|[A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z.][A-Za-z0-9.\-]*)\Z")


_PG_STOP = frozenset(" \t\n\r\"'`>→(,;=:/")


def _find_pgpass(text: str, low: str) -> Iterator[Span]:
    """``.pgpass`` lines: ``host:port:database:user:password``, alone on their line."""
    pos = 0
    while (m := _PGPASS_RE.search(text, pos)) is not None:
        pos = m.start() + 1  # overlapping: "file:12:host:5432:db:user:pw" (grep output)
        s = m.start()
        i = s
        while i > 0 and s - i < 256 and text[i - 1] not in _PG_STOP:
            i -= 1
        head = text[i:s]
        if head.startswith("n") and text[i - 1 : i] == "\\":
            head = head[1:]  # "\ndb.example…": the n belongs to the JSON escape
        if not _HOSTISH_RE.match(head):
            continue
        nxt = text[m.end() : m.end() + 1]
        if nxt and not nxt.isspace() and nxt not in "\\\"'`":
            continue
        if _is_literal(m.group("v")):
            yield *m.span("v"), "pgpass-password"


_KUBE_RE = re.compile(
    r"(?:client-key-data|client_key_data|\"client-key-data\")\\*\"?[ \t]*:[ \t]*\\*\"?"
    r"(?P<v>[A-Za-z0-9+/=]{20,})"
)


def _find_kubeconfig(text: str, low: str) -> Iterator[Span]:
    if "key-data" not in text and "key_data" not in text:
        return
    for m in _KUBE_RE.finditer(text):
        yield *m.span("v"), "kubeconfig-key"


# base64 of a secret ("cGFzc3dvcmQ9…", a k8s Secret's data:, an encoded .env): decode the
# runs that decode to text and scan that text once (no deeper); bounded per call.
_B64_RUN_RE = re.compile(r"[A-Za-z0-9+/_\-]{20,}+={0,2}")
_B64_MAX_RUN = 8192
_B64_BUDGET = 512 * 1024  # decoded bytes per text
_PRINTABLE = bytes([9, 10, 13, *range(32, 127)])
_depth = 0


_USER_PASS_RE = re.compile(r"[^\s:]{1,64}:(\S{6,128})")


def _b64_secret(run: str) -> tuple[bool, int]:
    """Whether ``run`` decodes to text in which a secret is found; and the bytes decoded."""
    global _depth
    body = run.rstrip("=")
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return False, 0
    if len(body) % 4 == 1 or body.isalpha() or body.isdigit() or body.islower():
        return False, 0
    padded = body + "=" * (-len(body) % 4)
    try:
        if urlsafe:
            raw = base64.urlsafe_b64decode(padded)
        else:
            raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return False, 0
    if len(raw) >= 24 and len(raw) % 2 == 0 and raw[1::2].count(0) == len(raw) // 2:
        raw = raw[::2]  # UTF-16LE of ASCII (PowerShell's -EncodedCommand): its text
    if len(raw) < 12 or raw.translate(None, _PRINTABLE):
        return False, len(raw)  # binary (an image, a hash): not text that could hold a secret
    decoded = raw.decode("ascii")
    pair = _USER_PASS_RE.fullmatch(decoded.strip())
    if _ordinary.TYPED_ID_RE.fullmatch(decoded):
        return False, len(raw)  # "010:Repository132935648": a GraphQL node's global id
    if pair is not None and _password_like(pair.group(1)):
        return True, len(raw)  # "user:password", as in Basic auth and docker's config.json
    _depth += 1
    try:
        inner = _spans(decoded)
    finally:
        _depth -= 1
    return bool(inner), len(raw)


def _find_base64(text: str, low: str) -> Iterator[Span]:
    if _depth:
        return  # decoded text is scanned once, never decoded again
    budget = _B64_BUDGET
    for m in _B64_RUN_RE.finditer(text):
        s, e = m.span()
        if e - s > _B64_MAX_RUN or budget <= 0:
            continue
        if s and (text[s - 1].isalnum() or text[s - 1] in "+/_-"):
            continue
        run = m.group()
        if run.isalpha() or run.islower() or run.isupper():
            continue  # base64 of text mixes cases and (almost always) digits
        if "/" in run:  # "keys/<base64>": a path's last segment may be the encoded secret
            last = run.rsplit("/", 1)[1]
            if len(last) >= 20:
                found, used = _b64_secret(last)
                budget -= used
                if found:
                    yield e - len(last), e, "base64-secret"
                    continue
        found, used = _b64_secret(run)
        budget -= used
        if found:
            yield s, e, "base64-secret"


# --------------------------------------------------------------------------- proximity rules


def _near(
    anchor: str, candidate: str, kind: str, window: int, check: Callable[[str], bool]
) -> Finder:
    """A value only recognisable next to its companion (AWS secret by its AKIA id, …)."""
    anchor_rx, cand_rx = re.compile(anchor), re.compile(candidate)

    def find(text: str, low: str) -> Iterator[Span]:
        scanned = 0  # windows overlap when anchors cluster: scan each character once
        for a in anchor_rx.finditer(text):
            if not _left_ok(text, a.start(), _TOKEN_CHARS):
                continue
            lo, hi = max(scanned, a.start() - window, 0), a.end() + window
            for c in cand_rx.finditer(text, lo, hi + 100):  # +100: room for a whole candidate
                if c.start() > hi:
                    break
                if check(c.group()):
                    yield c.start(), c.end(), kind
            scanned = max(scanned, hi + 1)

    return find


def _aws_secret_ok(s: str) -> bool:
    return (
        any(c.islower() for c in s)
        and any(c.isupper() for c in s)
        and any(c.isdigit() for c in s)
        and not _HEX_RE.match(s)
    )


_NEAR_RULES: list[Finder] = [
    _near(
        r"A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])",
        r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        "aws-secret-key",
        300,
        _aws_secret_ok,
    ),
    _near(
        r"AC[0-9a-f]{32}(?![A-Za-z0-9])",
        r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])",
        "twilio-key",
        300,
        lambda s: _entropy(s) >= 3.0,
    ),
]


# --------------------------------------------------------------------------- assignments

# Values are bounded (a rejected candidate must not rescan the rest of a huge line); an
# accepted unquoted value that reached the bound is extended to its real end.
_UV_RUN = r"[^\s\"'`\\]"  # a backslash ends a value, unless it escapes nothing JSON-ish
_UV_CAP = 256
_UV_BODY = (
    _UV_RUN + f"{{0,{_UV_CAP}}}" + r"(?:\\(?![nrt\"'\\])" + _UV_RUN + f"{{0,{_UV_CAP}}}){{0,4}}"
)
_UV_REST_RE = re.compile(r"(?:" + _UV_RUN + r"|\\(?![nrt\"'\\]))*")
_ASSIGN_PATTERN = (
    r"(?P<word>passwd|password|passphrase|pass|pwd|secret|token|apikey|key|auth"
    r"|credentials?|pat|salt|cookie|session)(?![a-zA-Z0-9_])"
    r"(?P<kq>\\*[\"'`])?"
    r"(?P<sep>[ \t]*(?:=>|:=|=(?!=)|:(?![:/\\]))[ \t]*|[ \t]+(?=[^\s\-]))"
    r"(?:\"(?P<dq>(?:\\.|[^\"\\\n]){0,2000})\""
    r"|'(?P<sq>(?:\\.|[^'\\\n]){0,2000})'"
    r"|`(?P<bq>[^`\n]{0,2000})`"
    r"|\\+\"(?P<eq>[^\"\\\n]{0,2000})\\+\""
    r"|(?P<uv>[^\s\"'`,;(){}\[\]<>|\\]" + _UV_BODY + "))"
)
_ASSIGN_RE = re.compile(_ASSIGN_PATTERN)  # runs on the lowercased text
_AFTER_QUOTE_OK = frozenset(" \t\r\n,;)}]\\#.")
_SEG_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORDISH = frozenset({"password", "passwd", "passphrase", "pass", "pwd"})
_PASSWORD_SUFFIX = ("password", "passwd", "passphrase")
_STRONG = frozenset({"secret", "token", "apikey", "credential", "credentials", "p12", "pfx",
                     "keystore", "jks", "authorization"})
_STRONG_SUFFIX = ("secret", "token", "apikey")
_KEY_QUALIFIERS = frozenset(
    _words(
        "api access secret private account master signing encryption app application client "
        "subscription consumer webhook shared deploy service admin license auth sas integration "
        "server write read ingest secure crypt decryption"
    )
)
_PAT_QUALIFIERS = frozenset(
    _words("gh github gitlab gl personal access ado azure devops bitbucket hub docker")
)
_WEAK = frozenset({"key", "auth", "salt", "cookie", "session"})
_NOT_SECRET_PREV = frozenset(
    _words(
        "public publishable pub primary foreign sort partition cache lookup unique composite "
        "idempotency row object dict map hot max min num total input output next page "
        "continuation group shortcut translation i18n react hash dedupe dedup index host known "
        "ssh gpg pgp verify verification pagination cursor range restore save artifact "
        "checksum fingerprint etag hashed sha1 sha256 sha512 md5 digest salted"
    )
)
# a name, not a secret: letters, "_", ".", "-" only (unless long and mixed-case, like a key)
_DASHED_NAME_RE = re.compile(r"[a-z]{2,}(?:[-_.][a-z]{2,}){1,6}")
_NAMEISH_RE = re.compile(r"(?:[a-z_.\-]+|[A-Z_.\-]+|[A-Za-z_.\-]{1,19})\Z")
_END_OF_LINE_RE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|\\n|\Z)")
_LOWER_WORD_RE = re.compile(r"[a-z][a-z0-9_\-]*\Z")
_ENV_KEY_RE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
_CUT_RE = re.compile(r"[,;&(){}\[\]]")
_LINE_START_RE = re.compile(r"^[ \t]*(?:\d+→[ \t]*)?(?:-[ \t]+|export[ \t]+)?$")
_REFINE: tuple[tuple[tuple[str, ...], str], ...] = (
    (("secretaccesskey", "awssecret"), "aws-secret-key"),
    (("datadog", "ddapikey", "ddappkey", "ddapplicationkey"), "datadog-key"),
    (("twilio",), "twilio-key"),
    (("azure", "ocpapim"), "azure-key"),
    (("mailgun",), "mailgun-key"),
    (("sendgrid",), "sendgrid-key"),
    (("discord",), "discord-token"),
    (("slack",), "slack-token"),
    (("npm", "_authtoken"), "npm-token"),
    (("huggingface", "hftoken", "hfapitoken"), "huggingface-token"),
    (("openai",), "openai-key"),
    (("anthropic",), "anthropic-key"),
    (("github", "ghtoken", "ghpat"), "github-token"),
    (("gitlab",), "gitlab-token"),
    (("stripe",), "stripe-key"),
    (("pypi", "twine"), "pypi-token"),
    (("google", "gcp", "gemini"), "google-api-key"),
)


@functools.lru_cache(maxsize=4096)
def _key_strength(key: str) -> str | None:
    """How much the name alone says about its value.

    'password': a password (any literal, even a word or a phrase); 'strong': a token, secret
    or API key (a literal without spaces that is not a plain identifier); 'weak': might be
    secret, so the value must look random; None: not secret (max_tokens, public_key…).
    """
    segs = [s.lower() for s in _SEG_RE.findall(key)]
    if not segs:
        return None
    if "public" in segs or "publishable" in segs or ("search" in segs and "only" in segs):
        return None  # NEXT_PUBLIC_…, searchOnlyApiKey: shipped to browsers by design
    last, prev = segs[-1], (segs[-2] if len(segs) > 1 else "")
    if prev in _NOT_SECRET_PREV:
        return None
    if last in _PASSWORDISH or last.endswith(_PASSWORD_SUFFIX):
        return "password"
    if last in _STRONG or (last == "key" and prev in _KEY_QUALIFIERS):
        return "strong"
    if last == "pat":  # ASANA_PAT, GH_PAT: a token; "pat" alone is a name
        return "strong" if prev in _PAT_QUALIFIERS or _ENV_KEY_RE.match(key) else None
    if last.endswith(_STRONG_SUFFIX):
        return "strong"
    if last in _WEAK:
        return "weak"
    if last == "id" and prev in ("access", "key") and "api" not in segs and (
            prev == "access" or segs[-3:-2] == ["access"]):
        return "weak"  # ACCESS_KEY_ID, accessId: the half of a key pair that names it,
        # a credential when random (not ``api_key_id``: a key's public handle)
    return _inner_strength(segs)


# What a name may end with after its secret word and still name the secret itself:
# ``dbPasswordProd``, ``MY_TOKEN_PROD``, ``password2``, ``clientSecretValue``; not
# ``password_hash``, ``token_url``, ``secret_name``, ``api_key_id``.
_SECRET_TAILS = frozenset(_words(
    "prod production dev development staging stage test qa uat live local sandbox value "
    "val raw plain str string text new old current override default main primary backup "
    "base encoded b64 base64 env v secondary alt fallback real actual db database admin "
    "root smtp ldap redis mysql postgres pg mongo hex b32 base32 bytes private"
))


def _inner_strength(segs: list[str]) -> str | None:
    """A secret word before the last segment, when all after it qualify it."""
    for i in range(len(segs) - 2, -1, -1):
        seg = segs[i]
        tail = segs[i + 1 :]
        if not all(t in _SECRET_TAILS or t.isdigit() for t in tail):
            return None
        if i and segs[i - 1] in _NOT_SECRET_PREV:
            return None
        if seg in _PASSWORDISH or seg.endswith(_PASSWORD_SUFFIX):
            return "password"
        if seg in _STRONG or seg.endswith(_STRONG_SUFFIX) or (
                seg == "key" and i and segs[i - 1] in _KEY_QUALIFIERS):
            return "strong"
    return None


@functools.lru_cache(maxsize=4096)
def _refine(key: str, default: str) -> str:
    """Name the provider when the key says it (DD_API_KEY → datadog-key)."""
    k = key.lower()
    flat = re.sub(r"[^a-z0-9]", "", k)
    for needles, kind in (*_REFINE, *_providers.NAMED):
        if any(n in flat or n == k for n in needles):
            return kind
    return default


def _line_start(text: str, pos: int) -> bool:
    """Only indentation, a list dash, ``export`` or a Read line number before ``pos``."""
    return _LINE_START_RE.match(text[text.rfind("\n", 0, pos) + 1 : pos]) is not None


def _not_a_token(value: str) -> bool:
    """TOKEN_SEPARATOR = ", ", ENV_API_KEY = "ANTHROPIC_API_KEY": tokens have no spaces and
    are not plain names."""
    return bool(_NAMEISH_RE.match(value)) or any(c.isspace() or c in "[]\\" for c in value)


def _key_bounds(text: str, ws: int) -> int:
    """Walk back from the secret word to the start of its key (PGPASSWORD, x-api-key…)."""
    i = ws
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.-"):
        i -= 1
    if i < ws and i > 0 and text[i - 1] == "\\" and text[i] in "nrt":
        i += 1  # "\nDB_PASSWORD": the n belongs to the JSON escape
    return i


def _judge(text: str, m: re.Match[str]) -> Span | None:
    """Decide whether one ``key <sep> value`` candidate hides a secret; return the value span."""
    ks = _key_bounds(text, m.start("word"))
    if text[max(0, ks - 3) : ks] == "://":
        return None  # "https://x-access-token:<token>@host": the URL rule takes the token only
    if text[max(0, ks - 2) : ks] == "${" and text[m.end("word") : m.end("word") + 2] in (
        ":?",
        ":+",
    ):
        return None  # shell expansion "${API_KEY:?missing}": a message, not a value
    raw_key = text[ks : m.end("word")]
    key = raw_key.lstrip("-.")
    dashed = raw_key.startswith("-")
    if not key or (not key[0].isalpha() and key[0] != "_"):
        return None
    ws = m.start("word")
    if key.lower() in ("key", "token") and text[max(0, ws - 4) : ws].lower() in ("api ", "pat "):
        key = "api_" + key
    elif key.lower() == "key" and text[max(0, ws - 7) : ws].lower() in ("access ", "secret "):
        key = text[ws - 7 : ws - 1] + "_key"
    strength = _key_strength(key)
    if strength is None:
        return None
    sep = m.group("sep")
    spaced_only = not sep.strip()
    if sep[:1] in " \t" and sep.strip() == ":" and not m.group("kq"):
        return None  # "pass :data:`x`" is prose; "password: x" and '"password" : x' are not
    if spaced_only and not dashed:
        return None
    for g in ("dq", "sq", "bq", "eq"):
        if m.group(g) is not None:
            vs, ve = m.span(g)
            after = text[m.end() : m.end() + 1]
            if after and after not in _AFTER_QUOTE_OK:
                return None
            quoted = True
            break
    else:
        vs, ve = m.span("uv")
        quoted = False
    value = text[vs:ve]
    envlike = False
    if not quoted:
        envlike = (
            not m.group("kq")
            and _ENV_KEY_RE.match(key) is not None
            and (sep == "=" or (sep.strip() == ":" and _line_start(text, ks)))
        )
        if dashed and sep.strip() == "=":
            envlike = True
        if not envlike:
            cut = _CUT_RE.search(value)
            if cut:
                value = value[: cut.start()]
                ve = vs + len(value)
        stripped = value.rstrip(",;)]}")
        if stripped.endswith(".") and (ve >= len(text) or text[ve].isspace()):
            stripped = stripped[:-1]
        ve -= len(value) - len(stripped)
        value = stripped
        if dashed and spaced_only and _METAVAR_RE.match(value):
            return None
        if not envlike:
            nxt = text[ve : ve + 1]
            if nxt in ("(", "["):
                return None
            yaml_password = (  # "  password: tiger" alone on its line, as in a YAML file
                strength == "password"
                and sep.strip() == ":"
                and key.lower().endswith(_PASSWORD_SUFFIX)  # not "Two-pass: read it"
                and _LOWER_WORD_RE.match(value) is not None
                and _line_start(text, ks)
                and _END_OF_LINE_RE.match(text, ve) is not None
            )
            if (
                _IDENT_CHAIN_RE.match(value)
                and not yaml_password
                and ("." in value or not any(c.isdigit() for c in value))
                and not (strength != "weak" and _random_letters(value))
            ):
                return None
            if value.isdigit() and len(value) < 6:
                return None
    if not _is_literal(value) or _syntax.expression_value(value):
        return None
    if not quoted and text[ve : ve + 1] in (",", ";", ")") and _syntax.is_name(value):
        return None  # "cancelToken: defaultToConfig2,": code names a value, gives none
    if strength == "strong" and not envlike and _not_a_token(value):
        return None
    if strength == "strong" and dashed and _DASHED_NAME_RE.fullmatch(value):
        return None  # "--secret=stripe-webhook": a flag naming the secret to read, not it
    if strength == "weak":
        if key.lower().endswith("cookie") and "=" in value.rstrip("="):
            return None  # "name=value; …": the cookie rule hides the values, keeps the names
        if not _looks_random(value):
            return None
        kind = _refine(key, "high-entropy")
    else:
        kind = _refine(key, "secret-assignment")
    if not quoted and m.end("uv") - m.start("uv") >= _UV_CAP and not _CUT_RE.search(value):
        ve = _UV_REST_RE.match(text, m.end("uv")).end()  # longer than the bound: all of it
    return vs, ve, kind


def _find_assignments(text: str, low: str) -> Iterator[Span]:
    """``KEY=value``, ``key: value``, ``"key": "value"``, ``--password value``…"""
    search = _ASSIGN_RE.search
    pos = 0
    while (m := search(low, pos)) is not None:
        span = _judge(text, m)
        if span is not None:
            yield span
            pos = max(m.end("word"), span[1])
        else:
            pos = m.end("word")


_GENERIC_RULES: list[Finder] = [
    _find_netrc,
    _find_pgpass,
    _find_kubeconfig,
    *(_cli_rule(need, pattern) for need, pattern in _CLI_RULES),
    _find_phrases,
    _find_base64,
]

_RULES: list[Finder] = [
    *_REGEX_RULES[:4],  # private tags and key blocks first: their kind wins a merge
    *_PROVIDER_RULES,
    *_REGEX_RULES[4:],
    *_NEAR_RULES,
    _find_assignments,
    *_GENERIC_RULES,
]
_WORD_RUN_RE = re.compile(r"[a-z0-9]+")
_HEAD_RE = re.compile(r"[a-z0-9]*")


def _starts_a_word(words: list[str], head: str) -> bool:
    """Whether a word of the sorted ``words`` starts with ``head`` (a binary search: a
    provider prefix like "ghp" is looked for among a text's few thousand distinct words,
    not in its characters)."""
    i = bisect.bisect_left(words, head)
    return i < len(words) and words[i].startswith(head)


def _gated() -> list[tuple[int, str, str, str, str, Finder]]:
    out = []
    for prio, rule in enumerate(_RULES):
        need, where = _NEED.get(rule, ("", "text"))
        if not need.isascii():
            where = "raw" if where == "text" else "rawlow"
        key2 = need[:2].lower()
        if rule not in _AT_START or len(key2) < 2 or not key2.isalnum() or not key2.isascii():
            key2 = ""
        head = _HEAD_RE.match(need.lower()).group() if key2 else ""
        out.append((prio, need, where, key2, head, rule))
    return out


_GATED = _gated()

# Finders added by ``reviewer.sanitize.detect`` (gitleaks' rules, the values a job already
# redacted): the worker, ``preview`` and the store's door load them; a hook never does, so
# its import stays this module's alone.
_EXTRA: list[Finder] = []
# While a job runs, every value redact replaces is also added to each of these sets
# (``detect.collecting``): the store's door hides a repeat of one that lacks its context.
_SINKS: list[set[str]] = []


def add_finder(find: Finder) -> None:
    """Run ``find`` with the built-in rules from now on, in this process (idempotent)."""
    if find not in _EXTRA:
        _EXTRA.append(find)


# --------------------------------------------------------------------------- assembly


def _clip(
    spans: list[tuple[int, int, int, str]], markers: list[tuple[int, int]]
) -> list[tuple[int, int, int, str]]:
    """Cut existing markers out of every span, dropping pieces with nothing alphanumeric."""
    out: list[tuple[int, int, int, str]] = []
    for s, e, prio, kind in spans:
        pieces = [(s, e)]
        for ms, me in markers:
            if me <= s or ms >= e:
                continue
            nxt = []
            for ps, pe in pieces:
                if me <= ps or ms >= pe:
                    nxt.append((ps, pe))
                    continue
                if ps < ms:
                    nxt.append((ps, ms))
                if me < pe:
                    nxt.append((me, pe))
            pieces = nxt
        out.extend((ps, pe, prio, kind) for ps, pe in pieces if ps < pe)
    return out


def _spans(text: str) -> list[tuple[int, int, int, str]]:
    has_markers = "[REDACTED:" in text
    markers = [m.span() for m in MARKER_RE.finditer(text)] if has_markers else []
    if markers:
        # Rules see a marker as the opaque token it replaced ("xxxx"), never as text of its own
        # (its ":" or "-" must not turn a neighbour into a "user:password"…).
        text = MARKER_RE.sub(lambda m: "x" * len(m.group()), text)
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters ("İ") lowercase to two characters
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    hay = {"text": _ascii_view(text), "low": _ascii_view(low), "runs": text}
    hay["raw"], hay["rawlow"] = text, low
    starts: frozenset[str] | None = None
    words: list[str] = []
    if len(text) > _RUNS_MIN_TEXT:
        hay["runs"] = runs = " " + " ".join(_RUNS_RE.findall(text))
        words = sorted(set(_WORD_RUN_RE.findall(runs.lower())))
        starts = frozenset(w[:2] for w in words if len(w) >= 2)
    spans = [
        (s, e, prio, kind)
        for prio, need, where, key2, head, rule in _GATED
        if not need or (
            (starts is None or not key2 or (key2 in starts and _starts_a_word(words, head)))
            and need in hay[where])
        for s, e, kind in rule(text, low)
    ]
    for prio, rule in enumerate(_EXTRA, start=len(_GATED)):
        spans.extend((s, e, prio, kind) for s, e, kind in rule(text, low))
    if spans and markers:
        spans = [
            sp for sp in _clip(spans, markers) if any(c.isalnum() for c in text[sp[0] : sp[1]])
        ]
    if spans:
        spans = [sp for sp in spans
                 if not placeholder(text[sp[0] : sp[1]])
                 and not public_name(text, sp[0], sp[1], sp[3])]
    spans.sort()
    return spans


# The names of types: a parameter annotated `secret: Uint8Array` names no value.
_TYPE_NAME_RE = re.compile(
    r"(?:Big)?U?[Ii]nt(?:8|16|32|64)(?:Clamped)?Array|Float(?:16|32|64)Array|(?:Shared)?ArrayBuffer"
    r"|[Uu]?[Ii]nt(?:8|16|32|64|128)(?:_t|Ptr)?|[iu](?:8|16|32|64|128|size)|f(?:32|64)"
    r"|[Ff]loat(?:32|64)|complex(?:64|128)",
)
# An OpenPGP key's public identity: `pub rsa4096/1140AF8F639E0C39` (a listing's key id) and
# a 40-hex fingerprint named as a GPG/PGP key's or a fingerprint. Public by design: it is
# what keyservers and `apt-key` print.
_PGP_KEY_ID_RE = re.compile(
    r"(?:rsa|dsa|elg|ed25519|cv25519|ed448|cv448|nistp\d+|brainpool\w+|secp256k1)\d*/"
    r"(?:[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40})", re.I)
_HEX_ID_RE = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{40}|(?:[0-9A-F]{4} ?){10})")
_PGP_BEFORE_RE = re.compile(r"\b(?:gpg|pgp|openpgp|fingerprint|keyid|key id|signing key"
                            r"|keyserver|recv-keys?|apt-key)\b[^\n]{0,32}\Z", re.I)


def public_name(text: str, start: int, end: int, kind: str = "") -> bool:
    """A span that names something public, not a secret: a type (`secret: Uint8Array`), an
    OpenPGP key id or fingerprint (`pub rsa4096/1140AF8F639E0C39`, "GPG key
    `24B3…778E`", "using EDDSA key C5AD…"), a secret manager's reference to where a value
    is kept (the span lies inside `arn:aws:secretsmanager:…`). A value found by its shape
    alone (``_SHAPE_KINDS``) is public too when it stands under a key naming an identifier
    (`x-amz-id-2: …`, `"lineage": …`) or is base64 of a file format (a PNG)."""
    value = text[start:end].strip().strip("`'\"")
    if _TYPE_NAME_RE.fullmatch(value):
        return True
    if _PGP_KEY_ID_RE.fullmatch(value):
        return True
    if _HEX_ID_RE.fullmatch(value) and (
            _PGP_BEFORE_RE.search(text, max(0, start - 60), start)
            or _public.key_id_context(text, start)):
        return True
    if _in_secret_ref(text, start, end):
        return True
    if _ordinary.ordinary_run(text, start, end, kind):
        return True
    if _identifiers.public_identifier(text, start, end, kind):
        return True
    if (kind in _SHAPE_KINDS or kind == "mfa-secret") and _public.under_id_key(text, start):
        return True
    if kind in _SHAPE_KINDS:
        bare = value.rstrip(".…")
        return (_syntax.code_run(text, start, end) or _syntax.public_block_line(text, start, end)
                or _syntax.expression_value(value) or _syntax.path_of_names(value)
                or _syntax.message_value(value) or _syntax.mangled_symbol(value)
                or _syntax.labelled_digest(value) or _syntax.in_signature_header(text, start)
                or _public.binary_base64(value)
                or _public.jose_header(bare) or _public.chain_address(text, start, value)
                or _public.in_angle_id(text, start, end) or _publishable(value)
                or _public.crypt_hash(text, start, value) or _public.example_value(text, start)
                or _public.websocket_nonce(text, start))
    return False


def _publishable(v: str) -> bool:
    """A key made to be shipped to browsers: Stripe's ``pk_live_…``/``pk_test_…``, Mapbox's
    public ``pk.eyJ…`` (the secret ones are ``sk_…``/``sk.…``), PostHog's project ``phc_…``."""
    return v.startswith(("pk_live_", "pk_test_", "pk.eyJ", "phc_"))


# Kinds a value gets for its shape or a nearby word, not for a provider's format.
_SHAPE_KINDS = frozenset(_words("high-entropy secret-value password secret-assignment url-secret"))
_REF_TOKEN_STOP = " \t\n\"'`<>()[]{},;"


def _in_secret_ref(text: str, start: int, end: int) -> bool:
    """The span lies inside a reference to a secret manager's entry (``op://…``,
    ``arn:aws:secretsmanager:…:secret:name-AbC123``): where a value is kept, not it."""
    i = start
    while i > 0 and start - i < 200 and text[i - 1] not in _REF_TOKEN_STOP:
        i -= 1
    return bool(_SECRET_REF_RE.match(text, i, end))


_PLACEHOLDER_PREFIX_RE = re.compile(r"[A-Za-z]{1,10}[_\-](?:[A-Za-z0-9]{1,10}[_\-]){0,2}")
_PLACEHOLDER_WORDS = frozenset(
    _words("replace_me replaceme changeme change_me your_key_here your-key-here yourkey "
           "your_token your_api_key xxxxxxxx redacted dummy example")
)


# All-capital words that say "put yours here" (YOUR_HETZNER_TOKEN_HERE, INSERT_KEY_HERE).
_PLACEHOLDER_CAPS_RE = re.compile(
    r"[A-Z0-9_\-]*(?:YOUR|HERE|REPLACE|CHANGE_?ME|INSERT|PLACEHOLDER|DUMMY|EXAMPLE|FAKE|"
    r"SAMPLE|REDACTED|TODO|FIXME)[A-Z0-9_\-]*\Z"
)
# Published sample values: AWS's documentation keys, jwt.io's sample token's signature,
# defaults every manual prints (Java's keystore "changeit", Firebird's "masterkey").
_KNOWN_SAMPLES = ("EXAMPLE", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
_KNOWN_DEFAULTS = frozenset(_words("changeit masterkey guest toor"))
_MASK_CHARS = frozenset("•●*·∙⋅xX#")


def placeholder(value: str) -> bool:
    """A value that stands for a secret without being one: ``sk-...``, ``sk_live_xxxx…``,
    ``ghp_XXXXXXXX``, ``********``, ``<your-key-here>``, ``REPLACE_ME``,
    ``YOUR_TOKEN_HERE``, a masked value showing its last four (``••••••••3f9a``), a
    published sample (AWS's ``…EXAMPLEKEY``). A truncated real key
    (``sk-ant-api03-Xq9…``) is not: only a bare prefix may come before the dots."""
    v = value.strip().strip("\"'`<>")
    if not v:
        return False
    if v.lower() in _PLACEHOLDER_WORDS or v.lower() in _KNOWN_DEFAULTS:
        return True
    if _syntax.bracket_mask(value):
        return True  # "[FILTERED]", "<hidden>": what a tool wrote in the value's place
    if _PLACEHOLDER_CAPS_RE.match(v) or any(x in v for x in _KNOWN_SAMPLES):
        return True
    masked = sum(c in _MASK_CHARS for c in v)
    if masked >= 4 and len(v) - masked <= 6 and v[0] in _MASK_CHARS:
        return True
    if v.endswith(("..", "…")):
        head = v.rstrip(".…")
        return len(head) <= 8 or _PLACEHOLDER_PREFIX_RE.fullmatch(head) is not None
    m = _PLACEHOLDER_PREFIX_RE.match(v)
    tail = v[m.end() :] if m is not None and m.end() < len(v) else v
    body = tail.rstrip(".…")
    if len(body) >= 4 and len(set(body.lower())) == 1 and body[0].lower() in "x*#0.":
        return True
    if "redacted" in v.lower():
        return True  # "sk-a***REDACTED***123": a value another tool masked
    return _mostly_mask(body) or _placeholder_words(v) or _prefix_and_words(v)


def _mostly_mask(body: str) -> bool:
    """``AGE-SECRET-KEY-1XXXX…X``, ``pk_1xxxxxxxxxxxxxxxx``, ``xxx...xxx``: a version digit
    or two among mask characters; no generated key repeats one that much."""
    if len(body) < 6:
        return False
    masks = sum(c in "xX*#.…•" for c in body)
    return masks >= 0.85 * len(body) and (len(body) >= 12 or "." in body or "…" in body)


# A provider's prefix, then words: ``sk-ant-api03-real-secret``, ``ghp_my_test_token``,
# ``xoxb-not-a-real-one``: what documentation and tests write for a key.
_TOKEN_PREFIXES = frozenset(_words(
    "sk pk rk ghp gho ghs ghu github glpat xoxb xoxp xoxa xapp npm pypi hf sg whsec dp hvs "
    "tskey lsv2 pat key api shpat sntrys sntryu dapi"))
_DOC_WORD_RE = re.compile(r"[a-z]{2,12}\d{0,3}")


def _prefix_and_words(v: str) -> bool:
    parts = [p for p in _WORD_SEP_RE.split(v) if p]
    if len(parts) < 3 or parts[0].lower() not in _TOKEN_PREFIXES:
        return False
    words = parts[1:]
    if any(w.lower() in _FILLER_WORDS for w in words) and all(
            w.lower() in _FILLER_WORDS or (w.isdigit() and len(w) <= 4) for w in words):
        return True  # "sk_test_123", "pk_test_4242": a prefix, "test" and a small number
    tags = [w for w in words if re.fullmatch(r"[a-z]{2,6}\d{1,3}", w)]  # "api03", "v2"
    return all(_DOC_WORD_RE.fullmatch(w) for w in words) and len(words) - len(tags) >= 1 and (
        sum(len(w) >= 4 and w.isalpha() for w in words) >= 1)


# Words that say "put yours here": a value made of words alone, one of them one of these
# (``changeme-in-prod``, ``xoxb-your-token``, ``<paste-your-key-here>``, ``my_api_key_here``).
_FILL_IN_WORDS = frozenset(_words(
    "your yours changeme replace replaceme placeholder example sample dummy fake todo tbd "
    "xxx xxxx redacted yourkey yourtoken"
))
_WORD_SEP_RE = re.compile(r"[-_.\s/:]+")


# A value that only says what it stands for: "test-token-123", "my_secret_key", "foo-bar".
_SELF_WORDS = frozenset(_words(
    "token key secret password pass passwd api auth value access client id"))
_FILLER_WORDS = frozenset(_words("test testing dummy fake sample example my some foo bar baz"))


def _placeholder_words(v: str) -> bool:
    parts = [p for p in _WORD_SEP_RE.split(v.lower()) if p]
    if not 2 <= len(parts) <= 8:
        return False
    if any(p in _FILL_IN_WORDS for p in parts):
        return all(p.isalpha() or (p.isdigit() and len(p) <= 2) for p in parts)
    words = [p for p in parts if not (p.isdigit() and len(p) <= 3)]
    return (len(words) >= 2 and all(p in _SELF_WORDS or p in _FILLER_WORDS for p in words)
            and any(p in _FILLER_WORDS for p in words))


_MAX_PASSES = 8


# Characters a terminal does not show, which can split a token ("ghp_abc\u200bdef…"):
# rules scan a copy without them; spans are mapped back to the original text.
_INVISIBLE_RE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]+"
)


def _visible_spans(text: str) -> list[tuple[int, int, int, str]]:
    """``_spans`` of ``text`` seen without invisible characters, in ``text``'s offsets."""
    if text.isascii() or _INVISIBLE_RE.search(text) is None:  # isascii() is O(1)
        return _spans(text)
    keep_at: list[int] = []  # stripped offset where each kept piece starts
    orig_at: list[int] = []  # and where that piece starts in text
    pieces: list[str] = []
    pos = n = 0
    for m in _INVISIBLE_RE.finditer(text):
        if m.start() > pos:
            keep_at.append(n)
            orig_at.append(pos)
            pieces.append(text[pos : m.start()])
            n += m.start() - pos
        pos = m.end()
    keep_at.append(n)
    orig_at.append(pos)
    pieces.append(text[pos:])

    def orig(i: int) -> int:
        k = bisect.bisect_right(keep_at, i) - 1
        return orig_at[k] + i - keep_at[k]

    return [
        (orig(s), orig(e - 1) + 1, prio, kind) for s, e, prio, kind in _spans("".join(pieces))
    ]


def _one_pass(text: str, counts: Counter[str]) -> str:
    spans = _visible_spans(text)
    if not spans:
        return text
    out: list[str] = []
    pos, i, n = 0, 0, len(spans)
    while i < n:
        s, e, prio, kind = spans[i]
        i += 1
        while i < n and spans[i][0] < e:
            e = max(e, spans[i][1])
            if spans[i][2] < prio:
                prio, kind = spans[i][2], spans[i][3]
            i += 1
        out.append(text[pos:s])
        out.append(_marker(kind))
        counts[kind] += 1
        for sink in _SINKS:
            sink.add(text[s:e])
        pos = e
    out.append(text[pos:])
    return "".join(out)


def redact_report(text: str) -> tuple[str, Counter[str]]:
    """Redact ``text``; also say how many secrets of each kind were replaced.

    Runs to a fixed point: once something was replaced, the result is scanned again (a
    rule may see differently around a fresh marker) until nothing changes. Each pass can
    only turn text outside markers into markers, so this ends, in practice after the
    confirming second pass.
    """
    counts: Counter[str] = Counter()
    if not text:
        return text, counts
    for _ in range(_MAX_PASSES):
        new = _one_pass(text, counts)
        if new == text:
            break
        text = new
    return text, counts


def redact(text: str) -> str:
    """Replace every secret in ``text`` by ``[REDACTED:<kind>]``; idempotent."""
    return redact_report(text)[0]


def _redact_keyed(key: str, value: str) -> str:
    """A string under a dict key: the key is the context (``{"password": "hunter2"}``)."""
    red = redact(value)
    if not MARKER_RE.sub("", red).strip() or "[REDACTED:" in key or not _is_literal(value):
        return red  # already nothing but markers, or nothing worth hiding
    if key == "private_key_id" and _HEX_RE.match(value):
        return _whole(value, "gcp-service-account")
    strength = _key_strength(key)
    if strength == "password" or (strength == "strong" and not _not_a_token(value)):
        return _whole(value, _refine(key, "secret-assignment"))
    if strength == "weak" and _looks_random(value.strip()):
        return _whole(value, "high-entropy")
    return red


def _whole(value: str, kind: str) -> str:
    """A value replaced whole for its key: remembered like any other (``collecting``)."""
    for sink in _SINKS:
        sink.add(value)
    return _marker(kind)


def redact_obj(obj: Any) -> Any:
    """Recursively redact every string in a JSON-like structure (dict keys included).

    A string stored under a secret-naming key (``password``, ``api_key``…) is replaced whole,
    since the key that gives it away is not part of the string itself.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for k, v in obj.items():
            if isinstance(k, str) and isinstance(v, str):
                out[redact(k)] = _redact_keyed(k, v)
            else:
                out[redact(k) if isinstance(k, str) else k] = redact_obj(v)
        return out
    if isinstance(obj, list):
        return [redact_obj(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(redact_obj(x) for x in obj)
    return obj
