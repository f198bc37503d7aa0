"""Offline extraction: explicit statements in the user's own prompts.

Stdlib only. For people who will not send transcripts to an API, and for the demo. It
only reads what the developer typed (prompt turns), sentence by sentence, and only
sentences that open with an explicit marker ("remember that", "always", "we use",
"don't use X, use Y", "TODO:" ...). Precision over recall: questions, hedges,
conditionals, code blocks and pasted tool output never produce a candidate. The evidence
is the sentence exactly as typed, so it is always grounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from capture.candidate import Candidate
from capture.extractors.base import ExtractionResult, Request
from capture.transcript import Turn
from reviewer.store.dedupe import fact_key

_I = re.IGNORECASE
_APOS = "['\u2019]"

# Lines that are not prose typed by the user: pasted output, code, quotes, headings.
_SKIP_LINE = re.compile(
    r"""^\s*(?:
        >                                   # markdown quote / quoted output
      | \$\s | >>>\s | \.\.\.\s             # shell or REPL prompts
      | \#+\s | //  | /\*                   # headings, code comments
      | Traceback\b | File\ " | E\s{2,}     # Python tracebacks, pytest
      | (?:FAILED|PASSED|ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL)\b[\s:\[]
      | at\ \S+\( | \d{4}-\d\d-\d\d[ T]\d\d:   # stack frames, log timestamps
    )""",
    re.VERBOSE,
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_INDENTED = re.compile(r"^(?: {4}|\t)(?!\s*(?:[-*+]|\d+[.)])\s)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_BOUNDARY = re.compile(r"[.!?]+(?=[\s\"')\]]|$)")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp)|\b[A-Za-z])$", _I)

_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|also|and|but|so|btw|by the way|oh|fyi|important|please|just|alright"
    r"|yes|yeah|actually|one more thing|hey|hi|great|thanks|thank you|cool|nice|right|well)"
    r"\b[\s,:;!.\-\u2013\u2014]*)+",
    _I,
)
_QUESTION = re.compile(
    r"^(?:should|shall|can|could|would|will|do|does|did|is|are|was|were|have|has|had|why"
    r"|what|how|where|which|who|whom|whose|whether|isn't|aren't|don't you|any idea)\b",
    _I,
)
_HEDGE = re.compile(
    r"^(?:if|unless|maybe|perhaps|probably|possibly|i think|i guess|i wonder|i'm not sure"
    r"|not sure|might|wondering|let's see|let me|i was|i am|i'm)\b",
    _I,
)
_EMPTY_BODY = frozenset(
    "it that this those these them one there something anything".split()  # noqa: SIM905
)

# Path-like tokens: a slash path or a name with a known extension, or a known bare file.
_EXT = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|toml|yaml|yml|md|rst|txt|cfg|ini|sh|bash|zsh|rs|go"
    "|java|kt|rb|c|h|cc|cpp|hpp|cs|css|scss|html|sql|lock|xml|gradle|swift|php|vue|svelte"
    "|env|conf|proto|tf|dockerfile|mk"
)
_PATH = re.compile(
    r"(?<![\w/.@:-])"
    r"((?:\./)?(?:[\w-][\w.-]*/)*(?:[\w-][\w.-]*\.(?:" + _EXT + r")"
    r"|\.(?:env|gitignore|dockerignore|editorconfig|pre-commit-config\.yaml)"
    r"|Makefile|Dockerfile|Justfile|Procfile)"
    r"|(?:[\w-][\w.-]*/)+[\w-][\w.-]*/?)"
    r"(?![\w/-])",
)
_NOT_FILES = frozenset(
    "node.js next.js vue.js react.js nuxt.js express.js three.js d3.js".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class _Hit:
    fact: str
    category: str
    confidence: float


def _clean(text: str) -> str:
    """One plain statement: single spaces, capitalised, ending with a period."""
    text = " ".join(text.split()).strip(" \"'\u201c\u201d")
    text = text.rstrip(" .!;:,")
    if not text:
        return ""
    if text[0].islower():
        text = text[0].upper() + text[1:]
    return text + "."


def _has_content(body: str) -> bool:
    words = re.findall(r"\w+", body.casefold())
    return any(w not in _EMPTY_BODY for w in words)


def _env_or_convention(body: str) -> str:
    b = body.casefold()
    if re.search(
        r"\b(?:port|host|localhost|env var|environment variable"
        r"|runs? on|python ?\d|node ?\d|docker|database url|\d+\.\d+)\b",
        b,
    ):
        return "environment"
    if re.search(r"\b(?:breaks?|fails?|flaky|careful|beware|watch out|gotcha|quirk|bug)\b", b):
        return "gotcha"
    if re.search(r"\b(?:because|decided|chose|instead of)\b", b):
        return "decision"
    return "convention"


def _m_remember(s: str) -> _Hit | None:
    m = re.match(
        rf"^(?:remember|don{_APOS}?t forget|do not forget|keep in mind)"
        r"(?:\s*[:,\-]\s*|\s+)(?:that\s+)?(?P<body>.+)$",
        s,
        _I,
    )
    if not m:
        return None
    body = m["body"]
    inner = _match(body)
    if inner is not None:
        return _Hit(inner.fact, inner.category, min(0.9, inner.confidence + 0.05))
    if re.match(r"^to\s+", body, _I):
        body = body[3:].lstrip()
    if not _has_content(body):
        return None
    return _Hit(_clean(body), _env_or_convention(body), 0.85)


def _m_from_now_on(s: str) -> _Hit | None:
    m = re.match(r"^(?:from now on|going forward|henceforth)[,:]?\s+(?P<body>.+)$", s, _I)
    if not m:
        return None
    inner = _match(m["body"])
    if inner is not None:
        return _Hit(inner.fact, inner.category, min(0.9, inner.confidence + 0.05))
    return _Hit(_clean(m["body"]), "convention", 0.85) if _has_content(m["body"]) else None


def _m_convention(s: str) -> _Hit | None:
    m = re.match(
        r"^(?:the|our)\s+convention\s+(?:here\s+|in this (?:project|repo)\s+)?is\s+\S", s, _I
    )
    return _Hit(_clean(s), "convention", 0.85) if m else None


def _m_instead(s: str) -> _Hit | None:
    neg = rf"(?:don{_APOS}?t|do not|never)"
    m = re.match(
        rf"^(?:no[,.!]?\s+)?{neg}\s+use\s+(?P<x>.+?)\s*(?:[,;:]|\s+-+)\s*"
        r"(?:(?:we|you should|just|instead)\s+)?use\s+(?P<y>.+?)(?:\s+instead)?$",
        s,
        _I,
    )
    if m and _has_content(m["x"]) and _has_content(m["y"]):
        return _Hit(_clean(f"Use {m['y']} instead of {m['x']}"), "decision", 0.85)
    m = re.match(r"^(?:no[,.!]?\s+)?use\s+(?P<y>.+?)\s+instead(?:\s+of\s+(?P<x>.+))?$", s, _I)
    if m and _has_content(m["y"]):
        if m["x"] and _has_content(m["x"]):
            return _Hit(_clean(f"Use {m['y']} instead of {m['x']}"), "decision", 0.75)
        return _Hit(_clean(f"Use {m['y']} instead"), "decision", 0.6)
    m = re.match(rf"^(?:no[,.!]?\s+)?(?:don{_APOS}?t|do not)\s+use\s+(?P<x>.+)$", s, _I)
    if m and _has_content(m["x"]):
        return _Hit(_clean(f"Do not use {m['x']}"), "convention", 0.7)
    return None


def _m_always_never(s: str) -> _Hit | None:
    m = re.match(
        r"^(?:(?:we|you)\s+)?(?:should\s+|must\s+)?(?P<adv>always|never)\s+(?P<rest>.+)$", s, _I
    )
    if not m or re.match(r"^(?:mind|ever)\b", m["rest"], _I) or not _has_content(m["rest"]):
        return None
    return _Hit(_clean(f"{m['adv'].lower()} {m['rest']}"), "convention", 0.8)


def _m_we_use(s: str) -> _Hit | None:
    m = re.match(r"^we\s+(?:now\s+|only\s+)?use\s+(?P<body>.+)$", s, _I)
    category, conf = "convention", 0.7
    if not m:
        m = re.match(rf"^we(?:{_APOS}re|\s+are)\s+(?:now\s+|only\s+)?using\s+(?P<body>.+)$", s, _I)
        category = "environment"
    if not m:
        return None
    body = m["body"]
    first = body.split()[0].casefold()
    if first in _EMPTY_BODY or not _has_content(body):
        return None
    return _Hit(_clean(f"The project uses {body}"), category, conf)


def _m_deprecated(s: str) -> _Hit | None:
    m = re.match(r"^(?P<x>.+?)\s+(?:is|are)\s+(?:now\s+)?deprecated\b", s, _I)
    if not m or len(m["x"].split()) > 8 or not _has_content(m["x"]):
        return None
    return _Hit(_clean(s), "gotcha", 0.75)


def _m_todo(s: str) -> _Hit | None:
    m = re.match(r"^(?:todo|fixme)\s*[:\-\u2013]\s*(?P<body>.+)$", s, _I)
    if m and _has_content(m["body"]):
        return _Hit(_clean(f"TODO: {m['body']}"), "todo", 0.8)
    m = re.match(r"^we\s+still\s+(?:need|have)\s+(?P<to>to\s+)?(?P<body>.+)$", s, _I)
    if m and _has_content(m["body"]):
        lead = "Still to do" if m["to"] else "Still needed"
        return _Hit(_clean(f"{lead}: {m['body']}"), "todo", 0.7)
    return None


def _m_make_sure(s: str) -> _Hit | None:
    m = re.match(r"^make\s+sure\s+(?:to\s+|that\s+|you\s+)?(?P<body>.+)$", s, _I)
    return _Hit(_clean(s), "convention", 0.6) if m and _has_content(m["body"]) else None


_MATCHERS: tuple[Callable[[str], _Hit | None], ...] = (
    _m_remember,
    _m_from_now_on,
    _m_convention,
    _m_instead,
    _m_always_never,
    _m_we_use,
    _m_deprecated,
    _m_todo,
    _m_make_sure,
)


def _match(sentence: str) -> _Hit | None:
    """Classify one sentence (already stripped of list markers and leading filler)."""
    s = _FILLER.sub("", sentence).strip()
    if not s or len(s) > 400:
        return None
    if s.rstrip(" \"')]").endswith("?") or _QUESTION.match(s) or _HEDGE.match(s):
        return None
    s = s.rstrip(" .!;:,")  # patterns anchor at the end; the fact gets its own period
    for matcher in _MATCHERS:
        hit = matcher(s)
        if hit is not None and hit.fact:
            return hit
    return None


def _sentences(text: str) -> Iterable[tuple[int, int]]:
    """(start, end) spans of prose sentences, outside code blocks and pasted output."""
    in_code = False
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or _SKIP_LINE.match(line) or _INDENTED.match(line):
            continue
        body = line.rstrip("\r\n")
        mark = _LIST_MARK.match(body)
        i = mark.end() if mark else 0
        for b in _BOUNDARY.finditer(body):
            if _ABBREV.search(body[: b.start()]):
                continue
            yield from _trim(body, start, i, b.end())
            i = b.end()
        yield from _trim(body, start, i, len(body))


def _trim(line: str, base: int, i: int, j: int) -> Iterable[tuple[int, int]]:
    while i < j and line[i].isspace():
        i += 1
    while j > i and line[j - 1].isspace():
        j -= 1
    if j > i:
        yield base + i, base + j


def files_in(sentence: str) -> list[str]:
    """Path-like tokens (project-relative), without URLs or library names like node.js."""
    sentence = re.sub(r"\b[a-z][a-z0-9+.-]*://\S+", " ", sentence, flags=_I)
    found: list[str] = []
    for m in _PATH.finditer(sentence):
        name = m.group(1).rstrip(".").removeprefix("./")
        if name.casefold() in _NOT_FILES or name.startswith("/") or "//" in name:
            continue
        if name.endswith("/") and name.count("/") == 1:
            continue  # "and/or"-style words with a slash are not worth citing
        if name.count("/") == 1 and not name.endswith("/") and "." not in name:
            continue  # either/or, read/write
        if name not in found:
            found.append(name)
    return found


def extract_rules(turns: list[Turn]) -> list[Candidate]:
    """Candidates from explicit statements in the user's prompts, one per sentence."""
    out: list[Candidate] = []
    keys: set[str] = set()
    for turn in turns:
        if turn.role != "user" or turn.kind != "prompt":
            continue
        for start, end in _sentences(turn.text):
            sentence = turn.text[start:end]
            hit = _match(_LIST_MARK.sub("", sentence, count=1))
            if hit is None:
                continue
            key = fact_key(hit.fact)
            if key in keys:
                continue
            keys.add(key)
            out.append(
                Candidate(
                    fact=hit.fact,
                    category=hit.category,
                    files=files_in(sentence),
                    confidence=hit.confidence,
                    evidence=sentence,
                    source="user",  # the rules read only the person's own prompts
                )
            )
    return out


class RulesExtractor:
    """Offline and free: explicit statements in the person's prompts ("we use ...")."""

    name = "rules"
    source = "rules"
    model = "rules"
    paid = False
    uses_known = False

    def unavailable(self) -> str | None:
        return None

    def estimate_cost(self, windows: Sequence[str]) -> float:
        return 0.0

    def extract(self, request: Request) -> ExtractionResult:
        return ExtractionResult(extract_rules(list(request.turns)), [], self.model)
