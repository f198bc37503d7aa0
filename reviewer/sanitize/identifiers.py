"""Values that identify or check something public: ids, checksums, content addresses.

Much of what looks generated is published on purpose: a public key's parameters, a
certificate pin, an object's id in its URL, an extended public key, a package's strong
name. None opens anything; each says what it is by one of three things, and this module
reads them (one question, ``public_identifier``, asked by ``redact.public_name`` of a span
a shape or context rule proposed; a provider's format is never asked):

- its own checksum or structure: base58check of an extended *public* key (``xpub…``,
  ``tpub…``; the private ``xprv…`` stays a secret), a content address that names its
  hash (an IPFS CIDv0's multihash header, a git-annex key);
- what names it: a JSON Web Key's public members (``n``, ``e``, ``x``, ``y`` beside a
  ``kty``; ``d``, ``p``, ``q``… stay secret), an element whose attributes name a digest
  algorithm (``<pin digest="SHA-256">…</pin>``), a date under a key that names no
  credential (``expiration="2022-01-01"``), a CI cache's key, a key's comment after its
  fingerprint;
- where it sits: a lock file's section of digests (``SPEC CHECKSUMS:``), a URL that shows
  a public object (``/track/<id>``, ``/status/<id>`` and the share tag in its query, a
  link's tracking tags), a content-addressed network (IPFS, Arweave), a package's strong
  name (``Name.Web.v12.2, Version=…``), a chain's program beside "program".

Stdlib only: the hooks' redactor imports this.
"""

from __future__ import annotations

import hashlib
import re

from reviewer.sanitize import public as _public
from reviewer.sanitize import syntax as _syntax

# Kinds a rule gives a value for its shape or a nearby word (``ordinary.KINDS`` without
# the base64 rule's, whose decoded text decides).
KINDS = frozenset(("high-entropy", "secret-value", "password", "secret-assignment",
                   "url-secret", "mfa-secret"))


def public_identifier(text: str, start: int, end: int, kind: str) -> bool:
    """The span ``text[start:end]`` (proposed as ``kind``) identifies or checks something
    public, by its checksum, by what names it or by where it sits."""
    if kind not in KINDS:
        return False
    v = text[start:end]
    return (extended_public_key(v) or content_address(text, start, end, v)
            or jwk_public_member(text, start) or checksum_section(text, start, v)
            or cache_key(text, start) or key_comment(text, start)
            or digest_element(text, start, end) or dated(text, start, v)
            or public_object_url(text, start, end) or strong_name(text, start, end, kind)
            or program_address(text, start, v))


# --------------------------------------------------------------------------- checksums

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58)}
_EXTENDED_RE = re.compile(r"[xtyzuvYZUV]pub[1-9A-HJ-NP-Za-km-z]{100,112}")
# BIP32 / SLIP-132 version bytes of extended public keys (xpub, tpub, ypub, zpub, upub,
# vpub, Ypub, Zpub, Upub, Vpub); a private key's (xprv…) are not among them.
_PUBLIC_VERSIONS = frozenset(bytes.fromhex(h) for h in (
    "0488b21e", "043587cf", "049d7cb2", "04b24746", "044a5262", "045f1cf6", "0295b43f",
    "02aa7ed3", "024289ef", "02575483"))


def b58check(v: str) -> bytes | None:
    """The payload of a base58check string (its last four bytes the double SHA-256 of the
    rest), or None."""
    n = 0
    for c in v:
        i = _B58_INDEX.get(c)
        if i is None:
            return None
        n = n * 58 + i
    raw = b"\0" * (len(v) - len(v.lstrip("1"))) + n.to_bytes((n.bit_length() + 7) // 8, "big")
    if len(raw) < 5:
        return None
    body, check = raw[:-4], raw[-4:]
    return body if hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4] == check else None


def extended_public_key(v: str) -> bool:
    """``xpub661My…``: a BIP32 extended public key, told by its version and checksum."""
    v = v.strip("\"'`")
    if _EXTENDED_RE.fullmatch(v) is None:
        return False
    body = b58check(v)
    return body is not None and len(body) == 78 and body[:4] in _PUBLIC_VERSIONS


# A content address that says how it was made: IPFS's CIDv0 (base58 of a multihash, whose
# first bytes name SHA-256 and its length), a git-annex key (its backend, the file's size,
# then the digest: ``SHA256E-s1048576--<hex>.bin``).
_CID_V0_RE = re.compile(r"Qm[1-9A-HJ-NP-Za-km-z]{44}")
_ANNEX_KEY_RE = re.compile(
    r"(?:SHA(?:1|224|256|384|512)|SHA3_(?:224|256|384|512)|BLAKE2[BS]P?\d{0,3}|SKEIN\d{3,4}"
    r"|MD5)E?-s\d{1,20}(?:-[mS]\d{1,20})*--[0-9a-f]{32,128}(?:\.[\w\-]{1,16}){0,3}")
_KEY_STOP = " \t\n\"'`<>()[]{},;=/:"


def content_address(text: str, start: int, end: int, v: str) -> bool:
    """``QmQiJG…`` (an IPFS CIDv0, told by its multihash header), or the span lies inside
    a git-annex key: the content's digest, named as one."""
    core = v.strip("\"'`")
    if _CID_V0_RE.fullmatch(core) is not None:
        n = 0
        for c in core:
            n = n * 58 + _B58_INDEX[c]
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        if len(raw) == 34 and raw[:2] == b"\x12\x20":
            return True
    i = start
    while i > 0 and start - i < 200 and text[i - 1] not in _KEY_STOP:
        i -= 1
    m = _ANNEX_KEY_RE.match(text, i)
    return m is not None and m.end() >= end


# --------------------------------------------------------------------------- what names it

# A JSON Web Key's members that a public key has (RFC 7517/7518); a private key adds
# "d", "p", "q", "dp", "dq", "qi", a symmetric one "k": those are never cleared here.
_JWK_PUBLIC = frozenset(("n", "e", "x", "y", "crv", "x5c", "x5t", "x5u", "kid"))
_KTY_RE = re.compile(r"[\"']?kty[\"']?[ \t]*[:=]")
_JWK_REACH = 3000


def jwk_public_member(text: str, start: int) -> bool:
    """``"n": "mvcbc7…"`` in an object with a ``"kty"``: a public key's modulus."""
    if _public.key_before(text, start) not in _JWK_PUBLIC:
        return False
    return _KTY_RE.search(text, max(0, start - _JWK_REACH), start + _JWK_REACH) is not None


# A digest algorithm's name as an attribute's value: the element holds a digest.
_ALGO_ATTR_RE = re.compile(
    r"<[A-Za-z][\w.:\-]{0,40}(?:\s+[\w.:\-]{1,40}=[\"'][^\"'<>]{0,80}[\"'])*?\s+[\w.:\-]{1,40}="
    r"[\"'](?:sha-?(?:1|224|256|384|512)|sha3-\d{3}|md5|blake2[bs]?(?:-\d+)?|blake3|crc32c?)"
    r"[\"'][^<>]{0,200}>[ \t]*\Z", re.IGNORECASE)


def digest_element(text: str, start: int, end: int) -> bool:
    """``<pin digest="SHA-256">7HIp…=</pin>``: an element whose start tag names a digest
    algorithm, and the span is all of its text."""
    lt = text.rfind("<", max(0, start - 300), start)
    if lt < 0 or _ALGO_ATTR_RE.match(text, lt, start) is None:
        return False
    return re.match(r"[ \t]*</", text[end:end + 80]) is not None


_DATE_RE = re.compile(
    r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+\-]\d\d:?\d\d)?)?")


def dated(text: str, start: int, v: str) -> bool:
    """``expiration="2022-01-01"``: a date under its own key, which names no credential
    (a word for one a few words back took it)."""
    if _DATE_RE.fullmatch(v) is None:
        return False
    key = _public.key_before(text, start)
    return bool(key) and not (_public.names_a_credential(key) or _syntax.credential_name(key))


# A lock file's or a manifest's section of digests: ``SPEC CHECKSUMS:`` (CocoaPods), then
# ``  SnapKit: <sha1>``; each line a package and its digest, the heading names them.
_DIGEST_HEX_RE = re.compile(r"[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{56}|[0-9a-fA-F]{64}"
                            r"|[0-9a-fA-F]{96}|[0-9a-fA-F]{128}")
_HEADING_RE = re.compile(r"[ \t]*(?:[-#][ \t]*)?(?P<h>[A-Za-z][\w .\-]{0,60}?)[ \t]*:[ \t]*\r?")
_DIGEST_WORDS = frozenset(("checksum", "checksums", "sha", "sha1", "sha256", "sha512", "md5",
                           "hash", "hashes", "digest", "digests", "integrity", "shasum",
                           "shasums", "sums"))
_MAX_SECTION_LINES = 400


def checksum_section(text: str, start: int, v: str) -> bool:
    """A hex digest on an indented line under a heading that names digests (the nearest
    line above that is less indented)."""
    if _DIGEST_HEX_RE.fullmatch(v) is None:
        return False
    key = _public.key_before(text, start)
    if key and (_public.names_a_credential(key) or _syntax.credential_name(key)):
        return False  # "  api_key: …" under any heading: its own name says what it is
    ls = text.rfind("\n", 0, start) + 1
    head = text[ls:start]
    indent = len(head) - len(head.lstrip(" \t"))
    pos = ls
    for _ in range(_MAX_SECTION_LINES):
        if indent == 0 or pos == 0:
            return False
        prev = text.rfind("\n", 0, pos - 1) + 1
        line, pos = text[prev : pos - 1], prev
        if not line.strip():
            continue
        if len(line) - len(line.lstrip(" \t")) < indent:
            m = _HEADING_RE.fullmatch(line)
            if m is None:
                return False
            segs = {w.lower() for w in _syntax.SEG_RE.findall(m.group("h"))}
            return bool(segs & _DIGEST_WORDS) and not _public.names_a_credential(m.group("h"))
    return False


# ``Cache restored from key: Linux-node-modules-<hash>``, ``cache-key: …``: a CI cache's
# key, a digest of lock files; no credential word between "cache" and "key".
_CACHE_KEY_BEFORE_RE = re.compile(
    r"\bcache\b[^\n]{0,40}?\bkey[ \t]*[:=]?[ \t]*[`\"']?\Z"
    r"|cache[-_ ]?key[\"']?[ \t]*[:=][ \t]*[`\"']?\Z", re.IGNORECASE)
_CREDENTIAL_WORD_RE = re.compile(r"pass|secret|token|auth|api|access|private|credential|sign",
                                 re.IGNORECASE)


def cache_key(text: str, start: int) -> bool:
    m = _CACHE_KEY_BEFORE_RE.search(text, max(0, start - 80), start)
    return m is not None and _CREDENTIAL_WORD_RE.search(m.group()) is None


# ``d5:d5:7b:…:ed david@host``, ``SHA256:<base64> user@host (ED25519)``: what ssh-keygen
# prints after a key's fingerprint is the key's comment, a name, not a password.
_FINGERPRINT_BEFORE_RE = re.compile(
    r"(?:^|\n)[ \t]*(?:\d{3,5}[ \t]+)?(?:(?:MD5:)?(?:[0-9a-f]{2}:){15}[0-9a-f]{2}"
    r"|SHA(?:1|256|384|512):[A-Za-z0-9+/]{27,86}={0,2})[ \t]+\Z")


def key_comment(text: str, start: int) -> bool:
    return _FINGERPRINT_BEFORE_RE.search(text, max(0, start - 200), start) is not None


# --------------------------------------------------------------------------- where it sits

# A path segment naming a kind of public object, the id after it that object's: a track,
# a post, a video, a transaction, a place. A link that hands over access names what it
# does instead (reset, verify, invite, share, download, hooks…) and is no such object.
_OBJECT_SEGMENTS = frozenset((
    "track", "tracks", "album", "albums", "artist", "artists", "playlist", "playlists",
    "episode", "episodes", "show", "shows", "video", "videos", "watch", "shorts",
    "status", "statuses", "post", "posts", "item", "items", "product", "products", "listing",
    "tx", "txs", "transaction", "transactions", "block", "blocks", "address", "asset",
    "assets", "nft", "collection", "collections", "place", "places", "photo", "photos",
    "channel", "channels", "song", "songs", "movie", "title", "book", "books", "recipe",
    "article", "articles", "story", "stories", "clip", "clips", "reel", "reels",
    "issue", "issues", "commit", "commits", "package", "packages", "crate", "crates"))
# Networks where a resource's address is its content's digest.
_CONTENT_ADDRESSED_RE = re.compile(
    r"(?:^|\.)(?:arweave\.net|ar-io\.dev|ar\.io|ipfs\.io|dweb\.link|w3s\.link|ipfs\.[\w.\-]+"
    r"|[\w\-]+\.mypinata\.cloud|cloudflare-ipfs\.com|nftstorage\.link)\Z")
# Query parameters that tag a shared link with where it was shared or which campaign led
# to it (Spotify's and YouTube's "si", Instagram's "igsh", ads' click ids): public by
# purpose, put on every copy of the link.
_TRACKING_PARAMS = frozenset(("si", "igsh", "igshid", "fbclid", "gclid", "dclid", "gbraid",
                              "wbraid", "msclkid", "yclid", "twclid", "ttclid", "mc_cid",
                              "mc_eid", "_hsenc", "_hsmi", "ref_src", "ref_url"))
_URL_START_RE = re.compile(r"(?:https?|ipfs|ipns|ar)://", re.IGNORECASE)
_URL_STOP = " \t\n\"'`<>()[]{},"


def public_object_url(text: str, start: int, end: int) -> bool:
    """The span is a path segment or a query value of a URL that shows a public object:
    ``open.spotify.com/track/<id>?si=<share tag>``, ``arweave.net/<tx id>``, ``ipfs://…``."""
    i = start
    while i > 0 and start - i < 2048 and text[i - 1] not in _URL_STOP:
        i -= 1
    m = _URL_START_RE.search(text, i, start)
    if m is None:
        return False
    scheme = m.group().lower()
    rest = text[m.end():start]
    if scheme in ("ipfs://", "ipns://", "ar://"):
        return "?" not in rest
    host, _, path = rest.partition("/")
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    if "@" in rest.split("/", 1)[0]:
        return False  # user:password@host: the span may be the password
    if "?" in path:  # a query value: of an object's URL, under a name that is no credential
        route, _, query = path.partition("?")
        name = query.rsplit("&", 1)[-1].partition("=")[0]
        if not query.endswith(f"{name}=") or _public.names_a_credential(name) or (
                _syntax.credential_name(name)):
            return False
        if name.lower() in _TRACKING_PARAMS or name.lower().startswith("utm_"):
            return True  # a share or campaign tag, added to links handed around
        segs = route.rstrip("/").split("/")
        return len(segs) >= 2 and segs[-2].lower() in _OBJECT_SEGMENTS and "=" not in route
    if "=" in path or "#" in path:
        return False
    segs = path.split("/")
    if _CONTENT_ADDRESSED_RE.search(host) is not None:
        return True
    return (len(segs) >= 2 and segs[-1] == "" and (
        segs[-2].lower() in ("ipfs", "ipns")
        or (segs[-2].lower() in _OBJECT_SEGMENTS and _object_tail(text, end))))


def _object_tail(text: str, end: int) -> bool:
    """What follows the id: the URL's end, more path, or a query (no credential's name)."""
    nxt = text[end:end + 1]
    return nxt in ("", "/", "?", "#") or nxt in _URL_STOP


# ``DevExpress.Web.v12.2, Version=12.2.8.0, Culture=neutral, PublicKeyToken=…``: a .NET
# assembly's strong name, what a manifest or a page's directive references it by.
_STRONG_NAME_AFTER_RE = re.compile(
    r"[ \t]*,[ \t]*Version=\d+(?:\.\d+){1,3}[ \t]*,[ \t]*Culture=[\w\-]+[ \t]*,[ \t]*"
    r"PublicKeyToken=(?:[0-9a-fA-F]{16}|null)", re.IGNORECASE)


def strong_name(text: str, start: int, end: int, kind: str) -> bool:
    """The span is the name in an assembly's strong name (its token is a digest of a
    public key, found as such by the identifier keys)."""
    return kind != "secret-assignment" and _STRONG_NAME_AFTER_RE.match(text, end) is not None


_PROGRAM_RE = re.compile(r"(?<![a-z])program(?![a-z])", re.IGNORECASE)


def program_address(text: str, start: int, v: str) -> bool:
    """``"TokenkegQ…", // Token program``, ``TOKEN_PROGRAM: "…"``: a chain's program, the
    base58 of a 32-byte public key, on a line that says "program"."""
    v = v.strip("\"'`")
    if _public._B58_ADDRESS_RE.fullmatch(v) is None or _public._b58_bytes(v) != 32:
        return False
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", start)
    return _PROGRAM_RE.search(text, ls, le if le >= 0 else len(text)) is not None
