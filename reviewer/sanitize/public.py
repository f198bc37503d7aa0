"""Values that look random but are public by what they are or where they stand.

A detector that finds secrets by shape (random-looking, near a word) also finds public
material of the same shape: a request id, a key id in ``gpg`` output, an image's base64,
a digest. What makes such a value public is its context (the key or header it stands
under, the tool line that prints it) or its content (a file format's magic bytes). These
checks are asked of a span after the rules proposed it (``redact._spans``), so every
rule, present or future, gets them. Stdlib only: the hooks' redactor imports this.
"""

from __future__ import annotations

import base64
import binascii
import re
from itertools import pairwise

from reviewer.sanitize import syntax as _syntax

# --------------------------------------------------------------------------- identifier keys

# ``x-amz-id-2: …``, ``"lineage": "…"``, ``trace_id=…``, ``BuildID[sha1]=…``: the key the
# value stands under names an identifier or a digest, and nothing secret.
_KEY_BEFORE_RE = re.compile(
    r"(?P<k>[A-Za-z][A-Za-z0-9_.\-]{0,60}(?:\[[a-z0-9]{1,8}\])?)[\"']?[ \t]*(?::=|=>?|:)[ \t]*"
    r"[\"'`]?\Z")
_SEG_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ID_SEGMENTS = _words(
    "id ids uid uuid guid lineage digest hash checksum sha sha1 sha256 sha384 sha512 md5 "
    "etag fingerprint nonce integrity commit revision rev serial kid buildid ray trace "
    "traceparent span correlation sitekey accessor challenge state")
_SECRET_SEGMENTS = _words(
    "key token secret password passwd pass pwd passphrase auth session cookie credential "
    "credentials cred creds signature sig private api access bearer jwt otp pin")


def names_an_id(key: str) -> bool:
    """``x-amz-id-2``, ``traceId``, ``lineage``, ``BuildID[sha1]``: a key for an identifier
    or digest (its words hold one such word, and no word for a secret)."""
    segs = [s.lower() for s in _SEG_RE.findall(key)]
    return any(s in _ID_SEGMENTS for s in segs) and not any(s in _SECRET_SEGMENTS for s in segs)


def key_before(text: str, start: int) -> str:
    """The name of the key the value at ``start`` stands under ('' if none)."""
    lo = max(0, start - 80)
    nl = text.rfind("\n", lo, start)
    m = _KEY_BEFORE_RE.search(text, nl + 1 if nl >= 0 else lo, start)
    return m.group("k") if m is not None else ""


def names_a_credential(key: str) -> bool:
    """``session_id``, ``access_key_id``: an id that opens something (not a signature's)."""
    order = [s.lower() for s in _SEG_RE.findall(key)]
    if len(order) >= 2 and order[-1] == "id" and order[-2] in ("credential", "key", "cred") and (
            "access" not in order):
        return False  # "credentialId" (WebAuthn), "api_key_id": the handle of a secret
    segs = set(order)
    return bool(segs & (_SECRET_SEGMENTS - {"signature", "sig"}))


def site_key(key: str) -> bool:
    """``data-sitekey``, ``siteKey``, ``RECAPTCHA_SITE_KEY``: a captcha's key for the page,
    public by design (its secret is the "secret key")."""
    segs = [s.lower() for s in _SEG_RE.findall(key)]
    return "sitekey" in segs or any(a == "site" and b == "key" for a, b in pairwise(segs))


# "run id lhr-…", "commit hash 3f9a…": an id named in prose right before its value.
_PROSE_ID_BEFORE_RE = re.compile(
    r"(?P<k>(?:[A-Za-z][\w\-]{0,30}[ \t])?(?:id|ids|uuid|guid|hash|digest|checksum|sha|"
    r"fingerprint))[ \t]+[`\"']?\Z", re.IGNORECASE)
# "(public, goes in the browser)", "publishable", "public token": the text says the value
# is public ("the repo is public, the key is …" does not: that is about the repo).
_SAID_PUBLIC_RE = re.compile(r"\((?:it'?s )?public\b|\bpublishable\b|"
                             r"\bpublic[ \t]+(?:token|id|identifier)\b", re.IGNORECASE)


_ACCESS_BEFORE_RE = re.compile(r"\baccess(?:[ \t_\-]key)?[ \t_\-]\Z", re.IGNORECASE)


_APP_ID_RE = re.compile(r"app(?:lication)?[_\-]?id", re.IGNORECASE)
_HEX_KEY_RE = re.compile(r"[0-9a-fA-F]{32,64}(?![0-9A-Za-z\-])")


# RFC 6455's handshake: the client's nonce and the server's hash of it, public by design.
_WEBSOCKET_RE = re.compile(r"sec-websocket-(?:key|accept)[ \t]*:[ \t]*\Z", re.IGNORECASE)


def websocket_nonce(text: str, start: int) -> bool:
    return _WEBSOCKET_RE.search(text, max(0, start - 40), start) is not None


# The name a value is given, however the language gives it: ``spreadsheetId := "…"`` (Go),
# ``:build_id => "…"`` (Ruby), ``<key>application-identifier</key><string>…`` (a plist),
# ``<request-id>…`` (XML). Not bound to the value's line, unlike ``_KEY_BEFORE_RE``.
_NAMED_BEFORE_RE = re.compile(
    r"(?P<k>[A-Za-z][\w.\-]{0,60})[\"']?[ \t]*(?::=|=>|<-|:|=)[ \t]*[\"'`]?\Z"
    r"|<key>(?P<pk>[\w.\-]{1,80})</key>\s{0,40}<string>\Z"
    r"|<(?P<xk>[A-Za-z][\w.\-]{0,60})>\Z")
_ID_WORDS = frozenset(("identifier", "identifiers", "ident"))


def under_id_key(text: str, start: int) -> bool:
    """The value at ``start`` is given a name that says identifier or digest and nothing
    secret (a key on its line, ``x-amz-id-2: …``; a name in code or markup, ``spreadsheetId
    := …``, a plist's ``<key>``, ``<request-id>``; "commit hash" in prose), or the line
    before it says the value is public. The one rule every finder's span is asked."""
    lo = max(0, start - 80)
    nl = text.rfind("\n", lo, start)
    ls = nl + 1 if nl >= 0 else lo
    m = _KEY_BEFORE_RE.search(text, ls, start) or _PROSE_ID_BEFORE_RE.search(text, ls, start)
    if m is not None and (names_an_id(m.group("k")) or site_key(m.group("k"))) and not (
            id_that_opens(text, m.start("k"), m.group("k"), start)):
        return True
    n = _NAMED_BEFORE_RE.search(text, max(0, start - 120), start)
    if n is not None:
        key = n.group("k") or n.group("pk") or n.group("xk")
        segs = {w.lower() for w in _syntax.SEG_RE.findall(key)}
        if not (names_a_credential(key) or _syntax.credential_name(key)
                or id_that_opens(text, n.start(n.lastgroup or "k"), key, start)) and (
                names_an_id(key) or bool(segs & _ID_WORDS)):
            return True
    return _SAID_PUBLIC_RE.search(text, ls, start) is not None


def id_that_opens(text: str, key_start: int, key: str, start: int) -> bool:
    """A name that says "id" over a value that opens something: "AWS access key id: …" (the
    id half of a key pair), an "app_id" of 32+ hex (a metered API's key by another name,
    where apps' ids are numbers, bundle names or UUIDs)."""
    nl = text.rfind("\n", max(0, key_start - 80), key_start)
    ls = nl + 1 if nl >= 0 else max(0, key_start - 80)
    return _ACCESS_BEFORE_RE.search(text, ls, key_start) is not None or (
        _APP_ID_RE.fullmatch(key) is not None and _HEX_KEY_RE.match(text, start) is not None)


# ``<CAF=x9Ym…@mail.gmail.com>``: a Message-ID or Content-ID, an id in angle brackets.
_ANGLE_ID_RE = re.compile(r"<[^<>\s@]{8,200}@[A-Za-z0-9.\-]{3,253}>")


def in_angle_id(text: str, start: int, end: int) -> bool:
    lt = text.rfind("<", max(0, start - 200), start + 1)
    if lt < 0:
        return False
    m = _ANGLE_ID_RE.match(text, lt)
    return m is not None and m.end() >= end


# --------------------------------------------------------------------------- binary base64

# The first bytes of file formats that base64 carries (an image in a notebook's output, a
# font, an archive): data, never a credential.
_MAGIC: tuple[bytes, ...] = (
    b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"RIFF", b"%PDF", b"PK\x03\x04", b"\x1f\x8b",
    b"BM", b"\x00\x00\x01\x00", b"wOFF", b"wOF2", b"OggS", b"ID3", b"\x00\x00\x00\x1cftyp",
    b"\x00\x00\x00\x18ftyp", b"\x00\x00\x00\x20ftyp", b"\x7fELF", b"\xca\xfe\xba\xbe",
    b"<svg", b"<?xml", b"BZh", b"\xfd7zXZ", b"7z\xbc\xaf", b"\x28\xb5\x2f\xfd",
)
_B64_HEAD_RE = re.compile(r"[A-Za-z0-9+/]{12}")


def binary_base64(v: str) -> bool:
    """``iVBORw0KGgo…`` (PNG), ``/9j/…`` (JPEG), ``H4sI…`` (gzip): base64 whose first
    bytes are a file format's signature."""
    if _B64_HEAD_RE.match(v) is None:
        return False
    try:
        head = base64.b64decode(v[:12])
    except (binascii.Error, ValueError):
        return False
    return head.startswith(_MAGIC)


# --------------------------------------------------------------------------- key ids

# A public key's id after its algorithm ("using EDDSA key C5AD…", "RSA key 0x1A2B…"), as
# gpg, ssh and signing tools print it.
_ALGO_KEY_BEFORE_RE = re.compile(
    r"\b(?:rsa|dsa|eddsa|ecdsa|ed25519|ed448|elg|elgamal|cv25519|cv448|nistp\d+|ecc)\d*"
    r"[ \t]+(?:public[ \t]+)?key(?:[ \t]+id)?[ \t:]*\Z", re.IGNORECASE)
_TOOL_LINE_RE = re.compile(r"(?:^|\n)[ \t]*(?:gpg|gpgv|gpg2|pgp|sq):[^\n]*\Z")


def key_id_context(text: str, start: int) -> bool:
    """A hex id at ``start`` named as a public key's, or on a line ``gpg:`` printed."""
    lo = max(0, start - 200)
    return (_ALGO_KEY_BEFORE_RE.search(text, max(0, start - 40), start) is not None
            or _TOOL_LINE_RE.search(text, lo, start) is not None)


# --------------------------------------------------------------------------- tokens' headers

_JOSE_RE = re.compile(r"eyJ[A-Za-z0-9_\-]{8,400}")


def jose_header(v: str) -> bool:
    """``eyJhbGciOiJFZERTQSJ9``: a JWT's header alone (``{"alg":"EdDSA"}``), as an error
    message or a test quotes the start of a token. Public: it says how the token is signed."""
    if _JOSE_RE.fullmatch(v) is None:
        return False
    try:
        raw = base64.urlsafe_b64decode(v + "=" * (-len(v) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(b'{"') and (b'"alg"' in raw or b'"typ"' in raw) and raw.isascii()


# --------------------------------------------------------------------------- chain addresses

# A Solana account, program or mint address: base58 of a 32-byte public key, in a text that
# speaks of a chain. (A private key is 64 bytes: 87-88 characters, not this.)
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58)}
_B58_ADDRESS_RE = re.compile(r"[1-9A-HJ-NP-Za-km-z]{26,44}")
_CHAIN_WORDS_RE = re.compile(
    r"(?<![a-z])(?:solana|devnet|mainnet(?:-beta)?|testnet|lamports?|pubkey|pda|ata|spl|b58|base58|"
    r"program[ _]?id|mint|explorer|anchor|wallet address|token account)\b", re.IGNORECASE)
_CHAIN_REACH = 4000


def _b58_bytes(v: str) -> int:
    n = 0
    for c in v:
        n = n * 58 + _B58_INDEX[c]
    return (n.bit_length() + 7) // 8 + len(v) - len(v.lstrip("1"))


def _b58check(v: str) -> bool:
    """A Bitcoin-style address: base58 of 25 bytes whose last four are its checksum."""
    import hashlib

    n = 0
    for c in v:
        n = n * 58 + _B58_INDEX[c]
    lead = len(v) - len(v.lstrip("1"))
    try:
        raw = b"\0" * lead + n.to_bytes((n.bit_length() + 7) // 8, "big")
    except OverflowError:
        return False
    if len(raw) != 25:
        return False
    check = hashlib.sha256(hashlib.sha256(raw[:21]).digest()).digest()[:4]
    return check == raw[21:]


def chain_address(text: str, start: int, v: str) -> bool:
    """``3iusaL6ys79Dsbpw…`` beside "devnet", "Program", "PDA": a public address; a
    Bitcoin address anywhere (its checksum says what it is)."""
    if _B58_ADDRESS_RE.fullmatch(v) is None:
        return False
    if v[0] in "123mn" and 26 <= len(v) <= 35 and _b58check(v):
        return True
    if _b58_bytes(v) != 32:
        return False
    lo = max(0, start - _CHAIN_REACH)
    return _CHAIN_WORDS_RE.search(text, lo, start + len(v) + _CHAIN_REACH) is not None


# --------------------------------------------------------------------------- hashes, examples

# A password hash in a modular-crypt or framework format (``pbkdf2_sha256$600000$salt$hash``,
# ``scrypt:32768:8:1$salt$hash``, ``$6$salt$hash``, ``{SSHA}…``): what a store keeps instead
# of the password, not the password; its salt looks random and is not a secret either.
_CRYPT_HEAD_RE = re.compile(
    r"(?:[\w\-]*(?:pbkdf2|scrypt|argon2\w*|bcrypt|sha\d*|md5|yescrypt|sha256_crypt)[\w:\-]*"
    r"|\$(?:1|2[abxy]?|5|6|7|y|gy|argon2\w*|scrypt|pbkdf2[\w\-]*)|\{S?SHA\d*\}|\{CRYPT\})"
    r"\$?", re.IGNORECASE)
_TOKEN_STOP = " \t\n\"'`<>()[]{},;="


_CRYPT_FULL_RE = re.compile(
    r"(?:(?:pbkdf2_\w+|scrypt[:\w]*|argon2\w*|bcrypt\w*|sha\d+|md5)(?:\$[^\s$]+){2,4}"
    r"|\$(?:1|2[abxy]|5|6|7|y|gy|argon2\w*)\$[^\s]{8,}|\{S?SHA\d*\}[A-Za-z0-9+/=]{20,})",
    re.IGNORECASE)


def crypt_hash(text: str, start: int, value: str = "") -> bool:
    """The span is a password hash, or a salt or digest inside one."""
    if value and _CRYPT_FULL_RE.fullmatch(value):
        return True
    i = start
    while i > 0 and start - i < 80 and text[i - 1] not in _TOKEN_STOP:
        i -= 1
    if i == start or ("$" not in text[i:start + 1] and "}" not in text[i - 1 : start + 1]):
        return False
    head = text[i:start]
    return _CRYPT_HEAD_RE.match(head) is not None and head.count("$") + head.count("}") >= 1


# "(e.g. Tr0ub4dor&3)", "for example sk_test_…": a value given as an example.
_EXAMPLE_BEFORE_RE = re.compile(
    r"(?:\be\.g\.|\bi\.e\.|for example|for instance|such as|example:|examples:|sample:)"
    r"[ \t:,]*[\"'`]?\Z", re.IGNORECASE)


def example_value(text: str, start: int) -> bool:
    return _EXAMPLE_BEFORE_RE.search(text, max(0, start - 24), start) is not None
