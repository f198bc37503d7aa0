"""A password or a token given on any command line, by the shape of its flag, not by a
list of clients.

A table of thirty-odd clients and their flags (``layers._CLI_FLAGS``, this module's
predecessor) missed each fresh battery's clients it did not name. What every client's
password shares is its flag:

- a flag whose name says it carries a secret, in any client: ``--password``, ``--db-pass``,
  ``-storepass``, ``--oauth2-bearer``, ``--api-key``, ``--client-secret``, ``--auth-token``
  (not ``--password-file``, ``--token-ttl``, ``--secret-name``, ``--author``: a name that
  says the value is a reference, a setting or something else);
- a one-letter flag that clients use for it (``-p``, ``-P``, ``-w``, ``-W``, ``-a``, ``-k``)
  when its value has a credential's shape (not a port, a path, a word or a name);
- a user and a password in one value (``-u user:pw``, ``--user``, ``-A``, ``--creds``,
  Samba's ``-U 'user%pw'``), and after an auth subcommand (``addauth digest user:pw``);
- the last argument of a subcommand that makes a user or sets a password
  (``add_user NAME PW``, ``register NAME HOST PW``);
- Windows' ``/p:pw``, ``/pass:pw``, ``/password:pw`` and ``/RP pw`` beside ``/U``.

Each pattern starts at a "-" or a "/" (``re`` skips to it in C).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import bound, shapes
from reviewer.sanitize import redact as _redact
from reviewer.sanitize import syntax as _syntax

Span = tuple[int, int, str]


def _value(g: str) -> str:
    """A flag's value (groups ``<g>q`` and ``<g>v``): it ends at a space, a quote or the
    shell's ``|``, ``;``, ``&&``, ``& ``."""
    return rf"(?P<{g}q>[\"']?)(?!-)(?P<{g}v>(?:[^\s\"'`|;&<>]|&(?=[^&\s])){{3,256}})"


# Flags on a command line, in one pattern: it starts with its literal "-" (``re`` skips to
# it in C), then looks behind it (a flag starts a word), then tries in turn a user and a
# password in one value (``-u user:pw``, ``--creds``, Samba's ``-U 'user%pw'``), a flag
# whose name holds a word for a secret, and the one-letter flags clients use for it.
_FLAG_RE = re.compile(
    r"-(?<![^\s\"']-)(?:"
    r"(?:[uUaA]|-(?:user|username|creds|src-creds|dest-creds|auth|basic|proxy-user|login|"
    r"credentials?))(?:[ \t]*=[ \t]*|[ \t]+)(?P<uq>[\"']?)[\w.@\-\\]{1,64}[:%,]"
    r"(?P<up>[\"']?)(?P<uv>[^\s\"'`|;&<>]{3,128})"
    r"|-?(?P<nf>(?=[A-Za-z])[A-Za-z0-9_.\-]{0,40}?"
    r"(?i:pass|pwd|pw|secret|token|bearer|key|cred|auth|pin|otp)[A-Za-z0-9_.\-]{0,40})"
    r"(?:[ \t]*=[ \t]*|[ \t]+)" + _value("n")
    + r"|(?P<lf>[pPwWaAkKXt])(?:[ \t]*=[ \t]*|[ \t]+)?" + _value("l") + ")")
_SECRET_PART_RE = re.compile(
    r"pass|pwd|\Apw\Z|secret|token|bearer|apikey|\Akey\Z|cred|\Aauth|\Apin\Z|otp\Z")
# Words of a flag's name that say its value is not the secret itself.
_NOT_VALUE_PARTS = frozenset(_redact._words(
    "file path dir stdin env cmd command prompt helper type id name url uri endpoint length "
    "policy mode method mechanism source db database header ttl expiry expires expiration "
    "scope scopes audience provider plugin format keyid less no ask required reset change "
    "store manager server host port user username principal realm timeout retries count "
    "hash algo algorithm cipher level min max rotate rotation output out in fd from "
    "author authority authors authorized authorization authenticated location kind ref "
    "reference arn vault label description desc size bits curve usage field"
))
_WEAK_NAME_RE = re.compile(r"auth|key|pin|otp", re.IGNORECASE)  # also names of settings
_STRONG_NAME_RE = re.compile(r"token|secret|pass", re.IGNORECASE)
_PASSWORD_NAME_RE = re.compile(r"pass|pwd|pw", re.IGNORECASE)
# After an auth subcommand: ``zkCli addauth digest user:pw``, ``… login user:pw``.
_AUTH_WORD_RE = re.compile(
    r"(?:addauth|auth|login|credentials?)[ \t]+(?:[a-z]{2,12}[ \t]+)?"
    r"[\w.@\-]{1,64}:(?P<v>[^\s:@/\"'`]{3,128})(?=[\s\"'`]|\Z)")
_AUTH_WORDS = ("addauth", "auth", "login", "credential")
# A subcommand that makes a user or sets a password, then the user (and a host), then the
# password: ``rabbitmqctl add_user deploy pw``, ``… register alice example.org pw``.
_SETS_PASSWORD_RE = re.compile(
    r"(?:add[_\-]?user|change[_\-]?password|set[_\-]?password|register|user[ \t]+add|net[ \t]+user|"
    r"users?[ \t]+create|alias[ \t]+set)[ \t]+(?P<rest>[^\n|;&<>`]{1,400})")
_ARG_RE = re.compile(r"(?P<q>[\"']?)(?P<v>[^\s\"']{3,256})(?P=q)(?=[\s]|\Z)")
_MAX_ARGS = 4
# Every such subcommand holds one of these; it starts at most 7 characters before it
# ("change_password").
_SETS_PASSWORD_CORES = ("user", "password", "register", "alias")  # "net user": 4 back
_SETS_PASSWORD_BACK = 7
# Windows: /p:pw, /pass:pw, /password:pw, /TargetPassword:pw; /RP pw and /P pw beside /U.
_WIN_FLAG_RE = re.compile(
    r"/(?<![\w/\\.:]/)(?P<f>p|rp|pw|pwd|pass|passwd|password|[a-z]{1,24}password)"
    r"(?P<sep>:|[ \t]+)" + _value(""), re.IGNORECASE)
_WIN_USER_RE = re.compile(r"/(?<![\w/\\.:]/)(?:u|user|ru)(?::|[ \t]+)\S", re.IGNORECASE)

_HOST_RE = re.compile(r"[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}(?::\d+)?")
_PORTISH_RE = re.compile(r"[\d:.,\-]+(?:/(?:tcp|udp|sctp))?")
_LINE_END_RE = re.compile(r"\n|\\n|[|;&]")


def _literal(v: str, quoted: bool = False) -> bool:
    """A value given on the line: not a reference, a placeholder, a path or another flag
    (a quoted one may start with a sign: ``-p '@!S88…'``)."""
    lead = ("$", "{", "<", "/", "./", "~", "file:", "env:", "fd:") if quoted else (
        "$", "%", "{", "<", "-", "@", "/", "./", "~", "file:", "env:", "fd:")
    if (v.startswith(lead)
            or not _redact._is_literal(v) or _redact.MARKER_RE.search(v)
            or _redact.placeholder(v) or _redact._METAVAR_RE.match(v) or "://" in v):
        return False
    return not (_PORTISH_RE.fullmatch(v) or _HOST_RE.fullmatch(v))


_NAME_OF_WORDS_RE = re.compile(r"[A-Za-z][a-z]*(?:[\-_][A-Za-z][a-z]*)+")


def _word(v: str, password: bool = False) -> bool:
    """A word or a name of words, as a flag's argument in prose or a setting is
    (``--secret=stripe-webhook`` names a secret; ``--password amber-birch-cobalt`` may be one)."""
    if v.isalpha() and (v.islower() or v[1:].islower()):
        return True
    if _redact._IDENT_CHAIN_RE.match(v) and not any(c.isdigit() for c in v) and "_" not in v:
        return True
    return not password and _NAME_OF_WORDS_RE.fullmatch(v) is not None


def _mixed(v: str) -> bool:
    """Eight characters or more of three classes, as a person types or a generator makes
    ("#8cMlJGjYzzKt", "GdCfGbsb5q7"): not a name of words, not code."""
    lower, upper = any(c.islower() for c in v), any(c.isupper() for c in v)
    digit, sign = any(c.isdigit() for c in v), any(not c.isalnum() and c not in "-_." for c in v)
    if len(v) < 8 or lower + upper + digit + sign < 3 or any(c in v for c in "(){}[]/,="):
        return False
    return not (_redact._IDENT_CHAIN_RE.match(v) and not digit) and not _syntax.is_name(v)


def _credential_shape(v: str, signed: bool = False) -> bool:
    """A value that could only be a secret: typed or person-made (with a sign when
    ``signed``), or random."""
    if shapes.typed_password(v) or bound._shape(v) == "signed":
        return True
    if _mixed(v):
        return not signed or any(not c.isalnum() and c not in "-_." for c in v)
    return not signed and bool(_redact._looks_random(v) or shapes.random_token(v)
                               or bound._shape(v) is not None)


def _named_secret(flag: str) -> bool:
    parts = [p for p in re.split(r"[-_.]|(?<=[a-z])(?=[A-Z])", flag) if p]
    low = [p.lower() for p in parts]
    if any(p in _NOT_VALUE_PARTS for p in low):
        return False
    return any(_SECRET_PART_RE.search(p) for p in low) or bool(
        _SECRET_PART_RE.search(flag.lower().replace("-", "").replace("_", "")))


def _strip(m: re.Match[str], g: str = "") -> tuple[int, str]:
    """The value of group ``g + "v"``, without its closing quote or openssl's ``pass:``."""
    v = m.group(g + "v")
    q = m.group(g + "q")
    if q and v.endswith(q):
        v = v[:-1]
    if v.startswith("pass:"):  # openssl's "-passin pass:…"
        return m.start(g + "v") + 5, v[5:]
    return m.start(g + "v"), v


def _at_words(text: str, low: str, words: tuple[str, ...], rx: re.Pattern[str]
              ) -> Iterator[re.Match[str]]:
    """``rx`` tried where one of ``words`` starts a word (found by ``str.find``, in C: a
    pattern of alternatives has no literal for ``re`` to skip to)."""
    starts: set[int] = set()
    for w in words:
        at = low.find(w)
        while at >= 0:
            if at == 0 or not (low[at - 1].isalnum() or low[at - 1] in "_-"):
                starts.add(at)
            at = low.find(w, at + 1)
    for at in sorted(starts):
        m = rx.match(text, at)
        if m is not None:
            yield m


def _flag(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """The secret one ``_FLAG_RE`` match gives, if its value is one."""
    if m.group("uv") is not None:  # user and password
        s, v = _strip(m, "u")
        if m.group("up") and v.endswith(m.group("up")):
            v = v[:-1]
        ok = _literal(v, True) and not v.isdigit() and not _word(v)
    elif m.group("nf") is not None:  # a flag naming a secret
        name = m.group("nf")
        if not _named_secret(name):
            return None
        s, v = _strip(m, "n")
        strong = _WEAK_NAME_RE.search(name) is None or _STRONG_NAME_RE.search(name) is not None
        ok = (_literal(v, bool(m.group("nq")))
              and not _word(v, _PASSWORD_NAME_RE.search(name) is not None)
              and ((strong and "/" not in v) or _credential_shape(v)))
    else:  # a one-letter flag: its value must look like a credential
        s, v = _strip(m, "l")
        quoted = bool(m.group("lq"))
        bad = "(){}" if quoted else ":,=(){}"
        if not _literal(v, quoted) or any(c in v for c in bad):
            return None
        if "/" in v and not (quoted or shapes.typed_password(v)):
            return None  # a path, unless typed as a password ("-pPaBPrc/W8tRL&3lvN")
        if m.group("lf") == "t":  # a tag, a tty, a time, a title too: only a token
            ok = bool(_redact._looks_random(v) or shapes.random_token(v))
        else:  # a long bare -P: a public key too (minisign, signtool)
            ok = _credential_shape(v, signed=m.group("lf") == "P" and not quoted and len(v) >= 32)
    return (s, s + len(v)) if ok else None


def _sets_password(text: str, low: str) -> Iterator[re.Match[str]]:
    """``_SETS_PASSWORD_RE`` tried just before each "user", "password", "register", "alias"
    (``str.find`` scans, in C), where a word starts."""
    tried: set[int] = set()
    for core in _SETS_PASSWORD_CORES:
        at = low.find(core)
        while at >= 0:
            for start in range(max(0, at - _SETS_PASSWORD_BACK), at + 1):
                before = low[start - 1] if start else " "
                if start in tried or before.isalnum() or before in "_-":
                    continue
                tried.add(start)
                m = _SETS_PASSWORD_RE.match(text, start)
                if m is not None:
                    yield m
            at = low.find(core, at + 1)


def _set_password(m: re.Match[str]) -> tuple[int, int] | None:
    """The password among a user-making subcommand's arguments: the first after the
    user's name that is not a word, a host, a URL, a path or a flag."""
    args = list(_ARG_RE.finditer(m.string, m.start("rest"), m.end("rest")))[:_MAX_ARGS]
    for a in args[1:]:
        v = a.group("v")
        if a.group("v").startswith("-"):
            return None  # flags follow: the command reads its password elsewhere
        if _literal(v, bool(a.group("q"))) and not _word(v) and (
                _credential_shape(v) or (any(c.isdigit() for c in v) and len(v) >= 6)):
            return a.span("v")
    return None


def find_flag_secrets(text: str, low: str) -> Iterator[Span]:
    if "-" in text:
        for m in _FLAG_RE.finditer(text):
            span = _flag(text, m)
            if span is not None:
                yield *span, "cli-password"
    if "/p" in low or "/rp" in low or "password" in low:  # every Windows flag below holds one
        for m in _WIN_FLAG_RE.finditer(text):
            s, v = _strip(m)
            if not _literal(v) or _word(v):
                continue
            if m.group("sep") != ":" or m.group("f").lower() in ("p", "rp"):
                ls = max(text.rfind("\n", 0, m.start()), 0)
                stop = _LINE_END_RE.search(text, m.end())
                line = text[ls : stop.start() if stop else len(text)]
                if _WIN_USER_RE.search(line) is None:
                    continue  # "/p x" alone: a path's piece, not schtasks' password
            yield s, s + len(v), "cli-password"
    for m in _sets_password(text, low):
        span = _set_password(m)
        if span is not None:
            yield *span, "cli-password"
    if ":" in text and ("auth" in low or "login" in low or "credential" in low):
        for m in _at_words(text, low, _AUTH_WORDS, _AUTH_WORD_RE):
            v = m.group("v")
            if _literal(v) and not v.isdigit() and not _word(v):
                yield *m.span("v"), "cli-password"


FINDERS = (find_flag_secrets,)
