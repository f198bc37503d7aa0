"""A credential given to a command as its argument after an auth subcommand.

``snyk auth <token>``, ``fly auth token <t>``, ``<tool> login <token>``, ``<tool> config
set api=<token>``, ``<tool> token set <t>``: no flag or key names the value, the
subcommand does. The value must look generated (a UUID counts here: many services hand
out UUIDs as tokens), never a word, a path, a URL or another flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import redact as _redact
from reviewer.sanitize import shapes as _shapes

Span = tuple[int, int, str]

_AUTH_ARG_RE = re.compile(
    r"(?<![\w\-./])[a-z][\w\-]{1,30}[ \t]+"
    r"(?:auth(?:[ \t]+(?:login|token|set|add))?|login|authenticate|token[ \t]+(?:set|add)"
    r"|config[ \t]+set[ \t]+[\w\-.]*(?:api|token|auth|key|secret)[\w\-.]*[= \t])"
    r"[ \t]*(?P<v>[A-Za-z0-9][A-Za-z0-9_\-+/=.~]{15,255})(?=[\s'\"`|;&)]|\Z)"
)


def _generated(v: str) -> bool:
    if "/" in v and not v.endswith("="):
        return False  # a path
    return _shapes.generated(v)


def find_auth_arguments(text: str, low: str) -> Iterator[Span]:
    if "auth" not in low and "login" not in low and " set " not in low:
        return
    for m in _AUTH_ARG_RE.finditer(text):
        v = m.group("v")
        if _generated(v) and not _redact.placeholder(v):
            yield *m.span("v"), "secret-value"


# curl's ``user = "name:password"`` (``.curlrc``, ``-K`` files), ``proxy-user``, a config's
# ``basic_auth: name:password``: the option takes both halves, the second is the secret.
_USER_OPTION_RE = re.compile(
    r"(?:user|proxy-user|userpwd|basic[_\-]?auth|userinfo)[\"']?[ \t]*[=:][ \t]*"
    r"[\"']?[^\s:\"'@/]{1,64}:(?P<p>[^\s\"'@]{4,128}?)[\"']?(?=[ \t]*(?:$|[\n,;#]))",
    re.MULTILINE)


def find_user_options(text: str, low: str) -> Iterator[Span]:
    if "user" not in low and "auth" not in low:
        return
    for m in _USER_OPTION_RE.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_-"):
            continue  # "superuser:", "max_user=": another name (checked here: a leading
            # look-behind would cost the regex its fast skip to the first letters)
        p = m.group("p")
        if p.isdigit() or _redact.placeholder(p) or _redact.MARKER_RE.search(p):
            continue  # "host:8080", "user:${PASS}", "user:****"
        if not _redact._is_literal(p):
            continue
        if _redact._password_like(p) or _redact._looks_random(p) or _redact._random_letters(p):
            yield *m.span("p"), "password"


FINDERS = (find_auth_arguments, find_user_options)
