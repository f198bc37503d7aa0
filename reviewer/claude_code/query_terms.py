"""What else a question's words may be written as in a fact: recall's query expansion.

Two kinds of miss come from wording, not meaning: an identifier written one way in the
fact and another in the question (`FactStore`, `fact_store`, `fact store`,
`reviewer.store`, `store/facts.py`), and the everyday synonyms developers use for the same
thing ("config" and "settings", "remove" and "delete", "test" and "spec"). The index
(FTS5, unicode61 + porter) splits on punctuation but keeps `FactStore` one token, so:

- each CamelCase or digit-joined word is also searched as its parts;
- adjacent words are also searched joined (`fact store` finds `FactStore`);
- each word's derivational roots (word_roots.py: `scanner` → scan) are searched too;
- each word's group in `SYNONYMS` is searched too.

Expansions score below the question's own words (recall.py weighs them), so they widen
what is found without reordering exact matches; synonyms are searched only when the
question's own words match almost nothing (at 10,000 facts they found mostly noise).
The groups are general developer vocabulary, written from the field's usage, not from
any evaluation question.
"""

from __future__ import annotations

import re
from itertools import pairwise

from reviewer.claude_code import word_roots

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"\w+")
MAX_EXPANSIONS = 48

# Each line is one group of words used for the same thing. Multi-word phrases are not
# supported (the index matches words); keep words lowercase.
_GROUPS = """
config configuration configure configured settings setting conf options preferences
setup install installation installer installing bootstrap provision
remove delete deleting removal drop erase purge rm unlink
add create insert new introduce
rename renamed move moved mv relocate
test tests testing spec specs pytest unittest suite
fail fails failed failure failing error errors broken breaks crash crashes exception
bug bugs defect issue regression
fix fixed fixes repair resolve workaround patch
start starts launch launches run runs running boot spawn invoke execute
stop stops kill halt shutdown terminate
slow slowness latency performance perf speed fast faster
cache cached caching memo memoize
db database sqlite postgres postgresql mysql sql
table tables schema migration migrations
dir directory folder folders path
file files filename
doc docs documentation readme guide manual
dep deps dependency dependencies package packages library libraries requirement requirements
version versions release releases tag tags
branch branches main master trunk
commit commits committed
repo repository repositories git
merge merged rebase
ci pipeline workflow workflows actions github
deploy deployment deployed ship shipping production prod
env environment environments variable variables envvar
auth authentication authenticate login signin credential credentials
token tokens key keys secret secrets apikey
password passwords passphrase
user users account accounts
permission permissions access acl
api endpoint endpoints route routes handler handlers
request requests call calls
response responses reply
server servers service services backend daemon
client clients frontend ui
log logs logging logger
warn warning warnings
debug debugging debugger
lint linter linting ruff eslint flake8 clippy credo
format formatter formatting prettier black gofmt
type types typing typecheck mypy typescript dialyzer
build builds compile compiled compiler compilation
function functions func method methods
class classes struct structs type
module modules mod
import imports imported require
hook hooks callback callbacks
timeout timeouts deadline
retry retries retried backoff
limit limits cap quota budget
size bytes length
memory ram heap
thread threads concurrency parallel async asynchronous
lock locks locking mutex
queue queues job jobs task tasks
worker workers background
message messages msg
event events
image images picture screenshot
screen screens view views page pages
window windows dialog modal
key keyboard shortcut shortcuts binding bindings keybinding
json yaml toml ini
stylesheet stylesheets css scss sass
javascript js mjs cjs
typescript ts tsx
markdown md
python py
yaml yml
lockfile lockfiles lock
makefile makefiles
script scripts shell bash
command commands cmd cli
flag flags option argument arguments arg args parameter parameters param
default defaults
empty blank
null none nil
true enabled enable on
false disabled disable off
old previous legacy outdated stale
current latest newest
docker container containers image
windows win32
mac macos darwin osx
linux ubuntu debian
check checks verify validate validation
parse parser parsing
serialize serialization encode encoding
http https url urls
port ports
network networking net
email mail
schedule scheduled cron
""".strip()


def _build() -> dict[str, tuple[str, ...]]:
    out: dict[str, set[str]] = {}
    for line in _GROUPS.splitlines():
        words = line.split()
        for w in words:
            out.setdefault(w, set()).update(x for x in words if x != w)
    return {w: tuple(sorted(s)) for w, s in out.items()}


SYNONYMS = _build()


def parts(word: str) -> list[str]:
    """CamelCase, acronym and digit boundaries: `FactStore` → fact, store;
    `HTTPServer2` → http, server, 2. Lowercase; [] for a word with one part."""
    found = [p.lower() for p in _CAMEL.findall(word)]
    return found if len(found) > 1 else []


def expand(raw_words: list[str], terms: list[str], stop: frozenset[str]) -> list[str]:
    """Expansion terms for a question: the parts of its identifiers, its adjacent words
    joined, and synonyms; never one of `terms` itself, at most MAX_EXPANSIONS."""
    forms, synonyms = expand_split(raw_words, terms, stop)
    return forms + synonyms


def expand_split(raw_words: list[str], terms: list[str], stop: frozenset[str]
                 ) -> tuple[list[str], list[str]]:
    """`expand` in two lists: other spellings of the question's own identifiers (parts,
    joined words), then synonyms, which recall weighs lower (a synonym is a guess)."""
    have = set(terms)
    out: dict[str, None] = {}

    def add(word: str) -> None:
        if word and word not in have and word not in stop and len(out) < MAX_EXPANSIONS:
            out[word] = None

    pieces: list[str] = []
    for raw in raw_words:
        for sub in raw.split("_"):
            split = parts(sub)
            for p in split:
                add(p)
            pieces.append(sub.lower())
            if len(split) > 1 and raw.lower() not in have:
                add(raw.lower())
        if "_" in raw:
            add(raw.replace("_", "").lower())
    words = [w for w in pieces if w and w not in stop]
    for a, b in pairwise(words):
        add(a + b)
    for w in terms:  # derivational roots the stemmer leaves apart (`scanner`: scan)
        for root in word_roots.roots(w):
            add(root)
    forms = list(out)
    for w in [*terms, *forms]:
        for syn in SYNONYMS.get(w, ()):
            add(syn)
    return forms, list(out)[len(forms):]


def raw_words(text: str) -> list[str]:
    return _WORD.findall(text)
