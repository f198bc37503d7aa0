"""A value a debugger or a REPL printed for a name that says it is a credential.

``(gdb) p cfg->db_pass`` then ``$1 = "…"``; ``(gdb) x/s cfg->api_token`` then
``0x5555…:  "…"``; ``>>> settings.SECRET_KEY`` then ``'…'``; ``irb> ENV["DB_PASSWORD"]``
then ``=> "…"``; ``In [3]: conf.token`` then ``Out[3]: '…'``. The name is on the line
that asks, the value alone on the line below, so neither a key-value rule nor a word
nearby sees them together. The name's last identifier is judged as a key is
(``redact._key_strength``): a password's name takes any literal, a token's a literal that
is not a plain word, a weak name (``key``) only a random-looking one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# The line below holds one quoted literal, after what the tool prints before it.
_VALUE_LINE = (
    r"[ \t]*(?:0x[0-9A-Fa-f]{4,16}(?:[ \t]*<[^<>\n]{1,80}>)?:[ \t]*"  # gdb x/s
    r"|\$\d{1,5}[ \t]*=[ \t]*"  # gdb p: $1 =
    r"|=>[ \t]*"  # irb, pry
    r"|Out\[\d{1,5}\]:[ \t]*"  # IPython
    r"|\[\d{1,5}\][ \t]*"  # R: [1]
    r"|\([\w *]{1,30}\)[ \t]*\$\d{1,5}[ \t]*=[ \t]*"  # lldb: (char *) $0 =
    r")?(?P<q>[\"'])(?P<v>[^\"'\n\\]{4,256})(?P=q)[ \t]*(?=\r?\n|\\n|\Z)"
)
_VALUE_LINE_RE = re.compile("\n" + _VALUE_LINE)
_ESCAPED_VALUE_LINE_RE = re.compile(r"\\n" + _VALUE_LINE)
# The asking line ends in an expression: ``cfg->db_pass``, ``settings.SECRET_KEY``,
# ``ENV["DB_PASSWORD"]``, ``os.environ.get('API_TOKEN')``.
_EXPR_END_RE = re.compile(r"[A-Za-z_$][\w$.\->\[\]\"'()]{0,160}[ \t;]*\Z")
_MAX_ASK = 200
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _last_name(expr: str) -> str:
    names = _NAME_RE.findall(expr)
    skip = {"get", "getenv", "environ", "env", "ENV", "os", "process", "x", "s", "p", "print"}
    for name in reversed(names):
        if name not in skip:
            return name
    return ""


def _value_lines(text: str) -> Iterator[re.Match[str]]:
    yield from _VALUE_LINE_RE.finditer(text)  # starts with a literal "\n": scanned fast
    if "\\n" in text:
        yield from _ESCAPED_VALUE_LINE_RE.finditer(text)


def find_printed_values(text: str, low: str) -> Iterator[Span]:
    if ('"' not in text and "'" not in text) or ("\n" not in text and "\\n" not in text):
        return
    for m in _value_lines(text):
        lo = max(0, m.start() - _MAX_ASK)
        esc = text.rfind("\\n", lo, m.start() - 1)  # -1 when none: never "+ 1" to offset 0
        nl = max(text.rfind("\n", lo, m.start()), esc + 1 if esc >= 0 else -1)
        e = _EXPR_END_RE.search(text, nl + 1 if nl >= 0 else lo, m.start())
        name = _last_name(e.group()) if e is not None else ""
        strength = _redact._key_strength(name) if name else None
        if strength is None:
            continue
        v = m.group("v")
        if not _redact._is_literal(v) or _redact.placeholder(v) or " " in v.strip():
            continue
        if strength == "password" or (strength == "strong" and not _redact._not_a_token(v)) or (
                strength == "weak" and (_redact._looks_random(v) or _redact._random_letters(v))):
            yield *m.span("v"), "password" if strength == "password" else "secret-value"


FINDERS = (find_printed_values,)
