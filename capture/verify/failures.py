"""Suspicion: a step refuted later, or a fix claimed while its check failed.

Reads the runs of checks (tests, builds, hooks) around a claim of success.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from capture.ground import normalise
from capture.transcript import Turn
from capture.verify.cues import FAILURES, says
from capture.verify.names import _names_shared, identifiers
from capture.verify.tools import _WRITERS, _now_side
from capture.verify.turns import _call_output, is_summary, speaker_of
from capture.verify.words import _STOP, _WORD, _expand

# An assistant's claim that something works, which a later failure of it contradicts.
_SUCCESS = re.compile(r"\b(?:works?|passe?s?|compiles?(?: clean)?|succeed(?:s|ed)?|fixed|"
                      r"resolved|complete|completed|is clean|all green|no errors|100%)(?!\w)")

# A report that work is done and working: what the person's next words may contradict.
_REPORTS_DONE = re.compile(
    r"\b(?:successfully|(?:implementation|migration|refactor|setup|fix) (?:is )?complete"
    r"|all (?:tests|checks) pass(?:ing|ed)?|(?:is|are) now (?:\w+ and )?(?:passing|working"
    r"|fixed|installed|active|enabled|configured|in place|live|deployed|set up|running)"
    r"|now works|fixed and verified|has been (?:resolved|fixed))\b|✅|^#+ .*\bfixed\b")


def _next_words_report_a_problem(turns: Sequence[Turn], at: int) -> int | None:
    """The person's very next words after a report of work done, when they say
    something is wrong ("the app hangs", "what happened?"): their turn, or None. (Passing
    over an errand in between, "git push", hinted true facts on the tuning sets.)"""
    nxt = next((j for j in range(at + 1, min(len(turns), at + 12))
                if turns[j].kind in ("prose", "prompt")), None)
    if nxt is not None and turns[nxt].kind == "prompt" and (
            _PROBLEM.search(said := normalise(turns[nxt].text)[:800])
            or says(FAILURES, said)):
        return nxt
    return None


# "is now installed and active", "are now passing": a state claimed as reached.
_NOW_WORKING = re.compile(r"\b(?:is|are) now (?:\w+ and )?(?:passing|working|installed|active"
                          r"|enabled|configured|in place|live|deployed|set up|running)\b")
# A person's words that say something is wrong ("it still hangs", "the app crashes").
_PROBLEM = re.compile(
    r"[❌✗✘⛔]|\b(?:blocked|denied|refused|rejected|aborted|traceback|still|hangs?|hanging"
    r"|haning|stuck|freez\w*|fail\w*|errors?|broken|crash\w*"
    r"|not working|(?:does|did|is|are)\s*n[o']?t\s+work\w*|the problem|a problem"
    r"|problem (?:is|with)|an issue|the issue|bug|wrong|invalid|same (?:error|issue|problem"
    r"|thing)|nothing (?:happens|happened|changed|shows)|what (?:hap+e+n+e?d|went wrong)"
    r"|why (?:did|does|is|isn't|doesn't) (?:it|this|that))\b")

# A command that checks work: a test run, a build, a type check, a lint.
_CHECK_COMMAND = re.compile(
    r"\b(?:pytest|tox|nox|unittest|jest|vitest|mocha|cargo (?:test|build|check|clippy)"
    r"|go (?:test|build|vet)|npm (?:test|run (?:test|build|lint|typecheck))|yarn (?:test|build"
    r"|lint|typecheck)|pnpm (?:test|build|lint)|make\b|cmake --build|tsc\b|mypy|pyright"
    r"|ruff|eslint|gradle|mvn|dotnet (?:test|build)|bash -n|shellcheck)"
    r"|(?<!\S)\./\S*(?:build|test|check)\S*")
CHECK_PROMPTS = 1  # a claim is checked by the next run of a check, after at most this many prompts


def _failed_check(turns: Sequence[Turn], j: int, at: int) -> bool:
    """The failure at turn j is the first check command run since the claim at `at`
    (with at most CHECK_PROMPTS prompts between): the claim's own verification failed."""
    call = next((k for k in range(j - 1, max(at, j - 8), -1) if turns[k].kind == "tool_call"),
                None)
    if call is None or not _CHECK_COMMAND.search(turns[call].text) or not _same_kind(
            turns[at].text, turns[call].text + "\n" + turns[j].text):
        return False
    between = turns[at + 1: call]
    if sum(t.kind == "prompt" for t in between) > CHECK_PROMPTS:
        return False
    return not any(t.kind == "tool_call" and _CHECK_COMMAND.search(t.text) for t in between)


# A report that the thing is fixed now: what the next check's failure refutes.
_NOW_FIXED = re.compile(r"\b(?:is|are) now (?:fixed|resolved|working|passing)\b"
                        r"|\bhas been (?:fixed|resolved)\b|\bfixed and verified\b")
# A failure whose own output is a check's verdict (a hook run by a commit, a test run
# inside a script): "mypy......Failed", "FAILED tests/…", "hook id: ruff", "2 failed".
_CHECK_FAILED = re.compile(r"\.{3,}\s*failed\b|\bfailed\b.*\n?.*\bhook id:|\bhook id:"
                           r"|^failed\s|\b\d+ failed\b|\berror ts\d+|\bfound \d+ errors?\b",
                           re.M)

_CHECK_KINDS = (
    re.compile(r"\b(?:tests?|pytest|jest|vitest|specs?|unittest)\b"),
    re.compile(r"\b(?:lint\w*|ruff|eslint|flake8|pylint|clippy)\b"),
    re.compile(r"\b(?:types?|typing|mypy|tsc|pyright|type-?check\w*)\b"),
    re.compile(r"\b(?:build\w*|compil\w*)\b"),
)


def _same_kind(claim: str, failure: str) -> bool:
    """A claim about one kind of check ("all 173 tests pass") is refuted by that kind
    failing, not by a lint run's verdict; a claim naming no kind, by any."""
    kinds = [rx for rx in _CHECK_KINDS if rx.search(normalise(claim))]
    return not kinds or any(rx.search(normalise(failure)) for rx in kinds)


def _check_output_failed(turns: Sequence[Turn], j: int, at: int) -> bool:
    """The failure at turn j is a check's verdict by its own output (a commit's hooks,
    a script's tests), and the first failure since the claim at `at`, with at most
    CHECK_PROMPTS prompts between: the claim's own verification failed."""
    failure = turns[j].text.casefold()
    if not _CHECK_FAILED.search(failure) or not _same_kind(turns[at].text, failure):
        return False
    between = turns[at + 1: j]
    if sum(t.kind == "prompt" for t in between) > CHECK_PROMPTS:
        return False
    return not any(t.kind == "tool_error" for t in between)


def _failed_call_names(turns: Sequence[Turn], j: int, quote: str) -> bool:
    """The call that failed at turn j names something the quote claims works: the
    failure is about the same thing, not just a later failure in the same files."""
    for k in range(j - 1, max(-1, j - 8), -1):
        if turns[k].kind == "tool_call":
            return _names_shared(turns[k].text, quote)
        if turns[k].kind in ("prompt", "prose"):
            return False
    return False


# A tool's negative result ("✗ Not available", "not found"), and a success in another.
_NEGATIVE = re.compile(r"✗|✘|\bnot (?:available|found|reachable|installed|supported|present)\b"
                       r"|\bunavailable\b|\bno such\b|\bdoes not exist\b|\bfailed\b")
_POSITIVE = re.compile(r"\b200 ok\b|✓|✔|\bsucceeded\b|\bsuccess(?:ful(?:ly)?)?\b"
                       r"|\bis available\b|\bexists\b|\binstalled\b|\bpassed\b")
RECHECK_TURNS = 10  # the calls right after a result that check it again


def _rechecked(turns: Sequence[Turn], at: int, fact: str, quote: str,
               tool_texts: Sequence[tuple[str, str, str]] = ()) -> int | None:
    """A tool's negative result the very next calls check again, naming what the fact
    names, with success ("✗ Not available", then `curl …/trixie/Release` → "200 OK"): the
    step that gave it is refuted. The success's turn (or the call's, when its output was
    not sent again: read from `tool_texts`), or None."""
    if speaker_of(turns[at]) != "tool" or not _NEGATIVE.search(quote):
        return None
    first = next((k for k in range(at - 1, max(-1, at - 4), -1)
                  if turns[k].kind == "tool_call"), None)
    names = {w for w in _WORD.findall(normalise(fact)) if len(w) >= 5 and w not in _STOP}
    for j in range(at + 1, min(len(turns) - 1, at + RECHECK_TURNS)):
        t = turns[j]
        if t.kind in ("prompt", "prose"):
            return None
        if t.kind != "tool_call" or (first is not None and t.text == turns[first].text):
            continue
        call = normalise(t.text)
        if not any(re.search(r"\b" + re.escape(w) + r"\b", call) for w in names):
            continue
        out = turns[j + 1]
        said = out.text if out.kind == "detail" else _call_output(tool_texts, turns, j) \
            if tool_texts and out.kind == "tool_call" else ""
        if _POSITIVE.search(normalise(said)) and not _NEGATIVE.search(normalise(said)):
            return j + 1 if out.kind == "detail" else j
    return None


_NOT_FOUND = re.compile(r"no such file|not found|does not exist|doesn't exist|cannot find"
                        r"|can't find|could not find|unable to find|cannot access|enoent"
                        r"|is not recognized|unknown (?:command|option|flag)")
_ABSENCE = re.compile(r"\b(?:not|no|never|missing|absent|deleted|removed|gone|lacks?"
                      r"|without|instead)\b|n't\b")


def _later_not_found(turns: Sequence[Turn], at: int, fact: str) -> int | None:
    """A file, path or command the fact says exists or is used, which a later call
    reports not found ("cat config/x.yml: No such file"), and which nothing writes
    afterwards: the failure's turn, or None. A fact about a thing's absence is left be."""
    if _ABSENCE.search(_expand(normalise(fact))):
        return None
    names = [normalise(i) for i in identifiers(fact)
             if ("/" in i or re.search(r"\.[a-z]{1,5}$", i) or i.startswith("-")) and len(i) > 3]
    if not names:
        return None
    for j in range(at + 1, len(turns)):
        t = turns[j]
        if t.kind != "tool_error":
            continue
        for line in map(normalise, re.split(r"\n| · ", t.text)):
            for n in names:
                if n in line and _NOT_FOUND.search(line) and not any(
                        u.kind in ("tool_call", "detail") and u.tool in _WRITERS
                        and n in normalise(_now_side(u)) for u in turns[j + 1:]):
                    # (an edit's `was:` side is what it took out, not a write of it)
                    return j
    return None


BEFORE_TURNS = 4  # how far back the run a success claim sums up may be


def _failed_just_before(turns: Sequence[Turn], at: int, quote: str) -> int | None:
    """An assistant's claim that the checks pass ("All tests pass", "builds clean") right
    after the run it sums up failed (its output a check's failure, of the same kind):
    that run's turn, or None."""
    if speaker_of(turns[at]) != "assistant" or not _SUCCESS.search(normalise(quote)):
        return None
    for k in range(at - 1, max(-1, at - BEFORE_TURNS - 1), -1):
        t = turns[k]
        if t.kind in ("prompt", "prose") or is_summary(t):
            return None
        if t.kind in ("tool_error", "detail") and t.role == "user":
            failure = t.text.casefold()
            if _CHECK_FAILED.search(failure) and _same_kind(quote, failure) and \
                    _same_kind(turns[at].text, failure):
                return k
            return None  # the run it sums up did not fail
    return None


# A fact that says an error went away, and the error it names in quotes.
_FIXED = re.compile(r"\b(?:fix(?:ed|es)?|resolv(?:ed|es)|solv(?:ed|es)|eliminat\w*|no longer"
                    r"|got rid of|gets? rid of|cured|stops?|stopped|prevents?|avoids?)\b")
# An error the fact quotes, called one: "the 'X' startup error", "error 'X'", "X: error".
_CITED = re.compile(r"(?<!\w)[\"'‘“]([^\"`’”\n]{12,200}?)[\"'’”](?!\w)(?=\s+(?:\w+\s+)?"
                    r"(?:errors?|exceptions?|failures?|warnings?|crash|panic)\b)"
                    r"|\b(?:errors?|exceptions?|failures?|warnings?|message)\s+[\"'‘“]"
                    r"([^\"`’”\n]{12,200}?)[\"'’”](?!\w)")
_QUOTE_MARKS = re.compile(r"[\"'`‘’“”]")


def _error_again(turns: Sequence[Turn], at: int, fact: str) -> int | None:
    """The fact says a step fixed an error it quotes ("fixed the 'Class constructors
    cannot be invoked without new' error") and a tool's result after the quote shows
    that error again: the first such turn, or None."""
    if not _FIXED.search(normalise(fact)):
        return None
    cited = [_QUOTE_MARKS.sub("", normalise(a or b)) for a, b in _CITED.findall(fact)]
    cited = [c for c in cited if len(c.split()) >= 3]
    if not cited:
        return None
    for j in range(at + 1, len(turns)):
        t = turns[j]
        if (t.role == "user" and t.kind in ("tool_error", "detail")) or (
                t.kind == "prompt" and not is_summary(t)):
            said = _QUOTE_MARKS.sub("", normalise(t.text))
            if any(c in said for c in cited):
                return j
    return None
