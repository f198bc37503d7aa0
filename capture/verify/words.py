"""Words of a text: tokens, stems, negations and their scope, sentences.

The bottom of the verifier: every check reads text through these, and they read nothing
else, so one tokeniser decides what a word is for all of them.
"""

from __future__ import annotations

import re

from capture.ground import normalise

MIN_WORDS = 4  # "did you push?" supports nothing, wherever it is found
_SCOPE = 2  # content words after a negation that it covers

_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\.\.|…)\s*\]|\.\.\.+|…)\s*")
_CUT_MARKER = re.compile(r"\[(?:\.\.\.|…)[^\]]*\]")  # condense's own `[… N characters elided …]`
_LABEL = re.compile(r"(?:^|(?<=\s))(?:user|assistant|human|claude)\s*:\s+")
_TOOL_PREFIX = re.compile(r"^\s*(?:[·!]\s+)")
_WORD = re.compile(r"[\w']+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")

_NEGATORS = {"not", "no", "never", "without", "none", "nothing", "nor", "neither", "nobody",
             "unable"}  # "unable to resolve" denies what "resolves" says
_DETERMINERS = {"no", "none", "nothing", "nobody"}
# A negation's scope ends at a clause or a preposition: "is not referenced from any
# template" negates "referenced", not "template".
_CLAUSE_END = {"but", "and", "so", "because", "though", "although", "while", "then", "or",
               "which", "that", "since", "unless", "instead", "when", "if", "after", "before",
               "from", "in", "on", "at", "for", "with", "by", "of", "into", "inside",
               "via", "than", "as"}
_STOP = {
    "a", "an", "the", "be", "is", "are", "was", "were", "been", "being", "do", "does", "did",
    "to", "of", "in", "on", "at", "for", "any", "it", "its", "this", "that", "these", "those",
    "can", "could", "will", "would", "should", "must", "may", "might", "have", "has", "had",
    "yet", "ever", "also", "just", "really", "even", "still", "all", "more", "longer", "by",
    "with", "as", "from", "up", "out", "we", "you", "i", "they", "he", "she", "there", "here",
    "get", "got", "one", "so", "very", "too", "only", "now", "let", "me", "my", "our", "your",
    "seem", "seems", "appear", "appears", "such",
}
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)|[。！？]")


def sentence_start(low: str, at: int) -> int:
    """Where the sentence holding position `at` of `low` starts (after the last break)."""
    return max((b.end() for b in _SENTENCE_BREAK.finditer(low, 0, at)), default=0)


def sentence_bounds(low: str, at: int, length: int) -> tuple[int, int]:
    """(start, end) of the sentence around `low[at:at + length]`, its stop included. A
    span that ends with its sentence's stop ends the sentence there: the next sentence's
    "might" is not this one's."""
    end = _SENTENCE_BREAK.search(low, at + max(0, length - 1))
    return sentence_start(low, at), end.start() + 1 if end else len(low)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")


def words(text: str) -> list[str]:
    """Words that say something: speaker labels do not count. A run of Japanese,
    Chinese or Korean characters (written without spaces) counts as a word every two
    characters: "単純合計だと回数が水増しされます" is a sentence, not one word."""
    out = []
    for w in _WORD.findall(_LABEL.sub(" ", text)):
        cjk = sum(len(r) for r in _CJK.findall(w))
        out += [w] * max(1, cjk // 2) if cjk else [w]
    return out


_BARE_NT = re.compile(
    r"\b(do|does|did|is|are|was|were|ca|wo|should|could|would|have|has|had|must|need)nt\b")


def _expand(text: str) -> str:
    """`doesn't` (and a typed `doesnt`) → `does not`, so negations compare as words."""
    text = re.sub(r"\bcannot\b", "can not", text)
    # A name that says "not" (`NOT_INSTALLED`, `no-cache`, `not_found`) says it too.
    text = re.sub(r"(?<![\w-])(not|no)[_-](?=[a-z])", r"\1 ", text)
    text = re.sub(r"\bwon'?t\b", "will not", text)
    text = _BARE_NT.sub(r"\1 not", text)
    return re.sub(r"n't\b", " not", text)


# Words that carry a negation without saying "not": "use httpx instead of requests" says
# what "don't use requests, use httpx" says.
_IMPLICIT_NEGATIVE = {
    "instead", "rather", "avoid", "avoids", "avoided", "unlike", "except", "lacks", "lack",
    "missing", "absent", "fail", "fails", "failed", "refuse", "refuses", "refused",
    "prevent", "prevents", "forbid", "forbids", "forbidden", "unavailable", "stop", "stops",
    # "a test asserting identical tokens was wrong" denies that they are identical
    "wrong", "incorrect", "mistaken", "invalid", "bogus",
}


def _predicate_negations(text: str) -> int:
    """Negations that deny something, said or implied ("without Y" only qualifies)."""
    return sum(1 for w in _WORD.findall(_expand(normalise(text)))
               if (w in _NEGATORS and w != "without") or w in _IMPLICIT_NEGATIVE)


def negations(text: str) -> int:
    return sum(1 for w in _WORD.findall(_expand(normalise(text))) if w in _NEGATORS)


def _root(word: str) -> str:
    return re.sub(r"(?:ing|ed|es|s)$", "", word) if len(word) > 4 else word


def _stem(word: str) -> str:
    """Crude, on purpose: `starts`/`started`/`starting` and `start` compare equal."""
    if len(word) > 4:
        word = re.sub(r"(?:ing|ed|es|s)$", "", word)
    if len(word) > 4 and word.endswith("wn"):
        word = word[:-1]  # "shown", "known", "grown": the participle is the verb
    return word[:5]


def polarity(text: str) -> tuple[set[str], set[str]]:
    """(negated stems, affirmed stems): content words inside a negation's short scope
    (cut at a clause boundary) versus everywhere else."""
    tokens = re.findall(r"[\w'/.-]+|[,;:.!?()—-]", _expand(normalise(text)))
    negated: set[str] = set()
    affirmed: set[str] = set()
    scope = 0
    last: str | None = None  # the content word just before, for "needs no handler"
    for raw in tokens:
        if not raw[0].isalnum() and raw[0] not in "_/.~":
            scope, last = 0, None
            continue
        tok = raw.strip(".")
        if tok in _NEGATORS:
            # "no" is a determiner: it negates the next word, and what "needs no" one.
            scope = 1 if tok in _DETERMINERS else _SCOPE
            if tok in _DETERMINERS and last is not None:
                negated.add(last)
            last = None
            continue
        if tok in _CLAUSE_END:
            scope, last = 0, None
            continue
        if tok in _STOP or len(tok) < 3:
            last = None
            continue
        stem = _stem(tok)
        if scope:
            negated.add(stem)
            scope -= 1
            last = None
        else:
            affirmed.add(stem)
            last = stem
    return negated, affirmed


def too_short(quote: str) -> bool:
    return len(words(quote)) < MIN_WORDS


def _sentence_of(text: str, quote: str) -> str:
    """The sentence of `text` (normalised) the quote starts in, and the quote itself."""
    low = normalise(text)
    at = low.find(quote)
    if at < 0:
        return quote
    return low[sentence_start(low, at): at + len(quote)]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
