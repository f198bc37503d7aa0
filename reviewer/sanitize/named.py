"""Secrets named by what surrounds them, in shapes the other layers do not read.

Each finder takes ``(text, text.lower())`` and yields ``(start, end, kind)`` spans, like
redact's own; ``reviewer.sanitize.detect`` registers them (never a hook's path).

- **A service's name as the key word** ("Linode: 7300…", "the Infura one is 3c85…",
  "`SparkPost` → 756d…"): a token-like value right after the name of a service that
  issues API keys. The names are gitleaks' own (its rule ids and keywords, loaded as data
  from ``gitleaks/rules.json``), so the list grows when the rule set is updated.
- **Name and value given apart**: a field that names a secret, then the field that holds
  its value, in the formats that split them (a Kubernetes or ECS ``env`` list's
  ``name:``/``value:``, CloudFormation's ``ParameterKey``/``ParameterValue``, a plist's
  ``<key>Password</key><string>…</string>``, a CLI's ``--name db-password --value …``,
  ``secret set NAME --body …``, ``--from-literal=password=…``).
- **URL fragments**: an OAuth implicit flow's ``#access_token=…`` and kin, by the same
  parameter names the query layer knows.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from types import ModuleType

from reviewer.sanitize import gitleaks, layers
from reviewer.sanitize import redact as _redact
from reviewer.sanitize import syntax as _syntax

Span = tuple[int, int, str]

# --------------------------------------------------------------------------- service names

# gitleaks rule ids that do not name a service, and names that are ordinary words first.
_NOT_SERVICES = frozenset(_redact._words(
    "generic private curl jwt new defined age linear square plaid lob notion vault harness "
    "readme kubernetes pkcs12 sidekiq looker beamer microsoft authress intra42 settlemint "
    "finicity freemius gitter kraken etsy cisco adobe twitter facebook google gcp aws azure "
    "github gitlab slack npm nuget pypi rubygems docker heroku render together teams "
    "replicate resend fireworks octopus neon prefect sonar cmvmd dnkey eyjrijoi telegr"
))
_SERVICE_WORD_RE = re.compile(r"[a-z][a-z0-9]{3,20}\Z")


@functools.cache
def service_names() -> tuple[str, ...]:
    """Names of services that issue API keys: the first word of each gitleaks rule id and
    its keywords that are names (``mailchimp``, ``launchdarkly``...), and the providers
    our own table names (``reviewer/sanitize/providers.py``). The biggest platforms are
    left out: their names fill ordinary text about code, and their keys carry prefixes
    gitleaks' rules find."""
    from reviewer.sanitize import providers

    names: set[str] = set()
    try:
        rules = json.loads(gitleaks.RULES_FILE.read_text(encoding="utf-8"))["rules"]
    except (OSError, ValueError, KeyError):
        rules = []
    for rule in rules:
        names.add(str(rule.get("id", "")).split("-", 1)[0])
        names.update(str(k).lower() for k in rule.get("keywords") or () if len(str(k)) >= 5)
    names.update(kind.split("-", 1)[0] for kind, _ in providers.PREFIXED)
    names.update(n for needles, _ in providers.NAMED for n in needles if len(n) >= 5)
    return tuple(sorted(n for n in names if _SERVICE_WORD_RE.match(n) and n.isalpha()
                        and n not in _NOT_SERVICES and n not in _GENERIC))


# Gitleaks keywords that are words for a secret, not a service's name.
_GENERIC = frozenset(_redact._words(
    "access auth credential creds password passwd secret token incomingwebhook intra"
))


_HEX_DIGEST_LENGTHS = frozenset({40, 64, 128})
_HOSTISH_RE = re.compile(r"[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[a-z]{2,24}(?:[:/][^\s]*)?")
_DIGEST_WORDS_RE = re.compile(
    r"commit|sha|hash|digest|checksum|revision|\brev\b|build|release|version|image")
_SERVICE_REACH = 4  # words after the name


def _service_value(v: str, line_low: str) -> bool:
    """A key a service issued: token-like, not an object id (``cus_…``), a UUID (request
    ids), nor a commit or digest in hex beside a word saying so."""
    if not layers._near_token(v) or _redact._UUID_RE.match(v) or _HOSTISH_RE.fullmatch(v):
        return False  # a host or a URL's host and path ("o123.ingest.example.io/78")
    from reviewer.sanitize import shapes

    if shapes._PUBLIC_ID_RE.match(v):
        return False
    return not (_redact._HEX_RE.match(v) and (len(v) < 20 or (
        len(v) in _HEX_DIGEST_LENGTHS and _DIGEST_WORDS_RE.search(line_low))))


# A product's name as a label: "SparkPost: 756d…", "Pusher → b7be…", "Typesense = 7WHE…".
_LABEL_BEFORE_RE = re.compile(r"(?<![\w./\-])(?P<w>[A-Z][A-Za-z0-9]{2,24})\**`?[ \t]*"
                              r"(?::|=|->|→|=>)[ \t]*[`\"'*]*\Z")
# Labels that name an id, a digest or a place, not a credential.
_NOT_LABELS = frozenset(_redact._words(
    "commit sha hash build request trace id etag version ref run job image digest checksum "
    "nonce uuid date time node pod container host instance subnet vpc cluster region "
    "account user tenant org project item order invoice transaction payment customer "
    "message thread file document sheet video channel guild issue ticket branch tag "
    "release note fingerprint signature integrity revision session correlation span "
    "parent object record row event key public publickey pubkey address wallet txid tx "
    "block hex base64 output result status error warning info debug name path url uri"
))
_ID_WORDS = frozenset(_redact._words("sid sids ids list index instance app space workspace"))
_CANDIDATE_RE = re.compile(r"(?<![A-Za-z0-9_\-+/=.~])[A-Za-z0-9_\-+/=.~]{12,256}")
_LABEL_MARK_RE = re.compile(r"[:=→>]")
_BETWEEN_RE = re.compile(r"[\s`*\"'“”:=→>\-]+")
_LOOK_BACK = 100


@functools.cache
def _service_set() -> frozenset[str]:
    return frozenset(service_names())


_WORD_RE = re.compile(r"[a-z0-9_]+")


def _label_ok(w: str) -> bool:
    return w.lower() not in _NOT_LABELS and not (w.isupper() and len(w) <= 4)


_HAS_DIGIT = re.compile(r"\d").search
_HAS_LETTER = re.compile(r"[A-Za-z]").search


@functools.lru_cache(maxsize=4)
def _services_in(low: str) -> tuple[str, ...]:
    names = _service_set()
    return tuple(w for w in gitleaks.words(low) if w in names)


def _label_value(v: str, shapes: ModuleType) -> bool:
    """What a label's value must be below (long, letters and digits, generated or hex)."""
    return (len(v) >= 16 and _HAS_DIGIT(v) is not None and _HAS_LETTER(v) is not None
            and (shapes.random_token(v) or (_redact._HEX_RE.match(v) is not None
                                            and len(v) >= 20)))


def find_named_tokens(text: str, low: str) -> Iterator[Span]:
    """A token-like value with a service's name a few words before it ("the Infura one
    is 3c85…"), or a random one labelled by any product's name ("Ably: nEmtq1…"). Found
    from the values (few in a text), then the words before each are read."""
    from reviewer.sanitize import shapes

    names = _service_set()
    present = _services_in(low)  # the names this text holds: most hold none
    if not present and len(text) >= gitleaks._TOKENS_MIN_TEXT and not any(
            _label_value(c.group().rstrip(".-~="), shapes)
            for c in _CANDIDATE_RE.finditer(gitleaks.distinct_tokens(text))):
        return  # no service named, and no value a label could give (each token asked once)
    for c in _CANDIDATE_RE.finditer(text):
        v = c.group().rstrip(".-~=")
        if (not present and len(v) < 16) or _HAS_DIGIT(v) is None or _HAS_LETTER(v) is None:
            continue  # no service named in the text, and too short for a label's value
        s = c.start()
        lo = max(0, s - _LOOK_BACK)
        ls = max(lo, text.rfind("\n", lo, s) + 1)
        esc = text.rfind("\\n", ls, s)
        if esc >= 0:
            ls = esc + 2
        before_low = low[ls:s]
        label = None
        if len(v) >= 16 and _LABEL_MARK_RE.search(text, max(ls, s - 12), s) is not None:
            label = _LABEL_BEFORE_RE.search(text, ls, s)
        named = None
        if present and any(n in before_low for n in present):
            for m in _WORD_RE.finditer(before_low):
                if m.group() in names and before_low[m.end() : m.end() + 1] not in (".", "/"):
                    named = m
        if (label is None and named is None) or "enc[" in before_low or not _service_value(
                v, before_low):  # "… lol dont commit it": a word after it says nothing
            continue  # the words before say nothing (most values), or not a key's shape
        if (label is not None and _label_ok(label.group("w"))
                and (shapes.random_token(v) or (_redact._HEX_RE.match(v) and len(v) >= 20))
                and not shapes._public_material(text, s, v)):
            yield s, s + len(v), "secret-value"
            continue
        if named is None:
            continue
        between = [p for p in _BETWEEN_RE.split(before_low[named.end():]) if p]
        if len(between) >= _SERVICE_REACH or any(
                p in _NOT_LABELS or p in _ID_WORDS for p in between):
            continue  # too far, or "Twilio SID AC…": an id the name is about
        yield s, s + len(v), "secret-value"


# --------------------------------------------------------------------------- name, then value

# A field naming a secret, then (within a few lines) the field holding its value.
_PAIR_RE = re.compile(
    r"(?P<nf>name|key|parameterkey|variable|env_?name|secretname|secret_?key_?name)"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>[A-Za-z_][\w.\-/]{1,80})[\"']?"
    r"(?P<gap>[^\n]{0,80}(?:\n[^\n]{0,120}){0,2}?)"
    r"(?:value|parametervalue|secretstring|secret_?value)[\"']?[ \t]*[:=][ \t]*"
    r"(?P<q>[\"'`]?)(?P<v>[^\s\"'`,}\]]{3,512})",
    re.IGNORECASE,
)
# A plist or XML dictionary: ``<key>Password</key>`` then ``<string>…</string>``.
_PLIST_RE = re.compile(
    r"<key>[ \t]*(?P<name>[^<>\n]{1,80}?)[ \t]*</key>\s{0,40}<(?P<t>string|data)>"
    r"(?P<v>[^<>\n]{3,512})</(?P=t)>"
)
# Command lines: ``--name db-password … --value …``, ``secret set NAME … --body …``,
# ``--from-literal=password=…``, ``--secret-string …``.
_CLI_PAIR_RE = re.compile(
    r"(?:--name|--key|--secret-name|secrets?[ \t]+(?:set|create|add|put))[ \t=]+[\"']?"
    r"(?P<name>[A-Za-z_][\w.\-/]{1,80})[\"']?[^\n|;&]{0,160}?"
    r"(?:--value|--body|--secret-string|--secret-value|--data|-b)[ \t=]+"
    r"(?P<q>[\"']?)(?P<v>[^\s\"'|;&]{3,512})"
)
# A command that stores its value as a secret, whatever the name: SSM's ``--type
# SecureString … --value …``, Secrets Manager's ``--secret-string …``.
_STORED_SECRET_RE = re.compile(
    r"(?:--type[ \t=]+SecureString\b[^\n|;&]{0,200}?--value|--secret-string)[ \t=]+"
    r"[\"']?(?P<v>[^\s\"'|;&]{3,512})"
    r"|--value[ \t=]+[\"']?(?P<w>[^\s\"'|;&]{3,512})(?=[^\n|;&]{0,200}?--type[ \t=]+SecureString)")
# PowerShell: ``ConvertTo-SecureString 'value' -AsPlainText``: a literal made a secret.
_SECURE_STRING_RE = re.compile(
    r"ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?(?P<q>[\"'])(?P<v>[^\"'\n]{3,256})(?P=q)",
    re.IGNORECASE)
_LITERAL_RE = re.compile(r"--from-literal=(?P<name>[\w.\-]{1,80})=(?P<q>[\"']?)"
                         r"(?P<v>[^\s\"'|;&]{3,512})")


def _named_value(name: str, v: str) -> bool:
    """``v`` is the value of a secret called ``name`` (the assignment rule's judgement)."""
    leaf = re.split(r"[/.]", name)[-1] or name
    strength = _redact._key_strength(leaf) or _redact._key_strength(name.replace("-", "_"))
    if strength is None and _syntax.credential_name(leaf):
        strength = "weak"  # "sessionid", "_sid": the value must look generated
    if strength is None or not _redact._is_literal(v) or _redact.MARKER_RE.search(v):
        return False
    if _redact.placeholder(v) or v.startswith(("$", "{{", "%", "!Ref", "arn:")):
        return False
    if strength == "password":
        return not (_redact._IDENT_CHAIN_RE.match(v) and not any(c.isdigit() for c in v))
    if strength == "strong":
        return not _redact._not_a_token(v)
    return _redact._looks_random(v)


_PAIR_GATE_RE = re.compile(r"(?:name|key|variable)[\"']?[ \t]*[:=][ \t]*[\"']?[\w.\-/]{0,60}?"
                           r"(?:pass|pwd|secret|token|key|cred|auth|pin|sess)")


# Where a pair can stand: its value's word (each holds "value" or "secretstring") lies at
# most 422 characters after the pair's start and its value ends 529 after that word, plus
# the blanks around its two signs (each run under 50, else every place is tried).
_VALUE_WORD_RE = re.compile(r"value|secretstring", re.IGNORECASE)
_LONG_BLANK_RE = re.compile(r"[ \t]{50}")
_PAIR_BEFORE, _PAIR_AFTER = 422 + 100 + 8, 529 + 100 + 8


def _pairs(text: str) -> Iterator[re.Match[str]]:
    """``_PAIR_RE.finditer(text)``, tried only around the words a value follows: on a long
    text every "name" and "key" made the pattern try ~300 gap lengths for a "value"."""
    if _LONG_BLANK_RE.search(text):
        yield from _PAIR_RE.finditer(text)
        return
    spans: list[list[int]] = []
    for w in _VALUE_WORD_RE.finditer(text):
        lo, hi = max(0, w.start() - _PAIR_BEFORE), w.end() + _PAIR_AFTER
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = hi
        else:
            spans.append([lo, hi])
    done = 0
    for lo, hi in spans:
        for m in _PAIR_RE.finditer(text, max(lo, done), min(hi, len(text))):
            done = m.end()
            yield m


def find_named_pairs(text: str, low: str) -> Iterator[Span]:
    if ("value" in low or "secretstring" in low) and _PAIR_GATE_RE.search(low) is not None:
        for m in _pairs(text):
            if _named_value(m.group("name"), m.group("v").rstrip(".;")):
                yield m.start("v"), m.start("v") + len(m.group("v").rstrip(".;")), \
                    "secret-assignment"
    if "<key>" in text:
        for m in _PLIST_RE.finditer(text):
            if _named_value(m.group("name").strip(), m.group("v").strip()):
                yield *m.span("v"), "secret-assignment"
    if "--name" in text or "--key" in text or "--secret-name" in text or "secret" in text:
        for m in _CLI_PAIR_RE.finditer(text):  # (the regex needs one of these words)
            if _named_value(m.group("name"), m.group("v")):
                yield *m.span("v"), "cli-password"
    if "securestring" in low:
        for m in _SECURE_STRING_RE.finditer(text):
            if _redact._is_literal(m.group("v")) and not _redact.placeholder(m.group("v")):
                yield *m.span("v"), "cli-password"
    if "SecureString" in text or "secretsmanager" in low:
        for m in _STORED_SECRET_RE.finditer(text):
            g = "v" if m.group("v") is not None else "w"
            v = m.group(g)
            if _redact._is_literal(v) and not _redact.placeholder(v) and not v.startswith(
                    ("$", "file://", "fileb://")):
                yield *m.span(g), "cli-password"
    if "--from-literal" in text:
        for m in _LITERAL_RE.finditer(text):
            if _named_value(m.group("name"), m.group("v")):
                yield *m.span("v"), "secret-assignment"


# --------------------------------------------------------------------------- URL fragments

_FRAGMENT_RE = re.compile(r"#(?P<k>[A-Za-z][\w.\-]{0,40})=(?P<v>[^&#\s\"'<>\\]{6,2048})")


# ``https://send.example.com/#<id>/<key>``: a URL's fragment is never sent to its server,
# so apps put the key that opens a shared item there; an anchor is made of words.
_FRAGMENT_KEY_RE = re.compile(
    r"://[^\s#\"'<>]{1,300}#!?(?P<v>[A-Za-z0-9_\-]{16,128}(?:[/!][A-Za-z0-9_\-]{8,128}){0,3})"
    r"(?![A-Za-z0-9_\-/=&])")


def _mixed(v: str) -> bool:
    """Capitals, small letters and digits, as generators write; an anchor is words."""
    return (any(c.isupper() for c in v) and any(c.islower() for c in v)
            and any(c.isdigit() for c in v) and not _syntax.is_name(v))


def find_fragment_secrets(text: str, low: str) -> Iterator[Span]:
    if "#" not in text:
        return
    if "://" in text:
        for m in _FRAGMENT_KEY_RE.finditer(text):
            pieces = re.split(r"[/!]", m.group("v"))
            if any(_redact._looks_random(p) and _mixed(p) for p in pieces):
                yield *m.span("v"), "url-secret"
    if "=" not in text:
        return
    for m in _FRAGMENT_RE.finditer(text):
        k, v = m.group("k").lower(), m.group("v")
        if k not in layers._QUERY_NAMES and _redact._key_strength(m.group("k")) not in (
                "password", "strong"):
            continue
        if not _redact._is_literal(v) or _redact.MARKER_RE.search(v) or _redact.placeholder(v):
            continue
        yield *m.span("v"), "url-secret"


FINDERS = (find_named_tokens, find_named_pairs, find_fragment_secrets)


# --------------------------------------------------------------------------- CSV columns

# A password manager's or a script's export: a header row names the columns, and the
# values under ``password``, ``login_totp``, ``api_key``… are secrets, whatever they look like.
_CSV_SECRET_COLUMN_RE = re.compile(r"totp|otp|mfa|2fa|seed|passphrase|pin\Z")
_MAX_ROWS = 500
_COLUMN_NAME_RE = re.compile(r"[A-Za-z_][\w .\-]{0,59}")


def _secret_column(name: str) -> bool:
    n = name.strip().strip("\"'").strip()
    if not n or len(n) > 60:
        return False
    strength = _redact._key_strength(n)
    return strength in ("password", "strong") or bool(_CSV_SECRET_COLUMN_RE.search(n.lower()))


def _csv_fields(line: str, sep: str) -> list[tuple[int, int]]:
    """Field spans of one row (quotes kept out; a quoted field may hold the separator)."""
    out, pos, n = [], 0, len(line)
    while pos <= n:
        if line.startswith('"', pos):
            end = line.find('"', pos + 1)
            while end >= 0 and line.startswith('""', end):
                end = line.find('"', end + 2)
            if end < 0:
                end = n
            out.append((pos + 1, end))
            nxt = line.find(sep, end)
            pos = n + 1 if nxt < 0 else nxt + 1
        else:
            nxt = line.find(sep, pos)
            end = n if nxt < 0 else nxt
            out.append((pos, end))
            pos = end + 1
    return out


def find_csv_columns(text: str, low: str) -> Iterator[Span]:
    if "," not in text and "\t" not in text:
        return
    pos = 0
    lines = text.split("\n")
    starts = []
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    for i, head in enumerate(lines[:-1]):
        sep = "\t" if head.count("\t") >= 2 else ","
        if head.count(sep) < 2 or " " in head.strip().replace(", ", ","):
            continue  # a header is names, not prose
        fields = _csv_fields(head.strip(), sep)
        if not all(_COLUMN_NAME_RE.fullmatch(head.strip()[a:b]) for a, b in fields):
            continue  # a header is names only (a JSON line has commas too)
        cols = [j for j, (a, b) in enumerate(_csv_fields(head, sep))
                if _secret_column(head[a:b])]
        if not cols:
            continue
        width = head.count(sep)
        for k in range(i + 1, min(len(lines), i + 1 + _MAX_ROWS)):
            row = lines[k]
            if row.count(sep) < width:
                break
            fields = _csv_fields(row, sep)
            for j in cols:
                if j >= len(fields):
                    continue
                a, b = fields[j]
                v = row[a:b].strip()
                if len(v) >= 4 and _redact._is_literal(v) and not _redact.placeholder(v) \
                        and not _redact.MARKER_RE.search(v):
                    s = starts[k] + a + (len(row[a:b]) - len(row[a:b].lstrip()))
                    yield s, s + len(v), "secret-value"


FINDERS = (*FINDERS, find_csv_columns)


# --------------------------------------------------------------------------- table columns

# A query's or a CLI's table (psql, mysql, a box-drawn listing): a header row of names
# between bars, and the values under ``api_key``, ``token``, ``password``… are secrets.
_BARS = ("|", "│", "┃")
_RULE_LINE_RE = re.compile(r"[\s\-+=:─━┼╋├┤┬┴┌┐└┘│┃|╭╮╰╯]*")
_TABLE_GATE_RE = re.compile(r"pass|pwd|secret|token|key|auth|cred|otp|pin")


def _cells(line: str, bar: str) -> list[tuple[int, int]]:
    """Spans of a row's cells, trimmed (the empty cells outside the edge bars dropped)."""
    out, pos = [], 0
    parts = line.split(bar)
    for i, part in enumerate(parts):
        a, b = pos, pos + len(part)
        pos = b + 1
        if (i == 0 or i == len(parts) - 1) and not part.strip():
            continue
        lead = len(part) - len(part.lstrip())
        out.append((a + lead, a + len(part.rstrip())))
    return out


def find_table_columns(text: str, low: str) -> Iterator[Span]:
    bar = next((b for b in _BARS if b in text), None)
    if bar is None:
        return
    at = text.find(bar)
    while at >= 0:  # only lines with bars: a header's, naming a secret column
        hs = text.rfind("\n", 0, at) + 1
        he = text.find("\n", at)
        if he < 0:
            return
        at = text.find(bar, he)
        head = text[hs:he]
        if head.count(bar) < 2 or _TABLE_GATE_RE.search(low, hs, he) is None:
            continue
        cells = _cells(head, bar)
        names = [head[a:b] for a, b in cells]
        if len(cells) < 2 or not all(_COLUMN_NAME_RE.fullmatch(n) for n in names):
            continue
        cols = [j for j, n in enumerate(names) if _secret_column(n)]
        if not cols:
            continue
        pos = he + 1
        for _ in range(_MAX_ROWS):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            row = text[pos:end]
            if _RULE_LINE_RE.fullmatch(row) and row.strip():
                pos = end + 1
                continue
            if row.count(bar) != head.count(bar):
                break
            rc = _cells(row, bar)
            for j in cols:
                if j < len(rc):
                    a, b = rc[j]
                    v = row[a:b]
                    if (len(v) >= 4 and " " not in v and _redact._is_literal(v)
                            and not _redact.placeholder(v) and not _redact.MARKER_RE.search(v)):
                        yield pos + a, pos + b, "secret-value"
            if end >= len(text):
                break
            pos = end + 1
        if pos > he + 1:
            at = text.find(bar, pos)


FINDERS = (*FINDERS, find_table_columns)
