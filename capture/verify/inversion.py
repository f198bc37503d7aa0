"""Knowledge checks on meaning: a fact that flips its quote's negation or verb.

Separate from values because an inversion is read from polarity and verbs, not names.
"""

from __future__ import annotations

import re

from capture.ground import normalise
from capture.verify.names import identifiers
from capture.verify.words import (
    _NEGATORS,
    _STOP,
    _WORD,
    _expand,
    _predicate_negations,
    negations,
    polarity,
)

INVERSION_OVERLAP = 0.5  # share of the shorter side's words an inversion restates
# Verbs whose opposite says the opposite without a "not": a fact "gained a flag" from a
# quote "removed the flag" is an inversion. Groups of (affirming, denying) stems.
_ANTONYMS = (
    ({"add", "gain", "introduc", "creat", "insert", "install", "enabl", "includ", "allow",
      "keep", "kept"},
     {"remov", "drop", "delet", "uninstal", "disabl", "exclud", "forbid", "block", "strip",
      "lost", "los"}),
    ({"pass", "succeed", "work"}, {"fail", "broke", "break"}),
    ({"increas", "rais", "grow", "grew"}, {"decreas", "lower", "shrink", "shrank", "reduc"}),
    ({"show", "shown", "display", "reveal", "visibl"}, {"hid", "hidden", "conceal", "invisibl"}),
    ({"accept"}, {"reject", "declin", "refus"}),
    ({"requir", "mandatory"}, {"optional"}),
    ({"sync", "synchronous"}, {"async", "asynchronous"}),
    # "the hooks exist at …" / "the hook scripts were missing"
    ({"exist", "present"}, {"miss", "absent", "gone"}),
)


def _verb_stems(text: str) -> set[str]:
    return {re.sub(r"(?:ing|ed|es|s|e)$", "", w) for w in _WORD.findall(normalise(text))
            if len(w) > 2}


def _verb_before(text: str, ident: str) -> str | None:
    """The stem of the affirming or denying verb just before `ident` in text, if any."""
    low = normalise(text)
    at = low.find(ident)
    if at < 0:
        return None
    for w in reversed(_WORD.findall(low[max(0, at - 60): at])[-4:]):
        stem = re.sub(r"(?:ing|ed|es|s|e)$", "", w)
        if any(stem in yes or stem in no for yes, no in _ANTONYMS):
            return stem
    return None


# Verbs that keep a thing as it is, and verbs that change or drop it: "preserves the
# newlines" / "converts the newlines" say opposite things of the same object.
_KEEPS = {"preserv", "keep", "kept", "retain", "maintain"}
_CHANGES = {"convert", "replac", "strip", "collaps", "remov", "drop", "delet", "rewrit",
            "overrid", "overwrit", "discard", "flatten", "normaliz", "normalis"}


def object_flip(fact: str, quote: str) -> str:
    """The fact and its quote do opposite things to the same object (a word of 5+ letters
    both name, right after the verb): "convert newlines" / "preserve the original
    newlines". The two verbs and the object, or ""."""
    if negations(fact) % 2 != negations(quote) % 2:
        return ""
    f_words = {w for w in _WORD.findall(normalise(fact)) if len(w) >= 5 and w not in _STOP}
    q_words = {w for w in _WORD.findall(normalise(quote)) if len(w) >= 5 and w not in _STOP}
    for obj in sorted(f_words & q_words):
        a, b = _verb_near(fact, obj), _verb_near(quote, obj)
        if a and b and ((a in _KEEPS and b in _CHANGES) or (a in _CHANGES and b in _KEEPS)):
            return f"“{a}… {obj}” where the quote has “{b}… {obj}”"
    return ""


def _verb_near(text: str, obj: str) -> str | None:
    """The keeping or changing verb stem within three words before `obj`, if any."""
    low = normalise(text)
    m = re.search(r"\b" + re.escape(obj) + r"\b", low)
    if m is None:
        return None
    for w in reversed(_WORD.findall(low[max(0, m.start() - 40): m.start()])[-3:]):
        stem = re.sub(r"(?:ing|ed|es|s|e)$", "", w)
        if stem in _KEEPS or stem in _CHANGES:
            return stem
    return None


def flips_meaning(fact: str, quote: str) -> bool:
    """The fact uses a verb's opposite where the quote uses the verb ("gained" / "removed")
    about a thing both name (an identifier, or most content words). With a negation on
    one side only, an opposite verb is a paraphrase ("is disabled" / "is not enabled")."""
    if negations(fact) % 2 != negations(quote) % 2:
        return False
    shared = {i.casefold() for i in identifiers(fact)} & {
        i.casefold() for i in identifiers(quote)}
    for ident in shared:
        a, b = _verb_before(fact, ident), _verb_before(quote, ident)
        if a and b and any((a in yes and b in no) or (a in no and b in yes)
                           for yes, no in _ANTONYMS):
            return True
    fs, qs = _verb_stems(fact), _verb_stems(quote)
    for yes, no in _ANTONYMS:
        flip = ((fs & yes and qs & no and not qs & yes and not fs & no)
                or (fs & no and qs & yes and not qs & no and not fs & yes))
        if not flip:
            continue
        shared = {i.casefold() for i in identifiers(fact)} & {
            i.casefold() for i in identifiers(quote)}
        if shared:
            return True
        f_neg, f_aff = polarity(fact)
        q_neg, q_aff = polarity(quote)
        f_all, q_all = f_neg | f_aff, q_neg | q_aff
        if f_all and q_all and len(f_all & q_all) >= INVERSION_OVERLAP * min(
                len(f_all), len(q_all)):
            return True
        if _subject(fact, yes | no) & _subject(quote, yes | no):
            return True
    return False


_AUX = {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does",
        "did", "now", "still", "already", "all", "both"}


def _subject(text: str, verbs: set[str]) -> set[str]:
    """Stems of the words right before the first of `verbs` in `text`, over auxiliaries
    ("the hook scripts were | missing" → hook, script): what the verb is said of. A
    short quote shares few words with its fact, but an inversion shares its subject."""
    toks = _WORD.findall(normalise(text))
    for i, w in enumerate(toks):
        if re.sub(r"(?:ing|ed|es|s|e)$", "", w) not in verbs:
            continue
        out: set[str] = set()
        for prev in reversed(toks[max(0, i - 5): i]):
            if prev in _AUX:
                continue
            if prev in _STOP or prev in _NEGATORS or len(prev) < 3:
                break
            out.add(re.sub(r"(?:es|s)$", "", prev)[:5])
            if len(out) == 2:
                break
        return out
    return set()


def dropped_negation(fact: str, quote: str) -> str:
    """The quote denies something ("auth command should not exist", "no need to add")
    and the fact, restating it, denies nothing: the word that said "not", or ""."""
    said = [w for w in _WORD.findall(_expand(normalise(quote)))
            if w in _NEGATORS and w != "without"]
    if not said or _predicate_negations(fact) or _ONLY.search(normalise(fact)) or \
            _NOT_UNTIL.search(_expand(normalise(quote))):
        return ""
    f_neg, f_aff = polarity(fact)
    q_neg, q_aff = polarity(quote)
    f_all, q_all = f_neg | f_aff, q_neg | q_aff
    if not f_all or not q_all or len(f_all & q_all) < INVERSION_OVERLAP * min(
            len(f_all), len(q_all)):
        return ""
    return said[0]


# A fact that denies in other words ("only", "skips", "problems"), or states a rule the
# quote put as "don't stop until": no dropped negation.
_ONLY = re.compile(r"\b(?:only|instead|rather|skip\w*|omit\w*|disabled?|removed?|absent|lacks?"
                   r"|unused|unnecessary|optional|forbidden|rejected|dropped|problems?|issues?"
                   r"|bugs?|broken|fails?|failed|failing|errors?|wrong|must|always|every)\b")
_NOT_UNTIL = re.compile(r"\b(?:not|never|no)\b(?:\W+\w+){0,3}?\W+(?:until|unless|before)\b")


def flips_negation(fact: str, quote: str) -> bool:
    """The fact says the opposite of its quote: one of them negates nothing at all and
    affirms a word the other negates. When both negate something, it is a paraphrase
    ("had no upstream" / "has no upstream branch"), not an inversion."""
    f_neg, f_aff = polarity(fact)
    q_neg, q_aff = polarity(quote)
    if _predicate_negations(fact) and _predicate_negations(quote):
        return False
    # An inversion restates its quote: most of the fact's words are the quote's. A fact
    # that only shares a word or two ("runs a format check" / "is not formatted") is
    # about something else, and left to the reviewer.
    f_all, q_all = f_neg | f_aff, q_neg | q_aff
    if not f_all or not q_all:
        return False
    if len(f_all & q_all) < INVERSION_OVERLAP * min(len(f_all), len(q_all)):
        return False
    # A word a text both negates and affirms ("from user entries, not queue entries") says
    # nothing about which side it is on.
    return bool(((q_neg - q_aff) & (f_aff - f_neg)) or ((f_neg - f_aff) & (q_aff - q_neg)))


_NEGATED_LEAD = re.compile(r"(?:\b(?:not|never|no longer|don't|do not|doesn't|does not"
                           r"|didn't|did not|isn't|aren't|wasn't|won't|cannot|can't|shouldn't"
                           r"|should not|must not|mustn't|avoid|stop)\s+(?:\w+\s+){0,1})$")

# A negation that governs a clause over a few words that carry no content of their own:
# "it's not true that | X", "I don't think | X", "not because | X", "this doesn't mean | X".
_NEGATED_CLAUSE = re.compile(
    r"\b(?:not|never|no longer|n't|don't|do not|doesn't|does not|didn't|did not|isn't|wasn't"
    r"|aren't|won't|cannot|can't)\s+(?:(?:true|the case|clear|sure|think|believe|mean|means"
    r"|say|saying|suggest|imply|necessarily|always|because|since|that|it|this|is|was|that's"
    r"|due to|caused by|assume|expect|the|a|an|really|actually|just|seem|seems|appear"
    r"|appears|look|looks|like)\s+){1,4}$")


def negated_before(text: str, quote: str, *, normalised: bool = False) -> str:
    """The quote starts right after a negation its sentence puts on it ("Don't | use npm
    install here"): the quote, cut there, says the opposite. The negation, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    while at >= 0:
        lead = low[max(0, at - 24): at]
        m = _NEGATED_LEAD.search(lead) or _NEGATED_CLAUSE.search(low[max(0, at - 60): at])
        if m and not re.search(r"\bnot only\s*$|\bno,?\s*$", lead):
            return m.group().strip()
        if at == 0 or not m:
            return ""
        at = low.find(quote, at + 1)
    return ""


_LIMIT_AFTER = re.compile(r"^\W{0,3}(?:except\b[^.!?;]{0,40}|but not\b[^.!?;]{0,40}"
                          r"|but only\b[^.!?;]{0,40}|only (?:on|when|if|for|in|with|after)\b"
                          r"[^.!?;]{0,40}|unless\b[^.!?;]{0,40}|not (?:on|when|if|for|in|with)\b"
                          r"[^.!?;]{0,40}|as long as\b[^.!?;]{0,40})")


def limited_after(text: str, quote: str, *, normalised: bool = False) -> str:
    """The quote stops right before its sentence limits it ("X works | except on
    Windows", "| but only for admins"): the limit, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    if at < 0:
        return ""
    m = _LIMIT_AFTER.search(low[at + len(quote): at + len(quote) + 60])
    return m.group().strip(" ,;:-") if m else ""


_BE = r"(?:is|are|was|were|be|been|stays?|remains?)"
_CHANGED = re.compile(r"\b(?:any ?more|no longer|now|since|after|before|until|anymore|was|were"
                      r"|changed?|raised|lowered|increased|decreased|bumped|moved|replaced"
                      r"|updated|from|instead)\b|→|->")
_MOVED = re.compile(r"\b(?:changed?|raised|lowered|increased|decreased|bumped|moved|replaced"
                    r"|updated|from)\b|→|->")
# "is not 103.31 MB", "isn't `zfs.ko`": a value or a name the fact's predicate denies.
_DENIES_VALUE = re.compile(
    r"\b" + _BE + r"\s+not\s+(?:the\s+|a\s+|an\s+|exactly\s+|about\s+|only\s+|set\s+to\s+)?"
    r"(?P<v>\d[\w.,%]*|`[^`]{2,60}`|[\w-]*[._/][\w./-]+)")
_STATES_VALUE = r"(?:\b" + _BE + r"|:|=|\bset to)\s+(?:the\s+|a\s+|an\s+|exactly\s+|only\s+)?"


def denied_value(fact: str, quote: str) -> str:
    """The fact denies that something is a value or a name ("is not 103.31 MB") which
    its quote states it is ("is 103.31 MB"), with no negation of its own: the value, or
    ""."""
    f = _expand(normalise(fact))
    q = _expand(normalise(quote))
    if negations(quote) or _CHANGED.search(f) or _MOVED.search(q):
        return ""  # "is not 10s any more": a value the session changed
    for m in _DENIES_VALUE.finditer(f):
        v = m.group("v").strip("`.,")
        if len(v) < 2:
            continue
        if re.search(_STATES_VALUE + r"`?" + re.escape(v) + r"(?![\w.]*\d)", q):
            return v
    return ""


_DENIED_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|must)"
    r" not\b(?! only\b)")
# Words by which a quote denies without "not": a fact's "not" may restate them.
_DENIES_OTHERWISE = re.compile(
    r"\b(?:redundant|unnecessary|unneeded|removed?|deleted?|dropped|disabled?|skip\w*"
    r"|ignor\w*|exclud\w*|only|except|rather|instead|unused|deprecated|obsolete|lacks?"
    r"|absent|missing|fail\w*|errors?|broken|invalid|wrong|refus\w*|reject\w*|denied|blocked"
    r"|avoid\w*|prevent\w*|stop\w*|never|nothing|none|neither|nor|too|exceeds?|over|beyond"
    r"|limit\w*|cannot|unable|unavailable|without|no longer|instead|replac\w*|revert\w*"
    r"|outside|against|but|however|unlike|whereas|doesn't|isn't|won't|can't|don't)\b"
    r"|\s[<>≠]=?\s|≠")  # a comparison ("94 > 88"), not a tag's bracket


_INFERRED = re.compile(r"\b(?:so|therefore|thus|hence|which means|meaning|because)\b")


def denied_outright(fact: str, quote: str) -> str:
    """The fact denies ("is not kept", "are not stored") what its quote, naming the same
    things (two names, or every name the fact gives), states with no negation and no
    word that denies otherwise: the fact's denial, or "". A suspicion: a paraphrase may
    deny what the quote says in other words."""
    f = _expand(normalise(fact))
    m = _DENIED_PREDICATE.search(f)
    # "X is gitignored, so it is not tracked": a denial the fact infers, not restates.
    if m is None or _INFERRED.search(f[: m.start()]) or negations(fact) != 1 or \
            _predicate_negations(quote) or _DENIES_OTHERWISE.search(_expand(normalise(quote))):
        return ""
    names = [i for i in identifiers(fact) if len(i) >= 4] + [
        w for w in re.findall(r"(?<![\w-])[a-z][a-z0-9]+(?:-[a-z0-9]+)+(?![\w-])", f)
        if len(w) >= 6 and not any(w in i for i in identifiers(fact))]
    q = normalise(quote)
    shared = [i for i in names if normalise(i).strip("`'\"()") in q]
    if len(shared) >= 2 or (shared and len(shared) == len(names)):
        return m.group()
    return ""
