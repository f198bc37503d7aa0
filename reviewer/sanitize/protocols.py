"""Credentials in the transcripts of wire protocols and their files: what a client sends
to log in, shown by a debug log, ``openssl s_client``, ``telnet`` or a capture.

Each finder takes ``(text, text.lower())`` and yields ``(start, end, kind)`` spans, like
redact's own; ``reviewer.sanitize.detect`` registers them (never a hook's path). Each is
gated on a literal the protocol cannot do without (``AUTH``, ``PASS``, ``LOGIN``, the
cookie file's ``TRUE``/``FALSE`` fields), so a text without one costs an ``in``.

- **SASL in SMTP, IMAP, POP3, XMPP** (``AUTH PLAIN <base64>``, ``AUTHENTICATE PLAIN``):
  PLAIN's base64 holds ``authzid\\0user\\0password``; LOGIN sends the password base64'd on
  the line after the server's ``334 UGFzc3dvcmQ6`` ("Password:").
- **Plain-text logins**: IMAP ``a1 LOGIN user password``, POP3/FTP ``PASS password``,
  Redis ``AUTH [user] password`` (a client's prompt before it, or a ``C:`` mark).
- **Cookie jars** (Netscape/curl format): seven fields a line (tabs, or spaces once
  condensed); the value of a session, auth or token cookie, or any random-looking value.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from reviewer.sanitize import gitleaks
from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# A protocol line may carry a client mark: "C: ", "> ", ">>> ", "127.0.0.1:6379> ", "1> ".
_MARK = r"(?:[ \t]*(?:[CS]:|>{1,3}|<{1,3}|[\w.\-]*(?::\d+)?>|\d+>)?[ \t]*)"
_SASL_PLAIN_RE = re.compile(
    r"(?m)^" + _MARK + r"(?:[\w.]+[ \t]+)?(?:AUTH|AUTHENTICATE)[ \t]+PLAIN[ \t]+"
    r"(?P<v>[A-Za-z0-9+/]{8,}={0,2})", re.IGNORECASE)
_PASSWORD_PROMPT_RE = re.compile(r"334[ \t]+UGFzc3dvcmQ6[ \t]*\r?\n" + _MARK +
                                 r"(?P<v>[A-Za-z0-9+/]{4,}={0,2})")
# Commands as clients send them: upper case (IMAP's may be lower), after an IMAP tag;
# each found from its literal, then what stands before it on its line is checked.
_LOGIN_TAIL = r"[ \t]+[\"']?[^\s\"']+[\"']?[ \t]+(?P<v>\"[^\"\n]{3,200}\"|[^\s\"]{3,200})"
_LOGIN_RE = re.compile(r"LOGIN" + _LOGIN_TAIL)
_LOGIN_LOW_RE = re.compile(r"login" + _LOGIN_TAIL)
_PASS_RE = re.compile(r"PASS[ \t]+(?P<v>[^\s]{3,200})")
_AUTH_RE = re.compile(r"AUTH[ \t]+(?:[^\s]+[ \t]+)?(?P<v>[^\s]{3,200})[ \t]*(?=\r?\n|\\n|\Z)")
_MARK_ONLY_RE = re.compile(_MARK)
_MARK_TAG_RE = re.compile(_MARK + r"(?:[A-Za-z]{0,3}\d{1,6}|\.)[ \t]+")


def _line_head(text: str, at: int) -> str:
    """What stands before ``at`` on its line (at most 120 characters)."""
    lo = max(0, at - 120)
    nl, esc = text.rfind("\n", lo, at), text.rfind("\\n", lo, at)
    start = max(nl + 1 if nl >= 0 else lo, esc + 2 if esc >= 0 else lo)
    return text[start:at]


_COMMANDS = ((_LOGIN_RE, _MARK_TAG_RE, "imap"), (_LOGIN_LOW_RE, _MARK_TAG_RE, "imap"),
             (_PASS_RE, _MARK_ONLY_RE, "pass"), (_AUTH_RE, _MARK_ONLY_RE, "auth"))


def _sasl_plain(v: str) -> bool:
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    parts = raw.split(b"\0")
    return len(parts) == 3 and len(parts[2]) >= 3


def _has(text: str, low: str, word: str, literal: str) -> bool:
    """``literal`` (a command's case) is in ``text``: scanned for only when its word is
    among the text's words (a lookup in the sorted list every finder shares)."""
    return gitleaks.has_word(low, word) and literal in text


def find_protocol_logins(text: str, low: str) -> Iterator[Span]:
    sasl = _has(text, low, "plain", "PLAIN")
    prompt = _has(text, low, "ugfzc3dvcmq6", "UGFzc3dvcmQ6")
    if sasl or prompt:
        hay = text.replace("\\n", "\n ")  # a JSON-escaped break (two characters for two)
        for m in _SASL_PLAIN_RE.finditer(hay) if sasl else ():
            if _sasl_plain(m.group("v")):
                yield *m.span("v"), "password"
        for m in _PASSWORD_PROMPT_RE.finditer(hay) if prompt else ():
            yield *m.span("v"), "password"
    for rx, head, g in _COMMANDS:
        cmd = rx.pattern[:5].rstrip("[")
        if not _has(text, low, cmd.lower(), cmd):
            continue  # each pattern starts with its command's literal
        for m in rx.finditer(text):
            if head.fullmatch(_line_head(text, m.start())) is None:
                continue
            s, e = m.span("v")
            v = text[s:e]
            if v.startswith('"') and v.endswith('"'):
                s, e, v = s + 1, e - 1, v[1:-1]
            if g == "auth" and v.upper() in ("PLAIN", "LOGIN", "CRAM-MD5", "XOAUTH2", "OK"):
                continue
            if (_redact._is_literal(v) and not _redact.MARKER_RE.search(v)
                    and not _redact.placeholder(v) and not v.startswith(("$", "%", "-"))
                    and (g != "auth" or any(c.isdigit() for c in v) or not v.isalpha())):
                yield s, e, "password"


# --------------------------------------------------------------------------- cookie jars

# Seven fields a line (domain, subdomains, path, secure, expiry, name, value), split by tabs
# or, once a transcript's condenser has collapsed them, by spaces.
_JAR_TAIL = (r"[ \t]+\S{1,1024}[ \t]+(?:TRUE|FALSE)[ \t]+\d{1,20}[ \t]+(?P<name>\S{1,256})"
             r"[ \t]+(?P<v>\S{6,4096})[ \t]*(?=\r?\n|\\n|\Z)")
_JAR_LINE_RES = (("TRUE", re.compile("TRUE" + _JAR_TAIL)),
                 ("FALSE", re.compile("FALSE" + _JAR_TAIL)))
_SESSION_NAME_RE = re.compile(r"sess|sid|auth|token|login|remember|jwt|csrf|xsrf|key|secret",
                              re.IGNORECASE)


def find_cookie_jar(text: str, low: str) -> Iterator[Span]:
    for m in (m for w, rx in _JAR_LINE_RES if _has(text, low, w.lower(), w)
              for m in rx.finditer(text)):
        v = m.group("v").rstrip("\r")
        if not _redact._is_literal(v) or _redact.MARKER_RE.search(v):
            continue
        if _SESSION_NAME_RE.search(m.group("name")) or _redact._looks_random(v):
            yield m.start("v"), m.start("v") + len(v), "cookie"


# The words the finders above need (most texts have none): looked up among the text's
# words (sorted once a text, shared by every finder), no scan of the text.
_NEEDS = ("plain", "ugfzc3dvcmq6", "login", "pass", "auth", "true", "false")


def find_protocol_secrets(text: str, low: str) -> Iterator[Span]:
    if not any(gitleaks.has_word(low, n) for n in _NEEDS):
        return  # (a cheap first look; each finder then asks for its own words)
    yield from find_protocol_logins(text, low)
    yield from find_cookie_jar(text, low)


FINDERS = (find_protocol_secrets,)
