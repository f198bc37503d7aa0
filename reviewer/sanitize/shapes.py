"""Secret shapes found by class, not by provider: the full detector's last layer.

Each finder takes ``(text, text.lower())`` and yields ``(start, end, kind)`` spans, like
redact's own; ``reviewer.sanitize.detect`` registers them (never a hook's path).

- **MFA material**: TOTP seeds in groups of four (``L5H2 TFHD KZEZ …``), a bare base32
  seed, and the list of recovery or backup codes under the line that names them.
- **Secret URL path segments**: a webhook or API whose credential is a path segment
  (``…/integration/<key>/enqueue``, ``…/with/key/<key>``, ``/bot<id>:<token>/``), and a
  token used as a URL's whole userinfo (``https://<token>@host``).
- **Parts of a value**: "the key starts with …", "… that's the rest": a value split over
  two messages, each part too short or plain to pass for a secret alone.
- **Random tokens**: a run of 16+ characters that mixes capitals, small letters and
  digits the way generated keys do, whatever words surround it (a key pasted into MCP
  arguments, a sentence in a language no keyword list has). Names, paths, versions,
  hex digests, UUIDs, base64 of images, integrity hashes and public keys are not.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections import Counter
from collections.abc import Iterator

from reviewer.sanitize import gitleaks
from reviewer.sanitize import public as _public
from reviewer.sanitize import redact as _redact
from reviewer.sanitize import syntax as _syntax

Span = tuple[int, int, str]

_LINE_END_RE = re.compile(r"\n|\\n")


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


_REACH = 2048  # a line is looked at this far either side of a word, however long it is


def _line_bounds(text: str, at: int) -> tuple[int, int]:
    """The line holding ``at`` (a JSON-escaped ``\\n`` ends one too), at most ``_REACH``
    characters either side: a text that is one long line costs no more per word."""
    lo = max(0, at - _REACH)
    s = max(text.rfind("\n", lo, at), text.rfind("\\n", lo, at))
    s = lo if s < 0 else s + (2 if text.startswith("\\n", s) else 1)
    m = _LINE_END_RE.search(text, at, min(len(text), at + _REACH))
    return s, (m.start() if m else min(len(text), at + _REACH))


@functools.lru_cache(maxsize=256)
def _alternation(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))


@functools.cache
def _by_head(words: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    heads: dict[str, list[str]] = {}
    other: list[str] = []
    for w in words:
        if w[:2].isascii() and w[:2].isalnum():
            heads.setdefault(w[:2], []).append(w)
        else:
            other.append(w)
    return {k: tuple(v) for k, v in heads.items()}, tuple(other)


def _words_in(low: str, words: tuple[str, ...]) -> re.Pattern[str] | None:
    """An alternation of the ``words`` this text holds: an ASCII word is looked for only
    where a word of the text starts like it (one pass over the text for all of them, in
    gitleaks' ``word_starts``), the others by ``in``; ``re`` then skips to them."""
    heads, other = _by_head(words)
    starts = gitleaks.word_starts(low)
    view = gitleaks.ascii_view(low)
    found = [w for h in starts & heads.keys() for w in heads[h]
             if gitleaks.may_hold(low, w) and gitleaks.holds(low, w)]
    found += [w for w in other if w in view] if low.isascii() else [
        w for w in other if (w in view if w.isascii() else gitleaks.has_other_script_word(low, w))]
    return _alternation(tuple(sorted(found))) if found else None


def _bounded(low: str, m: re.Match[str], right: bool) -> bool:
    """An ASCII word stands alone on its left (and right, if asked): not inside a name."""
    w = m.group()
    if not w.isascii():
        return True
    s, e = m.span()
    if s and (low[s - 1].isalnum() or low[s - 1] == "_") and w[0].isalnum():
        return False
    return not (right and e < len(low) and (low[e].isalnum() or low[e] == "_"))


# --------------------------------------------------------------------------- MFA material

_PHRASE_WORDS = ("seed", "mnemonic", "recovery phrase", "secret phrase", "wallet")
_MNEMONIC_RE = re.compile(r"[a-z]{3,8}(?:(?:[ \t]+|[ \t]*\r?\n[ \t]*|\\n)(?:\d{1,2}[.)][ \t]*)?"
                          r"[a-z]{3,8}){11,23}(?![a-z])")
_MFA_WORDS: tuple[str, ...] = (
    "mnemonic", "recovery phrase", "secret phrase", "wallet words", "seed words",
    "2fa", "mfa", "totp", "otp", "authenticator", "two-factor", "two factor", "2-step",
    "recovery code", "backup code", "recovery key", "setup key", "scratch code",
    "emergency code", "otpauth", "seed phrase", "one-time code", "verification code",
    "wiederherstellungscode", "backup-code", "código de recuperación", "codigo de recuperacion",
    "códigos de recuperação", "codes de récupération", "code de récupération",
    "codici di recupero", "herstelcode", "kody odzyskiwania", "kód pro obnovení",
    "коды восстановления", "код восстановления", "резервн", "恢复码", "备用码", "復原碼",
    "リカバリーコード", "バックアップコード", "복구 코드", "백업 코드", "kurtarma kod",
    "gjenopprettingskode", "återställningskod", "palautuskoodi", "gendannelseskode",
)

# A TOTP seed as apps show it: four base32 characters, four or more times.
_GROUPED_RE = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z2-7]{4}(?:[ \-][A-Za-z2-7]{4}){3,15}(?![A-Za-z0-9])"
)
_BASE32_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{16,128}={0,6}(?![A-Za-z0-9])")
# One recovery code: 6-24 characters, digits among them or two parts joined by "-" or " ".
_CODE_RE = re.compile(r"[A-Za-z0-9]{3,12}(?:[\- ][A-Za-z0-9]{3,12}){0,3}")
_CODE_LINE_RE = re.compile(
    r"[ \t]*(?:[-*•]|\d{1,2}[.)])?[ \t]*(?:\[[ xX]\][ \t]*)?"
    r"(?P<c>[A-Za-z0-9]{3,12}(?:[\-][A-Za-z0-9]{3,12}){0,3})"
    r"(?P<more>(?:[ \t,;]+[A-Za-z0-9]{3,12}(?:[\-][A-Za-z0-9]{3,12}){0,3})*)[ \t,;]*"
)
_MAX_CODE_LINES = 24


def _grouped_ok(run: str) -> bool:
    groups = re.split(r"[ \-]", run)
    with_digit = sum(any(c.isdigit() for c in g) for g in groups)
    return with_digit >= 2 and (run.isupper() or run.islower() or not run.isalpha())


def _code_ok(code: str) -> bool:
    """A recovery code rather than a word: a digit in it, or parts joined by a dash."""
    if len(code.replace("-", "")) < 6:
        return False
    if " " in code and any(p.isalpha() and len(p) >= 5 for p in code.split()):
        return False  # "algorithm SHA1": words, not a code's groups
    return any(c.isdigit() for c in code) or ("-" in code and not code.isalpha())


def find_mfa(text: str, low: str) -> Iterator[Span]:
    words = _words_in(low, _MFA_WORDS)
    if words is None:
        return
    done = 0
    for m in words.finditer(low):
        if m.start() < done or not _bounded(low, m, right=len(m.group()) <= 4):
            continue
        ls, le = _line_bounds(text, m.start())
        # the seed on the word's line or the two after it
        stop = le
        for _ in range(2):
            nxt = _LINE_END_RE.match(text, stop)
            if nxt is None:
                break
            stop = _line_bounds(text, nxt.end())[1]
        for g in _GROUPED_RE.finditer(text, ls, stop):
            if _grouped_ok(g.group()):
                yield *g.span(), "mfa-secret"
        for b in _BASE32_RE.finditer(text, ls, stop):
            v = b.group().rstrip("=")
            if sum(c.isdigit() for c in v) >= 2 and _entropy(v) >= 3.0:
                yield *b.span(), "mfa-secret"
        if any(w in m.group() for w in _PHRASE_WORDS):  # a wallet's 12 or 24 words
            ph = _MNEMONIC_RE.search(text, m.end(), min(len(text), m.end() + 400))
            if ph is not None and ph.start() - m.end() < 40:
                yield *ph.span(), "mfa-secret"
        # codes after the word on its line ("codes: a1b2-c3d4, …")
        for c in _CODE_RE.finditer(text, m.end(), le):
            if _code_ok(c.group()) and not _redact.MARKER_RE.search(c.group()):
                yield *c.span(), "mfa-secret"
        # and the list of codes under it, one or more a line
        pos, n = le, 0
        while n < _MAX_CODE_LINES:
            nxt = _LINE_END_RE.match(text, pos)
            if nxt is None:
                break
            s, e = _line_bounds(text, nxt.end())
            if s == e:  # a blank line between the heading and the list
                pos, n = e, n + 1
                continue
            cl = _CODE_LINE_RE.fullmatch(text, s, e)
            if cl is None:
                break
            codes = [cl.span("c")]
            codes += [x.span() for x in _CODE_RE.finditer(text, *cl.span("more"))]
            if not any(_code_ok(text[a:b]) for a, b in codes):
                break
            for a, b in codes:
                yield a, b, "mfa-secret"
            pos, n = e, n + 1
        done = max(pos, m.end())


# --------------------------------------------------------------------------- URL paths

_URL_RE = re.compile(r"[a-z][a-z0-9+.\-]{1,20}://[^\s\"'`<>\\|]{3,2048}")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")


def _urls(text: str) -> Iterator[re.Match[str]]:
    """`_URL_RE.finditer(text)`, the same matches found from each `://` back to its
    scheme instead of tried at every letter of the text (that try was nearly all of
    `find_url_path_secrets`' time on a session's text)."""
    floor = 0  # the end of the last match: matches do not overlap
    at = text.find("://")
    while at >= 0:
        start = at
        while start > max(floor, at - 21) and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        while start <= at - 2 and not ("a" <= text[start] <= "z"):
            start += 1  # the scheme starts with a letter
        m = _URL_RE.match(text, start) if start <= at - 2 else None
        if m is not None:
            yield m
            floor = m.end()
            at = text.find("://", floor)
        else:
            at = text.find("://", at + 1)
# A path segment named for what the next one is: ``/key/<k>``, ``/integration/<k>``.
_PATH_KEYS = frozenset(_redact._words(
    "key keys apikey api_key api-key token tokens access_token secret secrets integration "
    "integrations hook hooks webhook webhooks trigger catch password passwd pass auth "
    "signature sig credential credentials private capability invite shared_invite"
))
# "/calendar/ical/<id>/private-<token>/basic.ics": a segment named for the token it holds
_NAMED_SEGMENT_RE = re.compile(r"(?:private|secret|token|key|auth|access)[-_]"
                               r"(?P<t>[A-Za-z0-9_\-]{16,512})")
_HOOK_HOST_RE = re.compile(
    r"(?:^|[.\-])(?:hooks?|webhooks?|events|maker|notify|alerts?|ping|heartbeats?)[.\-]")
# "link.<service>/…", "share.<service>/…": a host that serves share links, whose path
# carries the access grant ("link.storjshare.io/raw/<access>/<bucket>/<key>")
_SHARE_HOST_RE = re.compile(r"(?:links?|share|shared|sharing)\.[\w\-]+\.[a-z]{2,}\Z")
_SEGMENT_RE = re.compile(r"[^/?#]+")
_ACTION_SEGMENT_RE = re.compile(r"[A-Za-z][A-Za-z_\-]{1,40}")  # "edit", "view", "Design"
_TG_BOT_RE = re.compile(r"bot(\d{5,12}:[A-Za-z0-9_\-]{30,})")


def _path_key(seg: str) -> bool:
    """A segment that names the next one: ``key``, ``hooks``, ``build_hooks``, ``hook``."""
    return seg in _PATH_KEYS or any(p in _PATH_KEYS for p in re.split(r"[_\-.]", seg))


def _segment_token(seg: str, after_key: bool) -> bool:
    """A path segment that holds a credential (after a segment that says so: any token of
    16+ characters, hex included; elsewhere: only one that looks random and is not hex)."""
    if not 16 <= len(seg) <= 512 or not re.fullmatch(r"[A-Za-z0-9_\-.~%+=:@]+", seg):
        return False
    if _redact._UUID_RE.match(seg):
        return after_key  # a hook's UUID is its secret; elsewhere an id
    if "." in seg[-6:-1] and seg.rsplit(".", 1)[1].isalpha():
        return False  # a file name ("report-2026.pdf")
    if after_key:
        return any(c.isdigit() for c in seg) and any(c.isalpha() for c in seg)
    return random_token(seg)


def find_url_path_secrets(text: str, low: str) -> Iterator[Span]:
    if "://" not in text:
        return
    for u in _urls(text):
        url = u.group()
        if url.endswith(")") and url.count(")") > url.count("("):
            url = url.rstrip(").,;")  # "(https://…/<token>)": the prose's bracket
        rest = url.split("://", 1)[1]
        base = u.start() + len(url) - len(rest)
        auth, _, _ = rest.partition("/")
        host_end = base + len(auth)
        if "@" in auth:
            user = auth.rsplit("@", 1)[0]
            name = user.split(":", 1)[0]
            if _token_user(name):  # a token as the user name, with a password or not
                yield base, base + len(name), "url-password"
            host = auth.rsplit("@", 1)[1]
            h = host.split(":", 1)[0]
            if "." not in h and random_lower(h):  # "pover://<token>@<user key>": no host
                hs = base + len(auth) - len(host)
                yield hs, hs + len(h), "url-secret"
        else:
            host = auth
        hooky = (_HOOK_HOST_RE.search("." + host.lower()) is not None
                 or _SHARE_HOST_RE.match(host.lower()) is not None)
        path_end = len(url)
        for stop in ("?", "#"):
            k = url.find(stop, len(url) - len(rest))
            if k >= 0:
                path_end = min(path_end, k)
        prev: list[str] = ["", ""]
        segs = list(_SEGMENT_RE.finditer(text, host_end, u.start() + path_end))
        for i, seg in enumerate(segs):
            v = seg.group()
            tg = _TG_BOT_RE.fullmatch(v)
            named = _path_key(prev[-1]) or (_path_key(prev[-2]) and prev[-1].isdigit())
            ns = _NAMED_SEGMENT_RE.fullmatch(v)
            if tg is not None:
                yield seg.start() + tg.start(1), seg.end(), "telegram-bot-token"
            elif ns is not None and any(c.isdigit() for c in ns.group("t")):
                yield seg.start() + ns.start("t"), seg.end(), "url-secret"
            elif _segment_token(v, named or hooky) and (
                    named or hooky or (i + 1 >= len(segs) and path_end == len(url))):
                # "/hooks/<id>/<token>", "/token/<t>", or a URL that ends in its random
                # segment (a capability URL: the link is the credential); a segment more
                # path or a query follows is an object's id ("/track/<id>?si=…",
                # "/messages/<id>/attachments", "/document/d/<id>/edit")
                yield *seg.span(), "url-secret"
            prev.append(v.lower())


def _token_user(user: str) -> bool:
    """``https://<token>@host``: a user name that is a token, not a name."""
    if len(user) < 16 or _redact.MARKER_RE.search(user):
        return False
    return _redact._looks_random(user) or random_lower(user) or (
        len(user) >= 20 and any(c.isdigit() for c in user) and any(c.isupper() for c in user)
        and any(c.islower() for c in user))


_LOWER_ALNUM_RE = re.compile(r"[a-z0-9]{20,128}")


def random_lower(v: str) -> bool:
    """A generated token of small letters and digits (Pushover's, Storj's): digits strewn
    through it, few vowels, dense; not a word, a name with a number or a hex digest."""
    if not _LOWER_ALNUM_RE.fullmatch(v) or _redact._HEX_RE.match(v):
        return False
    letters = [c for c in v if c.isalpha()]
    digits = len(v) - len(letters)
    if digits < 3 or len(letters) < 8:
        return False
    vowels = sum(c in "aeiouy" for c in letters)
    changes = len(re.findall(r"[a-z]+|[0-9]+", v)) - 1
    return vowels < 0.36 * len(letters) and changes / len(v) >= 0.2 and _entropy(v) >= 3.8


# --------------------------------------------------------------------------- parts of a value

# Words that say a value is given in parts: its start, its rest, a half.
_PART_WORDS: tuple[str, ...] = (
    "starts with", "begins with", "start of it", "first part", "first half", "first chunk",
    "second part", "second half", "other half", "last part", "the rest", "rest of it",
    "remaining part", "remainder", "ends with", "part 1", "part 2", "part one", "part two",
    "(1/2)", "(2/2)", "paste them together", "put them together", "join them",
    "beginnt mit", "fängt mit", "der rest", "erste hälfte", "zweite hälfte", "commence par",
    "le reste", "la suite", "première partie", "deuxième partie", "empieza por",
    "empieza con", "comienza con", "el resto", "primera parte", "segunda parte",
    "começa com", "o resto", "inizia con", "il resto", "la prima parte", "begint met",
    "de rest", "zaczyna się od", "reszta", "начинается с", "остальное", "остаток",
    "вторая часть", "первая часть", "前半", "後半", "残り", "后半", "剩下", "开头是",
    "앞부분", "나머지", "başlıyor", "devamı", "kalanı",
    # a value cut by an Enter pressed too early, its rest in the next message
    "hit enter", "pressed enter", "hit return", "sent too early", "sent too soon",
    "enter too early", "enter too soon",
)

_FRAG_RE = re.compile(r"[A-Za-z0-9_\-+/=.~!@#$%^&*]{6,256}")
_PART_REACH = 120
_HINT_RE = re.compile(r"[0-9A-Z]")


_DATEISH_RE = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d")


def _fragment(v: str) -> bool:
    """A piece of a key: letters and digits mixed, or a random mix of cases."""
    v = v.strip(".,;:!?")
    if len(v) < 6 or _redact.MARKER_RE.search(v) or _redact._PATH_RE.match(v):
        return False
    if re.fullmatch(r"v?\d+(?:\.\d+)+[\w.\-]*", v) or v.isdigit() or "://" in v:
        return False
    if _redact._UUID_RE.match(v) or _DATEISH_RE.match(v) or _PUBLIC_ID_RE.match(v):
        return False
    if _redact._HEX_RE.match(v) and len(v) < 12:
        return False
    letters = sum(c.isalpha() for c in v)
    digits = sum(c.isdigit() for c in v)
    if letters and digits:
        return len(v) >= 8 or digits >= 2
    if letters and len(v) >= 10:
        changes = len(re.findall(r"[a-z]+|[A-Z]+", v)) - 1
        return changes / len(v) >= 0.3
    return False


def find_parts(text: str, low: str) -> Iterator[Span]:
    words = _words_in(low, _PART_WORDS)
    if words is None:
        return
    for m in words.finditer(low):
        if not _bounded(low, m, right=True):
            continue
        ls, le = _line_bounds(text, m.start())
        lo, hi = max(ls, m.start() - _PART_REACH), min(le, m.end() + _PART_REACH)
        if _HINT_RE.search(text, lo, hi) is None:
            continue  # a fragment holds a digit or a capital
        for f in _FRAG_RE.finditer(text, lo, hi):
            if f.start() >= m.start() and f.start() < m.end():
                continue
            s, e = f.span()
            while e > s and text[e - 1] in ".,;:!?":
                e -= 1
            if _fragment(text[s:e]):
                yield s, e, "secret-value"


# --------------------------------------------------------------------------- random tokens

_RANDOM_RUN_RE = re.compile(r"[A-Za-z0-9_\-+/~.]{16,}={0,3}")
_CLASS_RE = re.compile(r"[a-z]+|[A-Z]+|[0-9]+")
_CAMEL_WORD_RE = re.compile(r"[A-Z]?[a-z]{2,}")
# What comes before a run that says it is not a secret: a digest, an image, a public key.
_NOT_BEFORE_RE = re.compile(
    r"(?:sha\d{1,3}|md5|base64|sha|blake2b?|digest|integrity|ssh-(?:rsa|ed25519|dss)|"
    r"ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)[:\-,=]?[ \t]*[\"']?\Z", re.IGNORECASE
)
# Ids that are public by design: an API's object ids, message and request ids.
_PUBLIC_ID_RE = re.compile(
    r"(?:[a-z]+_)*(?:srvtoolu|toolu|msg|msgbatch|req|file|run|thread|asst|call|chatcmpl|evt|cus|ch|pi|pm|price|"
    r"prod|sub|in|txn|acct|ba|card|src|tok|seti|si|py|re|po|tr|ii|cs|ord|item|sess|resp|"
    r"batch|job|step|ftjob|vs|org|proj|user|team|ws|app|pk)[_\-](?:(?:live|test)_)?"
    r"[A-Za-z0-9]{8,}\Z"
)
_DIGEST_HEAD_RE = re.compile(r"(?:sha\d{0,3}|md5|blake2[bs]?|nonce|h1)[\-:]", re.IGNORECASE)
_CERT_RE = re.compile(r"-----BEGIN (?:CERTIFICATE|PUBLIC KEY|[A-Z ]*PUBLIC KEY(?: BLOCK)?"
                      r"|(?:NEW )?CERTIFICATE REQUEST|X509 CRL|(?:PGP |SSH )?SIGNATURE"
                      r"|PGP MESSAGE)-----")


# A key that names a value which is not a credential, just before it (JSON, YAML, k=v).
_NOT_SECRET_KEY_RE = re.compile(
    r"[\"']?(?:signature|hash|digest|checksum|etag|integrity|nonce|id|uuid|sha|fingerprint|"
    r"request_?id|trace_?id|message_?id|tool_?use_?id)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?\Z",
    re.IGNORECASE,
)


# Words that say nearby random-looking text is public or derived: a key to verify with, a
# digest, a nonce, an entity tag, ciphertext (sops' ENC[…], its iv and tag).
_PUBLIC_WORDS_RE = re.compile(
    r"verif|public|pubkey|fingerprint|checksum|digest|hash|etag|nonce|integrity|signature|"
    r"nodekey:|discokey:|machinekey:|"
    r"\bh1:|enc\[|\biv:|\btag:|ciphertext|encrypted", re.IGNORECASE)
_JWK_PUBLIC_RE = re.compile(r"[\"'](?:n|e|x|y|crv|kid|x5c|x5t|x5t#S256|alg|use)[\"'][ \t]*:[ \t]*"
                            r"\[?[ \t]*[\"']\Z")
_DIGEST_BYTES = frozenset({16, 20, 28, 32, 48, 64})


def _public_material(text: str, s: int, v: str) -> bool:
    """Random-looking but not a secret: a word before it on its line or the line above
    says so, a JWK's public member, or padded base64 of a digest's length (a checksum,
    a public key; a private one is found by its name, ``PrivateKey = …``)."""
    lo = max(0, s - 160)
    nl = text.rfind("\n", lo, s)
    nl = text.rfind("\n", lo, nl) if nl > 0 else nl  # this line and the one above
    if _PUBLIC_WORDS_RE.search(text, max(lo, nl + 1), s):
        return True
    if _JWK_PUBLIC_RE.search(text, max(0, s - 24), s) and "kty" in text[max(0, s - 600) : s]:
        return True
    if v.endswith("=") and re.fullmatch(r"[A-Za-z0-9+/_\-]+=*", v):
        n = len(v) // 4 * 3 - (len(v) - len(v.rstrip("=")))
        return len(v) % 4 == 0 and n in _DIGEST_BYTES
    return False


def _decodes_to_text(v: str) -> bool:
    body = v.rstrip("=")
    if len(body) < 16 or len(body) % 4 == 1 or not re.fullmatch(r"[A-Za-z0-9+/]+", body):
        return False
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return printable >= 0.95 * len(raw)


_FILE_NAME_RE = re.compile(
    r"\.(?:m?js|cjs|css|map|png|jpe?g|gif|svg|webp|woff2?|ttf|html?|json|wasm|gz|zip|tar|"
    r"txt|md|py|tsx?|jsx|ico|pdf|xml|ya?ml|lock|whl|so|dll|exe)\Z")


@functools.lru_cache(maxsize=65536)
def random_token(v: str) -> bool:
    """Generated, not written: capitals, small letters and digits, changing class often,
    dense in information; not a name, a path, a version or a known public id."""
    if not 16 <= len(v) <= 1024:
        return False
    core = v.rstrip("=")
    if "/" in core and not re.search(r"[+=]", v) and core.count("/") >= 2:
        return False  # a path
    if _PUBLIC_ID_RE.match(v) or core.startswith("AAAA") or _DIGEST_HEAD_RE.match(v):
        return False
    if _FILE_NAME_RE.search(v):
        return False  # "main.4f8a9b2c1d3eXk9Q.js": a bundle's file name and its hash
    upper = lower = digit = 0
    for c in core:
        if c.isupper():
            upper += 1
        elif c.islower():
            lower += 1
        elif c.isdigit():
            digit += 1
    if not (upper and lower and digit):
        return False
    alnum = upper + lower + digit
    if alnum < 0.85 * len(core) or upper < 2 or lower < 2 or digit < (1 if len(core) >= 24 else 2):
        return False
    runs = _CLASS_RE.findall(core)
    if (len(runs) - 1) / len(core) < 0.3:
        return False  # CamelCaseWords, snake_words_2, a word and a number
    words = sum(len(r) for r in runs if len(r) >= 5 and r.isalpha())
    if words > 0.5 * len(core):
        return False
    camel = sum(len(w) for w in _CAMEL_WORD_RE.findall(core))
    if camel >= 0.75 * len(core):
        return False  # "AshJsonApi.Plug.Parser.reduce_part": names, however mixed
    if _redact._NAMED_DIGEST_RE.match(v):
        return False
    # a generated string's entropy is close to log2 of its length (up to its alphabet's)
    return _entropy(core) >= 0.82 * math.log2(min(len(core), 64))


def find_random_tokens(text: str, low: str) -> Iterator[Span]:
    if len(text) >= gitleaks._TOKENS_MIN_TEXT and not any(
            random_token(m.group().rstrip(".-~"))
            for m in _RANDOM_RUN_RE.finditer(gitleaks.distinct_tokens(text))):
        return  # no run of the text looks generated (each distinct token asked once)
    cert_ends: list[tuple[int, int]] = []
    if "-----BEGIN" in text:
        for c in _CERT_RE.finditer(text):
            end = text.find("-----END", c.end())
            cert_ends.append((c.start(), len(text) if end < 0 else end))
    for m in _RANDOM_RUN_RE.finditer(text):
        s = m.start()
        if s and ((text[s - 1].isascii() and text[s - 1].isalnum()) or text[s - 1] in "%\\"):
            continue  # the tail of a longer word or an escape
        v = m.group().rstrip(".-~")
        if not random_token(v):
            continue
        before = text[max(0, s - 40) : s]
        if _NOT_BEFORE_RE.search(before) or before.endswith(("://", "@", "data:")):
            continue
        if _NOT_SECRET_KEY_RE.search(before) and not _public.names_a_credential(
                _public.key_before(text, s)):
            continue  # "signature": "…" of a thinking block, "etag": "…", "id": "…"
        if _public_material(text, s, v):
            continue
        if _decodes_to_text(v):
            continue  # base64 of text: redact's decode-and-rescan rule judges what it says
        if any(a <= s < b for a, b in cert_ends):
            continue
        if before.rstrip().endswith(("/", "#")) and "://" in before:
            continue  # a URL's path or anchor: the URL rules judge those
        if before[-1:] in ("'", '"', "`") and _code_literal(text, s):
            continue
        if _syntax.is_name(v) or _data_line(text, s, s + len(v)) or v.startswith("//"):
            continue  # a name, a line of a data block, a URL after its scheme
        if _named_otherwise(text, s):
            continue
        yield s, s + len(v), "high-entropy"


# Keys that say nothing of their value: what they hold is named elsewhere (``"name":
# "API_TOKEN", "value": "…"``), so a random value under one is still judged by its shape.
_BLANK_KEYS = frozenset(_redact._words(
    "value values val v data content contents text body string str raw result results "
    "output input arg args argument param params default item entry field payload env "
    "message msg"))


_ENV_LINE_RE = re.compile(r"(?:export[ \t]+)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+=")
_INDENT_RE = re.compile(r"[ \t]*(?:export[ \t]+)?")


def _named_otherwise(text: str, s: int) -> bool:
    """A random-looking value right under a key (a header, a JSON or YAML key, ``k=v``)
    whose name says what it is and names no credential (``X-Google-Smtp-Source``,
    ``"SignedEntryTimestamp"``, ``"logID"``): the key is the context, and it says data.
    Under ``Authorization``, ``X-Api-Key``, ``session``, or a key saying nothing
    (``"value"``), the shape still decides."""
    key = _public.key_before(text, s)
    if not key or key.lower() in _BLANK_KEYS or len(key) < 3:
        return False
    ks = text.rfind(key, max(0, s - 80), s)
    if ks > 0 and text[ks - 1] in "?&;":
        return False  # a URL's query parameter ("?code=…"): the query rules judge it
    segs = [w.lower() for w in _syntax.SEG_RE.findall(key)]
    if not all(_syntax.word_like(w) or w.isdigit() for w in segs):
        return False  # not a name made of words ("xxxxxxxx" where a marker was)
    if any(w in _ABBREVIATED for w in segs):
        return False  # "auth tok:", "wifi psk:": a credential's short name
    if ks >= 0 and _ENV_LINE_RE.match(text, ks) and _INDENT_RE.fullmatch(
            text, text.rfind("\n", 0, ks) + 1, ks) and not _public.names_an_id(key):
        return False  # "MAILGUN_SIGNING=…" in an env dump: a process's settings, where a
        # generated value is a credential whatever its variable is called
    return not any(_credential_name(k) for k in (key, *_parent_keys(text, s)))


def _credential_name(key: str) -> bool:
    """``session_id``, ``X-Api-Key``, ``secrets`` (plural too): a key naming a credential."""
    if _public.names_a_credential(key) or _redact._key_strength(key):
        return True
    singular = "_".join(w[:-1] if len(w) > 3 and w.endswith("s") else w
                        for w in _syntax.SEG_RE.findall(key))
    return _public.names_a_credential(singular) or bool(_redact._key_strength(singular))


_PARENT_KEY_RE = re.compile(r"[ \t]*-?[ \t]*[\"']?(?P<k>[A-Za-z_][\w.\-]{0,60})[\"']?[ \t]*[:=]")


def _parent_keys(text: str, s: int) -> list[str]:
    """The keys a YAML/JSON/TOML value is nested under (``secrets:`` above ``billing:``),
    nearest first, up to three levels and twenty lines up."""
    ls = text.rfind("\n", 0, s) + 1
    indent = len(text[ls:s]) - len(text[ls:s].lstrip(" \t"))
    out: list[str] = []
    pos = ls - 1
    for _ in range(20):
        if pos <= 0 or len(out) >= 3:
            break
        ps = text.rfind("\n", 0, pos) + 1
        line = text[ps:pos]
        pos = ps - 1
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        ind = len(line) - len(stripped)
        if ind < indent:
            m = _PARENT_KEY_RE.match(line)
            if m is not None:
                out.append(m.group("k"))
            indent = ind
    return out


_ABBREVIATED = frozenset(_redact._words("tok tkn pw pwd psk pat pin otp sid sig code"))


def _data_line(text: str, s: int, e: int) -> bool:
    """A line of a wrapped base64 block: a piece of data that the block finders judge
    whole (a key block, base64 decoded and scanned), not a token of its own; unless the
    block opens as a private key does. A line alone is data when it is a certificate or
    public key (DER) or a file format's bytes."""
    head = _syntax.block_head(text, s, e)
    if head is not None:
        return not _syntax.private_der(head)
    if _syntax.B64_LINE_RE.fullmatch(text, s, e) is None:
        return False
    return _syntax.public_der(text[s:e]) or _public.binary_base64(text[s:e])


# A string literal that code hands to a string operation (the replacement of ``replace``,
# a separator, a prefix to test): data the code works with, not a credential.
_STR_OP_BEFORE_RE = re.compile(
    r"\.(?:replace(?:All)?|split|join|pad(?:Start|End)|(?:last)?[iI]ndexOf|includes|"
    r"startsWith|endsWith|concat|test|match(?:All)?|search|localeCompare|normalize|"
    r"translate|maketrans|strip|lstrip|rstrip|removeprefix|removesuffix|format)"
    r"\((?:[^()\n]{0,120},)?[ \t]*[\"'`]\Z")
_MINIFIED_REACH = 300


def _code_literal(text: str, s: int) -> bool:
    """A quoted run at ``s`` that is a string operation's argument, or a literal in
    minified code (a long line with almost no spaces, functions and statements): bundled
    code is full of random-looking literals, and a credential in it is named by its key
    (``apiKey:"…"``, the assignment rules) or carries its provider's prefix."""
    if _STR_OP_BEFORE_RE.search(text, max(0, s - 160), s) is not None:
        return True
    ls, le = _line_bounds(text, s)
    seg = text[max(ls, s - _MINIFIED_REACH) : min(le, s + _MINIFIED_REACH)]
    if len(seg) < 60 or seg.count(" ") > 0.05 * len(seg):
        return False
    return ("function(" in seg or "=>" in seg) and seg.count(";") + seg.count("}") >= 2


# --------------------------------------------------------------------------- typed passwords

# A password as people make them, whatever the language around it: 10-64 characters with a
# capital, a small letter, a digit and a sign inside ("Cinder-Sable38&", "gUSH4vU@mIFgw"),
# and none of what code, paths, markup or addresses hold.
_TYPED_RE = re.compile(r"[^\s\"'`<>()\[\]{}=,;|\\/]{10,64}")
_SIGNS = frozenset("!@#$%^&*~?")  # not "+": base64 has it
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")
_AT_HOST_RE = re.compile(r"@(?:[\w\-]+\.)+\w+")  # "…@host.tld", "…@10.0.0.5": an address
_EMAIL_RE = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}\Z")


def typed_password(v: str) -> bool:
    core = v.strip(".,:;!?*_-")
    if not 10 <= len(core) <= 64 or _redact.MARKER_RE.search(core) or "://" in core:
        return False
    if not any(c in _SIGNS for c in core[1:]) or core[0] in "@#$%&~+" or ":" in core:
        return False  # a handle, an anchor, a variable, a path, a flag
    if not (any(c.isupper() for c in core) and any(c.islower() for c in core)
            and any(c.isdigit() for c in core)):
        return False
    if not core.isascii() or _EMAIL_RE.match(core) or _AT_HOST_RE.search(core):
        return False
    if _redact._FORMAT_RE.search(core) or "::" in core or "..." in core:
        return False
    if len(_PERCENT_RE.findall(core)) >= 2:
        return False  # URL-encoded text ("%3E%3C/svg")
    return _entropy(core) >= 3.0


_GENERATED_HEX_RE = re.compile(r"[0-9a-fA-F]{32,128}")


def generated(v: str) -> bool:
    """A value machines make, for a finder whose context (an auth subcommand, a prefix
    naming a key, a quote cut by a message end) says a secret stands there: a UUID, hex
    of 32+ with letters and digits, or a run random by any of the shape rules."""
    if len(v) == 36 and _redact._UUID_RE.match(v):
        return True
    if _GENERATED_HEX_RE.fullmatch(v):
        return any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    return (_redact._looks_random(v) or _redact._random_letters(v) or random_lower(v)
            or random_token(v) or typed_password(v))


# A sign with a letter or digit on either side: where a typed password may be (found by
# ``re`` in C; the run around it is then taken, at most 64 characters each way).
_SIGN_NEAR_RE = re.compile(r"[A-Za-z0-9][!@#$%^&*~?]|[!@#$%^&*~?][A-Za-z0-9]")
_RUN_STOP = frozenset(" \t\r\n\"'`<>()[]{}=,;|\\/")
_RUN_RIGHT_RE = re.compile(r"[^ \t\r\n\"'`<>()\[\]{}=,;|\\/]*")


_PROMPT_AFTER_RE = re.compile(r":[ \t]?[~/]|[ \t]*[$#%>][ \t]|\]")
_USER_AT_HOST_RE = re.compile(r"[a-z_][a-z0-9_.\-]{0,31}@[A-Za-z0-9][A-Za-z0-9\-]{0,62}")


_ASCII_RUN_RE = re.compile(r"[\x00-\x7f]+")


_SIGN_RE = re.compile(r"[!@#$%^&*~?]")
_ALNUM_ASCII = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _sign_pairs(text: str) -> list[int]:
    """Where ``_SIGN_NEAR_RE.finditer`` finds a letter or digit beside a sign, from the
    signs (few: a search for one character class) rather than trying the alternation at
    every letter: each sign proposes its pair on the left and on the right, and the
    leftmost pairs that do not overlap are the matches, as ``finditer`` takes them."""
    starts: set[int] = set()
    for m in _SIGN_RE.finditer(text):
        q = m.start()
        if q and text[q - 1] in _ALNUM_ASCII:
            starts.add(q - 1)
        if text[q + 1 : q + 2] in _ALNUM_ASCII:
            starts.add(q)
    out, end = [], 0
    for p in sorted(starts):
        if p >= end:
            out.append(p)
            end = p + 2
    return out


def find_typed_passwords(text: str, low: str) -> Iterator[Span]:
    done = 0
    ascii_text = text.isascii()  # O(1): most texts, and no run to cut at another script
    for at in _sign_pairs(text):
        if at < done:
            continue
        s = at
        while s > 0 and at - s < 64 and text[s - 1] not in _RUN_STOP:
            s -= 1
        e = _RUN_RIGHT_RE.match(text, at + 2, at + 2 + 64).end()  # in C
        done = e
        if not ascii_text and not text[s:e].isascii():
            # a password is typed in ASCII: the run ends where another script's letter or
            # sign begins ("…#02، ھېچ…": an Arabic comma; "用…作为": CJK on either side)
            run = _ASCII_RUN_RE.search(text, s, e)
            while run is not None and run.end() <= at:
                run = _ASCII_RUN_RE.search(text, run.end(), e)
            if run is None or run.start() > at:
                continue
            s, e = run.span()
        m = _TYPED_RE.fullmatch(text, s, e)
        if m is None or (s and text[s - 1].isascii() and (
                text[s - 1].isalnum() or text[s - 1] in "$%&@/+=\\")):
            continue
        v = m.group()
        if "@" in v and _PROMPT_AFTER_RE.match(text, e - v.endswith(":")) and \
                _USER_AT_HOST_RE.fullmatch(v.rstrip(":")):
            continue  # "jim@DESKTOP-8QDMK8N:/mnt/c$": a shell prompt's user and host
        if typed_password(v) and not _syntax.code_run(text, s, e):
            lead = len(v) - len(v.lstrip(".,:;!?*_-"))
            core = v.strip(".,:;!?*_-")
            yield s + lead, s + lead + len(core), "password"


# ``user:password@host`` without a scheme (ssh, rsync, a pasted credential)
# Found from its ":" (a literal ``re`` skips to); the user name is checked behind it.
_BARE_USERINFO_RE = re.compile(
    r":(?P<v>[^\s:@/\"'`]{4,64})@"
    r"(?=(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,}\b|\d{1,3}(?:\.\d{1,3}){3}\b|localhost\b)"
)
_BARE_USER_RE = re.compile(r"(?<![\w/:.@\-])[A-Za-z0-9._\-]{1,32}\Z")


def find_bare_userinfo(text: str, low: str) -> Iterator[Span]:
    if "@" not in text or ":" not in text:
        return
    for m in _BARE_USERINFO_RE.finditer(text):
        if _BARE_USER_RE.search(text, max(0, m.start() - 34), m.start()) is None:
            continue
        v = m.group("v")
        if _redact._is_literal(v) and not re.fullmatch(r"v?\d+(?:\.\d+)*", v) and (
                any(c.isdigit() for c in v) or any(not c.isalnum() for c in v)):
            yield *m.span("v"), "url-password"


# --------------------------------------------------------------------------- key files

# Private keys in their own encodings: a Nostr ``nsec1…`` (bech32), a BIP32 extended private
# key (``xprv…``); PuTTY's ``Private-Lines: N`` and the lines after it, its ``Private-MAC``;
# a base64 line right under a line that calls it a secret or private key (minisign's
# "untrusted comment: … secret key", signify, a wallet export).
_ENCODED_KEY_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:nsec1[02-9ac-hj-np-z]{58}|[xtyzuv]prv[1-9A-HJ-NP-Za-km-z]{100,112})"
    r"(?![A-Za-z0-9])"
)
_PPK_RE = re.compile(r"Private-Lines:[ \t]*(\d{1,3})[ \t]*(?:\r?\n|\\n)")
_PPK_MAC_RE = re.compile(r"Private-MAC:[ \t]*(?P<v>[0-9a-fA-F]{16,128})")
_KEY_HEADER_RE = re.compile(r"(?:secret|private)[ \t]+key[^\n]{0,40}(?:\r?\n|\\n)[ \t]*"
                            r"(?P<v>[a-z0-9+/]{40,}={0,2})")  # on the lowercased text


def find_key_files(text: str, low: str) -> Iterator[Span]:
    if "nsec1" in text or "prv" in text:
        for m in _ENCODED_KEY_RE.finditer(text):
            yield *m.span(), "private-key"
    if "Private-" in text:
        for m in _PPK_RE.finditer(text):
            pos, n = m.end(), int(m.group(1))
            for _ in range(n):
                nl = _LINE_END_RE.search(text, pos)
                end = nl.start() if nl else len(text)
                if end > pos:
                    yield pos, end, "private-key"
                if nl is None:
                    break
                pos = nl.end()
        for m in _PPK_MAC_RE.finditer(text):
            yield *m.span("v"), "private-key"
    if "secret key" in low or "private key" in low:
        for m in _KEY_HEADER_RE.finditer(low):
            yield *m.span("v"), "private-key"


# --------------------------------------------------------------------------- lines of config

# ``NAME=value`` / ``name = value`` / ``name: value`` alone on a line (.env, .ini, YAML,
# TOML), where the name holds a secret word with a qualifier after it that redact's own
# assignment rule does not read (``password_hex``, ``DIST_CERT_P12_BASE64``).
_CONFIG_LINE_RE = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+)?(?P<k>[A-Za-z_][A-Za-z0-9_.\-]{1,80})[ \t]*[=:][ \t]*"
    r"[\"']?(?P<v>[^\s\"'#(){}\[\],;]{6,4096})[\"']?[ \t]*$"
)
_KEY_FILE_NAME_RE = re.compile(r"p12|pfx|keystore|jks|private_?key", re.IGNORECASE)


def find_config_lines(text: str, low: str) -> Iterator[Span]:
    if "=" not in text and ":" not in text:
        return
    # a JSON-escaped line break ends a line too (same offsets: two characters for two)
    for m in _CONFIG_LINE_RE.finditer(text.replace("\\n", "\n ")):
        k, v = m.group("k"), m.group("v")
        strength = _redact._key_strength(k)
        if strength is None and _KEY_FILE_NAME_RE.search(k):
            strength = "strong"  # DIST_CERT_P12_BASE64, SIGNING_KEYSTORE
        if strength is None and _syntax.credential_name(k) and (
                typed_password(v) or random_token(v)):
            strength = "weak"  # "psk=…", "auth_tok: …": a short name, a generated value
        if strength is None or not _redact._is_literal(v) or _redact.MARKER_RE.search(v):
            continue
        if strength == "weak" and not (_redact._looks_random(v) or typed_password(v)):
            continue
        if strength == "strong" and _redact._not_a_token(v):
            continue
        if _redact._IDENT_CHAIN_RE.match(v) and not any(c.isdigit() for c in v):
            continue  # a name ("password = db_password"), not a value
        yield *m.span("v"), _redact._refine(k, "secret-assignment")


# --------------------------------------------------------------------------- lists under a heading

# "Creds for staging:" then "- **Pusher**: `b7be…`" lines: each item's value is judged as a
# value beside a key word (its own label is a product's name, which says nothing).
# A heading ends with a colon and a line break; its line names credentials.
_HEAD_END_RE = re.compile(r"[:：][ \t]*(?:\r?\n|\\n)")
_LIST_WORDS_RE = re.compile(
    r"creds|credential|secrets|api keys|keys|tokens|passwords|logins|zugangsdaten|"
    r"identifiants|credenciales|credenziali|пароли|ключи|密钥|凭据|認証情報")
_LIST_ITEM_RE = re.compile(
    r"[ \t]*(?:[-*•+]|\d{1,2}[.)])[ \t]+[^\n:：]{1,60}[:：=][ \t]*[`\"']?(?P<v>[^\s`\"']{8,512})"
    r"[`\"']?[^\n]{0,80}")
_MAX_ITEMS = 30


def find_listed_credentials(text: str, low: str) -> Iterator[Span]:
    if not any(w in low for w in ("creds", "credential", "secret", "key", "token", "password",
                                   "login", "zugangsdaten", "identifiant", "credencial",
                                   "парол", "ключ", "密钥", "凭据", "認証")):
        return
    from reviewer.sanitize import layers  # layers imports nothing of shapes

    for h in _HEAD_END_RE.finditer(text):
        ls = max(text.rfind("\n", max(0, h.start() - 160), h.start()),
                 text.rfind("\\n", max(0, h.start() - 160), h.start()))
        if _LIST_WORDS_RE.search(low, max(0, ls, h.start() - 160), h.start()) is None:
            continue
        pos = h.end()
        for _ in range(_MAX_ITEMS):
            while text.startswith(("\n", "\r\n"), pos):  # blank lines between
                pos += 1 if text[pos] == "\n" else 2
            m = _LIST_ITEM_RE.match(text, pos)
            if m is None:
                break
            v = m.group("v").rstrip(".,;)")
            if layers._near_token(v) or layers._near_password(v):
                yield m.start("v"), m.start("v") + len(v), "secret-value"
            nl = _LINE_END_RE.search(text, m.end())
            if nl is None:
                break
            pos = nl.end()


# --------------------------------------------------------------------------- odd carriers

# A BitLocker recovery key (manage-bde's "Numerical Password"): eight groups of six digits.
_BITLOCKER_RE = re.compile(r"(?<![\d\-])\d{6}(?:-\d{6}){7}(?![\d\-])")
# A file whose name is the credential, in a folder for them (``./secrets/<token>:/run/pw``).
_SECRET_DIRS = ("secrets", "tokens", "credentials", "creds", "keys")
_DIR_FILE_RE = re.compile(r"(?P<v>[A-Za-z0-9_%+\-]{12,128})(?=[:\s\"'`,]|\Z)")


def find_odd_carriers(text: str, low: str) -> Iterator[Span]:
    """A BitLocker key, a file named for its secret, a value spelled out: one call a text."""
    yield from find_spelled_out(text, low)
    if gitleaks.has_word(low, "recovery") or gitleaks.has_word(low, "numerical"):
        for m in _BITLOCKER_RE.finditer(text):
            yield *m.span(), "password"
    if not any(gitleaks.has_word(low, d) for d in _SECRET_DIRS):
        return
    at = low.find("s/")  # every folder above ends so: one scan, then each is checked
    while at >= 0:
        d_end, at = at + 2, low.find("s/", at + 2)
        if not low.endswith(_SECRET_DIRS, 0, d_end - 1):
            continue
        m = _DIR_FILE_RE.match(text, d_end)
        if m is not None:
            v = m.group("v")
            if (any(c.isdigit() for c in v) and any(c.isupper() for c in v)
                    and any(c.islower() for c in v) and "_" not in v.strip("_")[1:-1]
                    and not _redact._NAMED_DIGEST_RE.match(v)):
                yield *m.span("v"), "secret-value"


# --------------------------------------------------------------------------- spelled out

# A value read aloud in the phonetic alphabet ("zero zulu seven sierra alfa …"): six or
# more letter and digit words in a row, three distinct letters among them. Prose does not
# string call signs together; a person reading a password off a sticker does.
_NATO = _redact._words(
    "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima "
    "mike november oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray "
    "x-ray yankee zulu")
_DIGIT_WORDS = _redact._words("zero one two three four five six seven eight nine niner")
_SPELLED_WORD = r"(?:" + "|".join(sorted((*_NATO, *_DIGIT_WORDS), key=len, reverse=True)) + r")"
_SPELLED_RE = re.compile(r"(?<![a-z])" + _SPELLED_WORD + r"(?:(?:[ \t,]+|[ \t]*-[ \t]*)"
                         + _SPELLED_WORD + r"){5,63}(?![a-z])")
_RARE_NATO = _redact._words("alfa bravo foxtrot juliet juliett kilo oscar papa quebec romeo "
                            "sierra uniform whiskey whisky xray yankee zulu")
_RARE_HEADS = frozenset(w[:2] for w in _RARE_NATO)
_SPELLED_SET = frozenset((*_NATO, *_DIGIT_WORDS))
_NEXT_WORD_RE = re.compile(r"[ \t,\-]*([a-z\-]{3,9})")
_MAX_OCCURRENCES = 64


def _occurrences(low: str, needle: str) -> Iterator[int]:
    at = low.find(needle)
    n = 0
    while at >= 0 and n < _MAX_OCCURRENCES:
        yield at
        at = low.find(needle, at + 1)
        n += 1


def find_spelled_out(text: str, low: str) -> Iterator[Span]:
    heads = gitleaks.word_starts(low)
    if _RARE_HEADS.isdisjoint(heads):
        return
    # a run is looked for around the call signs prose rarely holds ("echo", "delta",
    # "alpha" fill transcripts; a run of six or more holds one of these but 1% of the time)
    present = [w for w in _RARE_NATO if w[:2] in heads and gitleaks.has_word(low, w)]
    if not present:
        return
    # looked for only around each call sign followed by another word (a run needs six)
    done = 0
    starts = sorted(p for w in present for p in _occurrences(low, w + " "))
    for at in starts:
        if at < done:
            continue
        nxt = _NEXT_WORD_RE.match(low, low.index(" ", at) + 1)
        if nxt is None or nxt.group(1) not in _SPELLED_SET:
            continue  # "echo $PATH": a call sign, but no run of them
        m = _SPELLED_RE.search(low, max(done, at - 160), at + 700)
        if m is None or m.start() > at:
            continue
        done = m.end()
        words = re.findall(r"[a-z\-]+", m.group())
        letters = [w[0] for w in words if w in _NATO]
        if letters == sorted(letters) and len(set(letters)) == len(letters):
            continue  # "alfa, bravo, charlie, delta…": the alphabet listed, not a value
        if len(set(letters)) >= 3:
            yield *m.span(), "password"


FINDERS = (find_listed_credentials, find_config_lines, find_key_files, find_mfa,
           find_url_path_secrets, find_parts, find_random_tokens, find_typed_passwords,
           find_bare_userinfo, find_odd_carriers)
