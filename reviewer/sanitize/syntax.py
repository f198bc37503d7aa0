"""Runs that code or markup reads: names, expressions, versions, links, data blocks.

A finder that catches secrets by their shape alone (a typed password: letters, digits and
a sign; a random token; a value after a key word) meets code and markup, whose signs are
syntax. In a password the signs are arbitrary; here each one has a reading:
``utils$1.isArray`` (a bundler's renamed name, then a member), ``a&&!b`` (operators),
``FAQ.md#install`` (a link's anchor), ``python-$version.exe`` (a shell expansion),
``^6.0.0`` (a version range), ``!!config.withCredentials`` (an expression),
``"#{password}#{pepper}"`` (a template of variables). A line of a wrapped base64 block is
one piece of the block, and is what the block is (a certificate, an image). These are
asked of a run before a shape finder takes it, so the finder needs the context that makes
a value a secret instead of a list of public values. Stdlib only: redact imports this.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re

# --------------------------------------------------------------------------- names

# Words of a name: an acronym (``CIDR``, ``EKS``), a word (``cluster``, ``Pool``), digits.
SEG_RE = _SEG_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@functools.lru_cache(maxsize=8192)
def is_name(v: str) -> bool:
    """``defaultToConfig2``, ``clusterPoolIPv4PodCIDRList``, ``AmazonEKS_CNI_IPv6_Policy``:
    an identifier made of words (most of its letters in runs of three or more, few
    digits), as people name things; a generated value changes case and class every
    character or two."""
    if not v or not (v[0].isalpha() or v[0] == "_") or not v.replace("_", "").isalnum():
        return False
    segs = _SEG_RE.findall(v)
    letters = sum(len(s) for s in segs if s.isalpha())
    digits = sum(len(s) for s in segs if s.isdigit())
    if not letters or digits > 3 or sum(s.isdigit() for s in segs) > 2:
        return False
    worded = sum(len(s) for s in segs if _word(s))
    return worded >= 0.7 * letters


_CONSONANTS_RE = re.compile(r"[b-df-hj-np-tv-xz]{5,}")


def word_like(seg: str) -> bool:
    """A piece of a name: a word, or short (``id``, ``v2``, ``Smtp``, ``Http``)."""
    return len(seg) <= 4 or _word(seg)


def _word(seg: str) -> bool:
    """``cluster``, ``Pool``, ``CIDR``: a word or an acronym; ``Zztnh`` and ``Zhbgncb``,
    runs of letters a generator happened to put together, are neither."""
    if len(seg) < 3 or not seg.isalpha():
        return False
    if seg.isupper():
        return len(seg) <= 5
    if not (seg.islower() or (seg[0].isupper() and seg[1:].islower())):
        return False  # "zyETsoxMak": no word is cased so
    low = seg.lower()
    return any(c in "aeiouy" for c in low) and _CONSONANTS_RE.search(low) is None


# --------------------------------------------------------------------------- code

# ``utils$1.isArray``, ``proto$1.pastFuture``, ``e.runWhen``: a chain of names joined by
# dots, where ``$`` is only a bundler's suffix (``$1``) or a framework's prefix (``$scope``).
_CHAIN_RE = re.compile(
    r"\$?[A-Za-z_][A-Za-z0-9_]*(?:\$\d{1,2})?(?:\.\$?[A-Za-z_][A-Za-z0-9_]*(?:\$\d{1,2})?)+")
# ``AxiosHeaders$1``, ``CancelToken$2``: a name with a bundler's suffix.
_RENAMED_RE = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)\$\d{1,2}")
# ``docker/login-action@v4.4.0``, ``lodash@4.17.21``: a package or action at a version.
_AT_VERSION_RE = re.compile(
    r"@?[\w.\-/]*@(?:v?\d+(?:\.\d+)*(?:[-+][\w.\-]+)?|[0-9a-f]{40}|[0-9a-f]{64})")
# Operators that put an expression together, and the atoms between them.
_EXPR_SPLIT_RE = re.compile(r"[!?:<>~*%^+\-]+")
_ATOM_RE = re.compile(r"\d+(?:e\d+)?|[A-Za-z_$][A-Za-z0-9_$]*")
_OPERATORS = ("&&", "||", "?.", "??", "?:", "!=", "==", "=>", "->", "::")
# ``-$fullVersion-``, ``${name}``, ``$(cmd)``: an expansion inside the run.
_EXPANSION_RE = re.compile(r"(?:^|[^A-Za-z0-9\\$])\$(?:\{|\(|[A-Za-z_][A-Za-z0-9_]{2,})")
# ``FAQ.md#posix4ever``, ``06.00-Figure-Code.ipynb#Broadcasting``: a document and an anchor.
_ANCHOR_RE = re.compile(
    r"[\w.\-/]*\.(?:md|markdown|mdx|html?|ipynb|rst|txt|adoc|asciidoc|pdf|xml|php|aspx?|jsp)"
    r"#[\w\-.:%]+", re.IGNORECASE)
# What stands before a bare name in code: an operator, an opening bracket, a keyword.
_CODE_BEFORE_RE = re.compile(
    r"(?:[=(\[,!?:&|{]|\b(?:return|new|const|let|var|instanceof|typeof|throw|function|"
    r"extends|case|in|of|await|yield|void|delete|class|interface|struct|enum|type|def))\s*\Z")
_CODE_AFTER_RE = re.compile(r"\s*(?:[;()\[\]?]|\.[A-Za-z_$]|=(?!=)|===?|!==?|\|\||&&)")


def code_run(text: str, s: int, e: int) -> bool:
    """The run ``text[s:e]`` is code or markup, not a typed value: a member chain, an
    expression with operators, a call or an index (``f(``, ``a[``), a bundler's renamed
    name standing where code puts names, a shell expansion, a document's anchor."""
    v = text[s:e]
    if any(op in v.rstrip("=") for op in _OPERATORS):  # not base64's padding
        return True
    if _AT_VERSION_RE.fullmatch(v) is not None:
        return True
    after = text[e : e + 1]
    # "f(", "a[": called or indexed; "…11#(으)로": a particle in brackets, not a call
    called = after in ("(", "[") and text[e + 1 : e + 2].isascii()
    # a chain of names is code when a bundler renamed one of them or it is called:
    # "Sable.tundra20" and "sk.eyJ1…" are chains of letters too
    if _CHAIN_RE.fullmatch(v) is not None and ("$" in v or called):
        return True
    parts = [p for p in _EXPR_SPLIT_RE.split(v) if p]
    if (len(parts) > 1 or v[:1] in "!~") and ("$" in v or called) and all(
            _CHAIN_RE.fullmatch(p) or _ATOM_RE.fullmatch(p) for p in parts) and any(
            _CHAIN_RE.fullmatch(p) for p in parts):
        return True  # "!utils$1.isUndefined", "0?Math.ceil("
    if called and (v[:1].isalpha() or v[:1] in "_$"):
        return True
    m = _RENAMED_RE.fullmatch(v)
    if m is not None and is_name(m.group("name")) and (
            _CODE_BEFORE_RE.search(text, max(0, s - 24), s) is not None
            or _CODE_AFTER_RE.match(text, e) is not None):
        return True
    if _EXPANSION_RE.search(v) is not None or _INDEXED_RE.match(v) is not None:
        return True
    if "()" in v or (":" in v and "," in v and ("{" in v or "}" in v)):
        return True  # "f()", "{a:1,b:…}": a call, an object literal
    if _ANCHOR_RE.fullmatch(v) is not None:
        return True
    return _inside_data(text, s, e)


# ``format[key][1``, ``arguments[0``: a name indexed.
_INDEXED_RE = re.compile(r"[A-Za-z_$][\w$.]*\[[\w$'\"]")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _inside_data(text: str, s: int, e: int) -> bool:
    """The span is a piece cut out of a longer base64 run (an image's bytes, where a word
    finder read ``Pw`` or ``key`` as a word): glued on one side to more of the run by a
    letter, a digit or ``+`` (a path's ``/`` and a key's ``=`` part values; they do not
    glue them)."""
    glued_left = s > 0 and ((text[s - 1].isascii() and text[s - 1].isalnum()) or text[s - 1] == "+")
    glued_right = e < len(text) and ((text[e].isascii() and text[e].isalnum()) or text[e] == "+")
    if not (glued_left or glued_right):
        return False
    a = s
    while a > 0 and s - a < 400 and text[a - 1] in _B64_CHARS:
        a -= 1
    b = e
    while b < len(text) and b - e < 400 and text[b] in _B64_CHARS:
        b += 1
    run = text[a:b]
    return b - a >= 60 and run.count("+") + run.count("/") >= 2


# --------------------------------------------------------------------------- values

# ``^6.0.0``, ``~1.2``, ``>=2.0.0-rc.1``, ``v1.2.3``: a version or a range of them.
_VERSION_RE = re.compile(
    r"(?:[~^]|[<>]=?|==?|v)?\d{1,9}(?:\.(?:\d{1,9}|[x*])){1,3}(?:[-+][0-9A-Za-z.\-]{1,40})?"
    r"(?:[ \t]*(?:\|\||-|,|[ \t])[ \t]*(?:[~^]|[<>]=?)?\d{1,9}(?:\.(?:\d{1,9}|[x*])){1,3}){0,3}")
# ``#{password}#{pepper}``, ``${user}:${pass}``: variables put together, no literal.
_TEMPLATE_RE = re.compile(
    r"(?:#\{[^{}\n]{1,80}\}|\$\{[^{}\n]{1,80}\}|%\([a-z_]+\)s|[^A-Za-z0-9]){1,200}")


def expression_value(v: str) -> bool:
    """A value that code computes or names, not a literal: ``!!x.y``, ``@raw_token``,
    ``/*#__PURE__*/function``, a template of variables, a version range."""
    v = v.strip()
    if not v:
        return False
    if v.startswith(("/*", "$(")):
        return True  # a comment, a command's output
    rest = v.lstrip("!@&*:-> ")
    if rest != v and rest and (_CHAIN_RE.fullmatch(rest) or is_name(rest)):
        return True  # "!!config.withCredentials", "@raw_token", ":RecursivePrefix"
    if ("#{" in v or "${" in v) and _TEMPLATE_RE.fullmatch(v) is not None:
        return True
    if "?" in v and ":" in v:  # "A?y:void": a conditional of names
        parts = [p for p in _EXPR_SPLIT_RE.split(v) if p]
        if len(parts) >= 3 and all(_ATOM_RE.fullmatch(p) or _CHAIN_RE.fullmatch(p)
                                   for p in parts):
            return True
    return len(v) <= 120 and _VERSION_RE.fullmatch(v) is not None


_PATH_PIECE_SPLIT_RE = re.compile(r"[.\-_]+")


def path_of_names(v: str) -> bool:
    """``conf/.keystore``, ``karpenter.k8s.aws/instance-category``: a relative path or a
    label's key made of names (words, short parts such as ``k8s``, small numbers); a
    credential's pieces are not words."""
    v = v.strip().strip("\"'`")
    if "/" not in v or any(c in v for c in ":@=?&%+ \t"):
        return False
    pieces = [p for seg in v.split("/") for p in _PATH_PIECE_SPLIT_RE.split(seg) if p]
    return len(pieces) >= 2 and all(
        _word(p) or (p.isdigit() and len(p) <= 4) or (len(p) <= 3 and p.isalnum())
        for p in pieces)


_CREDENTIAL_WORD_RE = re.compile(
    r"\b(?:password|passphrase|passcode|token|secret|key|credentials?|pin)\b", re.IGNORECASE)


def message_value(v: str) -> bool:
    """``"Invalid email or password"``, ``"New password"``: words about a credential (a
    message, a label), not one: it names the thing it would be."""
    words = v.split()
    return len(words) >= 2 and _CREDENTIAL_WORD_RE.search(v) is not None


# --------------------------------------------------------------------------- data blocks

B64_LINE_RE = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
# A line break inside a text, or inside a JSON string (``\n``), with what wraps a line of
# a block: indentation, quotes and commas of a JSON list, a Read's line number.
_BREAK_BEFORE_RE = re.compile(r"(?:\\n|\n)(?:[\"',]*[ \t]*(?:\d+→)?[ \t]*[\"']?)?\Z")
_BLOCK_REACH = 400  # lines walked back to find a block's first line


def _line_before(text: str, s: int) -> tuple[int, int] | None:
    """The span of the base64 line that ends just before the break at ``s``."""
    m = _BREAK_BEFORE_RE.search(text, max(0, s - 12), s)
    if m is None:
        return None
    end = m.start()
    while end > 0 and text[end - 1] in "\"',\r":
        end -= 1
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+/="):
        start -= 1
    if B64_LINE_RE.fullmatch(text, start, end) is None:
        return None
    return start, end


_BREAK_AFTER_RE = re.compile(r"[\"',\r]*(?:\\n|\n)[ \t]*(?:\d+→)?[ \t]*[\"']?")


def _line_after(text: str, e: int) -> int:
    """The width of the base64 line right after the break at ``e`` (0 if none)."""
    m = _BREAK_AFTER_RE.match(text, e)
    if m is None:
        return 0
    n = B64_LINE_RE.match(text, m.end())
    return 0 if n is None else n.end() - n.start()


def block_head(text: str, s: int, e: int) -> str | None:
    """When ``text[s:e]`` is a line of a wrapped base64 block (the line before it is one
    too, of the same width or wider, or it is the first and the next is as wide), the
    block's first line; else None."""
    if B64_LINE_RE.fullmatch(text, s, e) is None:
        return None
    prev = _line_before(text, s)
    if prev is None or prev[1] - prev[0] < e - s:
        return text[s:e] if _line_after(text, e) == e - s else None
    head = prev
    width = prev[1] - prev[0]
    for _ in range(_BLOCK_REACH):
        p = _line_before(text, head[0])
        if p is None or p[1] - p[0] != width:
            break
        head = p
    return text[head[0] : head[1]]


def public_der(head: str) -> bool:
    """The block is DER whose first element is itself a SEQUENCE: a certificate, a CSR or
    a public key (``MIIFMzCCAxug…``); a private key's starts with its version, an
    INTEGER (``MIIEvQIBADAN…``)."""
    try:
        raw = base64.b64decode(head[:16])
    except (binascii.Error, ValueError):
        return False
    if len(raw) < 6 or raw[0] != 0x30:
        return False
    n = raw[1]
    i = 2 + (n - 0x80 if n > 0x80 else 0)
    return i < len(raw) and raw[i] == 0x30


def private_der(head: str) -> bool:
    """The block opens as a private key in DER does (a SEQUENCE, then its version as an
    INTEGER: PKCS#1, PKCS#8, SEC1), or as an OpenSSH private key."""
    try:
        raw = base64.b64decode(head[:24])
    except (binascii.Error, ValueError):
        return False
    if raw.startswith(b"openssh-key-v1"):
        return True
    if len(raw) < 6 or raw[0] != 0x30:
        return False
    n = raw[1]
    i = 2 + (n - 0x80 if n > 0x80 else 0)
    return i + 1 < len(raw) and raw[i] == 0x02 and raw[i + 1] == 0x01


def public_block_line(text: str, s: int, e: int) -> bool:
    """The span is a line of a wrapped base64 block that is not a private key's: data
    (an image in a notebook, a certificate bundle) that the block finders judge whole."""
    if e - s >= 2 and text[s] == "n" and text[s - 1 : s] == "\\":
        s += 1  # the span began at the "n" of a "\n" escape
    head = block_head(text, s, e)
    return head is not None and not private_der(head)


# ``_ZN4core9panicking9panic_fmt17hf076bd8656606ca5E``: a C++/Rust symbol mangled the
# Itanium way, each name its length then its letters; checked by reading it through.
_MANGLED_RE = re.compile(r"_?_Z[NZ]?[A-Za-z0-9_$.]+")


def mangled_symbol(v: str) -> bool:
    """A mangled symbol whose length-prefixed names read through to its end."""
    if _MANGLED_RE.fullmatch(v) is None:
        return False
    i = v.index("Z") + 1
    if v[i : i + 1] == "N":
        i += 1
    names = 0
    while i < len(v) and v[i].isdigit():
        j = i
        while j < len(v) and v[j].isdigit():
            j += 1
        n = int(v[i:j])
        if n == 0 or j + n > len(v):
            return False
        i, names = j + n, names + 1
    return names >= 2 and v[i:] in ("", "E")


# ``hmac-sha256:6871c6…``, ``sha256=3f9a…``: a digest labelled with its algorithm (an audit
# log's HMAC of a value, a webhook's body digest): derived from a value, not the value.
_LABELLED_DIGEST_RE = re.compile(
    r"(?:hmac[-_])?(?:sha(?:1|224|256|384|512)|sha3-(?:256|384|512)|md5|blake2[bs]?)[:=]"
    r"(?:[0-9a-f]{32,128}|[0-9A-F]{32,128})", re.IGNORECASE)


def labelled_digest(v: str) -> bool:
    return _LABELLED_DIGEST_RE.fullmatch(v.strip("\"'`")) is not None


# ``[FILTERED]``, ``<hidden>``, ``(redacted)``: a word in brackets that a tool wrote where
# the value was; a credential is not one word in brackets.
_BRACKET_MASK_RE = re.compile(r"\[[A-Za-z _\-]{3,24}\]|<[A-Za-z _\-]{3,24}>|\([A-Za-z _\-]{3,24}\)")


def bracket_mask(v: str) -> bool:
    return _BRACKET_MASK_RE.fullmatch(v.strip().strip("\"'`")) is not None


# A header whose name says it carries a signature (``DKIM-Signature``, ``ARC-Seal``,
# ``ARC-Message-Signature``, ``X-Hub-Signature-256``) and its folded lines: every value in
# it is the signature, its hash or its parameters, sent with the message for anyone to check.
_SIGNATURE_HEADER_RE = re.compile(
    r"(?im)^[ \t>]*(?:[A-Za-z][\w ]{0,20}:[ \t]+)?"  # a speaker's label ("User: ") first
    r"[A-Za-z0-9\-]{0,40}(?:signature|seal)[A-Za-z0-9\-]{0,40}[ \t]*:")


def in_signature_header(text: str, s: int) -> bool:
    """The span at ``s`` lies in a signature header (on its line or a folded line after)."""
    pos = s
    for _ in range(12):  # the header's own line, or up to 11 folded lines above
        ls = text.rfind("\n", 0, pos) + 1
        m = _SIGNATURE_HEADER_RE.match(text, ls)
        if m is not None and m.end() <= s:
            return True
        if ls == 0 or text[ls : ls + 1] not in (" ", "\t"):
            return False  # not a folded line: the header ended
        pos = ls - 1
    return False


# --------------------------------------------------------------------------- names of credentials

# What a credential is called, whatever the service: the words, and the short forms that
# stand in names (``_sid``, ``auth_tok``, ``wpa_psk``); a name holds one as a word of its
# own (``sessionId``, ``X-Auth-Token``) or glued in lowercase (``sessionid``, ``authtoken``).
_CREDENTIAL_WORDS = frozenset((
    "password", "passwd", "passphrase", "passcode", "pwd", "token", "tok", "tkn", "secret",
    "apikey", "credential", "cred", "session", "sess", "sid", "cookie", "auth", "bearer",
    "psk", "pat", "otp", "signature", "sig", "jwt", "key", "privkey", "secretkey"))
_GLUED_RE = re.compile(
    r"(?:password|passwd|passphrase|token|secret|apikey|session|sessid|auth|cookie|credential)"
    r"(?:id|key|token|value|hash)?s?\Z|\A(?:session|sess|auth|api|access|refresh|secret|csrf|"
    r"xsrf|private|sign|signing)(?:id|key|token|secret|sid)s?\Z")


_NOT_CREDENTIAL = frozenset((
    "public", "publishable", "pub", "primary", "foreign", "sort", "partition", "cache",
    "lookup", "unique", "hash", "hashed", "host", "known", "ssh", "gpg", "pgp", "verify",
    "verification", "fingerprint", "checksum", "etag", "digest", "idempotency", "index"))


@functools.lru_cache(maxsize=4096)
def credential_name(name: str) -> bool:
    """``_sid``, ``sessionid``, ``X-Auth-Token``, ``serviceToken``, ``wpa_psk``: a name
    that says its value opens something (an id of a session included)."""
    segs = [w.lower() for w in _SEG_RE.findall(name)]
    if any(w in _NOT_CREDENTIAL for w in segs):
        return False  # "PublicKey", "cache_key", "sort_key", "host_key": public or a name
    for w in segs:
        if w in _CREDENTIAL_WORDS or (w.endswith("s") and w[:-1] in _CREDENTIAL_WORDS):
            return True
        if len(w) >= 6 and _GLUED_RE.search(w) is not None:
            return True
    return False
