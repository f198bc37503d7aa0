"""The output of a command that prints a secret.

``vault kv get -field=password …``, ``gcloud secrets versions access …``, ``op read …``,
``kubectl get secret … | base64 -d``, ``aws ecr get-login-password``, ``openssl rand -hex
32``: the command says its output is a credential, and the value is printed alone on its
line below with no word beside it. ``REVEALING`` is the list of such commands, as data.
The value lines (each one word, up to ``_MAX_LINES`` of them) after the command's line are
redacted, through the condenser's line marks (``┆ →``) or a pasted shell prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import anchored as _anchored
from reviewer.sanitize import redact as _redact

Span = tuple[int, int, str]

# Each on one command line (lowercased); "…" parts of a pipeline may come between.
REVEALING = (
    r"vault[ \t]+(?:kv[ \t]+get|read)\b[^\n]*[ \t]-field[= ]",
    r"gcloud[ \t]+secrets[ \t]+versions[ \t]+access\b",
    r"\bop[ \t]+read\b", r"\bop[ \t]+item[ \t]+get\b[^\n]*--fields?\b",
    r"kubectl[ \t]+get[ \t]+secrets?\b[^\n]*base64[ \t]+(?:-d|--decode|-D)\b",
    r"aws[ \t]+secretsmanager[ \t]+get-secret-value\b[^\n]*--output[ \t]+text",
    r"aws[ \t]+ssm[ \t]+get-parameters?\b[^\n]*--with-decryption[^\n]*--output[ \t]+text",
    r"aws[ \t]+ssm[ \t]+get-parameters?\b[^\n]*--output[ \t]+text[^\n]*--with-decryption",
    r"aws[ \t]+ecr[ \t]+get-login-password\b",
    r"aws[ \t]+codeartifact[ \t]+get-authorization-token\b",
    r"\b(?:go)?pass[ \t]+show\b",
    r"security[ \t]+find-(?:generic|internet)-password\b[^\n]*[ \t]-w\b",
    r"\bbw[ \t]+get[ \t]+(?:password|totp)\b", r"lpass[ \t]+show\b[^\n]*--password",
    r"(?:doppler|infisical)[ \t]+secrets[ \t]+get\b[^\n]*--plain",
    r"az[ \t]+keyvault[ \t]+secret[ \t]+show\b[^\n]*(?:-o|--output)[ \t]+tsv",
    r"heroku[ \t]+(?:config:get|auth:token)\b", r"secret-tool[ \t]+lookup\b",
    r"\bkeyring[ \t]+get\b", r"\bsops[ \t]+(?:-d|--decrypt)\b[^\n]*--extract",
    r"openssl[ \t]+rand[ \t]", r"\bpwgen\b",
    r"gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?print-(?:access|identity)-token",
    r"az[ \t]+account[ \t]+get-access-token\b[^\n]*tsv", r"\bgh[ \t]+auth[ \t]+token\b",
    r"\b(?:kubectl|oc)[ \t]+create[ \t]+token\b", r"\boc[ \t]+whoami[ \t]+(?:-t|--show-token)\b",
    r"(?:printenv|echo)[ \t]+[\"']?\$?\{?[a-z0-9_]*(?:token|secret|password|passwd|pass|"
    r"api_?key|private_?key|pwd)[a-z0-9_]*\}?[\"']?[ \t]*(?:$|\n)",
)
# A gap ("[^\n]*" above) is bounded and ends at a literal "\n" too (a JSON-escaped script is
# one long line): unbounded, two gaps backtracked cubically over such a line.
_GAP = r"(?:[^\n\\]|\\(?!n)){0,512}?"
_REVEAL_RE = re.compile("|".join(f"(?:{p})" for p in REVEALING).replace(r"[^\n]*", _GAP),
                        re.MULTILINE)
# Or a command that selects one field, named as a credential is (``kubectl get … -o
# jsonpath='{.spec.authentication.serviceToken}'``, ``aws … --query SecretString``,
# ``jq -r .api_key``, ``--format='value(password)'``, ``yq .db.password``).
_FIELD_RE = re.compile(
    r"(?:jsonpath=[\"']?\{[^}\n]{0,200}?|--query[ \t=]+[\"']?[\w.\[\]]{0,200}?|-field=|"
    r"\b[jy]q[ \t]+(?:-r[ \t]+)?[\"']?[\w.\[\]]{0,200}?|value\()"
    r"\.?(?<![A-Za-z_])(?P<f>[A-Za-z_][\w\-]{1,60})[\"'}\])]*[ \t]*(?:\||$)", re.MULTILINE)
_FIELD_NEEDLES = ("jsonpath", "--query", "-field=", "jq ", "yq ", "value(")
# Literal words one of the commands holds: only their lines are searched.
_NEEDLES = ("vault ", "gcloud ", "op read", "op item", "kubectl ", "aws ", "pass show",
            "security find-", "bw get", "lpass ", "doppler ", "infisical ", "keyvault",
            "heroku ", "secret-tool", "keyring ", "sops ", "openssl rand", "pwgen",
            "print-access-token", "print-identity-token", "get-access-token", "gh auth token",
            "create token", "whoami", "printenv", "echo ", "jsonpath", "--query", "-field=",
            "jq ", "yq ", "value(")
# What stands before an output line: indentation, the condenser's "┆ →" or a Read's
# "12→", a box's "│".
_OUT_PREFIX_RE = re.compile(r"[ \t]*(?:[┆│|][ \t]*)?(?:\d{0,7}→[ \t]?)?[ \t]*")  # "0dNm…": a value
# The value fills its line (checked below), so a long one is taken whole: `aws ecr
# get-login-password` prints ~2.4 KB of base64 on one line.
_VALUE_RE = re.compile(r"[^\s\"'`]{4,16384}")
# A prompt's "user@host" goes on (":~$", " dir]$"): a value alone holding "@" does not.
_NEXT_COMMAND_RE = re.compile(r"(?:[·$#%>]|Bash:|User:|Assistant:|\w+@[\w.\-]+(?=[:#$]|[ \t]+\S))")
_MAX_LINES = 8
_SUBSTITUTION_RE = re.compile(r"\$\(|`|<\(|=[ \t]*[\"']?\$")


# Fewer, shorter words than the needles, one of which every needle holds: the gate a
# turn without any command of the list pays.
_GATE = ("secret", "-token", "auth token", "create token", "whoami", "pass show", "lpass",
         "-password", "get password", "vault", "op read", "op item", "ecr", "codeartifact",
         "keyring", "sops", "rand", "pwgen", "echo", "printenv", "query", "jsonpath", "field",
         "jq ", "yq ", "value(")
_GATE_RES = _anchored.words_res(_GATE)
# The needles grouped by their rarest character (``anchored``): a pattern matches inside a
# needle exactly where the text holds one, a dozen scans for the 33 needles, each skipping
# to its rare character (a scan per needle cost ~2 ms a transcript's windows).
_NEEDLE_RES = _anchored.words_res(_NEEDLES)


def _command_lines(low: str) -> list[tuple[int, int]]:
    """The lines that hold a needle, in order, each once."""
    if not _anchored.holds_any(low, _GATE_RES):
        return []
    starts: set[int] = set()
    for needle in _NEEDLE_RES:  # a match lies inside a needle: the same line as its start
        m = needle.search(low)
        while m is not None:  # a line once: its other hits would each look back to its start
            starts.add(low.rfind("\n", 0, m.start()) + 1)
            le = low.find("\n", m.end())
            m = needle.search(low, le) if le >= 0 else None
    if not starts:
        return []
    out = []
    for ls in sorted(starts):
        le = low.find("\n", ls)
        out.append((ls, len(low) if le < 0 else le))
    return out


def _selects_credential(text: str, low: str, ls: int, le: int) -> int | None:
    """Where the field a command line selects ends, if its name is a credential's. Tried
    at each needle only: a search from every character of a long line costs far more."""
    starts: set[int] = set()
    for needle in _FIELD_NEEDLES:
        p = low.find(needle, ls, le)
        while p >= 0:
            starts.add(p)
            p = low.find(needle, p + 1, le)
    for p in sorted(starts):
        m = _FIELD_RE.match(text, p, le)
        if m is not None and _redact._key_strength(m.group("f")) is not None:
            return m.start()
    return None


def find_revealed(text: str, low: str) -> Iterator[Span]:
    for ls, le in _command_lines(low):
        m = _REVEAL_RE.search(low, ls, le + 1)
        at = m.start() if m is not None else (
            _selects_credential(text, low, ls, le) if any(
                n in low[ls:le] for n in _FIELD_NEEDLES) else None)
        if at is None or _SUBSTITUTION_RE.search(low, ls, at):
            continue  # '--password="$(pass show db)"': the output goes to the flag, unseen
        pos, lines = (le if le < len(low) else -1), 0
        while pos >= 0 and lines < _MAX_LINES:
            nxt = text.find("\n", pos + 1)
            line_end = len(text) if nxt < 0 else nxt
            p = _OUT_PREFIX_RE.match(text, pos + 1, line_end).end()
            if p >= line_end:
                break  # a blank line: the output is over (or another turn begins)
            if _NEXT_COMMAND_RE.match(text, p):
                break
            v = _VALUE_RE.match(text, p, line_end)
            end = v.end() if v is not None else p
            if v is None or text[end:line_end].strip():
                break  # a line of words: a message, not the value
            value = v.group()
            if not _redact.MARKER_RE.search(value) and not _redact.placeholder(value):
                yield p, end, "secret-value"
            lines += 1
            pos = nxt


FINDERS = (find_revealed,)
