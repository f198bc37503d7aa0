"""Random-looking runs that what surrounds them shows to be ordinary data.

The shape finders take a run because it looks generated; many generated things are
public: an object's id in a URL, a commit a workflow pins, a node id a log prints in its
brackets, a line of an image's base64, a piece of a percent-encoded query, a property
name. Each check here reads the run's place, not a list of values: where it stands (a URL
fragment, after ``name@``, between a log record's brackets), what it is made of (names
and versions joined by dots or slashes), or what else the text says of the same value (it
is a URL's path segment elsewhere). Asked by ``redact.public_name`` of a span a shape or
context rule proposed. Stdlib only: redact imports this.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse

from reviewer.sanitize import syntax as _syntax

# Kinds proposed for a run's shape or a nearby word (not a provider's format), and the
# base64 rule's kind (its decoded text decides).
KINDS = frozenset(("high-entropy", "secret-value", "password", "secret-assignment",
                   "url-secret", "mfa-secret", "base64-secret"))


# A value a word for a password gave ("the password is …"): what it looks like elsewhere
# (percent-encoded, a URL's path holding it too) does not make it data. ("secret-value"
# stays open to both: a finder gives it to a URL's percent-encoded query too.)
_NAMED_KINDS = frozenset(("password",))


def ordinary_run(text: str, start: int, end: int, kind: str) -> bool:
    """The span ``text[start:end]`` (proposed as ``kind``) is ordinary data by its place."""
    if kind not in KINDS:
        return False
    v = text[start:end]
    if kind == "base64-secret":
        return typed_id_base64(v)
    if between_literals(text, start, end) or operand(text, start, end):
        return True
    if kind == "secret-assignment":
        return False  # a key named it a secret: its place is that key
    if kind == "mfa-secret" and worded_code(v):
        return True
    if kind == "high-entropy" and (dotted_names(v) or names_and_versions(v)):
        return True  # a generated-looking run that reads as names (a password may not)
    named = kind in _NAMED_KINDS
    return (pinned_ref(text, start, v) or abbreviated(text, v)
            or symbol(text, start, v)
            or url_fragment(text, start, v)
            or (not named and percent_piece(text, start, end))
            or url_name_segment(text, start, end)
            or (kind != "url-secret" and not named and url_path_elsewhere(text, start, end, v))
            or log_field(text, start, end)
            or (kind != "mfa-secret" and block_piece(text, start, end)))


# --------------------------------------------------------------------------- syntax

# ``', with: '``, ``", password_confirmation: "``: what stands between two quoted literals
# (a separator, a keyword argument's name), read as a quoted value by a rule that paired
# the wrong quotes.
_BETWEEN_RE = re.compile(r"[ \t]*[,;:=][ \t]*(?:[A-Za-z_][\w\-]{0,40}[ \t]*[:=]>?[ \t]*)?"
                         r"|[ \t]*[A-Za-z_][\w\-]{0,40}[ \t]*[:=]>?[ \t]*")


def between_literals(text: str, start: int, end: int) -> bool:
    q = text[start - 1 : start]
    return (q in ("'", '"', "`") and text[end : end + 1] == q
            and _BETWEEN_RE.fullmatch(text, start, end) is not None)


# ``withCredentials = _resolveConfig$withCr === void 0 ? …``: a bare name that an operator
# compares or tests is an operand of an expression, not a literal assigned.
_OPERAND_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_OPERATOR_AFTER_RE = re.compile(r"[ \t]*(?:===?|!==?)")


def operand(text: str, start: int, end: int) -> bool:
    """Compared, and a name the same text assigns to (``_cfg$withCr = …``): a variable."""
    v = text[start:end]
    if (text[start - 1 : start] in ("'", '"', "`") or _OPERAND_RE.fullmatch(v) is None
            or _OPERATOR_AFTER_RE.match(text, end) is None):
        return False
    if text.count(v) < 2:
        return False
    return re.search(r"(?<![\w$.])" + re.escape(v) + r"[ \t]*=(?![=>])", text) is not None


# --------------------------------------------------------------------------- codes of words

def worded_code(v: str) -> bool:
    """``for terraform-aws-modules``, ``aws-iam-authenticator``: words joined by dashes or
    spaces that a recovery-code rule read as a code's groups; a code's groups are random
    letters and digits of one width (``kafe-lobz-7xq2``, ``ychbi-hlzka``)."""
    pieces = [p for p in re.split(r"[\- ]+", v) if p]
    return (len(pieces) >= 2 and all(p.isalpha() and (len(p) <= 3 or _syntax._word(p))
                                     for p in pieces)
            and any(len(p) >= 7 and _syntax._word(p) for p in pieces)
            and len({len(p) for p in pieces}) > 1)


# --------------------------------------------------------------------------- pinned refs

# ``actions/checkout@<40 hex>``, ``pkg@sha256:<64 hex>``: a commit or digest a workflow or a
# lockfile pins: what is pinned is public (a name, then the revision it stands at).
_PINNED_BEFORE_RE = re.compile(r"[\w.\-]+(?:/[\w.\-]+)*@(?:sha(?:256|512):)?\Z")
_DIGEST_HEX_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}")


def pinned_ref(text: str, start: int, v: str) -> bool:
    return (_DIGEST_HEX_RE.fullmatch(v) is not None
            and _PINNED_BEFORE_RE.search(text, max(0, start - 120), start) is not None)


def symbol(text: str, start: int, v: str) -> bool:
    """``:new_user_password_path``: a Ruby symbol (a name written after a colon), snake
    case, as code names routes, options and fields."""
    return (text[start - 1 : start] == ":" and text[start - 2 : start - 1] in (" ", "\t", ",",
                                                                           "(", "[", "{")
            and re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+[?!]?", v) is not None)


def abbreviated(text: str, v: str) -> bool:
    """``[dea6c44](…/commit/dea6c44b45…)``: the short form of a digest the same text spells
    out in full (a commit's link, a log's short and long ids)."""
    core = v.strip("[](){}`'\" ")
    if not 7 <= len(core) <= 16 or re.fullmatch(r"[0-9a-f]+", core) is None:
        return False
    at = text.find(core)
    for _ in range(16):
        if at < 0:
            return False
        if re.match(r"[0-9a-f]{24}", text[at + len(core) : at + len(core) + 24]):
            return True
        at = text.find(core, at + 1)
    return False


# --------------------------------------------------------------------------- URL fragments

# A fragment that is an anchor: a heading's slug, words and numbers joined by dashes; a
# token in a fragment comes as ``#access_token=…`` and has a ``=``.
_SLUG_RE = re.compile(r"[\w.\-:%]{1,200}")
_LINK_BEFORE_RE = re.compile(r"(?:\]\(|\(|https?://\S*|\S*\.\w{1,8})#\Z")


def url_fragment(text: str, start: int, v: str) -> bool:
    """The span lies in a link's anchor (``upgrades.md#upgrade-to-v18``, ``(#password-
    reset-tokens)``): a heading's slug."""
    if text.rfind("#", max(0, start - 200), start) < 0:
        return False
    a = start
    while a > 0 and start - a < 200 and (text[a - 1].isalnum() or text[a - 1] in "-_.:%"):
        a -= 1
    if a == 0 or text[a - 1] != "#":
        return False
    start = a
    frag_end = start
    while frag_end < len(text) and (text[frag_end].isalnum() or text[frag_end] in "-_.:%"):
        frag_end += 1
    frag = text[start:frag_end]
    if _SLUG_RE.fullmatch(frag) is None or frag_end < start + len(v) - 1:
        return False
    if _LINK_BEFORE_RE.search(text, max(0, start - 300), start) is None:
        return False
    pieces = [p for p in re.split(r"[\-_.:]+", urllib.parse.unquote(frag)) if p]
    return _words_only(pieces) or (len(pieces) == 1 and _syntax.is_name(pieces[0]))


# --------------------------------------------------------------------------- percent pieces

_QUERY_RUN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789%+._-~")


def percent_piece(text: str, start: int, end: int) -> bool:
    """A span cut out of percent-encoded text (``is%3Aissue+is%3Aclosed``) that decodes to
    words: a query someone typed into a search box."""
    if not (text[start - 1 : start] == "%" or "%" in text[start:end]):
        return False
    a, b = start, end
    while a > 0 and start - a < 400 and text[a - 1] in _QUERY_RUN:
        a -= 1
    while b < len(text) and b - end < 400 and text[b] in _QUERY_RUN:
        b += 1
    run = text[a:b]
    if len(re.findall(r"%[0-9A-Fa-f]{2}", run)) < 1 or "%" not in text[a:end + 1]:
        return False
    decoded = urllib.parse.unquote_plus(run)
    pieces = [p for p in re.split(r"[^A-Za-z0-9]+", decoded) if p]
    return _words_only(pieces)


def _words_only(pieces: list[str]) -> bool:
    """Words (one of five letters or more among them), short all-letter pieces, numbers,
    versions: no piece mixes letters and digits as a generated value does."""
    return bool(pieces) and any(len(p) >= 5 and _syntax._word(p) for p in pieces) and all(
        _syntax._word(p) or (p.isalpha() and len(p) <= 4) or (p.isdigit() and len(p) <= 8)
        or _VERSION_RE.fullmatch(p) is not None for p in pieces)


# --------------------------------------------------------------------------- names

_VERSION_RE = re.compile(r"v?\d{1,6}(?:\.\d{1,6}){0,3}(?:[-+][\w.]{1,20})?")


def dotted_names(v: str) -> bool:
    """``-Djava.net.preferIPv4Stack=``, ``http_client.Urllib2Client``: a property or member
    path whose every piece is a name."""
    core = v.strip("=-:").removeprefix("D") if v.startswith("-D") else v.strip("=:")
    pieces = core.split(".")
    return len(pieces) >= 2 and all(_syntax.is_name(p) for p in pieces)


def names_and_versions(v: str) -> bool:
    """``MyAwesomePlugin/1.2.34``, ``Chrome/120.0.6099.71``: a product and its version (a
    User-Agent's token), names and versions joined by slashes."""
    pieces = v.strip("/").split("/")
    return (len(pieces) >= 2 and any(_VERSION_RE.fullmatch(p) for p in pieces)
            and all(_syntax.is_name(p) or _VERSION_RE.fullmatch(p) for p in pieces))


# --------------------------------------------------------------------------- URL ids

_URL_RE = re.compile(r"https?://[^\s\"'`<>()]{4,2048}")


def url_path_elsewhere(text: str, start: int, end: int, v: str) -> bool:
    """The same value stands in the text as a URL's path segment with more path after it
    (``docs.google.com/spreadsheets/d/<id>/edit``): the id of the object that URL shows,
    wherever else it is quoted."""
    if len(v) < 12 or text.count(v) < 2 or "://" not in text:
        return False  # quoted once: no other place to say what it is
    for m in _URL_RE.finditer(text):
        url = m.group()
        k = url.find(v)
        if k < 0 or m.start() + k == start:
            continue  # not this occurrence: its own URL's rule judged it
        before, after = url[:k], url[k + len(v):]
        path = before.split("://", 1)[1]
        host = path.split("/", 1)[0].lower()
        segs = path.rstrip("/").split("/")[1:]
        if before.endswith("/") and after.startswith("/") and after[1:2].isalpha() and \
                "=" not in path and "@" not in path and _HOOK_RE.search(host) is None and \
                not any(_syntax.credential_name(g) or _HOOK_RE.search(g) for g in segs):
            return True
    return False


# Hosts and segments that carry a credential in the path (a webhook, an integration).
_HOOK_RE = re.compile(r"hook|integration|trigger|catch|invite|capabilit|private|shared|ping|"
                      r"heartbeat|notify|alert|events|maker|pass|key|token|secret|auth",
                      re.IGNORECASE)


def url_name_segment(text: str, start: int, end: int) -> bool:
    """A URL's path segment made of words (``/terraform-aws-modules/``): an owner's or a
    project's name, whatever rule proposed it."""
    if text[start - 1 : start] != "/" or text[end : end + 1] not in ("/", "?", "#", ")", ""):
        return False
    ls = max(text.rfind(c, 0, start) for c in " \t\n\"'(<")
    if "://" not in text[ls + 1 : start]:
        return False
    pieces = [p for p in re.split(r"[\-_.]+", text[start:end]) if p]
    return len(pieces) >= 2 and all(p.isalpha() for p in pieces) and _words_only(pieces)


# --------------------------------------------------------------------------- log records

# A log record's line: a timestamp at its head, then fields in brackets.
_LOG_HEAD_RE = re.compile(r"[ \t]*\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d")
_FIELD_RE = re.compile(r"[\[{][^\[\]{}\n]{1,80}[\]}]")
_OPEN_CLOSE = {"[": "]", "{": "}"}
_CREDENTIAL_LINE_RE = re.compile(r"token|secret|passw|api[ _\-]?key|credential|session|bearer|"
                                 r"auth", re.IGNORECASE)


def log_field(text: str, start: int, end: int) -> bool:
    """The run stands as a log record's bracketed field, here or where the text prints
    the same value again (``[Arc] myesdb/<node id>``, then ``[Arc][<node id>]``)."""
    if _log_field_at(text, start, end):
        return True
    whole = text[start:end]
    v = whole.rsplit("/", 1)[-1]  # "<cluster>/<node id>": the id printed alone elsewhere
    if len(v) < 12 or text.count(v) < 2 or not (
            v == whole or _syntax.is_name(whole.rsplit("/", 1)[0])):
        return False
    at = text.find(v)
    for _ in range(16):
        if at < 0:
            break
        if at != start + len(whole) - len(v) and _log_field_at(text, at, at + len(v)):
            return True
        at = text.find(v, at + 1)
    return False


def _log_field_at(text: str, start: int, end: int) -> bool:
    """A run a program printed as one bracketed field of a record (``[Arc][<node
    id>][es-master-…]``, ``{<uuid>}{<node id>}{10.44.2.5}``): the line holds three
    bracketed fields or more, and opens with a timestamp or holds a UUID or an address."""
    if start == 0 or text[start - 1] not in _OPEN_CLOSE or \
            text[end : end + 1] != _OPEN_CLOSE[text[start - 1]]:
        return False
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    line = text[ls : le if le >= 0 else len(text)]
    if len(_FIELD_RE.findall(line)) < 3 or _CREDENTIAL_LINE_RE.search(line) is not None:
        return False  # "[auth] issued token [<t>]": a log that prints a credential
    return (_LOG_HEAD_RE.match(line) is not None
            or re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                         line) is not None
            or re.search(r"\d{1,3}(?:\.\d{1,3}){3}", line) is not None)


# --------------------------------------------------------------------------- data blocks

_B64_LINE_RE = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
_B64_RUN_RE = re.compile(r"[A-Za-z0-9+/]{4,}={0,2}")  # a block's last line, or a cut piece
_BREAK_BEFORE_RE = re.compile(r"[A-Za-z0-9+/]{40,}[\"',]*(?:\\n|\r?\n)[ \t]*[\"']?\Z")
_BREAK_RE = re.compile(r"(?:\\n|\r?\n)[\"',]*[ \t]*[\"']?")
_END_ARMOR_RE = re.compile(r"-----END ([A-Z0-9 ]+)-----")
_MIN_LINES_AFTER = 3


def block_piece(text: str, start: int, end: int) -> bool:
    """A line of a wrapped base64 block whose head is out of sight (the text begins inside
    the block: a notebook's image, a certificate bundle cut in pieces): the lines after it
    are as wide or it is the block's last; the block ends in a certificate's or public
    key's armor, or in none, and never in a private key's."""
    s = start + 1 if text[start : start + 1] == "n" and text[start - 1 : start] == "\\" else start
    if _B64_RUN_RE.fullmatch(text, s, end) is None:
        return False
    width = end - s
    pos, lines, widths = end, 0, []
    for _ in range(400):
        m = _BREAK_RE.match(text, pos)
        if m is None:
            break
        n = _B64_LINE_RE.match(text, m.end())
        if n is None:
            pos = m.end()
            break
        widths.append(n.end() - n.start())
        lines += 1
        pos = n.end()
    armor = _END_ARMOR_RE.match(text, pos)
    if armor is not None and (lines or _BREAK_BEFORE_RE.search(text, max(0, s - 200), s)):
        return "PRIVATE" not in armor.group(1)
    at_head_of_text = not text[:s].strip(" \t\r\n\"',\\n")
    return (at_head_of_text and lines >= _MIN_LINES_AFTER and width <= widths[0]
            and len(set(widths[:-1])) == 1 and "PRIVATE" not in text[max(0, s - 4000) : s])


# --------------------------------------------------------------------------- typed ids

# The base64 of an id that names its type: GitHub's node ids (``MDQ6VXNlcjU4MzIzMQ==``,
# "04:User583231"), Relay's (``User:42``), Shopify's and GraphQL's global ids
# (``gid://shopify/Product/123``). Public: also what ``redact``'s base64 rule never opens.
TYPED_ID_RE = re.compile(r"\d{1,4}:[A-Z][A-Za-z]{1,40}\d{1,20}(?::[\w:]{1,40})?"
                         r"|gid://[\w\-]{2,40}/[A-Z][A-Za-z]{2,40}/\d{1,20}"
                         r"|[A-Z][A-Za-z]{1,40}:\d{1,20}")


def typed_id_base64(v: str) -> bool:
    body = v.strip().strip("\"'`")
    if not re.fullmatch(r"[A-Za-z0-9+/_\-]{8,200}={0,2}", body):
        return False
    try:
        raw = base64.urlsafe_b64decode(body.replace("+", "-").replace("/", "_")
                                       + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("ascii")
    except UnicodeDecodeError:
        return False
    return TYPED_ID_RE.fullmatch(decoded) is not None
