"""A chain wallet's private key where a config or a call says it signs.

``accounts: ["0x<64 hex>"]`` in a Hardhat or Truffle network, ``new Wallet("0x…")``,
``Account.from_key("0x…")``, ``signer: 0x…``: 32 bytes of hex there are a key that spends,
where elsewhere the same shape is a transaction or block hash (public, left alone).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewer.sanitize import anchored as _anchored

Span = tuple[int, int, str]

_KEY_RE = re.compile(r"(?<![0-9A-Za-z])(?:0x)?[0-9a-fA-F]{64}(?![0-9A-Za-z])")
# What stands before the key on its line: a key naming signers, or a call making a wallet.
_SIGNING_BEFORE_RE = re.compile(
    r"(?:\b(?:accounts|signers?|deployer|deployer_?key|wallet|owner_?key|pk|privkey|"
    r"priv_?key)[\"']?[ \t]*[:=][ \t]*\[?[^\n]{0,80}?"
    r"|(?:Wallet|from_?[Kk]ey|privateKeyToAccount|fromPrivateKey|Keypair|signer)[ \t]*\(\s*)"
    r"[\"'`]?\Z")
_REACH = 120
_CONTEXT_WORDS = ("accounts", "signer", "deployer", "wallet", "owner", "priv", "fromkey",
                  "from_key", "keypair", " pk")
# Each word as a literal regex: the engine's literal search outruns ``str.find`` on a long
# text holding a character outside Latin-1 (every window: the condenser's marks).
_CONTEXT_RES = tuple(re.compile(re.escape(w)) for w in _CONTEXT_WORDS)
# Which words the text holds at all: one scan per rare letter, not one per word.
_CONTEXT_GROUPS = _anchored.groups(_CONTEXT_WORDS)


def find_wallet_keys(text: str, low: str) -> Iterator[Span]:
    held = {w for group, words in _CONTEXT_GROUPS if group.search(low) for w in words}
    if not held:
        return
    seen: set[int] = set()
    for name, word in zip(_CONTEXT_WORDS, _CONTEXT_RES, strict=True):
        if name not in held:
            continue
        for w in word.finditer(low):  # each place a word says so, then a key shortly after it
            i = w.start()
            for m in _KEY_RE.finditer(text, i, min(len(text), i + _REACH + 80)):
                s = m.start()
                ls = max(text.rfind("\n", 0, s) + 1, s - _REACH)
                if s not in seen and _SIGNING_BEFORE_RE.search(text, ls, s):
                    seen.add(s)
                    yield s, m.end(), "private-key"


FINDERS = (find_wallet_keys,)
