"""A private key's body whose ``-----BEGIN … PRIVATE KEY-----`` is out of view.

A Read from a key file's middle shows numbered base64 lines and no armour; so do a key's
tail (only its ``-----END``), a body pasted into a prompt, and a body in a JSON string
with ``\\n`` escapes. The armour rule (``redact._key_blocks``) needs the BEGIN line, and
each line alone is one more random-looking run. This finder takes a run of three or more
consecutive lines of pure base64 of one PEM width (64; 76 for MIME, 70 for OpenSSH) and
judges it by what the bytes hold, never by the words around it:

- the run's own armour when its END is in view (a private key's, or a certificate's);
- its start, when that is the body's: a private key's ASN.1 (a SEQUENCE, then its version
  as an INTEGER) or ``openssh-key-v1``; a certificate's or public key's DER, an SSH
  public key, a file format's magic number (PNG, JPEG, WOFF, gzip, zip…) say data;
- from the middle: the structure only key material has: an INTEGER followed at its exact
  end by a big one (RSA's d, p, q, its CRT values: a certificate or public key holds a
  big INTEGER only after a SEQUENCE's header), two big OpenSSH mpints in a row, the
  OpenSSH private section's repeated check number before its key type, or a big
  INTEGER's header of a key part's length in bytes that are random throughout (no
  readable names, dates or URLs, as a certificate's DER holds).

Compressed data (an image's middle) is as random as a key but has none of that structure.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from reviewer.sanitize import syntax as _syntax

Span = tuple[int, int, str]
KIND = "private-key"

_WIDTHS = frozenset({64, 70, 76})
_MIN_LINES = 3  # full-width lines in a run
_MAX_LINES = 2000
# What may stand before a line: indentation, quotes, a quote mark, the condenser's
# "┆ → " before a command's output, a Read's number and its "→" (the view blanks those at
# a line's start) or, as ``cat -n`` prints it, its tab
_PREFIX = r"[ \t\"'`>]*+(?:[┆│|][ \t]*+)?(?:\d{0,7}[→\t][ \t]?)?[ \t\"'`>]*+"
_SEP = r"[\"'`,;\\ \t]*(?:\r?\n|\\r\\n|\\n)" + _PREFIX
# The cheap test: three long base64 lines in a row (line marks are blanked by the view).
_GATE_RE = re.compile(
    rf"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{{64,76}}+{_SEP}[A-Za-z0-9+/]{{64,76}}+{_SEP}"
    r"[A-Za-z0-9+/]{64}"
)
_SEP_RE = re.compile(_SEP)
_PIECE_RE = re.compile(r"[A-Za-z0-9+/]{1,76}+={0,2}")
_END_RE = re.compile(r"-----END ([A-Z0-9 ]{1,40})-----")
_BEGIN_RE = re.compile(r"-----BEGIN [A-Z0-9 ]{1,40}-----")
_REACH_BACK = 2000  # how far back an open BEGIN armour is looked for

_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"wOFF", b"wOF2", b"\x1f\x8b", b"PK\x03\x04",
          b"%PDF", b"\x7fELF", b"\x00asm", b"RIFF", b"OTTO", b"\x00\x01\x00\x00", b"BZh",
          b"7z\xbc\xaf", b"\xfd7zXZ", b"MZ", b"<svg", b"<?xml", b"\xca\xfe\xba\xbe",
          b"\xcf\xfa\xed\xfe", b"II*\x00", b"MM\x00*", b"BM", b"\x00\x00\x00\x1cftyp",
          b"\x00\x00\x00\x18ftyp", b"\x00\x00\x00\x20ftyp", b"ID3", b"OggS", b"fLaC")
_SSH_TYPES = (b"ssh-rsa", b"ssh-ed25519", b"ssh-dss", b"ecdsa-sha2-", b"sk-ssh-", b"sk-ecdsa-")
_OPENSSH_CHECK_RE = re.compile(
    rb"(.{4})\1\x00\x00\x00[\x07-\x28](?:ssh-|ecdsa-|sk-)", re.DOTALL)
# A big INTEGER's header of a key part's length: 129, 193, 256/257, 384/385, 512/513 bytes
# (the odd ones start with a 0 byte before a high bit); not 128 or 192 (``02 81 80``: three
# bytes, met by chance about once in 40 MB of random data, where these are four or more).
_KEY_PART_RE = re.compile(
    rb"\x02(?:\x81\x81\x00[\x80-\xff]|\x81\xc1\x00[\x80-\xff]|\x82\x01\x01\x00[\x80-\xff]"
    rb"|\x82\x01\x81\x00[\x80-\xff]|\x82\x02\x01\x00[\x80-\xff]|\x82\x01\x00[\x01-\x7f]"
    rb"|\x82\x02\x00[\x01-\x7f]|\x82\x01\x80[\x01-\x7f])"
    # and OpenSSH's mpints of those lengths (4-byte length, a 0 only before a high bit)
    rb"|\x00\x00(?:\x00\x81|\x00\xc1|\x01\x01|\x01\x81|\x02\x01)\x00[\x80-\xff]"
    rb"|\x00\x00(?:\x00\x80|\x00\xc0|\x01\x00|\x01\x80|\x02\x00)[\x01-\x7f]"
)
_PRINTABLE_RUN_RE = re.compile(rb"[\x20-\x7e]{8,}")
_BIG = 64  # bytes: an RSA key part (an OpenSSH mpint), not a version, exponent or small id
_BIG_DER = 96  # a DER INTEGER after another: more than a P-521 signature's s (66 bytes)


def find_headless_keys(text: str, low: str) -> Iterator[Span]:
    """Runs of base64 lines of one PEM width whose bytes are a private key's."""
    esc = "\\n" in text  # each regex below starts with its break, a literal searched fast
    if "PRIVATE KEY" in text:
        yield from _tails(text)
    pos = 0
    while True:
        near = _near(text, pos, esc)
        if near < 0:
            return
        m = _GATE_RE.search(text, max(pos, near - _GATE_BACK), near + _GATE_AHEAD)
        if m is None:
            pos = near + 1
            continue
        pieces = _run(text, m.start())
        pos = pieces[-1][1]
        if _private(text, pieces):
            yield pieces[0][0], pieces[-1][1], KIND


# The gate's first pass: two long base64 lines after a line break, found from the break
# (a literal the regex engine skips to): ten times cheaper than ``_GATE_RE`` over a whole
# text, which then reads only around what this finds.
_FAST_NL_RE = re.compile(
    rf"\n{_PREFIX}[A-Za-z0-9+/]{{64,76}}+[\"'`,;\\ \t]*\r?\n{_PREFIX}[A-Za-z0-9+/]{{64}}")
_FAST_ESC_RE = re.compile(
    rf"\\n{_PREFIX}[A-Za-z0-9+/]{{64,76}}+[\"'`,; \t]*(?:\\r)?\\n{_PREFIX}"
    r"[A-Za-z0-9+/]{64}")
_GATE_BACK = 100  # the run's first line may end at the break found (its start before it)
_GATE_AHEAD = 400  # three lines of at most 76 with their marks


def _near(text: str, pos: int, esc: bool) -> int:
    """Where two long base64 lines follow a line break, from ``pos`` on; -1 for nowhere."""
    a = _FAST_NL_RE.search(text, pos)
    b = _FAST_ESC_RE.search(text, pos) if esc else None
    if a is None or b is None:
        m = a or b
        return -1 if m is None else m.start()
    return min(a.start(), b.start())


_END_PK_RE = re.compile(r"-----END [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----")
_BREAK_RE = re.compile(r"\r?\n|\\r\\n|\\n")
_PREFIX_RE = re.compile(_PREFIX)
_LINE_RE = re.compile(_PREFIX + r"(?P<b>[A-Za-z0-9+/]{4,76}={0,2})[\"'`,;\\ \t]*")
_TAIL_REACH = 16_000  # a 4096-bit key's body is 3,200 characters
_MIN_TAIL = 40  # base64 characters: less is no key's worth


def _tails(text: str) -> Iterator[Span]:
    """The base64 lines just above a private key's END line whose BEGIN is out of view,
    however few: the armour says what they are."""
    for m in _END_PK_RE.finditer(text):
        begin = text.rfind("-----BEGIN", 0, m.start())
        if begin >= 0 and text.find("-----END", begin, m.start()) < 0:
            continue  # its BEGIN in view: the armour rule has the block
        lo = max(0, m.start() - _TAIL_REACH)
        breaks = [(b.start(), b.end()) for b in _BREAK_RE.finditer(text, lo, m.start())]
        if not breaks or not _PREFIX_RE.fullmatch(text, breaks[-1][1], m.start()):
            continue  # the END line holds more than a line mark before the armour
        pieces: list[tuple[int, int]] = []
        for k in range(len(breaks) - 1, -1, -1):
            ls = breaks[k - 1][1] if k else lo
            line = _LINE_RE.fullmatch(text, ls, breaks[k][0])
            width = pieces[-1][1] - pieces[-1][0] if len(pieces) > 1 else None
            if line is None or (width is not None and line.end("b") - line.start("b") != width):
                if width is not None or pieces:  # its first line, after a prefix of its own
                    w = width or 64
                    t = re.search(rf"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{{{w}}}[\"'`,; \t]*\Z",
                                  text[ls : breaks[k][0]])
                    if t is not None:
                        pieces.append((ls + t.start(), ls + t.start() + w))
                break
            pieces.append(line.span("b"))
        if sum(b - a for a, b in pieces) >= _MIN_TAIL:
            yield pieces[-1][0], pieces[0][1], KIND


def _run(text: str, start: int) -> list[tuple[int, int]]:
    """The base64 pieces of the run starting at ``start``: lines as wide as the first, and
    a shorter last one."""
    first = _PIECE_RE.match(text, start)
    assert first is not None  # the gate matched a piece here
    pieces = [first.span()]
    width = first.end() - first.start()
    while len(pieces) < _MAX_LINES and pieces[-1][1] - pieces[-1][0] == width:
        if text[pieces[-1][1] - 1] == "=":
            break
        sep = _SEP_RE.match(text, pieces[-1][1])
        if sep is None:
            break
        nxt = _PIECE_RE.match(text, sep.end())
        if nxt is None or nxt.end() - nxt.start() > width or (
                nxt.end() < len(text) and (text[nxt.end()].isalnum() or text[nxt.end()] in "+/")):
            break
        if nxt.end() - nxt.start() < width and nxt.end() - nxt.start() < 4:
            break
        pieces.append(nxt.span())
    return pieces


def _private(text: str, pieces: list[tuple[int, int]]) -> bool:
    s = pieces[0][0]
    width = pieces[0][1] - s
    full = sum(1 for a, b in pieces if b - a == width)
    if width not in _WIDTHS or full < _MIN_LINES:
        return False
    begin = text.rfind("-----BEGIN", max(0, s - _REACH_BACK), s)
    if begin >= 0 and text.find("-----END", begin, s) < 0 and _BEGIN_RE.match(text, begin):
        return False  # in view of its own armour: the armour rules judge it
    sep = _SEP_RE.match(text, pieces[-1][1])
    end = _END_RE.match(text, sep.end() if sep is not None else pieces[-1][1])
    if end is None and sep is None:
        end = _END_RE.match(text, pieces[-1][1])
    if end is not None:
        return "PRIVATE" in end.group(1)
    body = "".join(text[a:b] for a, b in pieces)
    shifts = (0,) if width % 4 == 0 else (0, 2)  # a 70-wide line starts mid-quantum
    return any(_key_bytes(raw, shift == 0) for shift in shifts
               if (raw := _decoded(body[shift:])) is not None)


def _decoded(body: str) -> bytes | None:
    core = body.rstrip("=")
    core = core[: len(core) - len(core) % 4] if len(core) % 4 == 1 else core
    try:
        return base64.b64decode(core + "=" * (-len(core) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _key_bytes(raw: bytes, aligned: bool) -> bool:
    """The bytes are a private key's, whole or in part (see the module's docstring)."""
    head = base64.b64encode(raw[:18]).decode()
    if aligned:
        if raw.startswith(b"openssh-key-v1\x00") or _syntax.private_der(head):
            return True
        if (_syntax.public_der(head) or raw.startswith(_MAGIC)
                or any(raw[4:].startswith(t) for t in _SSH_TYPES)):
            return False
    if b"openssh-key-v1\x00" in raw or _OPENSSH_CHECK_RE.search(raw):
        return True
    if _der_chain(raw) or _mpint_chain(raw):
        return True
    if _PRINTABLE_RUN_RE.search(raw) or raw.count(0) > 0.05 * len(raw):
        return False  # names, dates, URLs, text; or a structured binary's zeros
    return any(not _wrapped(raw, m.start()) for m in _KEY_PART_RE.finditer(raw))


_SSH_E = b"\x00\x00\x00\x03\x01\x00\x01"  # an SSH public key's exponent, just before its n


def _der_length(raw: bytes, i: int) -> tuple[int, int] | None:
    """(header length, content length) of the DER element at ``i``, minimally encoded."""
    if i + 2 > len(raw):
        return None
    n = raw[i + 1]
    if n < 0x80:
        return 2, n
    if n == 0x81 and i + 3 <= len(raw) and raw[i + 2] >= 0x80:
        return 3, raw[i + 2]
    if n == 0x82 and i + 4 <= len(raw) and raw[i + 2]:
        return 4, raw[i + 2] << 8 | raw[i + 3]
    return None


def _integer(raw: bytes, i: int, least: int) -> int | None:
    """The end of a minimally encoded DER INTEGER of at least ``least`` bytes at ``i``."""
    if raw[i : i + 1] != b"\x02":
        return None
    hl = _der_length(raw, i)
    if hl is None or hl[1] < least or i + hl[0] + 1 >= len(raw):
        return None
    c = i + hl[0]
    return c + hl[1] if raw[c] < 0x80 and _minimal(raw, c) else None


def _der_chain(raw: bytes) -> bool:
    """An INTEGER (a small exponent or a big part) ends exactly where a big INTEGER begins,
    which ends at another INTEGER or out of view: a private key's parts in a row."""
    i = raw.find(b"\x02")
    while i >= 0:
        j = _integer(raw, i, 1)
        if j is not None and (j - i <= 6 or j - i >= _BIG + 3):
            k = _integer(raw, j, _BIG_DER) if j < len(raw) else None
            if k is not None and (k >= len(raw) - 1 or raw[k] in (0x02, 0xA0)):
                return True
        i = raw.find(b"\x02", i + 1)
    return False


def _mpint_chain(raw: bytes) -> bool:
    """Two big OpenSSH mpints in a row (its private section's d, iqmp, p, q): a 4-byte
    length, that many bytes, then another big one."""
    i = raw.find(b"\x00\x00")
    while i >= 0 and i + 8 < len(raw):
        n = int.from_bytes(raw[i : i + 4], "big")
        j = i + 4 + n
        if _BIG <= n <= 1100 and j + 6 <= len(raw) and _minimal(raw, i + 4):
            m = int.from_bytes(raw[j : j + 4], "big")
            if _BIG <= m <= 1100 and _minimal(raw, j + 4):
                return True
        i = raw.find(b"\x00\x00", i + 1)
    return False


def _minimal(raw: bytes, i: int) -> bool:
    """A big integer's first bytes as DER and SSH write them: a 0 only before a high bit."""
    return (raw[i] == 0 and raw[i + 1] >= 0x80) or raw[i] > 0


def _wrapped(raw: bytes, i: int) -> bool:
    """The INTEGER at ``i`` is the first thing in a SEQUENCE or BIT STRING, as a public
    key's modulus is (a private key's come after its version or another part)."""
    return (i < 7 or raw[i - 7 : i] == _SSH_E or (raw[i - 4] == 0x30 and raw[i - 3] == 0x82)
            or (raw[i - 3] == 0x30 and raw[i - 2] == 0x81) or raw[i - 2] == 0x30
            or raw[i - 1] == 0x00)


FINDERS = (find_headless_keys,)
