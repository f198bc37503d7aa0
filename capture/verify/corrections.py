"""Suspicion: a later turn corrects, overrules or answers the claim otherwise.

A correction must be about the same claim (issue 21); the later turn is quoted as the
hint's evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from capture.claims import beside, settings
from capture.condense import render_turn
from capture.ground import normalise
from capture.transcript import Turn
from capture.verify.cues import CORRECTIONS, FAILURES, SUCCESSES, find, says
from capture.verify.failures import (
    _NOW_FIXED,
    _NOW_WORKING,
    _REPORTS_DONE,
    _SUCCESS,
    _check_output_failed,
    _failed_call_names,
    _failed_check,
    _next_words_report_a_problem,
)
from capture.verify.hedges import hedged
from capture.verify.names import (
    _names_shared,
    _present,
    _shared_terms,
    identifiers,
    key_values,
    numbers,
)
from capture.verify.tools import _now_side
from capture.verify.turns import _texts, is_summary, speaker_of
from capture.verify.words import _STOP, _WORD, _clip, _sentence_of, _stem

# A later turn that says the earlier statement was wrong, or that the opposite holds, or
# that a step did not work. A cue is only a cue at a sentence's start ("No, …", "Wait,
# …": the punctuation after it is part of the cue) or as a verdict on something ("that
# is wrong", "didn't work"); a bare "wrong" or "despite" says nothing by itself (an
# issue title, "if it gets that wrong").
_CORRECTION = re.compile(
    r"(?:^|[.!?;:¶]\s*)(?:actually(?=,|\s+(?:i|it|it's|its|the|that|this|these|those|we"
    r"|you|there|no|not|[\w-]*[_./][\w./-]*)\b)|no(?=[,.!:—-])|nope\b|wait(?=[,.!:—-])"
    r"|correction\b|oops\b|my (?:mistake|bad)\b|i misread\b|(?:it )?turns out\b"
    r"|in fact\b|not quite\b|scratch that\b|wrong(?=[,.!:—-])|i stand corrected\b"
    r"|i misspoke\b|let me correct\b|correcting (?:myself|that)\b|to correct (?:myself|that)\b"
    r"|(?:ignore|disregard) (?:that|what i said|my (?:last|previous))\b)"
    r"|\b(?:is|was|are|were|it's) actually (?!(?:the )?(?:correct|right|fine|working|expected"
    r"|intended|good)\b)"
    r"|\b(?:(?:is|was|were|are|that's|that is|it's|i was|you're|you are) (?:wrong|incorrect|"
    r"mistaken|not (?:right|true|correct))|isn't (?:true|right|correct)|wasn't (?:true|right)"
    r"|(?P<fails>(?:didn't|did not|doesn't|does not|don't|do not|won't|will not) (?:work|help"
    r"|fix|solve)"
    r"|still (?:fails?|failing|broken|crash(?:es|ing)?|errors?|hangs?|hanging))"
    r"|still (?:shows?|displays?|says|reports?|at|only|the same)"
    r"|(?:that|this) was(?:n't| not) (?:it|the (?:cause|problem|issue))"
    r"|(?:is|are) (?:now )?(?:unused|no longer (?:used|needed|required|necessary))"
    r"|not needed any ?more|(?:is|are) already (?:tracked|there|set|present|done|installed)"
    r"|(?:is|are|was|were) (?:the )?(?:correct|right|actual|real) (?:one|field|name|value|cause"
    r"|issue|problem|fix|way|answer)|the (?:actual|real) (?:cause|issue|problem|fix)"
    r"|(?P<verdict>(?:is|are) (?:working|rendering|running) (?:correctly|fine|as expected)"
    r"|works? (?:correctly|fine|as expected))|(?P<now_ok>(?:is|are) now (?:working|connecting"
    r"|passing)|now (?:successfully )?(?:connects|works)))"
    r"\b"
    # the person disagreeing: "I don't think that's it", "I don't expect the source to …"
    r"|(?:^|[.!?;:¶]\s*)(?:i (?:do not|don't|dont) (?:think|expect|believe)|that's not (?:it|right"
    r"|the case)|that is not (?:it|right|the case))\b"
    # a suspect found sound: only against a claim that something is broken
    r"|\b(?P<fine>(?:looks?|is|are|seems?) (?:fine|ok|okay|normal|healthy|harmless|benign"
    r"|expected|correct)|(?:is|are) not the (?:issue|problem|cause|culprit))\b"
    r"|\b(?P<despite>despite|contrary to|even though)\s+(?P<object>[^,.;:!?]{1,40})"
    r"|\b(?P<removed>replaced|removed|dropped|reverted|rolled back|got rid of|instead of"
    r"|rather than|in place of|no longer uses?|switched away from|abandoned)\s+"
    r"(?P<what>[^,.;:!?]{1,60})",
)
# A claim that something is wrong, which "X looks fine" or "X is not the issue" refutes.
# What a thing does wrong, in a verb: "drops retries", "hangs", "loses the header".
_FAULT = re.compile(r"\b(?:drops?|dropping|dropped|loses?|losing|lost|skips?|skipping|skipped"
                    r"|ignores?|ignoring|ignored|hangs?|hanging|crash\w*|stuck|breaks?|truncat\w*"
                    r"|swallow\w*|duplicat\w*|overwrit\w*)\b")
_BROKEN = re.compile(r"\b(?:broken|dangling|corrupt\w*|misconfigured|wrong|bad|missing|stale"
                     r"|conflict\w*|the (?:issue|problem|cause|culprit)|causing|caused|fail\w*"
                     r"|interfer\w*|blocking|leak\w*|errors?)\b")
# A claim that a failure names as refuted: something works, is fixed, will fix, or is
# only a guess or a plan.
_CLAIMS_IT_WORKS = re.compile(
    r"\b(?:works?|working|worked|fix(?:es|ed)?|resolv\w*|solv\w*|pass(?:es|ed|ing)?|succe\w*"
    r"|complete\w*|should|will|would|let me|let's|i'll|try\w*|might|may|probably|likely"
    r"|able to)\b")
_INSTEAD = {"instead of", "rather than", "in place of", "no longer use", "no longer uses",
            "switched away from", "abandoned"}
_WRONGISH = re.compile(r"\b(?:wrong|incorrect|mistaken)\b")
_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=[ \t]*(?:[-*•]|\d+[.)])\s)")
_CUE_BREAK = re.compile(r"[.!?](?:\s|$)|¶")
_CONDITIONAL = re.compile(r"\b(?:if|unless|whether|when|make sure|ensure|verify|check that"
                          r"|to see)\b[^.!?]{0,40}$")
# A step the assistant proposes or is about to try: the person's next word, or the step's
# own failure, may overrule it.
_PROPOSAL = re.compile(
    r"\b(?:we need to|we should|we can|we'll|i'll|i will|let me|let's|let us|i suggest"
    r"|i propose|i recommend|the plan is|going to|try(?:ing)?|attempt(?:ing)?)\b")
# A person's reply that goes along with what was proposed.
_ASSENT = re.compile(
    r"^\s*(?:y|yes|yep|yeah|ok|okay|sure|go|go ahead|do it|sounds good|lgtm|proceed|continue"
    r"|please do|perfect|great|good|fine|approved?|agreed?|right|correct|exactly|thanks"
    r"|thank you|👍)\b", re.I)


def corrects(later: str, quote: str, fact: str, *, strict: bool = True) -> bool:
    """Does a later turn correct the quote: a changed value for one of its names, or a
    correction cue whose own sentence (with the next one: "No. The port is 8081.")
    speaks of the same claim? `strict=False` for the person's own words: a prompt that
    says "no, …" of a thing the claim names needs fewer shared words to count."""
    before = key_values(quote)
    if before:
        after = key_values(later)
        if any(k in after and after[k] != v for k, v in before.items()):
            return True
    # A paragraph or a list item ends what a cue speaks of: "1. … My mistake. 2. Server
    # WebSocket issue …" is about item 1, not item 2.
    text = normalise(_PARAGRAPH.sub(" ¶ ", later))
    claim = quote + "\n" + fact
    for m in _CORRECTION.finditer(text):
        if _CONDITIONAL.search(text[max(0, m.start() - 60): m.start()]):
            continue  # "if it gets that wrong": not a verdict
        if m.group("removed"):  # "Replaced the separate Start/Pause buttons with …"
            # Only about what was removed, and only when that names the claim's own thing:
            # change logs remove many things.
            what = m.group("what")
            if m.group().strip() in normalise(quote):
                continue  # the quote itself says "instead of X": repeating it corrects nothing
            head = next(iter(_WORD.findall(what)), "")
            if m.group("removed") in _INSTEAD and len(head) >= 4 and head not in _STOP and \
                    re.search(r"\b" + re.escape(head) + r"\b", normalise(quote)):
                return True  # "httpx instead of requests" of a claim that uses requests
            common = {_stem(w) for w in _WORD.findall(what) if len(w) >= 5 and w not in _STOP} \
                & {_stem(w) for w in _WORD.findall(normalise(quote)) if len(w) >= 5}
            # "Replaced separate Start/Pause buttons with one toggle" of "Start/Pause/Reset
            # buttons": three words of the claim's own thing are as good as its name.
            if common and (_names_shared(what, quote) or len(common) >= 3):
                return True
            continue
        if m.group("fails") and not _CLAIMS_IT_WORKS.search(normalise(claim)):
            continue  # "it still doesn't work" refutes a fix, a plan or a guess, not a fact
        if (m.group("fine") or m.group("now_ok")) and not _BROKEN.search(normalise(quote)):
            continue  # "looks fine" agrees with a claim that something works
        if m.group("verdict") and not (_BROKEN.search(normalise(quote))
                                       or _FAULT.search(normalise(quote))):
            continue  # "works correctly" says nothing of a claim that reports no fault
        if m.group("despite"):  # "tracked despite the gitignore": only about its object
            said = {w for w in _WORD.findall(m.group("object")) if len(w) >= 5
                    and w not in _STOP}
            claimed = {_stem(w) for w in _WORD.findall(normalise(claim)) if len(w) >= 5}
            common = {w for w in said if _stem(w) in claimed}
            # "despite the gitignore" of a claim about the gitignore: a long word of it, or
            # two (one short shared word, "shows", ties anything to anything).
            if len(common) >= 2 or any(len(w) >= 7 for w in common):
                return True
            continue
        starts = [b.end() for b in _CUE_BREAK.finditer(text, 0, m.start())]
        lo = starts[-1] if starts else 0
        if _WRONGISH.search(m.group()) and _WRONGISH.search(normalise(fact)) and {
                _stem(w) for w in _WORD.findall(text[lo:m.start()]) if len(w) >= 4
                and w not in _STOP} & {_stem(w) for w in _WORD.findall(normalise(fact))}:
            continue  # "the test expectation is wrong": the fact says so too
        if (m.group("verdict") or m.group("now_ok")) and starts:
            # "I can see the HTML output includes X. The rendering is working
            # correctly.": a verdict's subject is the sentence before it.
            lo = starts[-2] if len(starts) >= 2 else 0
        ends = []
        for b in _CUE_BREAK.finditer(text, m.end()):
            ends.append(b.start() if b.group() == "¶" else b.end())
            if b.group() == "¶" or len(ends) == 2:
                break
        hi = ends[-1] if ends else len(text)
        if _shared_terms(text[lo:hi], claim, strict=strict):
            return True
    return _corrected_in_other_words(text, claim, strict=strict)


_ANY_BREAK = re.compile(r"[.!?](?:\s|$)|[。！？]|¶")
# A term a CJK sentence names its subject by: a katakana word (キャッシュ) or a run of
# three kanji or hanzi (設定値); shorter runs (問題, 修正) are chatter.
_CJK_TERM = re.compile(r"[\u30a0-\u30ff]{4,}|[\u4e00-\u9fff]{3,}")


def _corrected_in_other_words(text: str, claim: str, *, strict: bool) -> bool:
    """A correction or failure cue of another language (`cues`) whose sentence, with
    the next, speaks of the same claim: a name both use, English words enough, or a
    shared CJK term. A failure ("まだ動かない") refutes only a claim that something works."""
    low = normalise(claim)
    works = bool(_CLAIMS_IT_WORKS.search(low)) or says(SUCCESSES, low)
    spans = find(CORRECTIONS, text) + (find(FAILURES, text) if works else [])
    for start, end in sorted(spans):
        starts = [b.end() for b in _ANY_BREAK.finditer(text, 0, start)]
        lo = starts[-1] if starts else 0
        ends = []
        for b in _ANY_BREAK.finditer(text, end):
            ends.append(b.start() if b.group() == "¶" else b.end())
            if b.group() == "¶" or len(ends) == 2:
                break
        window = text[lo:ends[-1] if ends else len(text)]
        if _shared_terms(window, claim, strict=strict) or (
                set(_CJK_TERM.findall(window)) & set(_CJK_TERM.findall(low))):
            return True
    return False


def _correction(turns: Sequence[Turn], at: int, quote: str, fact: str) -> int | None:
    """The first later turn that corrects an assistant's (or summary's) statement, or the
    failure of the very call a quoted tool-call line ran (a refuted step)."""
    if turns[at].kind == "tool_call":
        for j in range(at + 1, min(len(turns), at + 12)):
            t = turns[j]
            if t.kind in ("prompt", "prose", "summary"):
                return None
            if t.kind == "tool_error" and t.tool == turns[at].tool \
                    and t.text != "Rejected by the user.":
                return j
        return None
    if speaker_of(turns[at]) == "user" and turns[at].kind == "prompt":
        # A person's instruction the assistant's answer turns down at once ("Set target
        # to /dev/sdb1" / "the whole device (like /dev/sdb), not partitions (like
        # /dev/sdb1)"): the answer names the thing only to negate it.
        nxt = next((j for j in range(at + 1, min(len(turns), at + 6))
                    if turns[j].kind in ("prose", "prompt")), None)
        if nxt is not None and turns[nxt].kind == "prose" and \
                _negates_a_name(turns[nxt].text, quote):
            return nxt
        if _REPORTED.search(normalise(quote)) and not _ASKED.search(normalise(quote)):
            # A person's report of a state ("the generated HTML is missing tool-call
            # divs"), which what the assistant then found says otherwise ("The rendering
            # is working correctly."): a report is evidence, not a decision.
            for j in range(at + 1, len(turns)):
                t = turns[j]
                if t.kind == "prompt":
                    break
                if t.kind == "prose" and corrects(t.text, quote, fact):
                    return j
        return None
    if speaker_of(turns[at]) != "assistant":
        return None  # a tool result is what corrects; it is not a guess
    claims_success = bool(_SUCCESS.search(normalise(quote))) or bool(
        _NOW_FIXED.search(normalise(turns[at].text)))
    guess, stretch = hedged(quote), True
    # "Implementation complete! … Changes are persisted", stated as "saving works", and
    # the person's very next words: "the app hangs when I create a timer" (the fix
    # claimed, then failing). Only a claim that something works: the report's other
    # details (a key's name) are not what the person contradicts.
    if (_SUCCESS.search(normalise(quote + "\n" + fact)) or _NOW_WORKING.search(
            normalise(quote))) and (_REPORTS_DONE.search(normalise(turns[at].text))
                                    or says(SUCCESSES, normalise(quote))) and \
            (nxt := _next_words_report_a_problem(turns, at)) is not None:
        return nxt
    for j in range(at + 1, len(turns)):
        t = turns[j]
        if t.kind in ("tool_call", "detail") or is_summary(t):
            continue  # a call line, a commit message or an issue body corrects nothing
        if t.kind == "prompt":
            stretch = False
        # A guess tested at once ("might be broken", then "looks fine") is overturned
        # by one shared long word; elsewhere a correction needs more.
        if corrects(t.text, quote, fact, strict=t.kind != "prompt" and not (
                stretch and guess)):
            return j
        if claims_success and t.kind == "tool_error" and (_failed_call_names(
                turns, j, quote + "\n" + fact) or _failed_check(turns, j, at)
                or _check_output_failed(turns, j, at)):
            return j  # "X works now", then running X (or the next test run) fails
    return None


# A person's words that report a state (not an instruction, a question or a wish).
_REPORTED = re.compile(r"\b(?:is|are|was|were|isn't|aren't|wasn't|has|have|hasn't|doesn't"
                       r"|don't|missing|fails?|failing|broken)\b")
_ASKED = re.compile(r"^\s*(?:please|let's|can you|could you|should|would|i want|i'd like|make"
                    r"|add|use|set|fix|remove|do|don't|never|always|try)\b|\?\s*$")
# A name said only to negate it: "not individual partitions (like `/dev/sdb1`)".
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot\b|n't\b|\binstead of\b|\brather than\b|\bno longer\b|\bnever\b)"
    r"[^.!?\n]{0,50}$")


def _negates_a_name(text: str, quote: str) -> bool:
    """`text` first names one of the quote's identifiers (whole, not as a prefix) after
    a negation in the same sentence: the answer's first word on it turns it down."""
    low = normalise(text)
    for ident in identifiers(quote):
        name = normalise(ident)
        m = re.search(r"(?<![\w/.-])" + re.escape(name) + r"(?![\w/-])", low)
        if m and _NEGATED_BEFORE.search(low[max(0, m.start() - 60): m.start()]):
            return True
    return False


def _overruled(turns: Sequence[Turn], at: int, quote: str, fact: str) -> int | None:
    """A step the assistant proposed ("We need to use Git LFS", "Let me try X") that the
    person answered with something else before any more prose, or whose own call then
    failed: the turn that overruled it."""
    if turns[at].kind != "prose" or not _PROPOSAL.search(_sentence_of(turns[at].text, quote)):
        return None
    for j in range(at + 1, min(len(turns), at + 10)):
        t = turns[j]
        if t.kind == "prose" or is_summary(t):
            return None
        if t.kind == "prompt":
            return None if _ASSENT.match(t.text) else j
        if t.kind == "tool_error" and t.text != "Rejected by the user." and \
                _failed_call_names(turns, j, quote):
            return j
    return None


def _set_otherwise_later(
    turns: Sequence[Turn], at: int, fact: str, evidence: str
) -> tuple[str, str] | None:
    """A setting the fact gives the quote's value (`maxRecordings: 10`) that the
    session's last word on it, after the quote, sets otherwise (a prompt's
    "maxrecordings = 30", the config written): (hint, detail quoting that turn), or None.
    The last word, not the first: the final state is what a fact should record."""
    q = settings(evidence)
    keys = {k: v for k, v in settings(fact).items() if q.get(k) == v}
    if not keys:
        return None
    last: dict[str, tuple[int, str]] = {}
    for j in range(at + 1, len(turns)):
        said = settings(_now_side(turns[j]))
        for k in keys:
            if k in said:
                last[k] = (j, said[k])
    for k, (j, value) in last.items():
        if value != keys[k]:
            said = " ".join(render_turn(turns[j]).split())
            kind = "number_mismatch" if value[:1].isdigit() else "identifier_mismatch"
            return kind, (f"turn {j} sets {k} to {value}, not {keys[k]}: "
                          f"“{_clip(said, 160)}”")
    return None


# A figure standing alone ("21 vulnerabilities", "(7 high"), not a part of a name, a date,
# a time or a line number ("build-20250825.log", "2025-11-17t18:56", "x.md:655").
_FIGURES = re.compile(r"(?<![\w.:/-])\d+(?:[.,]\d+)*(?![\w:/-]|[.,]\d)")
# A word of the template: three letters or more, or a run of CJK characters.
_TEMPLATE_WORD = re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
RESTATED_CHARS = 4_000_000  # of later text searched for the quote restated, at most


def _restated_otherwise(turns: Sequence[Turn], at: int, quote: str,
                        tool_texts: Sequence[tuple[str, str, str]] = ()
                        ) -> tuple[int | None, str] | None:
    """The quote's own words said again later with other figures ("GitHub found 21
    vulnerabilities … (7 high…)" then "GitHub found 19 vulnerabilities … (2 high…)"):
    the session's last word on it, when that differs. Words in any language: the
    quote's text is the template, its figures the slots. What tools gave back counts
    only when no call came before the quote (those texts carry no turn, so only then
    are they surely later). (turn or None for a tool's output, what it says), or
    None."""
    q = normalise(quote)
    figures = _FIGURES.findall(q)
    parts = _FIGURES.split(q)
    if not figures or len(_TEMPLATE_WORD.findall(" ".join(parts))) < 4:
        return None  # too few words to be the same statement, not just the same list
    shape = re.compile(r"(?<![\w.:/-])(\d+(?:[.,]\d+)*)(?![\w:/-]|[.,]\d)".join(
        re.escape(p) for p in parts))
    texts = _texts(turns)
    here = texts[at]
    after = here.find(q)
    spans = [(at, here[after + len(q):] if after >= 0 else "")]
    spans += [(j, texts[j]) for j in range(at + 1, len(turns)) if not is_summary(turns[j])]
    last: tuple[int | None, str, list[str]] | None = None
    budget = RESTATED_CHARS
    for j, text in spans:
        if budget <= 0:
            break
        budget -= len(text)
        for m in shape.finditer(text):
            last = (j, m.group(), list(m.groups()))
    if last is None and not any(t.kind == "tool_call" for t in turns[:at]):
        for which, _n, text in tool_texts:
            if which in ("output", "error") and budget > 0:
                budget -= len(text)
                for m in shape.finditer(normalise(text)):
                    last = (None, m.group(), list(m.groups()))
    if last is None or last[2] == figures:
        return None
    return last[0], last[1]


# A guess at what something is ("That sounds like **SuperWhisper**").
_GUESS = re.compile(r"\b(?:sounds like|looks like|probably|likely|might be|could be|may be"
                    r"|my guess|i suspect|i think it's|presumably)\b")
# The search's answer: "**Open Wispr** — that's it", "Found it:".
_FOUND = re.compile(r"\b(?:that's it|that is it|found it|there it is|that's the one"
                    r"|that's the culprit|that's our (?:culprit|answer))\b")
_NAMED = re.compile(r"\*\*([^*\n]{2,60})\*\*|`([^`\n]{2,60})`")
GUESS_TURNS = 8  # a guess is answered by the search right after it, or not at all


def _answered_otherwise(turns: Sequence[Turn], at: int, quote: str) -> int | None:
    """A guess at a name ("sounds like **X**") the assistant's own search then answers
    with another ("**Y** — that's it"): the turn of the answer, or None."""
    if speaker_of(turns[at]) != "assistant" or not _GUESS.search(quote):
        return None
    guessed = {normalise(a or b) for a, b in _NAMED.findall(turns[at].text)
               if normalise(a or b) in quote}
    if not guessed:
        return None
    for j in range(at + 1, min(len(turns), at + GUESS_TURNS)):
        t = turns[j]
        if t.kind == "prompt":
            return None
        if t.kind == "prose" and _FOUND.search(normalise(t.text)):
            low = normalise(t.text)
            named = {normalise(a or b) for a, b in _NAMED.findall(t.text)}
            if named and not any(g in low for g in guessed):
                return j
            return None
    return None


# "the actual folder is named `-var-home-…`", "the real path is …"
_ACTUAL = re.compile(r"\b(?:the|its|their) (?:actual|real|correct|right) [\w -]{0,30}?"
                     r"(?:is named|is called|name is|should be|is|are|was)\s+[\"'`*]*"
                     r"(?P<name>[^\s\"'`*,;()]{3,120})")
_DASHED = re.compile(r"(?<![\w-])-?[A-Za-z0-9]+(?:-[A-Za-z0-9]+){2,}")  # var-home-a-Code
VARIANT_NEAR = 0.85  # a later name this close to the fact's, but not it: the fact's slip


def _actual_variant(turns: Sequence[Turn], at: int, fact: str, evidence: str) -> int | None:
    """A later turn that says the actual name is a near variant of one the fact uses
    ("var-home-a-Code" / "the actual folder is named `-var-home-a-Code`"): whoever said
    the first, the later words correct it. The turn, or None."""
    def named(text: str) -> set[str]:
        return {normalise(i).strip("./") for i in identifiers(text) | set(
            _DASHED.findall(text)) if len(i) >= 6}

    names = named(fact)
    names &= named(evidence) or names
    if not names:
        return None
    for j in range(at + 1, len(turns)):
        t = turns[j]
        if t.kind not in ("prose", "prompt") or is_summary(t):
            continue
        for m in _ACTUAL.finditer(_texts(turns)[j]):
            said = m.group("name").strip(".:")
            for n in names:
                if said != n and (n in said or said in n) and \
                        SequenceMatcher(None, n, said).ratio() >= VARIANT_NEAR:
                    return j
    return None


# The person's reply that turns down what the answer just said, whatever its words.
_AGAINST = re.compile(
    r"^\W*(?:(?:no|nope|hmm|well|but)[,.!]?\s+)?(?:that's|that is|this is|it's|it is)?\s*"
    r"(?:wrong|not (?:it|right|true|correct|the (?:issue|problem|cause))\b|incorrect"
    r"|i (?:do not|don't|dont) think (?:that's|that is|so|it's|it is|this is)"
    r"|(?:it )?(?:still )?(?:does not|doesn't|did not|didn't|is not|isn't) work"
    r"|(?:it's |it is )?still (?:not working|broken|failing|fails|the same|hanging|crashing))")


def _replied_against(turns: Sequence[Turn], at: int) -> int | None:
    """The person's very next words after the answer the quote is part of open by
    turning it down ("I don't think that's it", "that's wrong", "still doesn't work"):
    a reply speaks of what was just said, whatever words it shares. Their turn, or
    None."""
    if speaker_of(turns[at]) != "assistant" or turns[at].kind != "prose":
        return None
    for j in range(at + 1, min(len(turns), at + 40)):
        t = turns[j]
        if t.kind == "prompt" and not is_summary(t):
            return j if _AGAINST.match(normalise(t.text)[:200]) else None
    return None


# A proposal the person turned down: the plan they chose not to accept, a call they
# rejected. What the fact names from it and nobody names again did not happen.
_TURNED_DOWN = re.compile(r"\b(?:rejected by the user|user chose to stay in plan mode"
                          r"|user (?:doesn't|does not) want to proceed|user declined)\b", re.I)
DOWN_TURNS = 8  # a plan's rejection follows its presentation at once


def _turned_down(turns: Sequence[Turn], at: int, fact: str, quote: str) -> int | None:
    """The quote is part of what the assistant proposed (its prose, a plan it wrote)
    and the person turned the proposal down before speaking again (a plan not accepted,
    a call rejected); the names the fact takes from the quote are never said again
    after that: the person's next words (or the rejection), or None."""
    if speaker_of(turns[at]) != "assistant":
        return None
    names = [normalise(i) for i in identifiers(fact) if _present(i, normalise(quote))]
    if not names:
        return None
    down = None
    for j in range(at + 1, min(len(turns), at + DOWN_TURNS)):
        t = turns[j]
        if t.kind == "prompt" and not is_summary(t):
            return None  # the person spoke first: no rejection of this proposal
        if t.kind == "tool_error" and (_TURNED_DOWN.search(t.text) or t.tool == "ExitPlanMode"):
            down = j
            break
    if down is None:
        return None
    for t in turns[down + 1:]:
        if is_summary(t):
            continue
        said = normalise(_now_side(t))
        if any(_present(n, said) for n in names):
            return None
    return next((j for j in range(down + 1, min(len(turns), down + 4))
                 if turns[j].kind == "prompt" and not is_summary(turns[j])), down)


COUNT_TURNS = 60  # how far on an answer may count the same thing again


def _counted_otherwise_later(turns: Sequence[Turn], at: int, fact: str,
                             quote: str) -> int | None:
    """The quote counts something ("40 回", "12 retries") with the number the fact gives;
    after the person spoke again, an answer counts the same thing with other numbers
    only ("178 回（成功）／ 180 回"): that answer's turn, or None. The last count wins."""
    said = set(numbers(fact))
    counted = {w: ns for w, ns in beside(quote).items() if ns & said and w not in _MEASURES}
    if not counted or speaker_of(turns[at]) != "assistant":
        return None
    spoke = False
    for j in range(at + 1, min(len(turns), at + COUNT_TURNS)):
        t = turns[j]
        if t.kind == "prompt" and not is_summary(t):
            spoke = True
            continue
        if not spoke or t.kind != "prose" or is_summary(t):
            continue
        later = beside(t.text)
        for w, ns in counted.items():
            if w in later and not later[w] & ns and not later[w] & said and \
                    _about_the_same(t.text, w, quote):
                return j
    return None


# Units of measure count no thing: "10 seconds" here and "2 seconds" there are two times.
_MEASURES = {"second", "sec", "minute", "min", "hour", "day", "week", "month", "year", "ms",
             "byte", "kb", "mb", "gb", "tb", "px", "percent", "line", "char", "character",
             "time", "version", "step", "item", "thing", "way"}


def _about_the_same(text: str, word: str, quote: str) -> bool:
    """A sentence of `text` that counts `word` also names another term of the quote (a
    long word, a name, a run of CJK): the same thing counted, not another."""
    low, q = normalise(text), normalise(quote)
    terms = {w for w in _WORD.findall(q) if (len(w) >= 5 and w not in _STOP) or (
        not w.isascii() and len(w) >= 2)} - {word}
    for sentence in re.split(r"(?<=[.!?。！？\n])", low):
        if word in sentence and any(t in sentence for t in terms):
            return True
    return False
