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
import re
from collections.abc import Iterator
from typing import NamedTuple

from reviewer.sanitize import gitleaks
from reviewer.sanitize import redact as _redact
from reviewer.sanitize import syntax as _syntax

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


# Two lines of base64 one after the other: the cheap test before the walk line by line.
_B64_PAIR_RE = re.compile(
    r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}+={0,2}[\"'`,;\\ \t+]*(?:\r?\n|\\n)"
    r"[ \t>\-]*(?:\d+→)?[ \t]*"
    r"[\"'`]?[A-Za-z0-9+/]{16}"
)


def find_wrapped_base64(text: str, low: str) -> Iterator[Span]:
    """Runs of two or more lines of base64, decoded together."""
    if "\n" not in text and "\\n" not in text:
        return
    if _B64_PAIR_RE.search(text) is None:
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
# strong password (8+ characters, a digit, and a capital or a sign) within a few words
# after it on the same line. A longer word may carry an ending ("passordet",
# "adgangskoden", "salasanaksi", "jelszót").
_PASSWORD_NEAR = (
    *_redact._PASSWORD_WORDS, "creds", "credentials", "credential", "login", "pass", "pw",
    "pin", "lozinka", "geslo", "parool", "slaptažodis", "parole", "zugangsdaten",
    "identifiants", "credenciales", "credenziali", "kata sandi", "sandi", "nenosiri",
    "κωδικ", "συνθηματικ", "كلمة مرور", "كلمة سر", "رمز عبور", "گذرواژه", "पासवर्ड",
    "পাসওয়ার্ড", "পাসওয়ার্ড", "পাসওয়ার্ড", "পাসওয়ার্ড", "পাস", "პაროლ", "የይለፍ ቃ", "ይለፍ",
    "пароль", "лозинка", "парола", "гасло", "құпия сөз", "нууц үг", "รหัส", "mật khẩu",
    "암호", "비번", "密码", "密碼", "口令", "パスワード", "סיסמ", "şifre", "parolă", "heslo",
    "geslo", "jelszó", "salasana", "lösenord", "passord", "adgangskode", "wachtwoord",
    "contrasenya", "pasahitza", "contrasinal", "pasfhocal", "cyfrinair", "wagwoord",
    "lykilorð", "fjalëkalim", "salasõna", "šifra", "sifra", "kata laluan", "parol",
    "şifrə", "сырсөз", "ពាក្យសម្ងាត់", "ລະຫັດຜ່ານ", "စကားဝှက်", "கடவுச்சொல்", "పాస్‌వర్డ్",
    "ಪಾಸ್‌ವರ್ಡ್", "പാസ്‌വേഡ്", "પાસવર્ડ", "ਪਾਸਵਰਡ", "پاس ورڈ", "գաղտնաբառ", "iphasiwedi",
    "ọrọ igbaniwọle", "aṣínà", "aṣina", "passwuert", "contraseña", "senha", "palavra-passe",
    "hasło",
    "jelszav", "hesla", "hesl", "gesla", "lozinke", "lozinku", "пароля", "паролем", "parolei",
    "parolele", "salasanan", "lösenordet", "passordet", "adgangskoden", "wachtwoorden",
    # more languages (Hausa, Swahili, Tagalog, Esperanto, Frisian, Faroese, Breton, Turkmen,
    # Tatar, Pashto, Uyghur, Igbo, Xhosa, Sesotho, Maori, Haitian, Javanese, Kinyarwanda,
    # Somali, Malagasy, Sinhala, Odia, Assamese) and words for an access code or PIN
    "kalmar sirri", "kalmar sirrin", "nywila", "neno la siri", "kontrasenya", "pasvorto",
    "wachtwurd", "loyniorð", "ger-tremen", "açar sözi", "серсүз", "پټنوم", "ئىم",
    "پارول", "پاسورد", "پسورد",
    "okwuntughe", "igama lokugqitha", "phasewete", "kupuhipa", "modpas", "tembung sandhi",
    "ijambo ry'ibanga", "ijambobanga", "furaha sirta", "erayga sirta", "teny miafina",
    "මුරපදය", "ପାସୱାର୍ଡ", "পাছৱৰ্ড", "pincode", "pin code", "passcode", "zugangscode",
    "toegangscode", "code d'accès", "código de acceso", "codice di accesso", "код доступа",
    "mã pin", "暗証番号", "접속 코드", "locked with", "unlock with", "protected with",
)
# Words for a key or token: a token-like value after them, or just before them ("use …
# as the key", "usa … como clave", "nimm … als Schlüssel").
_TOKEN_NEAR = (
    "key", "token", "secret", "api key", "apikey", "access key", "private key", "clé",
    "cle", "clave", "chave", "schlüssel", "schluessel", "chiave", "sleutel", "klucz",
    "nøgle", "nyckel", "nøkkel", "avain", "kulcs", "anahtar", "cheie", "ключ", "токен",
    "секрет", "キー", "鍵", "密钥", "秘钥", "令牌", "토큰", "키", "مفتاح", "رمز", "कुंजी",
    "टोकन", "jeton", "kunci", "ufunguo", "gizli", "wallet", "mnemonic", "seed",
    "credential", "credentials", "creds", "pat", "apikey", "api-key", "api_key", "bearer",
    "license key", "licence key", "dsn", "tunnus", "tunniste", "トークン", "টোকেন",
    "ტოკენ", "טוקן", "توكن", "توکن", "โทเคน", "mã thông báo", "khóa", "ključ", "kľúč",
    "klíč", "võti", "atslēga", "raktas", "llave", "chave de api",
    "credencial", "credenciales", "credenziale", "identifiant", "zugangsschlüssel",
    # a "secret" in other languages
    "sirri", "geheim", "segreto", "secreto", "segredo", "sekret", "tajný", "titok",
    "salaisuus", "hemlighet", "hemmelighed", "hemmelighet", "秘密", "機密", "비밀", "गुप्त",
    "rahasia", "bí mật", "ความลับ", "סוד", "راز", "sır", "κλειδ", "μυστικ", "کلید",
)
_NEAR_TOKENS = 6
_BACK_TOKENS = 5
_NEAR_CHARS = 160
_PIECE_RE = re.compile(r"[^\s\\\"'`“”«»„<>()（）「」『』：，、。;]+")
_EOL_RE = re.compile(r"\n|\\n")
_TRIM = ".,;:!?)]}"
_KWARG_RE = re.compile(r"[A-Za-z_][\w.\-]*=")
_EMAILISH_RE = re.compile(r"@[\w\-]+\.[A-Za-z]{2,}")
_PROTOCOL_RE = re.compile(r"[A-Z]{2,10}/\d")  # HTTP/1.1, TLS/1.3
_SHORT_ENDING = 4  # letters a long word may carry after it (Nordic articles, case endings)
_ETH_KEY_RE = re.compile(r"(?:0x)?[0-9a-fA-F]{64}")
_DATE_RE = re.compile(
    r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?(?:\.\d+)?(?:Z|[+\-]\d\d:?\d\d)?)?\Z"
)
_TOKENISH_RE = re.compile(r"[A-Za-z0-9_\-+/=.~]{12,512}")


_PASSPHRASE_RE = re.compile(r"[A-Za-z]{3,12}(?:[-_.][A-Za-z]{3,12}){2,7}[-_.]?\d{1,6}")
_REGEX_SYNTAX_RE = re.compile(r"a-z|A-Z|0-9|\\[sdwSDWbB]|\]\{\d|\)\?|\(\?|\.[*+]\??[\w|]")


_ENV_REF_RE = re.compile(r"%[A-Za-z_]\w*%")
_REL_PATH_RE = re.compile(r"(?:[a-z][a-z0-9_.\-]*/)+[a-z][a-z0-9_.\-]*")
_HOST_PATH_RE = re.compile(
    r"[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,24}(?::\d{1,5})?(?:/[\w.\-/]*)?")


def _near_password(v: str) -> bool:
    """A strong password as a person types one: 8–128 characters, a letter, a digit, and
    a capital or a sign; not a URL, e-mail, path, reference, version, option or key."""
    if not 8 <= len(v) <= 128 or _redact.MARKER_RE.search(v) or "://" in v:
        return False
    if _REGEX_SYNTAX_RE.search(v):
        return False  # a pattern that matches secrets, not one
    if v.startswith(("$", "/", "~", "./", "-", "+", "AAAA")) or "${" in v or "$(" in v:
        return False
    if v.startswith("%") and (_redact._FORMAT_RE.match(v) or _ENV_REF_RE.match(v)):
        return False  # "%s", "%(name)s", "%APPDATA%\\x": a format or a variable
    if "=" in v.rstrip("=") or ("&" in v and "=" in v):
        return False  # "q=password+reset&page=2": a query string, not a password
    if ("/" in v and _REL_PATH_RE.fullmatch(v)) or ("." in v and _HOST_PATH_RE.fullmatch(v)):
        return False  # "keys/id_ed25519": a relative path; "db.example.io/x": a host
    if _KWARG_RE.match(v) or _EMAILISH_RE.search(v) or _PROTOCOL_RE.match(v):
        return False
    if _redact._FORMAT_RE.search(v) or re.fullmatch(r"v?\d+(?:\.\d+)+[\w.\-]*", v):
        return False
    if _redact._TECH_RE.search(v.lower()):
        return False  # "SHA256-hashed", "AES256-encrypted": how it is kept, not what it is
    if _redact._NAMED_DIGEST_RE.match(v) or _DATE_RE.match(v):
        return False  # "Linux-pip-<sha256>", "2026-12-03T10:00:00Z"
    has_alpha = any(c.isalpha() for c in v)
    has_digit = any(c.isdigit() for c in v)
    has_upper = any(c.isupper() for c in v)
    has_sign = any(not c.isalnum() and c not in "_-." for c in v)
    if has_alpha and has_digit and (has_upper or has_sign):
        return True
    has_lower = any(c.islower() for c in v)
    if _PASSPHRASE_RE.fullmatch(v):
        return True  # "walrus-cobalt-tundish-73": words joined, a number
    strong_sign = any(c in "!@#$%^&*~?+=" for c in v)
    return len(v) >= 10 and has_upper and has_lower and strong_sign  # "gUSHvU@mIFgw%lSZJ"


def _near_token(v: str) -> bool:
    """A token-like value: 12+ characters of a token alphabet, letters and digits mixed."""
    if _ETH_KEY_RE.fullmatch(v):
        return True
    if not _TOKENISH_RE.fullmatch(v) or _redact.MARKER_RE.search(v) or _redact._UUID_RE.match(v):
        return False
    if _redact._NAMED_DIGEST_RE.match(v) or _REGEX_SYNTAX_RE.search(v):
        return False  # "Linux-pip-<sha256>": a cache key's name and digest; a regex
    if _redact._PATH_RE.match(v) or _KWARG_RE.match(v) or re.fullmatch(r"v?\d+(?:\.\d+)+", v):
        return False
    if "/" in v and _REL_PATH_RE.fullmatch(v):
        return False  # "keys/id_ed25519", "certs/ca_v2.pem": a relative path of names
    if "." in v and _HOST_PATH_RE.fullmatch(v):
        return False  # "o123.ingest.example.io/78": a host and its path
    if _redact._TECH_RE.search(v.lower()) and not _redact._looks_random(v):
        return False
    if _redact._HEX_RE.match(v):  # a key word's value in hex: 20+ digits, not a word
        return len(v) >= 20 and not v.isdigit() and _redact._entropy(v) >= 2.8
    has_digit = any(c.isdigit() for c in v)
    has_lower = any(c.islower() for c in v)
    has_upper = any(c.isupper() for c in v)
    if not has_digit or not (has_lower or has_upper):
        return False
    if (len(v) >= 20 and v.replace("_", "").isalnum() and sum(c.isdigit() for c in v) >= 3
            and _redact._entropy(v) >= 3.8):
        return True  # one case and digits, dense: base32 (an Azure DevOps PAT and kin)
    return (has_lower and has_upper) or _redact._looks_random(v)


# Words as the rules see them: redact scans a text without its invisible characters (a
# zero-width non-joiner inside "പാസ്‌വേഡ്" included), so the words lose theirs too.
_PASSWORD_NEAR = tuple(re.sub("[\u200b-\u200f\u2060]", "", w) for w in _PASSWORD_NEAR)
_TOKEN_NEAR = tuple(re.sub("[\u200b-\u200f\u2060]", "", w) for w in _TOKEN_NEAR)
_NEAR_WORDS = tuple(sorted({w.lower() for w in (*_PASSWORD_NEAR, *_TOKEN_NEAR)}))
_NEAR_OTHER = tuple(w for w in _NEAR_WORDS if not w.isascii())
# The ASCII words by their first two characters: a text's word starts pick the few to try.
_NEAR_BY_HEAD: dict[str, list[str]] = {}
for _w in _NEAR_WORDS:
    if _w.isascii():
        _NEAR_BY_HEAD.setdefault(_w[:2], []).append(_w)


def _near_words(low: str) -> list[str]:
    """The words this text holds (an ASCII word only where a word of the text starts like
    it; the rest only in a text that is not all ASCII)."""
    found = [w for head in gitleaks.word_starts(low) & _NEAR_BY_HEAD.keys()
             for w in _NEAR_BY_HEAD[head]
             if gitleaks.may_hold(low, w) and gitleaks.holds(low, w)]
    if not low.isascii():
        found.extend(w for w in _NEAR_OTHER if gitleaks.has_other_script_word(low, w))
    return found


class _Hit(NamedTuple):
    """A near word where it stands (what the loop below reads of a match)."""

    s: int
    e: int

    def start(self) -> int:
        return self.s

    def end(self) -> int:
        return self.e


def _near_hits(low: str, words: list[str]) -> list[_Hit]:
    """Where the words stand, as an alternation of them longest first would find them left
    to right (the longest word at each place, none inside another's match), found with
    ``str.find`` (a few scans in C instead of a regex tried at every character)."""
    longest: dict[int, int] = {}
    for w in words:
        at = low.find(w)
        while at >= 0:
            if longest.get(at, -1) < at + len(w):
                longest[at] = at + len(w)
            at = low.find(w, at + 1)
    hits, done = [], 0
    for at in sorted(longest):
        if at >= done:
            done = longest[at]
            hits.append(_Hit(at, done))
    return hits


_TOKEN_SET = frozenset(w.lower() for w in _TOKEN_NEAR)
_PASSWORD_SET = frozenset(w.lower() for w in _PASSWORD_NEAR)


def _word_end(low: str, m: _Hit) -> int | None:
    """Where the word really ends (past a short ending), or None if it is part of a
    longer word or a name ("compass", "keyboard", "PASSWORD_MIN_LENGTH")."""
    s, e = m.s, m.e
    w = low[s:e]
    if not w.isascii():
        return e
    if s > 0 and low[s - 1].isalpha():
        return None
    end = e
    while end < len(low) and low[end].isalpha() and end - e <= _SHORT_ENDING:
        end += 1
    if end == e:
        return e if end >= len(low) or low[end] not in "0123456789_" else None
    if len(w) <= 5 or (end < len(low) and low[end].isalpha()):
        return None  # "keys" is fine below; "keyboard", "tokens…" are other words
    if low[e:end] in ("id", "ids"):
        return None  # "credentialId", "tokenid": a name for the thing's id, not its value
    return end


def find_password_nearby(text: str, low: str) -> Iterator[Span]:
    """A strong password or a token-like value within a few words of a word for one (after
    it or before it: "the password is now …", "use … as the key", "…를 키로 사용하세요")."""
    words = _near_words(low)
    if not words:
        return
    for m in _near_hits(low, words):
        w = low[m.s : m.e]
        end = _word_end(low, m)
        if end is None or low[end : end + 1] in ("[", "(", "."):
            continue  # a name indexed, called or dotted: code, not a sentence
        if _list_item(low, m.start(), end):
            continue  # '"names": ["token", "secret"]': a word as data, naming nothing
        if _ABOUT_NAME_RE.match(low, end) and not (w == "access key" and _ACCESS_ID_RE.match(
                low, end)):
            continue  # "the secret name is db-credentials-7f9k2": its name, not its value
            # ("access key id": the pair's other half, a credential too)
        if low[m.start() - 1 : m.start()] in ("_", "-", ".") and _public_name_before(
                low, m.start()):
            continue  # NEXT_PUBLIC_ANALYTICS_KEY: a key shipped to browsers by design
        token_word = w in _TOKEN_SET
        prev = _prev_word(low, m.start())
        if token_word and prev in _NOT_SECRET_KEY_PREV:
            continue  # "cache key …", "primary key …", "idempotency key …"
        kind = "secret-value" if token_word else "password"
        if not token_word and _QUOTE_NEAR_RE.search(text, end, end + 42) is not None:
            q = _quoted_after(text, low, end)
            if q is not None:
                yield *q, "password"
        after = text[end : end + _NEAR_CHARS]
        cut = _EOL_RE.search(after)
        if cut is not None:
            after = after[: cut.start()]  # a word speaks for its own line only
        if "(" in after:  # "the pw backwards (so it's not plain text) is …": an aside
            after = _ASIDE_RE.sub(_blank_aside, after)
        # every value judged below holds a digit or a capital: without one, nothing to
        # judge (and a text dense with "key"/"password" costs a search a word, no more)
        hint = _VALUE_HINT_RE.search(after) or (not token_word and _DICEWARE_HINT_RE.search(after))
        pieces = _pieces(after) if hint else []
        quoted_key = '":' in after or "':" in after or '" :' in after
        if cut is not None and not pieces:
            yield from _value_below(text, end + cut.start(), kind)
        for n, (ps, pe) in enumerate(pieces):
            if n >= _NEAR_TOKENS or (n and _NEXT_KEY_RE.match(after, pe)):
                break  # another key's value is that key's to judge ("hashed_secret": …)
            v = after[ps:pe]
            if quoted_key and _other_key_before(after, ps):
                break  # '…"mappings": "…"': the value is another key's, named for what it is
            if _CODE_EXPR_RE.match(v):
                continue  # "token = process.argv[2]": an expression, not a value
            if not token_word and _PRODUCT_RE.fullmatch(v) and _PLACE_BEFORE_RE.search(
                    after, 0, ps):
                continue  # "stored in 1Password", "kept under KeePassXC": where, not what
            if _near_value(v, token_word, n) or (w in _PASSWORD_SET and _near_password(v)):
                yield end + ps, end + pe, kind
            elif (not token_word and n and after[pieces[n - 1][0] : pieces[n - 1][1]].lower()
                  in _COPULAS and _redact._password_like(v)):
                yield end + ps, end + pe, kind  # "… pw … is fygw6o45fbfg": said to be it
        line_start = max(0, m.start() - _NEAR_CHARS)
        before = text[line_start : m.start()]
        cut_at = max(before.rfind("\n"), before.rfind("\\n") + 1)
        if cut_at > 0:
            before, line_start = before[cut_at:], line_start + cut_at
        pieces = _pieces(before)[-_BACK_TOKENS:] if _VALUE_HINT_RE.search(before) else []
        for n, (ps, pe) in enumerate(reversed(pieces)):
            if _near_value(before[ps:pe], token_word, n, back=True):
                yield line_start + ps, line_start + pe, kind


_ASIDE_RE = re.compile(r"\([^()\n]{1,80}\)")
_VALUEISH_RE = re.compile(r"[A-Za-z0-9+/=_\-]*\d[A-Za-z0-9+/=_\-]*")


def _blank_aside(a: re.Match[str]) -> str:
    """Words in brackets become spaces; a value in brackets ("secret (`AB12…`)") stays."""
    inner = a.group()
    if " " not in inner.strip("() ") or any(len(t) >= 8 for t in _VALUEISH_RE.findall(inner)):
        return inner
    return " " * len(inner)


_COPULAS = frozenset(_redact._words("is was = : ist war est était es era é är er on jest je"))
# A value wrapped over the lines under its word's line ("api secret (it wrapped):" then
# "f1876637ce07", "1da3bcde4fba"): each line one piece, the pieces joined a token.
_BELOW_LINE_RE = re.compile(r"(?:\r?\n|\\n)[ \t>]*(?P<p>[A-Za-z0-9+/=_\-.~!@#$%^&*]{6,128})"
                            r"[ \t]*(?=\r?\n|\\n|\Z)")
_MAX_BELOW = 4


def _value_below(text: str, eol: int, kind: str) -> Iterator[Span]:
    spans: list[tuple[int, int]] = []
    pos = eol
    while len(spans) < _MAX_BELOW and (m := _BELOW_LINE_RE.match(text, pos)) is not None:
        spans.append(m.span("p"))
        pos = m.end()
    if not spans:
        return
    joined = "".join(text[a:b] for a, b in spans)
    if len(joined) >= 16 and (_near_token(joined) or _near_password(joined)):
        for a, b in spans:
            yield a, b, kind


_ABOUT_NAME_RE = re.compile(r"[ \t_\-]?(?:name|names|id|ids|file|path|type|length|field|"
                            r"variable|ref|reference|arn)\b")
_ACCESS_ID_RE = re.compile(r"[ \t_\-]?id\b")
_PUBLIC_NAME_RE = re.compile(r"(?:^|[_.\-])(?:public|publishable)[_.\-][a-z0-9_.\-]*\Z")


def _public_name_before(low: str, at: int) -> bool:
    """The name the word ends says the value is public (``next_public_…_key``)."""
    i = at
    while i > 0 and at - i < 80 and (low[i - 1].isalnum() or low[i - 1] in "_.-"):
        i -= 1
    return _PUBLIC_NAME_RE.search(low, i, at) is not None


def _list_item(low: str, s: int, e: int) -> bool:
    """The word is a quoted item of a list (``["token", "secret"]``): data, not a label."""
    if not (low[s - 1 : s] in ('"', "'") and low[e : e + 1] == low[s - 1]):
        return False
    return low[max(0, s - 3) : s - 1].rstrip()[-1:] in ("[", ",") or low[e + 1 : e + 3].lstrip()[
        :1] in (",", "]")


_KEY_BEFORE_PIECE_RE = re.compile(r"[\"'](?P<k>[A-Za-z_][\w.\-]{0,60})[\"'][ \t]*:[ \t]*[\"']?\Z")
_CODE_EXPR_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+[\[(]")


def _other_key_before(after: str, ps: int) -> bool:
    """A quoted key that names no secret stands right before the piece at ``ps``."""
    m = _KEY_BEFORE_PIECE_RE.search(after, max(0, ps - 70), ps)
    return m is not None and _redact._key_strength(m.group("k")) is None


# "the wifi password is 'Ab3 cd5 Ef7 gh9'", "Passwort: „blaue Tasse 42“": a password word,
# a few words, then a quoted value, spaces and all (the pieces below are words).
_QUOTE_NEAR_RE = re.compile("[\"'`“„«「]")
_QUOTED_AFTER_RE = re.compile(
    r"[^\n\"'`“„«「]{0,40}?(?P<q>[\"'`“„«「])(?P<v>[^\n\"'`“”„«»「」]{4,80})"
    r"(?:[\"'`”“»」])")
_NOT_A_VALUE_GAP_RE = re.compile(r"\b(?:via|with|using|run|command|field|prompt|message|says|"
                                 r"error|flag|option|from|in|by)\b")


def _quoted_after(text: str, low: str, end: int) -> tuple[int, int] | None:
    q = _QUOTED_AFTER_RE.match(text, end)
    if q is None:
        return None
    v = q.group("v")
    if v.strip() != v or _redact.MARKER_RE.search(v) or not _redact._is_literal(v):
        return None
    if not any(c.isdigit() for c in v) or _NOT_A_VALUE_GAP_RE.search(low, end, q.start("q")):
        return None  # words alone, or a command, a field or a message about the password
    if "://" in v or v.startswith(("$", "%", "{")) or _redact.placeholder(v):
        return None
    return q.span("v")


# Words before "key" that make it something else than a credential.
_NOT_SECRET_KEY_PREV = _redact._NOT_SECRET_PREV | frozenset(_redact._words(
    "upload download object s3 bucket storage file files ssh public host known foreign "
    "composite natural surrogate partition sort cache dedup dedupe lookup request trace "
    "correlation music map hash registry keyboard hot the unexpected"
)) - {"the"}
_ASCII_RUN_RE = re.compile(r"[\x21-\x7e]+")
_NEXT_KEY_RE = re.compile(r"[\"'][ \t]*:|[ \t]*=[^=]")  # a quoted key, or an assignment
_VALUE_HINT_RE = re.compile(r"[0-9A-Z]")
_DICEWARE_HINT_RE = re.compile(r"[a-z]{3,12}([-_.])[a-z]{3,12}\1[a-z]{3,12}\1[a-z]{3}")
_PLACE_BEFORE_RE = re.compile(r"\b(?:in|at|into|under|from|via|using|inside|within)[ \t]+\Z",
                              re.IGNORECASE)
_PRODUCT_RE = re.compile(r"\d?[A-Z][a-z]+(?:[A-Z][a-z]*)*(?:XC|\d)?")  # 1Password, KeePassXC


def _pieces(hay: str) -> list[tuple[int, int]]:
    """The words of ``hay`` as spans, trimmed; an ASCII run glued to words of another
    script ("用<token>作为") is a piece of its own."""
    out = []
    for p in _PIECE_RE.finditer(hay):
        span = _trimmed(hay, p)
        if span is None:
            continue
        s, e = span
        if hay[s:e].isascii():
            out.append((s, e))
            continue
        for r in _ASCII_RUN_RE.finditer(hay, s, e):
            rs, re_ = r.span()
            while rs < re_ and hay[rs] in "=:-—>":
                rs += 1
            while re_ > rs and hay[re_ - 1] in _TRIM:
                re_ -= 1
            if re_ - rs >= 8:
                out.append((rs, re_))
    return out


def _near_value(v: str, token_word: bool, distance: int, back: bool = False) -> bool:
    """Whether ``v``, ``distance`` words from a word for a credential, is one: a token
    near any such word; a typed password after a password word, or close after a key
    word; a UUID right beside a key word (Postmark, Opsgenie and kin issue keys in that
    shape). Before a password word only a token counts ("ORA-01017: … password")."""
    if _near_token(v):
        return True
    if token_word and distance <= 3 and (_redact._UUID_RE.match(v) or _prefixed_random(
            v, named=distance == 0 and not back)):
        return True
    if back:
        return False
    if not token_word:
        return _near_password(v) or (distance <= 3 and _plain_password(v))
    return (distance <= 2 and len(v) >= 10 and _near_password(v)
            and any(c.isdigit() for c in v))


# A provider's word prefix, then generated parts (``xaat-<uuid>``, ``signkey-prod-<hex>``,
# ``st.<uuid>.<hex>.<hex>``): a token's shape whatever the provider, beside a key word. A
# bare digest or UUID is not (a checksum, an id); the prefix is what a token format adds.
_PREFIX_RE = re.compile(r"[A-Za-z][A-Za-z0-9]{0,15}(?:[-_][A-Za-z][A-Za-z0-9]{0,15}){0,2}[-_.]")
_GENERATED_PART_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|[0-9a-f]{24,128}|[0-9A-F]{24,128}|[A-Za-z0-9_\-]{20,256}")


_UUID_TAIL_RE = re.compile(r"[-_][0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
                           r"-[0-9a-fA-F]{12}\Z")


def _prefixed_random(v: str, named: bool = False) -> bool:
    """(``named``: the word for a token stands right before it, "api token xaat-<uuid>",
    so a prefix and a UUID is the token's format; a digest there is still a cache key's.)"""
    m = _PREFIX_RE.match(v)
    if m is None or m.end() >= len(v):
        return False
    if _redact._NAMED_DIGEST_RE.match(v) and not _syntax.credential_name(
            v[: m.end()].replace("-", "_")) and not (named and _UUID_TAIL_RE.search(v)):
        return False  # "Linux-pip-<sha256>", "build-<uuid>": a cache key names a digest
    # the prefix may end at any of its separators ("xqat-a961…": a UUID may start with a
    # letter, which the prefix's pattern would take as a word of its own)
    ends = [i + 1 for i in range(m.end()) if v[i] in "-_."]
    return any(_generated_rest(v[e:]) for e in reversed(ends))


def _generated_rest(rest: str) -> bool:
    parts = re.split(r"[.]", rest)
    if not all(_GENERATED_PART_RE.fullmatch(p) for p in parts):
        return False
    return any(_redact._UUID_RE.match(p) or re.fullmatch(r"[0-9a-fA-F]{24,}", p)
               or _redact._looks_random(p) for p in parts)


# A password as people pick one without capitals or signs, right after a word for one:
# diceware words joined ("walrus-cobalt-tundish-quarry") or words and a number
# ("hazeljuniper583"); not a version, a name with a version, a hash name or a path.
_DICEWARE_RE = re.compile(r"[a-z]{3,12}(?P<sep>[-_.])[a-z]{3,12}(?:(?P=sep)[a-z]{3,12}){2,7}")
_WORDS_NUMBER_RE = re.compile(r"[a-z]{6,24}\d{2,6}|\d{2,6}[a-z]{6,24}")


def _plain_password(v: str) -> bool:
    if _redact.MARKER_RE.search(v) or _redact._TECH_RE.search(v) or v.endswith(_FILE_ENDINGS):
        return False
    return bool(_DICEWARE_RE.fullmatch(v) or _WORDS_NUMBER_RE.fullmatch(v))


_FILE_ENDINGS = (".txt", ".json", ".yaml", ".yml", ".md", ".py", ".js", ".ts", ".html", ".env",
                 ".conf", ".ini", ".toml", ".lock", ".log", ".csv", ".xml", ".sh")


def _prev_word(low: str, at: int) -> str:
    m = _PREV_WORD_RE.search(low, max(0, at - 40), at)
    return m.group(1) if m is not None else ""


_PREV_WORD_RE = re.compile(r"([a-z0-9]+)[ \t_\-.]*\Z")


def _trimmed(hay: str, p: re.Match[str]) -> tuple[int, int] | None:
    s, e = p.span()
    while s < e and hay[s] in "=:-—>":
        s += 1
    while e > s and hay[e - 1] in _TRIM:
        e -= 1
    return (s, e) if e > s else None


# "For reference the value I used is …" after a secret's name earlier in the text.
_VALUE_PHRASE_RE = re.compile(
    r"(?:value|valor|valeur|wert|waarde|valore)\b[^.\n]{0,40}?"
    r"\b(?:is|was|=|:|es|est|ist|é|è|era)[ \t]+[\"'`]?(?P<v>[^\s\"'`;,]{8,256})"
)
_SECRET_NAME_RE = re.compile(
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:SECRET|TOKEN|KEY|PASSWORD|PASS|PAT|PWD|APIKEY|"
    r"CREDENTIALS?)\b"
)


def find_named_value(text: str, low: str) -> Iterator[Span]:
    """"I exported WECHAT_APP_SECRET … the value I used is …": the value a sentence gives
    for a secret it named before."""
    if "value" not in low and "valor" not in low and "valeur" not in low and "wert" not in low:
        return
    for m in _VALUE_PHRASE_RE.finditer(low):
        if _SECRET_NAME_RE.search(text, max(0, m.start() - 400), m.start()) is None:
            continue
        s, e = m.span("v")
        while e > s and text[e - 1] in _TRIM:
            e -= 1
        v = text[s:e]
        if _near_token(v) or _near_password(v) or _redact._looks_random(v):
            yield s, e, "secret-value"


# --------------------------------------------------------------------------- code and config

# A key that names a secret, then a quoted literal: ``os.environ["DB_PASSWORD"] = "…"``,
# ``ENV['SECRET_KEY'] = '…'``, ``System.setProperty("db.password", "…")``,
# ``$env:API_KEY = "…"``, ``config.secret_key = "…"``, ``client(api_key="…")``, ``{"token":
# "…"}``. Found from the secret word, walked out to the whole key, then the tail.
_SECRET_WORD_RE = re.compile(r"pass|pwd|secret|token|key|auth|cred|pin|signature|cookie")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_ASSIGN_TAIL_RE = re.compile(
    r"(?P<kq>[\"'`]?)[ \t]*\]?[ \t]*\)?[ \t]*"
    r"(?::[ \t]*&?(?:'[a-z]+[ \t]+)?[A-Za-z_][\w.<>\[\]?|:]{0,40}[ \t]*"  # x: &'static str
    r"|[ \t]+(?:string|str|String|std::string|char\*?|\[\]byte)[ \t]*)?"  # Go's var x string"
    r"(?:=|:=|=>|->|,|:|\+=|\?\?=|\|\|=)[ \t]*"
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
        if _ESCAPED_BYTES_RE.fullmatch(value):
            return _redact._refine(key, "secret-assignment")  # b'\x4f\xba…': key bytes
        return None if _redact._not_a_token(value) else _redact._refine(key, "secret-assignment")
    return _redact._refine(key, "high-entropy") if _redact._looks_random(value) else None


_ESCAPED_BYTES_RE = re.compile(r"(?:\\x[0-9a-fA-F]{2}|\\[0-7]{3}){8,}")


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
    for rx, needs in ((_XML_NAMED_RE, ("value", "content")), (_XML_NAMED_TEXT_RE, ("</",))):
        if not any(w in text for w in needs):
            continue  # each regex needs one of its words
        for m in rx.finditer(text):
            kind = _value_ok(m.group("k"), m.group("v").strip())
            if kind is not None:
                yield *m.span("v"), kind


# --------------------------------------------------------------------------- CLI flags

# A password flag of any client is ``reviewer.sanitize.flags``' to find (by the shape of
# its flag, not a list of clients). A port mapping is no password (``-p 8080:80``).
_PORT_MAP_RE = re.compile(
    r"(?:[\d.]+:)?\d{1,5}(?:-\d{1,5})?:\d{1,5}(?:-\d{1,5})?(?:/(?:tcp|udp|sctp))?")


# --------------------------------------------------------------------------- URLs and DSNs

# Query and form parameters that carry a credential, by name: ``appid=``, ``sig=``,
# ``X-Amz-Signature=``, ``Signature=``, ``refresh_token=``, ``client_secret=``…
_QUERY_RE = re.compile(r"[?&;](?P<k>[A-Za-z_][A-Za-z0-9_.\-]{0,40})=(?P<v>[^&#\s\"'<>\\]{6,2048})")
_QUERY_NAMES = frozenset(_redact._words(
    "appid app_id apikey api_key api-key key token access_token refresh_token id_token "
    "auth auth_token sig signature x-amz-signature x-amz-security-token x-amz-credential "
    "x-goog-signature x-goog-credential client_secret password pwd pass passwd secret "
    "private_token session sessionid session_id jwt hmac code_verifier apitoken "
    "access-token accesstoken authtoken auth-token subscription-key"
))


def find_query_secrets(text: str, low: str) -> Iterator[Span]:
    if "=" not in text:
        return
    for m in _QUERY_RE.finditer(text):
        k = m.group("k").lower()
        v = m.group("v")
        last = re.split(r"[-_.]", k)[-1]
        if k not in _QUERY_NAMES and last not in _QUERY_NAMES and _redact._key_strength(
                m.group("k")) not in ("password", "strong") and not (
                _syntax.credential_name(m.group("k")) and _redact._looks_random(v)):
            continue  # "q-signature", "x-sig": a vendor's prefix on a credential's name;
            # "_sid=<random>": a session's id, whatever the API
        if not _redact._is_literal(v) or _redact.MARKER_RE.search(v) or _redact.placeholder(v):
            continue
        if (k in ("key", "code", "session") or (k not in _QUERY_NAMES and last in (
                "key", "code", "session"))) and not (_near_token(v) or _redact._looks_random(v)):
            continue
        if k not in _QUERY_NAMES and (v.isdigit() or _PORT_MAP_RE.fullmatch(v)):
            continue  # "q-key-time=1764800000;…": a time, not a key
        yield *m.span("v"), "url-secret"


# Oracle's ``user/password@//host:port/service`` and ``user/password@host:1521/…``: found
# from its "/" (a literal ``re`` skips to), then the user name is checked behind it.
_ORACLE_RE = re.compile(
    r"/(?P<v>[^\s/@\"'`]{3,128})@(?=//|[\w.\-]+:\d{2,5}|\(description)"
)
_ORACLE_USER_RE = re.compile(r"(?<![\w/.\-])[A-Za-z_][\w$#.]{0,60}\Z")
# Go's MySQL DSN: ``user:password@tcp(host:3306)/db``
_GO_DSN_RE = re.compile(r"[\w.\-]{1,64}:(?P<v>[^\s@/\\\"'`]{1,128})@(?:tcp|unix|udp|tcp6)\(")
# ``echo 'pw' | docker login … --password-stdin`` (and kin)
_STDIN_PW_RE = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(?:[\"'](?:%s\\n[\"'][ \t]+[\"'])?)?"
    r"(?P<v>[^\s\"'`|;&]{3,256})[\"']?[ \t]*\|[ \t]*[^\n|;&]{0,120}?"
    r"(?:--[a-z\-]*pass(?:wd|word)?[a-z\-]*stdin[a-z\-]*|passwd[ \t]+--stdin|chpasswd)"
)
# ``net use Z: \\host\share PASSWORD /user:DOMAIN\name``
_NET_USE_RE = re.compile(
    r"net[ \t]+use[ \t]+(?:[A-Za-z]:[ \t]+)?\\\\\S+[ \t]+(?P<v>[^\s/\"'][^\s\"']{2,127})"
    r"[ \t]+/user:"
)
# A Solana keypair file: a JSON array of 64 bytes.
_BYTE_ARRAY_RE = re.compile(r"\[[ \t]*(?P<v>\d{1,3}(?:[ \t]*,[ \t]*\d{1,3}){63})[ \t]*\]")


# SQL: ``IDENTIFIED BY '…'``, ``WITH PASSWORD '…'``, ``PASSWORD = '…'``, ``SET PASSWORD …``
_SQL_PW_RE = re.compile(
    r"(?:identified[ \t]+(?:with[ \t]+[\w$]+[ \t]+)?by(?:[ \t]+password)?|password[ \t]*=?|"
    r"password[ \t]+for[ \t]+\S+[ \t]*=)[ \t]*"
    r"(?:n?'(?P<a>[^'\n]{1,200})'|\"(?P<b>[^\"\n]{1,200})\")"
)
# ``Bearer <token>`` whatever characters the token holds (``@``, ``%``, ``!``)
_BEARER_ANY_RE = re.compile(r"bearer[ \t]+(?P<v>[^\s\"'`<>;,]{8,512})")
# ``-p'secret'`` and ``-p"secret"`` glued to a client's password flag
_QUOTED_P_RE = re.compile(r"[ \t]-p(?P<q>['\"])(?P<v>[^'\"\n]{1,200})(?P=q)")


def find_odd_places(text: str, low: str) -> Iterator[Span]:
    if "password" in low or "identified" in low:
        for m in _SQL_PW_RE.finditer(low):
            g = "a" if m.group("a") is not None else "b"
            v = text[m.start(g) : m.end(g)]
            if _redact._is_literal(v) and not _redact.placeholder(v) and not v.isalpha():
                yield *m.span(g), "password"
    if "bearer" in low:
        for m in _BEARER_ANY_RE.finditer(low):
            v = text[m.start("v") : m.end("v")].rstrip(".,;)]}")
            if (len(v) >= 8 and _redact._is_literal(v) and not _redact.placeholder(v)
                    and any(c.isdigit() for c in v) and not v.isdigit()
                    and not _KWARG_RE.match(v)):  # "token_type=Bearer expires_in=3600"
                yield m.start("v"), m.start("v") + len(v), "bearer-token"
    if " -p'" in text or ' -p"' in text:
        for m in _QUOTED_P_RE.finditer(text):
            if _redact._is_literal(m.group("v")):
                yield *m.span("v"), "cli-password"
    if "@" in text:
        for m in _ORACLE_RE.finditer(text):
            if _ORACLE_USER_RE.search(text, max(0, m.start() - 64), m.start()) is None:
                continue
            v = m.group("v")
            if _redact._is_literal(v) and not _redact.MARKER_RE.search(v):
                yield *m.span("v"), "url-password"
    if "@tcp(" in low or "@unix(" in low or "@udp(" in low or "@tcp6(" in low:
        for m in _GO_DSN_RE.finditer(text):
            if _redact._is_literal(m.group("v")) and not _redact.MARKER_RE.search(m.group("v")):
                yield *m.span("v"), "url-password"
    if "stdin" in low or "chpasswd" in low:  # --password-stdin, --passwd-on-stdin…
        for m in _STDIN_PW_RE.finditer(text):
            v = m.group("v")
            if _redact._is_literal(v) and not v.startswith("$"):
                yield *m.span("v"), "cli-password"
    if "net" in low and "/user:" in low:
        for m in _NET_USE_RE.finditer(text):
            if _redact._is_literal(m.group("v")):
                yield *m.span("v"), "cli-password"
    if "," in text and "[" in text:
        for m in _BYTE_ARRAY_RE.finditer(text):
            if all(int(x) < 256 for x in m.group("v").split(",")):
                yield *m.span("v"), "private-key"


# Any client's ``-u USER -p PASSWORD`` (smbmap, hydra, crackmapexec, sqlcmd-likes…): a
# password flag beside a user flag on one command line, whatever the command. Not a port
# (``-p 2222``, ``-p 8080:80``), a path, a flag, a variable, a JSON patch; not mysql's
# ``-p DATABASE`` (its password is glued: ``-pSECRET``, redact's own rule).
_USER_FLAG_RE = re.compile(r"[ \t](?:-u|-U|-l|--user|--username|--login)(?:[ \t]+|=)[\"']?"
                           r"[^\s\"'|;&\-][^\s\"'|;&]{0,63}")
_PASS_FLAG_RE = re.compile(r"-(?:p|P|-pass|-password|-pw|-pwd)(?:[ \t]+|=)"
                           r"(?P<q>[\"']?)(?P<v>[^\s\"'|;&`]{3,256})")
_PORTISH_RE = re.compile(r"[\d:.,\-]+(?:/(?:tcp|udp))?")
_LINE_CMD_RE = re.compile(r"[^\n;|&`]+")


def find_user_password_flags(text: str, low: str) -> Iterator[Span]:
    for p in _PASS_FLAG_RE.finditer(text):  # starts with "-": re skips to each
        if p.start() == 0 or text[p.start() - 1] not in " \t":
            continue
        ls = max(text.rfind("\n", 0, p.start()), text.rfind(";", 0, p.start()),
                 text.rfind("|", 0, p.start()), text.rfind("`", 0, p.start()))
        le = _LINE_CMD_RE.match(text, p.start())
        seg = text[ls + 1 : le.end() if le else len(text)]
        if _USER_FLAG_RE.search(seg) is None or re.search(r"\b(?:mysql|mariadb)\w*", seg):
            continue
        v = p.group("v")
        if p.group("q"):
            v = v.rstrip(p.group("q"))
        if (_PORTISH_RE.fullmatch(v) or v.startswith(("-", "$", "%", "{", "[", "<"))
                or not _redact._is_literal(v) or _redact.MARKER_RE.search(v)
                or _redact.placeholder(v) or _redact._METAVAR_RE.match(v)):
            continue
        yield p.start("v"), p.start("v") + len(v), "cli-password"


# A user and a password handed to code that logs in: ``auth=("bot", "…")``,
# ``s.login("a@x.io", "…")``, ``HTTPBasicAuth(user, "…")``, ``NetworkCredential("u", "…")``:
# the second literal is the password whatever either is called.
_CALL_TAIL = (r"[ \t]*(?:=[ \t]*[(\[]|\()[ \t]*"
              r"(?P<u>\"[^\"\n]{1,120}\"|'[^'\n]{1,120}'|[a-z_][\w.]{0,80})[ \t]*,[ \t]*"
              r"(?P<q>[\"'])(?P<v>[^\"'\n]{3,200})(?P=q)")
# Found in the lowercased text from each name's literal ("auth" ends BasicAuth, HTTPBasicAuth,
# with_basic_auth, auth=; "credential" NetworkCredential, UsernamePasswordCredentials).
_CRED_CALL_RES = tuple((w, re.compile(w + r"(?:s|entication)?" + _CALL_TAIL))
                       for w in ("auth", "login", "credential"))


def find_credential_calls(text: str, low: str) -> Iterator[Span]:
    for m in (m for w, rx in _CRED_CALL_RES if w in low for m in rx.finditer(low)):
        v = text[m.start("v") : m.end("v")]
        if (_redact._is_literal(v) and not _redact.MARKER_RE.search(v)
                and not _redact.placeholder(v) and not v.startswith(("$", "%", "{"))):
            yield *m.span("v"), "password"


# A connection string or form percent-encoded inside another (``odbc_connect=DRIVER%3D…
# %3BPWD%3D…``, a URL-encoded JSON body): decoded, scanned once, spans mapped back.
_PCT_RUN_RE = re.compile(r"[A-Za-z0-9%+._~\-!*'()]*%(?:3[dDbBaA]|40|26|2[cC]|22|7[bB])"
                         r"[A-Za-z0-9%+._~\-!*'()]*")
_PCT_RE = re.compile(r"%([0-9A-Fa-f]{2})")
_pct_depth = 0


def find_percent_encoded(text: str, low: str) -> Iterator[Span]:
    global _pct_depth
    if _pct_depth or "%3" not in text:
        return
    for m in _PCT_RUN_RE.finditer(text):
        run = m.group()
        if len(run) < 16 or len(_PCT_RE.findall(run)) < 3:
            continue
        out: list[str] = []
        where: list[int] = []
        i = 0
        while i < len(run):  # decoded text and each character's offset in the run
            if run[i] == "%" and _PCT_RE.match(run, i):
                out.append(chr(int(run[i + 1 : i + 3], 16)))
                where.append(i)
                i += 3
            else:
                out.append(" " if run[i] == "+" else run[i])
                where.append(i)
                i += 1
        where.append(len(run))
        decoded = "".join(out)
        _pct_depth += 1
        try:
            spans = _redact._spans(decoded)
        finally:
            _pct_depth -= 1
        for s, e, _, kind in spans:
            yield m.start() + where[s], m.start() + where[e], kind


# ``cloud.auth=elastic:…``, ``--auth user:pw``, ``http_auth: "u:p"``: a key naming auth,
# its value a user and a password; the password goes.
_AUTH_PAIR_TAIL = (r"[\"']?[ \t]*(?:[:=]|[ \t])[ \t]*[\"']?(?P<u>[A-Za-z0-9_.@\-]{1,64}):"
                   r"(?P<v>[^\s\"'@/,;]{3,128})")
# each from its literal ("basic_auth", "http_auth" end with "auth")
_AUTH_PAIR_RES = tuple((w, re.compile(w + r"s?" + _AUTH_PAIR_TAIL))
                       for w in ("auth", "credential", "userpass", "user_pass"))


def find_auth_pairs(text: str, low: str) -> Iterator[Span]:
    for m in (m for w, rx in _AUTH_PAIR_RES if w in low for m in rx.finditer(low)):
        s, e = m.span("v")
        v = text[s:e]
        if m.start() and low[m.start() - 1].isalnum():
            continue  # "oauth", "preauth": another word
        if (_redact._is_literal(v) and not v.isdigit() and not _redact.MARKER_RE.search(v)
                and not _redact.placeholder(v) and any(c.isdigit() for c in v)
                and any(c.isalpha() for c in v) and not v.startswith(("$", "{", "%"))):
            yield s, e, "password"


def find_handed_over(text: str, low: str) -> Iterator[Span]:
    """A user and a password handed over together (flags, a login call, an auth key), and
    what a percent-encoded carrier holds: one finder, one call a text."""
    yield from find_user_password_flags(text, low)
    yield from find_credential_calls(text, low)
    yield from find_auth_pairs(text, low)
    yield from find_percent_encoded(text, low)


FINDERS = (find_wrapped_base64, find_password_nearby, find_named_value, find_code_assignments,
           find_xml_values, find_query_secrets, find_odd_places,
           find_handed_over)
