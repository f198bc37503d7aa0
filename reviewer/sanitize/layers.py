"""Context layers the full detector adds to ``redact``'s (``reviewer.sanitize.detect``).

Each finder takes ``(text, text.lower())`` and yields ``(start, end, kind)`` spans, like
redact's own; they run only in a process that imported ``detect`` (never a hook).

- base64 wrapped over lines (a PEM, a .env or a kubeconfig encoded and wrapped at 64 or
  76 columns, in YAML, a quoted string list or a Read's numbered lines): the lines are
  joined and decoded as one run, and hidden whole when what they decode to holds a
  secret; each line alone decodes to garbage, so a per-run rule misses all but the first.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterator

from reviewer.sanitize import gitleaks
from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# One line of a wrapped base64 block: optional indentation, quote marks, a Read line
# number, list dashes; then only base64 characters.
_B64_LINE_RE = re.compile(
    r"[ \t>\-]*(?:\d+→)?[ \t]*[\"'`]?(?P<b>[A-Za-z0-9+/]{16,}={0,2})[\"'`]?[ \t,+;\\]*"
)
_LINE_BREAK_RE = re.compile(r"\r?\n|\\r\\n|\\n")
_MAX_BLOCK = 256 * 1024
_MIN_LINES = 2


def _lines(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    for m in _LINE_BREAK_RE.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


def _decodes_to_secret(body: str) -> bool:
    body = body.rstrip("=")
    if len(body) % 4 == 1:
        return False
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if "PRIVATE KEY" in decoded:
        return True
    return _redact.redact(decoded) != decoded


def find_wrapped_base64(text: str, low: str) -> Iterator[Span]:
    """Runs of two or more lines of base64, decoded together."""
    if "\n" not in text and "\\n" not in text:
        return
    run: list[tuple[int, int, str]] = []  # (start, end, base64) of each line of the run

    def flush() -> Iterator[Span]:
        if len(run) >= _MIN_LINES:
            body = "".join(b for _, _, b in run)
            if len(body) <= _MAX_BLOCK and _decodes_to_secret(body):
                yield run[0][0], run[-1][1], "base64-secret"
        run.clear()

    for s, e in _lines(text):
        m = _B64_LINE_RE.fullmatch(text, s, e)
        if m is None:
            yield from flush()
            continue
        b = m.group("b")
        if run and len(run[-1][2]) < len(b):
            yield from flush()  # a shorter line ends a block: this one starts another
        run.append((m.start("b"), m.end("b"), b))
        if b.endswith("="):
            yield from flush()
    yield from flush()


# --------------------------------------------------------------------------- nearby words

# Words that say a credential is near, in any phrasing and word order ("I changed the
# staging password to …", "Das Passwort ist jetzt …", "パスワードは … です", "creds are
# admin / …"): redact's phrase rule wants a verb right after the word; this one takes a
# strong password (a digit and a capital or a sign, 8+ characters) within a few words.
_NEAR_WORDS = (
    *_redact._PASSWORD_WORDS, "creds", "credentials", "credential", "login", "passwd",
    "pass", "pw", "pin", "passphrase", "secret", "token", "api key", "apikey", "access key",
    "wachtwoord", "lozinka", "geslo", "jelszó", "parool", "slaptažodis", "parole",
    "password", "zugangsdaten", "identifiants", "credenciales", "credenziali",
)
_NEAR_TOKENS = 6
_NEAR_CHARS = 120
_PIECE_RE = re.compile(r"[^\s\\\"'`“”«»„<>()（）「」『』：，、。;]+")
_EOL_RE = re.compile(r"\n|\\n")
_TRIM = ".,;:!?)]}"
_KWARG_RE = re.compile(r"[A-Za-z_][\w.\-]*=")
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


@functools.cache
def _near_words_re() -> re.Pattern[str]:
    words = sorted({w.lower() for w in _NEAR_WORDS}, key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in words))


def find_password_nearby(text: str, low: str) -> Iterator[Span]:
    """A strong password within a few words after (or just before) a password word."""
    for m in _near_words_re().finditer(low):
        w = m.group()
        if w.isascii() and (
            (m.start() > 0 and low[m.start() - 1].isalpha())
            or (m.end() < len(low) and low[m.end()] in _IDENT)
        ):
            continue  # part of a longer word or name ("compass", "PASSWORD_MIN_LENGTH")
        after = text[m.end() : m.end() + _NEAR_CHARS]
        cut = _EOL_RE.search(after)
        if cut is not None:
            after = after[: cut.start()]  # a password word speaks for its own line only
        for n, p in enumerate(_PIECE_RE.finditer(after)):
            if n >= _NEAR_TOKENS:
                break
            v = p.group()
            lead = len(v) - len(v.lstrip("=:-—>"))
            v = v[lead:]
            while v and v[-1] in _TRIM:
                v = v[:-1]
            if _KWARG_RE.match(v) or "://" in v or "@" in v or v.startswith("AAAA"):
                continue  # a URL (its own rule hides its password), a public key
            if _redact._password_like(v) and _redact._strong_password(v):
                s = m.end() + p.start() + lead
                yield s, s + len(v), "password"


# --------------------------------------------------------------------------- code and config

# A key that names a secret, then a quoted literal: ``os.environ["DB_PASSWORD"] = "…"``,
# ``ENV['SECRET_KEY'] = '…'``, ``System.setProperty("db.password", "…")``,
# ``$env:API_KEY = "…"``, ``config.secret_key = "…"``, ``client(api_key="…")``, ``{"token":
# "…"}``. Found from the secret word, walked out to the whole key, then the tail.
_SECRET_WORD_RE = re.compile(r"pass|pwd|secret|token|key|auth|cred|pin|signature|cookie")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_ASSIGN_TAIL_RE = re.compile(
    r"(?P<kq>[\"'`]?)[ \t]*\]?[ \t]*\)?[ \t]*(?:=|:=|=>|->|,|:|\+=|\?\?=|\|\|=)[ \t]*"
    r"(?:[rbuRBU]|@|new[ \t]+String\()?(?P<q>[\"'`])(?P<v>[^\"'`\n]{1,400})(?P=q)"
)


def _value_ok(key: str, value: str) -> str | None:
    """The marker kind if ``value`` under ``key`` is a secret (redact's judgement)."""
    strength = _redact._key_strength(key)
    if strength is None or not _redact._is_literal(value) or _redact.MARKER_RE.search(value):
        return None
    if strength == "password":
        if _redact._IDENT_CHAIN_RE.match(value) and not any(c.isdigit() for c in value):
            return None  # a name ("password = db_password") rather than a password
        return _redact._refine(key, "secret-assignment")
    if strength == "strong":
        return None if _redact._not_a_token(value) else _redact._refine(key, "secret-assignment")
    return _redact._refine(key, "high-entropy") if _redact._looks_random(value) else None


def find_code_assignments(text: str, low: str) -> Iterator[Span]:
    done = 0
    for m in _SECRET_WORD_RE.finditer(low):
        if m.start() < done:
            continue
        ks, ke = m.start(), m.end()
        while ks > 0 and low[ks - 1] in _KEY_CHARS:
            ks -= 1
        while ke < len(low) and low[ke] in _KEY_CHARS:
            ke += 1
        t = _ASSIGN_TAIL_RE.match(text, ke)
        if t is None:
            continue
        key = text[ks:ke].strip(".-")
        kind = _value_ok(key, t.group("v"))
        done = t.end()
        if kind is not None:
            yield *t.span("v"), kind


# XML and .config files: ``<password>…</password>``, ``<add key="DbPassword" value="…"/>``,
# ``<property name="password" value="…"/>``, ``<entry key="api.token">…</entry>``.
_XML_ELEMENT_RE = re.compile(r"<(?P<tag>[A-Za-z_][\w.:\-]{0,80})(?:[ \t][^<>]{0,200})?>"
                             r"(?P<v>[^<>\n]{1,400})</(?P=tag)>")
_XML_NAMED_RE = re.compile(
    r"(?:key|name|id)[ \t]*=[ \t]*(?P<q1>[\"'])(?P<k>[^\"'<>]{1,120})(?P=q1)[ \t]+"
    r"(?:value|content)[ \t]*=[ \t]*(?P<q2>[\"'])(?P<v>[^\"'<>]{1,400})(?P=q2)"
)
_XML_NAMED_TEXT_RE = re.compile(
    r"(?:key|name)[ \t]*=[ \t]*(?P<q1>[\"'])(?P<k>[^\"'<>]{1,120})(?P=q1)[^<>]{0,100}>"
    r"(?P<v>[^<>\n]{1,400})</"
)


def find_xml_values(text: str, low: str) -> Iterator[Span]:
    if "<" not in text:
        return
    for m in _XML_ELEMENT_RE.finditer(text):
        tag = m.group("tag").rsplit(":", 1)[-1]
        kind = _value_ok(tag, m.group("v").strip())
        if kind is not None:
            yield *m.span("v"), kind
    if "=" not in text:
        return
    for rx in (_XML_NAMED_RE, _XML_NAMED_TEXT_RE):
        for m in rx.finditer(text):
            kind = _value_ok(m.group("k"), m.group("v").strip())
            if kind is not None:
                yield *m.span("v"), kind


# --------------------------------------------------------------------------- CLI flags

# Password flags of common command-line clients, each only on its own command's line:
# (commands, flags). A flag's value may be glued (``-pSECRET``), after ``=`` or a space.
_CLI_FLAGS: tuple[tuple[str, str], ...] = (
    ("sqlcmd|bcp|osql|isql", "-P"),
    ("ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd|ldapcompare", "-w"),
    ("mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop",
     "-p|--password"),
    ("mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump", "--password"),
    ("az", "-p|--password|--secret|--client-secret"),
    ("openssl", "-passin|-passout|-pass|-k|-password"),
    ("keytool|jarsigner", "-storepass|-keypass|-srcstorepass|-deststorepass|-srckeypass"
     "|-destkeypass"),
    ("wget", "--password|--http-password|--ftp-password|--proxy-password"),
    ("helm", "--password|-p"),
    ("docker|podman|buildah|skopeo|nerdctl|crane|oras|regctl", "--password|-p"),
    ("cqlsh", "-p|--password"),
    ("influx", "-password|--password|-t|--token"),
    ("zip|7z|7za|unzip|rar|unrar", "-P|-p"),
    ("useradd|usermod", "-p|--password"),
    ("rabbitmqctl", "add_user [^ \t]+|change_password [^ \t]+"),
    ("redis-cli|valkey-cli|keydb-cli", "-a|--pass|--askpass|--user [^ \t]+ --pass"),
    ("psql|pg_dump|pg_restore", "--password"),
    ("lftp", "-u [^ \t,]+,"),
    ("rclone", "--password|--pass"),
    ("vault", "login"),
    ("snowsql|sf", "-p|--password"),
    ("gh|glab", "--token|-t"),
    ("npm|yarn|pnpm", "--_authToken|--otp"),
    ("twine", "-p|--password"),
    ("ftp|ncftp|smbclient|rdesktop|xfreerdp", "-p|/p:|--password"),
    ("java", "-Djavax.net.ssl.keyStorePassword|-Djavax.net.ssl.trustStorePassword"),
    ("sshpass", "-p"),
    ("kinit|curl", "--password|--pass"),
    ("mc", "alias set [^ \t]+ [^ \t]+ [^ \t]+"),
    ("ansible|ansible-playbook", "--extra-vars [\"']?ansible_(?:become_)?password="),
    ("net", "user [^ \t]+"),
)
_CMD_END = r"[^\n|;&]*?"
_CLI_VALUE = r"(?:[ \t]*=[ \t]*|[ \t]+|(?<=-p)|(?<=-P)|(?<=/p:)|(?<=pass:)|(?<=,))"


@functools.cache
def _cli_res() -> tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]:
    out = []
    for cmds, flags in _CLI_FLAGS:
        rx = re.compile(
            r"(?:" + cmds + r")(?:\.exe)?(?=[ \t])" + _CMD_END
            + r"[ \t](?:" + flags + r")" + _CLI_VALUE
            + r"(?:pass:|env:|file:)?[\"']?(?P<v>[^\s\"'`|;&]{3,256})"
        )
        out.append((tuple(cmds.split("|")), rx))
    return tuple(out)


_CMD_LEFT = frozenset(" \t\n/|;&(`$\"'>")


def _at_commands(text: str, low: str, cmds: tuple[str, ...], rx: re.Pattern[str]
                 ) -> Iterator[re.Match[str]]:
    """``rx`` tried where one of ``cmds`` starts a word (found by ``str.find``: the
    pattern has no literal prefix, which ``re`` would try at every position)."""
    starts = set()
    heads = gitleaks.word_starts(low)
    for c in cmds:
        if c[:2].isalnum() and c[:2] not in heads:
            continue  # no word of the text starts like this command
        at = low.find(c)
        while at >= 0:
            if at == 0 or low[at - 1] in _CMD_LEFT or low[at - 2 : at] == "\\n":
                starts.add(at)
            at = low.find(c, at + 1)
    end = 0
    for at in sorted(starts):
        if at < end:
            continue
        m = rx.match(text, at)
        if m is not None:
            end = m.end()
            yield m


def find_cli_flags(text: str, low: str) -> Iterator[Span]:
    for cmds, rx in _cli_res():
        for m in _at_commands(text, low, cmds, rx):
            v = m.group("v")
            start = m.start("v")
            if text[start - 5 : start] == "file:" or text[start - 4 : start] == "env:":
                continue  # a file or variable that holds it, not the value
            if v.startswith("-") or not _redact._is_literal(v) or _redact.MARKER_RE.search(v):
                continue
            if _redact._METAVAR_RE.match(v) or v.startswith(("$", "%")):
                continue
            yield *m.span("v"), "cli-password"


FINDERS = (find_wrapped_base64, find_password_nearby, find_code_assignments, find_xml_values,
           find_cli_flags)
