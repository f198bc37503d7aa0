"""Does a candidate's quote really support its fact? (GUIDE §5, issue 12)

Stdlib only. A substring match passed candidates that invert their own quote, a "…"
that drops a "doesn't", a fuzzy match that flips a negation, three-word quotes,
tool-call lines, guesses corrected later and quotes stitched from distant turns. The
verifier locates the quote in the transcript's turns (which turn, who spoke), then runs
small checks, each a pure function; the first that fails names the verdict's `check`.

Precise rather than clever: every check looks for one concrete, explainable defect, so a
flagged candidate tells the person why, and a true one is rarely flagged. What a quote says
of a setting, a move, a field or an offer is read in `capture/claims.py`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from capture.claims import (
    asks,
    comparison_flipped,
    default_otherwise,
    edit_reverted,
    expected_otherwise,
    field_changed,
    flag_word_changed,
    moved_from,
    number_beside_changed,
    setting_changed,
    settings,
)
from capture.condense import render_turn
from capture.ground import normalise
from capture.results import QUOTED_PREFIX, SCRIPT_PREFIX
from capture.transcript import Turn, without_count

# Every value `Verdict.check` may take. Order of the checks: the quote's length, then
# locating it (not_found, elision, stitched, and for a near match negation_flip,
# number_mismatch, identifier_mismatch), then tool_line, summary_only, the fact against
# its quote (negation_flip for an inversion, number_mismatch, identifier_missing), and
# last corrected_later.
CHECKS = (
    "not_found", "too_short", "elision", "stitched", "negation_flip", "number_mismatch",
    "identifier_mismatch", "tool_line", "summary_only", "identifier_missing",
    "corrected_later",
)
# What the checks know marks a candidate ungrounded; what they only suspect is a hint
# beside the evidence (issue 21: a true fact flagged costs the reviewer's trust as much
# as a false one passed). `corrected_later` is a hint now, kept in CHECKS for old rows.
KNOWN = tuple(c for c in CHECKS if c != "corrected_later")
# A hint names the defect it suspects: a later correction, a hedge, the speaker, or a
# known check's name when the evidence for it is only suggestive (a later value, a
# near name, a limit the quote stops before).
HINTS = ("corrected_later", "hedged", "speaker", "negation_flip", "number_mismatch",
         "identifier_mismatch", "identifier_missing", "elision", "tool_line", "too_short")
SPEAKERS = ("user", "assistant", "tool")

MIN_WORDS = 4  # "did you push?" supports nothing, wherever it is found
FUZZY_RATIO = 0.88  # character similarity for a quote with a slipped letter or re-flow
MAX_FUZZY_CHARS = 2_000  # longer quotes are only matched exactly
MAX_GAP = 2  # turns a quote may span (prose and the tool lines hanging under it)
STITCH_GAP = 400  # characters an ellipsis may leave out of one answer before it joins places
CONFIDENT = 0.7  # at or above, a compaction summary alone is not enough support
_SCOPE = 2  # content words after a negation that it covers
INVERSION_OVERLAP = 0.5  # share of the shorter side's words an inversion restates
_ANCHORS = 3  # rarest quote words used to place a fuzzy match
_MAX_HITS = 40  # occurrences followed per anchor word

_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\.\.|…)\s*\]|\.\.\.+|…)\s*")
_CUT_MARKER = re.compile(r"\[(?:\.\.\.|…)[^\]]*\]")  # condense's own `[… N characters elided …]`
_LABEL = re.compile(r"(?:^|(?<=\s))(?:user|assistant|human|claude)\s*:\s+")
_TOOL_PREFIX = re.compile(r"^\s*(?:[·!]\s+)")
_WORD = re.compile(r"[\w']+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
# A number alone or with its unit (`209s`, `48.7s`, `500ms`, `10x`, `4kb`): the unit is
# not part of what is compared, the value is.
_NUMBER = re.compile(r"(?:(?<=\bv)|(?<![\w.]))\d+(?:[.,:]\d+)*"
                     r"(?![.,:]\d)(?=(?i:ms|us|ns|s|sec|secs|m|min|mins|h|hr|hrs|d|x|k|kb|mb|gb|tb|kib|mib|gib"
                     r"|tib|g|t|b|px|w|kw|hz|khz|mhz|ghz|fps|rps|qps|rpm|%)?"
                     r"(?![\w]))")
_PATH = re.compile(r"(?:~|\.{1,2})?/?[\w.@-]+(?:/[\w.@-]+)+/?")
_DOTTED = re.compile(r"\b[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b")
_FLAG = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?:=[\w.,:/+-]+)?")  # `--diff-filter=M` whole
_CAPS = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_TICKED = re.compile(r"`([^`\n]{2,80})`")
_NOT_IDENTS = {"e.g", "i.e", "etc", "vs"}

_NEGATORS = {"not", "no", "never", "without", "none", "nothing", "nor", "neither", "nobody"}
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
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)")
# Words that say a claim is a guess or an opinion, not something found.
_HEDGE = re.compile(
    r"\b(?:might|may|maybe|perhaps|possibly|probably|likely|unlikely|i think|i believe"
    r"|could(?!n't| not)|suggests?|suggesting|indicates?|assum(?:e|ed|ing)|hopefully"
    r"|potential(?:ly)?|in theory|theoretically|should work|i'm guessing|guess(?:ing)?"
    r"|i suspect|i guess|i feel|seems?|seemed|seemingly|appears to|could be|should be"
    r"|hypothes\w*|my guess|suspect(?:ed)?|presumably|not sure|unclear|i'd (?:prefer|say)"
    r"|i prefer|in my opinion|imo|roughly|approximately|around \d|about \d|estimated?"
    # what should happen next is expected, not seen; what something sounds like, a guess
    r"|should (?:now )?(?:appear|show|display|work|fix|resolve|help|pass|succeed|load|run"
    r"|start|stop|be able|take effect|go away)|should now|sounds like|i'd guess"
    r"|i'd bet|my hunch|chances are|it's possible|if i'm not mistaken|i wonder|not certain"
    r"|unsure|untested|unverified|tends? to|apparently|supposedly|in principle|i'd expect"
    r"|would expect|expected to)\b"
    r"|~\s?\d"
)
# Words that judge rather than find: an opinion stated as a fact reads the same without
# a hedge ("X is cleaner than Y"), so it is a suspicion unless the fact says whose it is.
_OPINION = re.compile(
    r"\b(?:better|worse|best|worst|cleaner|simpler|nicer|elegant|overkill|preferable"
    r"|recommend(?:ed|s)?|ideal|good idea|bad idea|over-?engineered|unnecessary|pointless"
    r"|i'd|would be|much more|far more|well calibrated|seems?"
    # a self-assessment of work done: a verdict on quality, not a finding
    r"|comprehensive(?:ly)?|robust(?:ly)?|production[- ]ready|best practices?|fully functional"
    r"|rock[- ]solid|bullet-?proof|battle[- ]tested|enterprise[- ]grade|state[- ]of[- ]the[- ]art"
    r"|world[- ]class|flawless(?:ly)?|seamless(?:ly)?|excellent|as close to|truly"
    r"|idiomatic|maintainable|more readable|intuitive|user[- ]friendly|hacky|clunky|messy"
    r"|the right (?:approach|choice|call|way|tool)|(?:a )?good (?:approach|idea|choice|fit"
    r"|practice)|high[- ]quality|well[- ](?:designed|structured|organi[sz]ed|written|tested)"
    # a generalisation is a belief about the world, not a finding in this session
    r"|(?:more |most |less )?commonly|typical|typically|usually|generally|normally"
    r"|in most cases)\b")
_ATTRIBUTED = re.compile(
    r"\b(?:prefers?|preferred|thinks?|thought|believes?|believed|feels?|felt|finds|found"
    r"|considers?|considered|opinion|view|says?|said|suggests?|suggested|recommends?"
    r"|recommended|proposed|proposes|wants?|wanted|judged|judges|argues?|argued|claims?"
    r"|claimed|according to|guess(?:ed|es)?|hypothes\w+|may|might|possibly|probably"
    r"|reports?|reported|observed|noticed|estimated|estimates?)\b")
# A yes/no question ("Is the cache cleared on deploy?"), and a fact that says it was asked.
_YES_NO = re.compile(r"(?!(?:can|could|would|will|do) (?:you|we|u)\b)(?:is|are|does|do|can"
                     r"|could|will|would|did|was|were|has|have)\b[^?]{5,}\?\s*$")  # not a request
_ASKED_IN_FACT = re.compile(r"\b(?:asks?|asked|question\w*|whether|wonder\w*)\b|\?")
# The attributions that keep a guess a guess ("the user thinks", "Claude suggested"): not
# "found" or "observed", which state it as a finding.
_KEPT_AS_VIEW = re.compile(
    r"\b(?:prefers?|preferred|thinks?|thought|believes?|believed|feels?|felt|considers?"
    r"|considered|opinion|view|says?|said|suggests?|suggested|recommends?|recommended"
    r"|proposed|proposes|wants?|wanted|judged|judges|argues?|argued|claims?|claimed"
    r"|according to|guess(?:ed|es)?|hypothes\w+|may|might|possibly|probably|reports?"
    r"|reported|estimated|estimates?|suspects?|suspected|expects?|expected)\b")
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
    return False
# An assistant's claim that something works, which a later failure of it contradicts.
_SUCCESS = re.compile(r"\b(?:works?|passe?s?|compiles?(?: clean)?|succeed(?:s|ed)?|fixed|"
                      r"resolved|complete|completed|is clean|all green|no errors|100%)(?!\w)")
# Names whose value a later turn may change ("port 8080" ... "port 8081").
_KEYS = {"port", "timeout", "version", "limit", "size", "budget", "threshold", "default",
         "max", "min", "retries", "ratio", "cap", "line", "lines", "exit", "code"}


@dataclass(frozen=True)
class Verdict:
    """What the verifier found: `check` names the first check that failed (None when the
    quote supports the fact); `turn` and `speaker` say where the quote was found."""

    supported: bool
    check: str | None = None
    turn: int | None = None
    speaker: str | None = None
    detail: str = ""
    # A suspicion (one of HINTS) about a supported quote, and what it rests on (the later
    # turn that may correct it, quoted): shown beside the evidence, never a verdict.
    hint: str | None = None
    hint_detail: str = ""


@dataclass(frozen=True)
class _Hit:
    turn: int
    start: int  # in the normalised rendered turn
    end: int
    exact: bool = True


# --------------------------------------------------------------------------- text


def is_summary(turn: Turn) -> bool:
    """A compaction summary: the model's own retelling, lower-trust context."""
    return turn.kind == "summary" or bool(getattr(turn, "summary", False))  # type: ignore[comparison-overlap]


def speaker_of(turn: Turn) -> str:
    """Who said it: a human prompt, the assistant's prose (or summary, or the plan or
    commit message a call carried: a `detail`), a tool line."""
    if turn.kind == "prompt" and not is_summary(turn):
        return "user"
    if turn.kind in ("tool_call", "tool_error"):
        return "tool"
    if turn.kind == "detail" and turn.role == "user" and (
            turn.tool in ("Bash", "Read") or turn.text.startswith(QUOTED_PREFIX)):
        # a command's short output, a small file read, the lines of any tool's result
        # the next answer relies on (`» `: a search's, a fetch's output, not the answer)
        return "tool"
    return "assistant"


_BASH_INPUT = re.compile(r"<bash-input>\s*(.*?)\s*</bash-input>", re.S)
_WRAPPER_TAG = re.compile(r"</?(?:bash-(?:stdout|stderr)|command-(?:name|message|args)"
                          r"|local-command-stdout)>")


def clean_quote(evidence: str) -> str:
    """Normalise a quote and drop what the model wraps around it: quotes, edge
    ellipses, a leading speaker label or tool-line bullet."""
    # The transcript's own wrappers, as the reader renders them: `!` mode, slash commands.
    evidence = _BASH_INPUT.sub(r"! \1", evidence)
    evidence = _WRAPPER_TAG.sub(" ", evidence)
    q = normalise(evidence)
    while True:
        before = q
        q = q.strip(" \"'“”")
        q = _ELLIPSIS.sub(" … ", q).strip()
        q = q.removeprefix("…").removesuffix("…").strip()
        q = _TOOL_PREFIX.sub("", q)
        m = _LABEL.match(q)
        if m:
            q = q[m.end():]
        if q == before:
            return q


def words(text: str) -> list[str]:
    """Words that say something: speaker labels do not count."""
    return _WORD.findall(_LABEL.sub(" ", text))


_BARE_NT = re.compile(
    r"\b(do|does|did|is|are|was|were|ca|wo|should|could|would|have|has|had|must|need)nt\b")


def _expand(text: str) -> str:
    """`doesn't` (and a typed `doesnt`) → `does not`, so negations compare as words."""
    text = re.sub(r"\bcannot\b", "can not", text)
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


def numbers(text: str) -> list[str]:
    return sorted(_NUMBER.findall(text))


_UNIT = re.compile(r"(?:(?<=\bv)|(?<![\w.]))(\d+(?:[.,]\d+)?)\s?(ms|us|ns|s|sec|secs|min|mins"
                   r"|h|hr|hrs|kb|mb|gb|tb|kib|mib|gib|tib|px|%)(?![\w])", re.I)


def unit_numbers(text: str) -> dict[str, set[str]]:
    """Numbers with a unit, by unit (`0.6s`, `10MB`, `500 ms`): {"s": {"0.6"}, …}."""
    out: dict[str, set[str]] = {}
    for value, unit in _UNIT.findall(text):
        number = float(value.replace(",", "."))  # "100.00 MB" is "100 MB"
        out.setdefault(unit.casefold(), set()).add(f"{number:g}")
    return out


def unit_changed(fact: str, quote: str) -> list[str]:
    """The fact's quantities whose unit the quote also gives, with none of the quote's
    values for it: "1MB" where the quote says "10MB", "0.3s" where it says "0.6s"."""
    q = unit_numbers(quote)
    return [f"{v}{u}" for u, vs in unit_numbers(fact).items() if u in q
            for v in sorted(vs - q[u])]


_TRANSITION = re.compile(r"\bfrom\s+v?(\d+(?:\.\d+)*)\s+(?:to|→|->)\s+v?(\d+(?:\.\d+)*)")
_TO_VALUE = re.compile(r"(?:\bto|→|->)\s+v?(\d+(?:\.\d+)*)\b")


def transition_changed(fact: str, quote: str) -> str:
    """The quote moves a value "from A to B"; the fact says it went to another value
    ("changed to 1.23" where the quote says "from 1.24.0 to 1.21 to match CI (Go 1.23)").
    What the fact gets wrong, or ""."""
    targets = {b for _, b in _TRANSITION.findall(normalise(quote))}
    if not targets:
        return ""
    for m in _TO_VALUE.finditer(normalise(fact)):
        if m.group(1) not in targets:
            return f"the quote moves it to {', '.join(sorted(targets))}, not {m.group(1)}"
    return ""


# A fact's code span that generalises (`-run <TestName>`, `…`, `{id}`) is no variant.
_PLACEHOLDER = re.compile(r"<[^<>]*>|\.\.\.|…|\{[^{}]*\}|\$\{|\[\w+\]|\bxxx?\b", re.I)
_CODE_TOKEN = re.compile(r"[\w./:@=+-]+")
VARIANT_RATIO = 0.85  # a single name this close to the quote's, but not it: a slip


def code_variant(fact: str, quote: str) -> str:
    """A code span of the fact that the quote gives otherwise: the same command with
    one argument changed (`go test ./pkg/export -run T` / `go test ./cmd -run T`), the
    same flag with another value (`--output-format json` / `stream-json`), a name one
    slip away (`current-profiles` / `current-profile`). What differs, or ""."""
    q = normalise(quote)
    q_tokens = _CODE_TOKEN.findall(q)
    for span in _TICKED.findall(fact):
        low = normalise(span)
        if _PLACEHOLDER.search(span) or low in q:
            continue
        toks = _CODE_TOKEN.findall(low)
        if len(toks) == 1:
            t = toks[0]
            if len(t) < 8 or not re.search(r"[-_./]|[a-z][A-Z]", span):
                continue
            for qt in q_tokens:
                # A flag named by its bare word (`--update` / "update the display") is
                # the same name, not a slip of it.
                if qt.lstrip("-") == t.lstrip("-"):
                    continue
                if qt != t and abs(len(qt) - len(t)) <= 3 and \
                        SequenceMatcher(None, t, qt).ratio() >= VARIANT_RATIO:
                    return f"`{span}` where the quote has `{qt}`"
            continue
        n = len(toks)
        for k in range(len(q_tokens) - n + 1):
            win = q_tokens[k: k + n]
            diff = [i for i in range(n) if win[i] != toks[i]]
            if len(diff) != 1:
                continue
            d = diff[0]
            # Two tokens: a flag and its value (`--output-format json`). More: all but
            # one the same, one of them a name, and the other argument nowhere in the
            # quote (a command with one argument changed).
            if n == 2 and not (d == 1 and toks[0].startswith("-")):
                continue
            if toks[d] in q_tokens or not any(re.search(r"[-_./]|\d", x) or len(x) >= 8
                                              for i, x in enumerate(toks) if i != d):
                continue
            return f"`{span}` where the quote has `{' '.join(win)}`"
    return ""


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


def identifiers(text: str) -> set[str]:
    """Names a reader could look up: paths, dotted/snake/camel names, flags, `code`."""
    found: set[str] = set()
    for pattern in (_PATH, _DOTTED, _SNAKE, _CAMEL, _FLAG, _CAPS):
        for m in pattern.finditer(text):
            tok = m.group().strip(".,;:()'\"").rstrip("/")
            if len(tok) > 2 and tok.casefold() not in _NOT_IDENTS and not _NUMBER.fullmatch(tok):
                found.add(tok)
    for m in _TICKED.finditer(text):
        tok = m.group(1).strip()
        if len(tok) > 2 and " " not in tok:
            found.add(tok)
    # A path's parts are not separate identifiers.
    return {t for t in found if not any(t != o and t in o for o in found)}


def _kind_of(name: str) -> str:
    """The shape of a name, for comparing like with like: a file by its extension, a
    flag, a path, an ALL_CAPS, snake_case, CamelCase or dotted name."""
    if name.startswith("-"):
        return "flag"
    if m := re.search(r"\.([a-z][a-z0-9]{0,5})$", name, re.I):
        return "file." + m.group(1).casefold()
    if "/" in name:
        return "path"
    if _CAPS.fullmatch(name):
        return "caps"
    if "_" in name:
        return "snake"
    if "." in name:
        return "dotted"
    return "camel" if _CAMEL.fullmatch(name) else "other"


SLIP_RATIO = 0.85  # a name this close to one beside the quote, but said nowhere: a slip
_NAME_TOKEN = re.compile(r"(?:~|\.{1,2})?/?[\w~@-]+(?:[./:][\w~@-]+)+"
                         r"|[\w-]*[A-Z_][\w-]*|[\w]+(?:-[\w]+)+")


def _bare(name: str) -> str:
    return normalise(name).strip("`'\".,;:()[]{}").removesuffix("()")


def _slip_near(fact: str, turns: Sequence[Turn], at: int,
               tool_texts: Sequence[tuple[str, str, str]]) -> tuple[str, str] | None:
    """`slipped_name` against the quote's neighbourhood and the whole session, read only
    when the fact has a name the session never says (most facts have none)."""
    names = [i for i in identifiers(fact) if len(_bare(i)) >= 5]
    if not names:
        return None
    everything = "\n".join([*_texts(turns), *(t for _w, _n, t in _tool_norm(tool_texts))])
    if all(_bare(i) in everything for i in names):
        return None
    return slipped_name(fact, _neighbourhood(turns, at), everything)


def slipped_name(fact: str, near: str, everything: str) -> tuple[str, str] | None:
    """A name of the fact said nowhere in the session (normalised text `everything`),
    while a name beside the quote (`near`) is one slip from it: transposed or changed
    letters (`apckage.json` / `package.json`, `/tec/resolv.conf` / `/etc/resolv.conf`).
    (the fact's name, the transcript's), or None."""
    missing = [n for n in identifiers(fact) if len(_bare(n)) >= 5
               and not _PLACEHOLDER.search(n) and _bare(n) not in everything]
    tokens = {_bare(t) for t in _NAME_TOKEN.findall(near)} if missing else set()
    for name in missing:
        x = _bare(name)
        for y in tokens:
            if y != x and abs(len(y) - len(x)) <= 2 and len(y) >= 5 and \
                    SequenceMatcher(None, x, y).ratio() >= SLIP_RATIO:
                # A plural, a case or a call's parentheses is no slip.
                if x.rstrip("s") == y.rstrip("s"):
                    continue
                return name, y
    return None


def swapped_name(fact: str, quote: str) -> tuple[str, str] | None:
    """The fact names X where its quote names Y, X and Y of the same shape (two `.py`
    files, two flags, two CamelCase names), X nowhere in the quote and Y nowhere in the
    fact: one name put for another. (X, Y), or None."""
    nf, nq = normalise(fact), normalise(quote)
    f_names = [i for i in identifiers(fact) if not _present(i, nq)]
    q_names = [i for i in identifiers(quote) if not _present(i, nf)]
    for x in f_names:
        kind = _kind_of(x)
        if kind == "other" or _PLACEHOLDER.search(x):
            continue  # `<session-uuid>.json` generalises the quote's name, it is no swap
        for y in q_names:
            if _kind_of(y) == kind and normalise(x) != normalise(y):
                return x, y
    return None


def _root(word: str) -> str:
    return re.sub(r"(?:ing|ed|es|s)$", "", word) if len(word) > 4 else word


def _stem(word: str) -> str:
    """Crude, on purpose: `starts`/`started`/`starting` and `start` compare equal."""
    if len(word) > 4:
        word = re.sub(r"(?:ing|ed|es|s)$", "", word)
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


# --------------------------------------------------------------------------- checks


def too_short(quote: str) -> bool:
    return len(words(quote)) < MIN_WORDS


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


def region_differs(quote: str, region: str) -> str | None:
    """For a fuzzy match: a changed negation, number or identifier is not a typo."""
    if negations(quote) != negations(region):
        return "negation_flip"
    if numbers(quote) != numbers(region):
        return "number_mismatch"
    fold = {i.casefold() for i in identifiers(quote)} ^ {i.casefold() for i in identifiers(region)}
    if fold:
        return "identifier_mismatch"
    return None


# Words whose loss changes what the rest says: a negation, a condition, a contrast, a
# limit, a guess (issue 21: an ellipsis that leaves out "and then" is quoting; one that
# leaves out "not" or "only on Linux" is a different claim).
_MEANING = re.compile(
    r"\b(?:not|no|never|none|nothing|nor|neither|without|cannot|can't|won't|n't|except"
    r"|unless|but|however|although|though|only|instead|rather|if|when|until|unless"
    r"|might|may|maybe|perhaps|probably|possibly|should|would|could|fails?|failed|broken"
    r"|wrong|except|unlike)\b|n't\b|\d")


def dropped_words(text: str, *, across: bool = False) -> bool:
    """What an elision left out changes the meaning (a negation, a condition, a number;
    not just a cut marker, punctuation or connecting words). `across` two turns, any
    word left out does."""
    left = _CUT_MARKER.sub(" ", text)
    if not _WORD.search(left):
        return False
    return across or bool(_MEANING.search(_expand(normalise(left))))


def _present(token: str, haystack: str) -> bool:
    t = normalise(token).strip("./")
    if not t:
        return True
    if t in haystack:
        return True
    if "/" in t:  # a path may be cited by its file name, or the file by a longer path
        return t.rsplit("/", 1)[-1] in haystack
    last = t.rsplit(".", 1)[-1]
    if "." in t and len(last) >= 4 and re.search(
            r"(?<![\w.-])" + re.escape(last) + r"(?![\w-])", haystack):
        # `jsonl.ScanInto` where the code says `func ScanInto` in package jsonl; not a
        # file's extension that another file's name ends in (`whisper.plist` is not
        # said by `com.openwisprmod.plist`).
        return True
    return t.endswith("s") and t[:-1] in haystack  # "LiveViews" where "LiveView" is said


def missing_terms(fact: str, near: str) -> tuple[list[str], list[str]]:
    """(identifiers, numbers) the fact names that the text around the quote lacks."""
    hay = normalise(near)
    idents = sorted(i for i in identifiers(fact) if not _present(i, hay))
    nums = [n for n in dict.fromkeys(numbers(fact)) if not re.search(
        r"(?<![\d.])" + re.escape(n) + r"(?![\d])", hay)]
    return idents, nums


def key_values(text: str) -> dict[str, str]:
    """`port 8080`, `timeout = 30`, `FOO_BAR: 2`: a name and the number it is given."""
    out: dict[str, str] = {}
    keys = {i.casefold() for i in identifiers(text)} | _KEYS
    pattern = re.compile(
        r"([\w./-]+)\s*(?:(?:=|:|is|was|to|at|of|set to|becomes|now)\s*){0,2}(\d+(?:\.\d+)*)\b"
    )
    for m in pattern.finditer(normalise(text)):
        key = m.group(1).strip("./")
        if key in keys and not _NUMBER.fullmatch(key):
            out.setdefault(key, m.group(2))
    return out


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
    return False


def hedged(text: str) -> bool:
    """The text says it is a guess or an opinion ("might", "I think", "probably")."""
    return bool(_HEDGE.search(normalise(text)))


_HYPHENATED = re.compile(r"(?<![\w-])[a-z][a-z0-9]{2,}-[a-z][a-z0-9]{2,}(?![\w-])")
_COMMON_COMPOUNDS = {"built-in", "end-to-end", "follow-up", "read-only", "long-term",
                     "short-term", "real-time", "up-to-date", "well-known", "step-by-step",
                     "set-up", "sign-in", "log-in", "opt-in", "opt-out", "one-off",
                     "re-run", "re-check", "non-empty", "pre-existing", "so-called"}


def _shared_terms(a: str, b: str, *, strict: bool = False) -> set[str]:
    """What makes two texts speak of the same thing: a name both use, one long word
    (7+ letters, stemmed) or two medium ones (5+); `strict`: two long or three medium
    ones when no name is shared. Empty when they only share chatter."""
    na, nb = normalise(a), normalise(b)
    # A name, not a word: "tests/" in a path is the word "tests", which any text has.
    names = {i.casefold() for i in identifiers(b)
             if re.search(r"[._\-\d]|.[A-Z]", i.strip("/"))}
    shared = {i for i in names if _present(i, na)}
    # A hyphenated name ("tool-call divs", "two-line mode") is as good as an identifier,
    # unless it is a common compound ("built-in", "end-to-end").
    shared |= {w for w in _HYPHENATED.findall(nb) if w not in _COMMON_COMPOUNDS
               and re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", na)}
    if shared:
        return shared

    def stems(text: str, size: int) -> set[str]:
        # Whole roots, not 5-letter stems: "tracked" and "tracker" are different things.
        return {_root(w) for w in _WORD.findall(text) if len(w) >= size and w not in _STOP}

    long_ = stems(na, 7) & stems(nb, 7)
    if long_ and (not strict or len(long_) >= 2 or max(map(len, long_)) >= 9):
        return long_
    medium = stems(na, 5) & stems(nb, 5)
    return medium if len(medium) >= (3 if strict else 2) else set()


# --------------------------------------------------------------------------- locating


_LAST_TEXTS: list[tuple[Sequence[Turn], int, list[str]]] = []  # one job's turns, reused


def _texts(turns: Sequence[Turn]) -> list[str]:
    """Each turn rendered and normalised; a job verifies every candidate against the
    same turns, so the last list is kept (keyed by identity and length: turns are
    frozen, a job's list is not changed while its candidates are verified)."""
    if _LAST_TEXTS and _LAST_TEXTS[0][0] is turns and _LAST_TEXTS[0][1] == len(turns):
        return _LAST_TEXTS[0][2]
    texts = [normalise(render_turn(t)) for t in turns]
    _LAST_TEXTS[:] = [(turns, len(turns), texts)]
    return texts


def _find_all(q: str, texts: list[str]) -> list[_Hit]:
    hits = []
    for i, text in enumerate(texts):
        at = text.find(q)
        if at >= 0:
            hits.append(_Hit(i, at, at + len(q)))
    return hits


def _fuzzy(q: str, texts: list[str]) -> tuple[_Hit, str] | None:
    """The best near match of q (same words but a slip), with the matched region.

    Regions are tried only where q's rarest words occur, so a long turn costs little."""
    qw = _WORD.findall(q)
    if len(qw) < MIN_WORDS or len(q) > MAX_FUZZY_CHARS:
        return None  # a page-long "quote" must match exactly: comparing it costs seconds
    qset = set(qw)
    n = len(qw)
    best: tuple[float, _Hit, str] | None = None
    for i, text in enumerate(texts):
        matches = list(_WORD.finditer(text))
        where: dict[str, list[int]] = {}
        for k, m in enumerate(matches):
            if m.group() in qset:
                where.setdefault(m.group(), []).append(k)
        if len(where) < 0.6 * len(qset):
            continue
        anchors = sorted((len(where[w]), pos, w) for pos, w in enumerate(qw) if w in where)
        chosen: list[tuple[int, str]] = []
        for _count, pos, w in anchors:
            if len(chosen) == _ANCHORS:
                break
            if all(w != c for _, c in chosen):
                chosen.append((pos, w))
        tried: set[tuple[int, int]] = set()
        for pos, w in chosen:
            for hit in where[w][:_MAX_HITS]:
                for start in (hit - pos - 1, hit - pos, hit - pos + 1):
                    for length in (n - 1, n, n + 1):
                        e = start + length - 1
                        if start < 0 or e >= len(matches) or (start, e) in tried:
                            continue
                        tried.add((start, e))
                        region = text[matches[start].start(): matches[e].end()]
                        sm = SequenceMatcher(None, q, region, autojunk=False)
                        if sm.real_quick_ratio() < FUZZY_RATIO or sm.quick_ratio() < FUZZY_RATIO:
                            continue
                        r = sm.ratio()
                        if r >= FUZZY_RATIO and (best is None or r > best[0]):
                            hit_ = _Hit(i, matches[start].start(), matches[e].end(), False)
                            best = (r, hit_, region)
    return None if best is None else (best[1], best[2])


def _rank(h: _Hit, turns: Sequence[Turn]) -> tuple[bool, bool, bool, bool, int]:
    """Prefer the conversation over a summary, words over a tool-call line, what a person
    or a tool said over the assistant repeating it, the person's own prompt over a tool's
    output echoing it, then the last."""
    t = turns[h.turn]
    return (not is_summary(t), t.kind != "tool_call", speaker_of(t) != "assistant",
            speaker_of(t) == "user", h.turn)


def _pick(hits: list[_Hit], turns: Sequence[Turn]) -> _Hit:
    return max(hits, key=lambda h: _rank(h, turns))


def _locate_pieces(
    pieces: list[str], texts: list[str], turns: Sequence[Turn],
    changed: list[tuple[_Hit, str, str]] | None = None,
) -> list[_Hit] | None:
    """Each piece's hit, in order (an elided or multi-turn quote). Every place the first
    piece occurs is tried ("the file" is everywhere); the first whose other pieces follow
    close by wins, else the preferred one (which then reads as stitched). A piece found
    only nearly, with a negation, number or name changed, goes in `changed`."""
    found: list[list[_Hit]] = []
    for piece in pieces:
        hits = _find_all(piece, texts)
        if not hits:
            fz = _fuzzy(piece, texts)
            if fz is None:
                return None
            hits = [fz[0]]
            why = region_differs(piece, fz[1])
            if why is not None and changed is not None:
                changed.append((fz[0], why, fz[1]))
        found.append(hits)
    starts = sorted(found[0], key=lambda h: _rank(h, turns), reverse=True)
    best: list[_Hit] | None = None
    for first in starts:
        seq = [first]
        for piece, hits in zip(pieces[1:], found[1:], strict=True):
            prev = seq[-1]
            after = [h for h in hits if (h.turn, h.start) >= (prev.turn, prev.end)]
            # The first place a piece occurs in a turn may come before the previous
            # piece ends ("}" inside `{ c: { … }, ... }`): look on from where it ended.
            at = texts[prev.turn].find(piece, prev.end) if prev.exact else -1
            if at >= 0:
                after.append(_Hit(prev.turn, at, at + len(piece)))
            seq.append(min(after or hits, key=lambda h: (h.turn, h.start)))
        if _span_ok(seq, turns):
            return seq
        best = best or seq
    return best


def _source(turn: Turn) -> str:
    """Who said a turn, in words: the person, the assistant, a call's text (a command, a
    commit message, a written file), a tool's output."""
    if turn.kind in ("tool_call", "detail") and turn.role == "assistant":
        return "a tool call's text"
    if turn.kind in ("tool_error", "detail"):
        return "a tool's output"
    if is_summary(turn):
        return "a compaction summary"
    return "the person" if turn.role == "user" else "the assistant"


def _spoken_between(turns: Sequence[Turn], a: int, b: int) -> bool:
    """Between turns a and b, the person spoke: two answers, not one answer's text
    blocks with its calls between them."""
    return any(t.kind == "prompt" and not is_summary(t) for t in turns[a + 1: b])


def _voice(turns: Sequence[Turn], texts: list[str], hit: _Hit, piece: str) -> str:
    """Who said a piece where it was found: an assistant's turn that quotes the person
    ("The current prompt is: \"…\"") gives the person's words, not its own."""
    source = _source(turns[hit.turn])
    if source != "the assistant" or not hit.exact:
        return source
    before = texts[hit.turn][:hit.start]
    if before.count('"') % 2 == 1 and any(
            t.kind == "prompt" and not is_summary(t) and piece in texts[k]
            for k, t in enumerate(turns)):
        return "the person"
    return source


def _span_ok(hits: list[_Hit], turns: Sequence[Turn]) -> bool:
    """The pieces follow each other within MAX_GAP turns, not counting the tool lines
    that hang between two texts of one stretch of work (an assistant's text blocks of
    one answer, with its calls between them, are one place)."""
    at = [h.turn for h in hits]
    if at != sorted(at):
        return False
    between = turns[min(at) + 1: max(at) + 1]
    return sum(1 for t in between if t.kind not in _HANGING) <= MAX_GAP


# --------------------------------------------------------------------------- the verifier


def _fail(check: str, hit: _Hit | None, turns: Sequence[Turn], detail: str = "") -> Verdict:
    if hit is None:
        return Verdict(False, check, detail=detail)
    return Verdict(False, check, hit.turn, speaker_of(turns[hit.turn]), detail)


def locate(quote: str, turns: Sequence[Turn]) -> tuple[_Hit | None, str | None, str]:
    """Where the (cleaned) quote is: (hit, failed check or None, detail)."""
    texts = _texts(turns)
    hits = _find_all(quote, texts)
    if hits:
        return _pick(hits, turns), None, ""
    if " … " in quote:
        # An ellipsis the transcript itself holds (code's `{ c: …, ... }`, "wait..."):
        # the quote whole, not an elision.
        for dots in (" ... ", "...", "... ", " ...", "…", " …", "… "):
            hits = _find_all(quote.replace(" … ", dots), texts)
            if hits:
                return _pick(hits, turns), None, ""
    pieces = [p.strip(" \"'") for p in _ELLIPSIS.split(quote) if p.strip(" \"'")]
    if len(pieces) > 1:
        changed: list[tuple[_Hit, str, str]] = []
        found = _locate_pieces(pieces, texts, turns, changed)
        if found is None:
            return None, "not_found", "a piece of the elided quote is not in the transcript"
        if changed:  # a long quote with "…" that flips a negation inside one piece
            hit, why, region = changed[0]
            return hit, why, f"the transcript says: {region[:120]}"
        if not _span_ok(found, turns):
            return found[0], "stitched", "the pieces come from distant turns"
        for (a, pa), (b, pb) in pairwise(zip(found, pieces, strict=True)):
            va, vb = _voice(turns, texts, a, pa), _voice(turns, texts, b, pb)
            if a.turn != b.turn and va != vb:
                # A commit message's line "…" a tool's warning: one quote made of what
                # two different voices said (issue 21: a stitched quote).
                return a, "stitched", f"the pieces come from {va} and {vb}"
            gap = (texts[a.turn][a.end:b.start] if a.turn == b.turn
                   else texts[a.turn][a.end:] + " " + texts[b.turn][:b.start])
            if a.turn == b.turn and len(_CUT_MARKER.sub(" ", gap)) > STITCH_GAP:
                # Two places of one long answer, paragraphs apart: joined, not shortened.
                return a, "stitched", (f"the “…” joins places {len(gap)} characters apart "
                                       "in one answer")
            # Across turns every word left out counts: the "…" joins two speakers.
            if dropped_words(gap, across=a.turn != b.turn):
                left = gap.strip()[:80]
                if a.turn != b.turn and _spoken_between(turns, a.turn, b.turn):
                    # Two answers joined by "…", words spoken between them: a quote
                    # stitched from two places, not one place shortened.
                    return a, "stitched", (f"the “…” joins turns {a.turn} and {b.turn}, "
                                           f"leaving out: {left}")
                return a, "elision", f"the “…” leaves out: {left}"
        return found[0], None, ""
    fz = _fuzzy(quote, texts)
    if fz is not None:
        hit, region = fz
        why = region_differs(quote, region)
        if why is not None:
            return hit, why, f"the transcript says: {region[:120]}"
        return hit, None, ""
    # Sentences or speakers joined without a marker: each found, but where?
    parts = [p.strip(" \"'") for p in _SENTENCE.split(_LABEL.sub("\n", quote))]
    parts = [p for p in parts if len(_WORD.findall(p)) >= 2]
    if len(parts) > 1:
        found = _locate_pieces(parts, texts, turns)
        if found is not None:
            if not _span_ok(found, turns):
                return found[0], "stitched", "the sentences come from distant turns"
            return found[0], None, ""
    return None, "not_found", ""


_HANGING = ("tool_call", "tool_error", "detail")  # lines that hang under the prose above
NEAR_TURNS = 12  # the stretch of conversation a fact may draw its names from


def _far_idents(idents: list[str], turns: Sequence[Turn], i: int) -> list[str]:
    """Of the names a fact uses beyond its quote's neighbourhood, those not said within
    NEAR_TURNS turns of it either (the same piece of work names them)."""
    lo, hi = max(0, i - NEAR_TURNS), min(len(turns), i + NEAR_TURNS + 1)
    hay = normalise("\n".join(render_turn(t) for t in turns[lo:hi]))
    return [x for x in idents if not _present(x, hay)]


def _neighbourhood(turns: Sequence[Turn], i: int) -> str:
    """The turn, and the spoken turn on each side with the tool lines in between."""
    lo = i - 1
    while lo > 0 and turns[lo].kind in _HANGING:
        lo -= 1
    hi = i + 1
    while hi < len(turns) - 1 and turns[hi].kind in _HANGING:
        hi += 1
    # At least two turns each way: a prompt queued while the assistant worked may sit
    # between the prose and the call it describes.
    lo, hi = max(0, min(lo, i - 2)), min(len(turns) - 1, max(hi, i + 2))
    return "\n".join(render_turn(t) for t in turns[lo: hi + 1])


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
            normalise(quote))) and _REPORTS_DONE.search(normalise(turns[at].text)) and \
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


# A report that work is done and working: what the person's next words may contradict.
_REPORTS_DONE = re.compile(
    r"\b(?:successfully|(?:implementation|migration|refactor|setup|fix) (?:is )?complete"
    r"|all (?:tests|checks) pass(?:ing|ed)?|(?:is|are) now (?:passing|working|fixed)"
    r"|now works|fixed and verified|has been (?:resolved|fixed))\b|✅|^#+ .*\bfixed\b")

def _next_words_report_a_problem(turns: Sequence[Turn], at: int) -> int | None:
    """The person's very next words after a report of work done, when they say
    something is wrong ("the app hangs", "what happened?"): their turn, or None. (Passing
    over an errand in between, "git push", hinted true facts on the tuning sets.)"""
    nxt = next((j for j in range(at + 1, min(len(turns), at + 12))
                if turns[j].kind in ("prose", "prompt")), None)
    if nxt is not None and turns[nxt].kind == "prompt" and \
            _PROBLEM.search(normalise(turns[nxt].text)[:800]):
        return nxt
    return None
_NOW_WORKING = re.compile(r"\b(?:is|are) now (?:passing|working)\b")
# A person's words that say something is wrong ("it still hangs", "the app crashes").
_PROBLEM = re.compile(
    r"\b(?:still|hangs?|hanging|haning|stuck|freez\w*|fail\w*|errors?|broken|crash\w*"
    r"|not working|(?:does|did|is|are)\s*n[o']?t\s+work\w*|the problem|a problem"
    r"|problem (?:is|with)|an issue|the issue|bug|wrong|invalid|same (?:error|issue|problem"
    r"|thing)|nothing (?:happens|happened|changed|shows)|what (?:hap+e+n+e?d|went wrong)"
    r"|why (?:did|does|is|isn't|doesn't) (?:it|this|that))\b")
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


def _names_shared(a: str, b: str) -> bool:
    """Both name the same identifier (a path, a dotted or snake name, a flag)."""
    na = normalise(a)
    return any(_present(i, na) for i in identifiers(b))


def verify(
    fact: str, evidence: str, turns: Sequence[Turn], *, confidence: float = 1.0,
    said_by: str | None = None, tool_texts: Sequence[tuple[str, str, str]] = (),
) -> Verdict:
    """Check that `evidence` is a real, whole quote supporting `fact`: a failed check
    (what is known: not in the transcript, a negation, number, name or flag value
    changed, only a call line, only a summary's) is unsupported; a suspicion (corrected
    later, hedged, another speaker, a quote too short to say much, a look's call line)
    is a hint on a supported verdict. `tool_texts` (what tools were given and gave back,
    `ReadStats.tool_texts`) is where a quote the conversation lacks may still be."""
    quote = clean_quote(evidence)
    if not quote:
        return Verdict(False, "not_found", detail="no evidence given")
    short = too_short(quote)
    if short:
        hits = _find_all(quote, _texts(turns))
        hit, check, detail = (_pick(hits, turns), None, "") if hits else (
            None, "not_found", "")
    else:
        hit, check, detail = locate(quote, turns)
    if hit is None and check == "not_found" and tool_texts:
        tooled = _from_tools(fact, quote, tool_texts)
        if tooled is not None:
            return tooled
    elif check in _NEAR_ONLY and tool_texts:
        # Only nearly in the conversation (a call line cut at its length limit, a
        # sentence re-flowed), but whole in what a tool was given or gave back: that is
        # where it was said.
        tooled = _from_tools(fact, quote, tool_texts)
        if tooled is not None and tooled.check != "stitched":
            return tooled
    if check is not None or hit is None:
        return _with_hint(_fail(check or "not_found", hit, turns, detail), fact, quote,
                          turns, said_by, evidence, tool_texts)
    turn = turns[hit.turn]
    failed: Verdict | None = None
    hint: tuple[str, str] | None = None
    # The fact against its quote first: a changed value is the reason, wherever it is.
    idents, nums = missing_terms(fact, _neighbourhood(turns, hit.turn))
    nowhere = missing_terms(" ".join(idents), "\n".join(_texts(turns)))[0] if idents else []
    changed_units = unit_changed(fact, quote)
    marked = _marked_wrong(turn.text, quote)
    if marked and not _predicate_negations(fact):
        failed = _fail("negation_flip", hit, turns, f"the quote's line is marked “{marked}”: "
                       "what it says is the wrong way")
    elif flips_negation(fact, quote) or flips_meaning(fact, quote):
        failed = _fail("negation_flip", hit, turns, "the fact says the opposite of its quote")
    elif beyond := comparison_flipped(fact, quote):
        failed = _fail("negation_flip", hit, turns, f"the fact says “{beyond}”; the quote "
                       "gives that value itself")
    elif changed_units:
        failed = _fail("number_mismatch", hit, turns, "the quote gives another value: "
                       + ", ".join(changed_units))
    elif setting := setting_changed(fact, evidence):
        failed = _fail("number_mismatch" if re.search(r"\d$", setting) else
                       "identifier_mismatch", hit, turns, "the quote sets it otherwise: "
                       + setting)
    elif counted := number_beside_changed(fact, quote):
        failed = _fail("number_mismatch", hit, turns, "the quote counts it otherwise: "
                       + counted)
    elif nums:
        failed = _fail("number_mismatch", hit, turns, "not near the quote: " + ", ".join(nums))
    elif nowhere:  # named nowhere in the session: known wrong
        failed = _fail("identifier_missing", hit, turns, "not in the session: "
                       + ", ".join(nowhere))
    elif slip := _slip_near(fact, turns, hit.turn, tool_texts):
        failed = _fail("identifier_mismatch", hit, turns, "the fact's name is nowhere in the "
                       f"session; beside the quote it reads {slip[1]}, not {slip[0]}")
    elif moved := transition_changed(fact, quote):
        failed = _fail("number_mismatch", hit, turns, moved)
    elif moved := moved_from(fact, evidence):
        failed = _fail("identifier_mismatch", hit, turns, moved + "; the fact names the old "
                       "one as current")
    elif reverted := edit_reverted(fact, quote):
        failed = _fail("number_mismatch" if re.search(r"\d, the value", reverted) else
                       "identifier_mismatch", hit, turns, reverted)
    elif field := field_changed(fact, evidence):
        failed = _fail("identifier_mismatch", hit, turns, field)
    elif variant := code_variant(fact, quote):
        failed = _fail("identifier_mismatch", hit, turns, "the fact's code differs from "
                       "its quote's: " + variant)
    elif turn.kind == "detail" and turn.tool in _WRITERS and _write_failed(turns, hit.turn):
        failed = _fail("tool_line", hit, turns, "the file was never written: its write failed")
    elif (turn.kind == "tool_call" and not _is_look(turn)) or _shell_prompt(turn):
        failed = _fail("tool_line", hit, turns, "a tool call says what was run, not what is "
                       "true")
    elif is_summary(turn) and confidence >= CONFIDENT:
        failed = _fail("summary_only", hit, turns, "only a compaction summary says so")
    elif turn.kind == "tool_call":
        hint = ("tool_line", "only a look's call line shows it (what was read, not a finding)")
    elif turn.kind == "detail" and turn.tool in _WRITERS and _RAN.search(normalise(fact)):
        hint = ("tool_line", "the quote is what a written file says, not that it was run")
    elif turn.kind == "detail" and turn.tool in _WRITERS and (
            aside := _written_aside(turns, hit.turn, quote, tool_texts)):
        hint = aside
    elif flagged := flag_word_changed(fact, evidence):
        hint = ("identifier_mismatch", "the fact gives the flag another value: " + flagged)
    elif swap := swapped_name(fact, quote):
        hint = ("identifier_mismatch", f"the fact names {swap[0]} where its quote names "
                f"{swap[1]}")
    elif idents and (far := _far_idents(idents, turns, hit.turn)):
        # said only far away: the fact may join two places
        hint = ("identifier_missing", "named elsewhere in the session, far from the quote: "
                + ", ".join(far))
    verdict = failed or Verdict(True, None, hit.turn, speaker_of(turn))
    if turn.kind == "tool_error" and not failed:
        refuted = _in_a_failure(fact, quote, turn)
        if refuted:
            return dataclasses.replace(verdict, hint="corrected_later", hint_detail=(
                f"the quote is part of a failure: “{_clip(refuted, 160)}”"))
    verdict = _with_hint(verdict, fact, quote, turns, said_by, evidence, tool_texts)
    if verdict.hint is None and hint is not None:
        verdict = dataclasses.replace(verdict, hint=hint[0], hint_detail=hint[1])
    if verdict.hint is None and short and (rule := _rule_words(fact, quote)):
        verdict = dataclasses.replace(verdict, hint="too_short", hint_detail=(
            f"{len(words(quote))} words cannot carry a rule (“{rule}”)"))
    return verdict


_RULE = re.compile(r"\b(?:must|always|every|never|all|without|each|whenever|any time"
                   r"|required|mandatory|only)\b")


def _rule_words(fact: str, quote: str) -> str:
    """The word that makes the fact a rule ("must", "always", "every", "without") when
    the quote lacks it: a short quote found is no suspicion, a rule built on one is."""
    q = normalise(quote)
    for m in _RULE.finditer(normalise(fact)):
        if m.group() not in q:
            return m.group()
    return ""


# A line that says what follows is the wrong way ("WRONG:", "❌", "Don't:", "Avoid:").
_WRONG_MARK = re.compile(r"^\s*(?:[-*>]\s*)?(?:\*\*)?(wrong|incorrect|bad|don't|do not|avoid"
                         r"|never|not this|before|old|❌|✗|✘)\b\W*", re.I)


def _marked_wrong(text: str, quote: str) -> str:
    """The mark ("WRONG", "❌") on the line the quote sits in, when the quote itself does
    not carry it: the line shows the wrong way, a fact stating it is inverted."""
    for line in text.split("\n"):
        low = normalise(line)
        at = low.find(quote)
        if at < 0:
            continue
        m = _WRONG_MARK.match(line)
        if m and at >= len(normalise(line[: m.end()])) - 1 and not _WRONG_MARK.match(quote):
            return m.group(1)
        return ""
    return ""


def _write_failed(turns: Sequence[Turn], i: int) -> bool:
    """The Write/Edit whose body is turn i failed (rejected, aborted): nothing was written.
    A body written is what the file now says (issue 21: a true `const BREAK_TIME = 5 * 60`
    was marked a mere tool line)."""
    for j in range(i + 1, min(len(turns), i + 6)):
        t = turns[j]
        if t.kind == "tool_error" and t.tool == turns[i].tool:
            return True
        if t.kind in ("prompt", "prose", "summary"):
            return False
    return False


WAS, NOW = "was: ", "\nnow: "  # a small edit sent whole: what it replaced, then its text
_CALL_PATH = re.compile(r"^(?:Write|Edit|MultiEdit|NotebookEdit)\s+(\S+)")


def _now_side(turn: Turn) -> str:
    """A turn as it says things now: of an edit sent whole, its new text only (its `was:`
    side is the state it replaced, not the session's last word)."""
    text = turn.text
    if turn.kind == "detail" and turn.tool in _WRITERS and text.startswith(WAS) and NOW in text:
        return text.split(NOW, 1)[1]
    return render_turn(turn)


def _written_aside(turns: Sequence[Turn], i: int, quote: str,
                   tool_texts: Sequence[tuple[str, str, str]] = ()) -> tuple[str, str] | None:
    """A quote of a written body that is not what the file now says, as condensation
    sends it: the `was:` side of an edit (the state it replaced), or a comment of written
    code (the `notes:` line, a comment line of a small piece: what the code says of
    itself, which the code may not do). (hint, detail), or None. The same provenance
    `_from_tools` gives a quote found only in what a tool was given."""
    text = turns[i].text
    piece = next((p for p in _ELLIPSIS.split(quote) if p.strip()), quote).strip()
    if text.startswith(WAS) and NOW in text:
        old, new = text[len(WAS):].split(NOW, 1)
        if piece in normalise(old) and piece not in normalise(new):
            return "corrected_later", ("the quote is what the edit replaced (its `was:` "
                                       "side), not what the file says now")
        text = new
    if tool_texts:  # a later edit of the same file replaced the line: what says so
        texts = _tool_norm(tool_texts)
        k = next((k for k, (w, n, t) in enumerate(texts)
                  if w == "input" and n in _WRITERS and piece in t), None)
        if k is not None and (replaced := _edited_away(tool_texts, texts, k, piece)):
            return "corrected_later", replaced
    call = turns[i - 1].text if i and turns[i - 1].kind == "tool_call" else ""
    path = m.group(1) if (m := _CALL_PATH.match(call)) else ""
    if _PROSE_FILE.search(path.casefold()):
        return None
    for ln in text.split("\n"):
        if piece in normalise(ln):
            if ln.startswith("notes: ") or _COMMENT.match(ln):
                return "tool_line", ("only a comment in the written code says so, not the "
                                     "code itself")
            return None
    return None


def _shell_prompt(turn: Turn) -> bool:
    """A command the person ran in the terminal's `!` mode: a tool line, not words."""
    return turn.kind == "prompt" and turn.text.startswith("! ")


_NEAR_ONLY = ("elision", "stitched", "negation_flip", "number_mismatch", "identifier_mismatch")
_WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})  # a body written: a tool's
_FAILURE_WORDS = re.compile(r"no such file|not found|cannot|can't|could not|failed|error|denied"
                            r"|refused|invalid|unknown|missing|not recognized|traceback")


def _in_a_failure(fact: str, quote: str, turn: Turn) -> str:
    """The line of a failure the quote sits in, when that line says it failed and the
    fact says nothing of a failure (a command named in "No such file", stated as the way
    to do it); else ""."""
    line = next((ln for ln in map(normalise, turn.text.split("\n")) if quote in ln), "")
    if not line:
        return ""
    # The failure is about the quote when the quote is a part of its line (a command in
    # "X: No such file"), not the message itself restated ("File … exceeds the limit").
    rest = line.replace(quote, " ")
    if not _FAILURE_WORDS.search(rest) or _FAILURE_WORDS.search(quote) or \
            len(quote) > 0.6 * len(line):
        return ""
    if _predicate_negations(fact) or _FAILURE_WORDS.search(normalise(fact)):
        return ""
    return line


_LOOK_CALL = re.compile(r"^(?:Read|Grep|Glob|LS|NotebookRead)\b")


def _is_look(turn: Turn) -> bool:
    """A call that only read (a Read, a `cat`): its line shows what exists."""
    from capture.noise import read_only

    text = turn.text
    if text.startswith(SCRIPT_PREFIX):  # a script's later line: a call line of its own
        return read_only(text[len(SCRIPT_PREFIX):])
    return bool(_LOOK_CALL.match(text)) or (text.startswith("Bash: ") and read_only(text[6:]))


_TOOL_NORM: list[tuple[int, list[tuple[str, str, str]]]] = []  # one job's, reused


def _tool_norm(tool_texts: Sequence[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    if _TOOL_NORM and _TOOL_NORM[0][0] == id(tool_texts) and len(_TOOL_NORM[0][1]) == len(
            tool_texts):
        return _TOOL_NORM[0][1]
    out = [(which, name, normalise(text)) for which, name, text in tool_texts]
    _TOOL_NORM[:] = [(id(tool_texts), out)]
    return out


def _changed_against(
    fact: str, quote: str, text: str, pieces: list[str]
) -> Verdict | None:
    """What is known wrong about a quote found in a tool's text: words left out by its
    "…", a negation flipped, a number or name the fact changed."""
    at = text.find(pieces[0])
    for a, b in pairwise(pieces):
        start = text.find(a, at)
        end = text.find(b, start + len(a)) if start >= 0 else -1
        if start < 0 or end < 0:
            break
        gap = text[start + len(a): end]
        if dropped_words(gap):
            return Verdict(False, "elision", speaker="tool",
                           detail="the “…” leaves words out of a tool's output")
        at = end
    if flips_negation(fact, quote) or flips_meaning(fact, quote):
        return Verdict(False, "negation_flip", speaker="tool",
                       detail="the fact says the opposite of its quote")
    if unit_changed(fact, quote):
        return Verdict(False, "number_mismatch", speaker="tool", detail=(
            "the quote gives another value: " + ", ".join(unit_changed(fact, quote))))
    first = text.find(pieces[0])
    near = text[max(0, first - 600): first + len(quote) + 600]
    idents, nums = missing_terms(fact, near)
    if nums:
        return Verdict(False, "number_mismatch", speaker="tool",
                       detail="not near the quote: " + ", ".join(nums))
    if idents and not any(i in text for i in (normalise(x) for x in idents)):
        nowhere = missing_terms(" ".join(idents), "\n".join(t for _, _, t in _TOOL_NORM[0][1])
                                if _TOOL_NORM else "")[0]
        if nowhere:
            return Verdict(False, "identifier_missing", speaker="tool",
                           detail="not in the session: " + ", ".join(nowhere))
    return None


def _from_tools(
    fact: str, quote: str, tool_texts: Sequence[tuple[str, str, str]]
) -> Verdict | None:
    """A quote the conversation lacks, found in what a tool gave back (a file read, a
    command's output: evidence, speaker "tool") or was given (a command, a file written:
    a tool line). None when it is in neither. Nothing of these texts goes in a detail:
    they are not redacted."""
    pieces = [p.strip(" \"'") for p in _ELLIPSIS.split(quote) if p.strip(" \"'")]
    found: tuple[str, str] | None = None
    texts = _tool_norm(tool_texts)
    holders = [k for k, (_w, _n, text) in enumerate(texts) if all(p in text for p in pieces)]
    # What was run or written wins over an output that echoes it (a traceback, a file read).
    holders.sort(key=lambda k: texts[k][0] != "input")
    for k in holders:
        which, _name, text = texts[k]
        changed = _changed_against(fact, quote, text, pieces)
        if changed is not None:
            return changed
        if which == "input":  # what was run: a tool line, even if its output echoes it
            failed_next = next((w for w, _, _ in texts[k + 1: k + 8]
                                if w in ("output", "error")), None) == "error"
            if _name in _WRITERS and not failed_next:  # a body written: the file says so
                if _RAN.search(normalise(fact)):
                    # What a file says it does (a usage line) is not that it was run.
                    return Verdict(True, None, speaker="tool", hint="tool_line",
                                   hint_detail="the quote is what a written file says, not "
                                   "that it was run")
                if replaced := _edited_away(tool_texts, texts, k, pieces[0]):
                    return Verdict(True, None, speaker="tool", hint="corrected_later",
                                   hint_detail=replaced)
                if _in_a_comment(tool_texts[k][2], pieces[0]):
                    return Verdict(True, None, speaker="tool", hint="tool_line", hint_detail=(
                        "only a comment in the written code says so, not the code itself"))
                return Verdict(True, None, speaker="tool")
            return Verdict(False, "tool_line", speaker="tool", detail=(
                "only what a tool was given (a command, a file written) says so"),
                hint="corrected_later" if failed_next else None,
                hint_detail="the call it was part of failed" if failed_next else "")
        if which == "summary":
            return Verdict(False, "summary_only", speaker="tool",
                           detail="only the session's generated title says so")
        if which == "thinking":
            return _from_thinking(fact, quote, text)
        call = texts[k - 1][2] if k and texts[k - 1][0] == "input" else ""
        found = (which, call[:2000] + "\n" + text)
        break
    if found is None:
        if len(pieces) > 1 and all(any(p in t for _, _, t in _tool_norm(tool_texts))
                                   for p in pieces):
            return Verdict(False, "stitched", speaker="tool",
                           detail="the pieces come from different tool outputs")
        return None
    which, text = found
    at = text.find(pieces[0])
    near = text[max(0, at - 600): at + len(quote) + 600]
    idents, nums = missing_terms(fact, near)
    if flips_negation(fact, quote) or flips_meaning(fact, quote):
        return Verdict(False, "negation_flip", speaker="tool",
                       detail="the fact says the opposite of its quote")
    if nums:
        return Verdict(False, "number_mismatch", speaker="tool",
                       detail="not near the quote: " + ", ".join(nums))
    if idents:
        return Verdict(True, None, speaker="tool", hint="identifier_missing",
                       hint_detail="not near the quote in the tool's output: "
                       + ", ".join(idents))
    return Verdict(True, None, speaker="tool")


# A fact that says something was done (run, used, deployed), not what a file says.
_RAN = re.compile(r"\b(?:was|were|got|has been|have been) (?:used|run|ran|executed|invoked"
                  r"|called|deployed|installed|applied|streamed|launched|started)\b"
                  r"|\b(?:ran|executed|invoked|deployed|launched)\b")


def _from_thinking(fact: str, quote: str, text: str) -> Verdict:
    """A quote of the assistant's thinking (never sent, but in the transcript): what is
    known wrong against it, else supported, said by the assistant, with the suspicions
    a spoken quote gets."""
    at = text.find(quote)
    near = text[max(0, at - 600): at + len(quote) + 600]
    nums = missing_terms(fact, near)[1]
    if flips_negation(fact, quote) or flips_meaning(fact, quote):
        return Verdict(False, "negation_flip", speaker="assistant",
                       detail="the fact says the opposite of its quote")
    if nums:
        return Verdict(False, "number_mismatch", speaker="assistant",
                       detail="not near the quote: " + ", ".join(nums))
    if fact_speaker(fact) == "user":
        return Verdict(True, None, speaker="assistant", hint="speaker",
                       hint_detail="the quote is the assistant's thinking, not the user's")
    if hedged(quote) and not hedged(fact):
        return Verdict(True, None, speaker="assistant", hint="hedged", hint_detail=(
            "the quote is a guess in the assistant's thinking; the fact states it as found"))
    if opinion(quote) and not _ATTRIBUTED.search(normalise(fact)):
        return Verdict(True, None, speaker="assistant", hint="hedged", hint_detail=(
            "the quote is a judgement in the assistant's thinking; the fact states it as "
            "found"))
    if denied := dropped_negation(fact, quote):
        return Verdict(True, None, speaker="assistant", hint="negation_flip", hint_detail=(
            f"the quote says “{denied}”; the fact, restating it, denies nothing"))
    return Verdict(True, None, speaker="assistant")


# A fact that says who said or did it ("the user decided", "Claude found").
_FACT_SPEAKER = re.compile(
    r"\b(?:(?P<user>the user|the person|the developer|the human|user's)|(?P<assistant>"
    r"claude|the assistant|the agent|the model))\b"
    r"(?:'s)?\s+(?:\w+ly\s+)?(?:said|says|set|sets|asked|asks|wants|wanted|decided|decides|"
    r"diagnosed|found|noticed|noted|reported|prefers|preferred|chose|requested|insisted|"
    r"confirmed|suggested|proposed|explained|pointed|rule|decision|request|preference|"
    r"instructed|told|stated|identified|discovered|concluded|believes|thinks|observed|"
    r"established|determined|figured|realized|realised|learned|clarified|specified|"
    r"mentioned|emphasized|emphasised|required|explained|verified|confirmed|chose|"
    # agreeing or turning down is a speaker's act too ("The user agreed that …")
    r"agreed|agrees|accepted|accepts|approved|approves|rejected|rejects|declined|declines|"
    r"acknowledged|acknowledges|conceded|admitted|liked|likes|disliked|objected|argued|"
    r"answered|replied|responded|wrote|writes|picked|opted|settled|endorsed|dismissed|"
    # what someone said, named as theirs ("the user's requirement", "Claude's diagnosis")
    r"requirement|instruction|idea|suggestion|plan|proposal|diagnosis|analysis|explanation|"
    r"finding|conclusion|choice|view|opinion|words|question|complaint|report|claim|advice|"
    r"recommendation|recommends|recommended|advised|advises|guessed|guesses|assumed|assumes)\b"
)


def fact_speaker(fact: str) -> str | None:
    """Who the fact says spoke, when it says so ("The user decided …")."""
    low = normalise(fact)
    m = _FACT_SPEAKER.search(low)
    if m is None:
        m = _SPEAKER_PHRASE.search(low)
        if m is None:
            return None
    return "user" if m.group("user") or m.groupdict().get("user2") else "assistant"


# "According to the user, …", "per Claude", "as the user put it", "user-requested"
_SPEAKER_PHRASE = re.compile(
    r"\b(?:according to|per|as|in the words of|at the request of)\s+(?:(?P<user>the user|the "
    r"person|the developer)|(?P<assistant>claude|the assistant|the agent|the model))\b"
    r"|\b(?:(?P<user2>user)|(?P<assistant2>assistant|claude))-(?:requested|suggested|proposed"
    r"|reported|specified|chosen|approved)\b")


def _with_hint(
    verdict: Verdict, fact: str, quote: str, turns: Sequence[Turn], said_by: str | None,
    evidence: str = "", tool_texts: Sequence[tuple[str, str, str]] = (),
) -> Verdict:
    """The first suspicion about the quote, if any, added to a verdict with a turn."""
    if verdict.turn is None or verdict.hint:
        return verdict
    at = verdict.turn
    turn = turns[at]
    speaker = speaker_of(turn)
    here = _texts(turns)[at]  # the quote's turn, normalised once a job
    named = fact_speaker(fact)  # the fact says who spoke: checked before anything else
    # What a tool printed is the assistant's finding, never the person's words.
    if named and speaker != named and not (speaker == "tool" and named == "assistant"):
        return dataclasses.replace(verdict, hint="speaker", hint_detail=(
            f"the quote is the {speaker}'s, not the {named}'s"))
    # The speaker the candidate names (its `source`), checked as early as the fact's own.
    claimed = said_by if said_by in SPEAKERS else None
    if claimed and speaker not in (claimed, "tool"):
        return dataclasses.replace(verdict, hint="speaker", hint_detail=(
            f"the quote is the {speaker}'s, not the {claimed}'s"))
    if wrong_way := expected_otherwise(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote is an error (“{wrong_way}”): what it received is what it rejects"))
    if (lead := negated_before(here, quote, normalised=True)) and not _predicate_negations(fact):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote starts right after “{lead}”: its sentence says the opposite"))
    if (limit := limited_after(here, quote, normalised=True)) and not re.search(
            r"\b(?:except|only|unless|but|not|as long as)\b", normalise(fact)):
        return dataclasses.replace(verdict, hint="elision", hint_detail=(
            f"the quote stops before its sentence limits it: “{limit}”"))
    if flipped := object_flip(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the fact does the opposite to the same thing: {flipped}"))
    if default := default_otherwise(fact, evidence or quote, turn.text):
        return dataclasses.replace(verdict, hint="number_mismatch", hint_detail=(
            f"the quote gives an explicit value; its turn gives the default otherwise: "
            f"“{_clip(default, 160)}”"))
    later = _correction(turns, at, quote, fact)
    if later is not None and hedged(quote) and not hedged(fact) and any(
            t.kind == "prompt" and not is_summary(t) for t in turns[at + 1: later]):
        # A guess is tested at once: a cue found only after the person spoke again is
        # weaker than the hedge the quote itself shows.
        later = None
    if later is None:
        later = _overruled(turns, at, quote, fact)
    if later is None:
        later = _answered_otherwise(turns, at, quote)
    if later is None:
        later = _rechecked(turns, at, fact, quote, tool_texts)
    if later is None:
        later = _later_not_found(turns, at, fact)
    if later is None:
        later = _failed_just_before(turns, at, quote)
    if later is None:
        later = _replied_against(turns, at)
    if later is None:
        later = _actual_variant(turns, at, fact, evidence or quote)
    if later is None and (reset := _set_otherwise_later(turns, at, fact, evidence or quote)):
        return dataclasses.replace(verdict, hint=reset[0], hint_detail=reset[1])
    if later is not None:
        said = " ".join(render_turn(turns[later]).split())
        return dataclasses.replace(verdict, hint="corrected_later",
                                   hint_detail=f"turn {later}: “{_clip(said, 200)}”")
    if hedged(quote) and not hedged(fact) and not _KEPT_AS_VIEW.search(normalise(fact)):
        # "The user judged that … is probably fine" keeps the guess as someone's view.
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote is a guess, an estimate or an opinion; the fact states it as found"))
    if speaker != "tool" and not hedged(fact) and not _KEPT_AS_VIEW.search(
            normalise(fact)) and (around := _hedge_around(here, quote, normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote's own sentence says “{around}”; the fact states it as found"))
    if not too_short(quote) and _YES_NO.match(quote) and not _ASKED_IN_FACT.search(
            normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote asks whether it is so; the fact states it as the answer"))
    if speaker == "assistant" and (asked := asks(quote)) and not asks(fact):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote asks or offers (“{asked}”); the fact states it as done"))
    if speaker != "tool" and opinion(quote) and not _ATTRIBUTED.search(normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            "the quote is a judgement; the fact states it as found, not as someone's view"))
    if denied := dropped_negation(fact, quote):
        return dataclasses.replace(verdict, hint="negation_flip", hint_detail=(
            f"the quote says “{denied}”; the fact, restating it, denies nothing"))
    if speaker != "tool" and (strong := _OVERCLAIM.search(_expand(normalise(fact)))) and \
            not _OVERCLAIM.search(_expand(quote)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the fact says “{strong.group()}”; its quote states no such certainty"))
    if speaker != "tool" and not hedged(fact) and (
            borrowed := _borrowed_from_a_guess(fact, quote, here,
                                                normalised=True)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the fact's “{borrowed[0]}” comes from a guess or generalisation beside the "
            f"quote: “{_clip(borrowed[1], 160)}”"))
    if speaker != "tool" and (condition := _IF_CLAUSE.search(quote)) and \
            not _CONDITIONED.search(normalise(fact)):
        return dataclasses.replace(verdict, hint="hedged", hint_detail=(
            f"the quote holds only “{condition.group().strip()}”; the fact drops the "
            "condition"))
    return verdict


def opinion(text: str) -> bool:
    """The text judges ("cleaner", "overkill", "much better") rather than finds."""
    return bool(_OPINION.search(normalise(text)))


HEDGE_REACH = 40  # characters beside a quote a hedge left out of it may sit in
_GUESS_WORDS = re.compile(r"\b(?:i think|i believe|i suspect|i guess|probably|likely|maybe"
                          r"|perhaps|might|possibly|presumably|it seems|seems like|appears to"
                          r"|my guess is|i'm guessing|hopefully)\b")


_NEGATED_LEAD = re.compile(r"(?:\b(?:not|never|no longer|don't|do not|doesn't|does not"
                           r"|didn't|did not|isn't|aren't|wasn't|won't|cannot|can't|shouldn't"
                           r"|should not|must not|mustn't|avoid|stop)\s+(?:\w+\s+){0,1})$")


def negated_before(text: str, quote: str, *, normalised: bool = False) -> str:
    """The quote starts right after a negation its sentence puts on it ("Don't | use npm
    install here"): the quote, cut there, says the opposite. The negation, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    while at >= 0:
        lead = low[max(0, at - 24): at]
        m = _NEGATED_LEAD.search(lead)
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


def _hedge_around(text: str, quote: str, *, normalised: bool = False) -> str:
    """A hedge in the quote's own sentence, left out of the quote ("I think" before "the
    cache is the bottleneck", ", probably" after it): the hedge's words, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    if at < 0:
        return ""
    lo = max((b.end() for b in _SENTENCE_BREAK.finditer(low, 0, at)), default=0)
    end = _SENTENCE_BREAK.search(low, at + len(quote))
    hi = end.start() + 1 if end else len(low)
    # Only the words right beside the quote: a run-on prompt is no one sentence.
    before = low[max(lo, at - HEDGE_REACH): at]
    after = low[at + len(quote): min(hi, at + len(quote) + HEDGE_REACH)]
    m = _GUESS_WORDS.search(before) or _GUESS_WORDS.search(after)
    return m.group() if m else ""


def _sentence_of(text: str, quote: str) -> str:
    """The sentence of `text` (normalised) the quote starts in, and the quote itself."""
    low = normalise(text)
    at = low.find(quote)
    if at < 0:
        return quote
    lo = max((b.end() for b in _SENTENCE_BREAK.finditer(low, 0, at)), default=0)
    return low[lo: at + len(quote)]


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


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


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


_EDITS = frozenset({"Edit", "MultiEdit"})


def _edited_away(raw: Sequence[tuple[str, str, str]], texts: list[tuple[str, str, str]],
                 k: int, piece: str) -> str:
    """A line a file was written with that a later edit of the same file replaced: the
    edit's input holds it once (its old text; a kept line would be in the new text too)
    and nothing later shows it again (a read, an edit's snippet, a rewrite). What says
    so, or ""."""
    path = raw[k][2].split("\n", 1)[0].strip()
    if not path:
        return ""
    for j in range(k + 1, len(texts)):
        which, name, text = texts[j]
        if which != "input" or name not in _EDITS or \
                raw[j][2].split("\n", 1)[0].strip() != path or text.count(piece) != 1:
            continue
        if any(piece in t for _w, _n, t in texts[j + 1:]):
            return ""
        return f"a later edit of {path.rsplit('/', 1)[-1]} replaced this line"
    return ""


_COMMENT = re.compile(r"^\s*(?://|#(?!!)|/\*|\*(?!\*)|<!--|--\s|;;)")
_PROSE_FILE = re.compile(r"\.(?:md|markdown|txt|rst|adoc|org)$")


def _in_a_comment(text: str, piece: str) -> bool:  # text: the raw input
    """The quote sits in an inline comment of a written code file (not a document, not
    the file's header block): what the code says of itself, which the code under it
    may not do. A header's usage lines describe the file's interface, and count."""
    lines = text.split("\n")
    if not lines or _PROSE_FILE.search(lines[0].strip().casefold()):
        return False
    code_before = False
    for ln in lines[1:]:
        if piece in normalise(ln):
            return code_before and bool(_COMMENT.match(ln))
        if ln.strip() and not _COMMENT.match(ln) and not ln.startswith("#!"):
            code_before = True
    return False


# Words that turn an observation into a certainty ("no conflicts" → "cannot have
# conflicts", "works" → "fully functional").
_OVERCLAIM = re.compile(r"\b(?:can not|ca not|cannot|impossible|guaranteed|guarantees?|fully"
                        r"|completely|entirely|permanently)\b")


# A condition the quote's claim holds under, and the words a fact keeps one with.
_IF_CLAUSE = re.compile(r"\b(?:if|unless|assuming|provided that|as long as)\b[^,.;:]{3,60}")
_CONDITIONED = re.compile(r"\b(?:if|unless|when|whenever|assuming|provided|as long as|only"
                          r"|once|after|before|until|while|during|whether)\b")


def _borrowed_from_a_guess(
    fact: str, quote: str, text: str, *, normalised: bool = False
) -> tuple[str, str] | None:
    """A word the fact adds to its quote ("casper") that the quote's turn says only in a
    hedged or generalising sentence ("In a typical Ubuntu LiveCD, this is controlled by
    the casper scripts"): the fact states as found what the turn only supposed. (word,
    sentence), or None."""
    q_stems = {_stem(w) for w in _WORD.findall(quote)}
    extra = {w for w in _WORD.findall(normalise(fact)) if len(w) >= 5 and w not in _STOP
             and _stem(w) not in q_stems}
    if not extra:
        return None
    low = text if normalised else normalise(text)
    sentences = [p for p in _SENTENCE.split(low) if p.strip()]
    said = [(p, {w for w in extra if re.search(r"\b" + re.escape(w) + r"\b", p)})
            for p in sentences if quote not in p]
    for sentence, words_ in said:
        # Two of the fact's own words at least: a claim borrowed, not a word shared.
        if len(words_) >= 2 and (hedged(sentence) or opinion(sentence)):
            # ... and nowhere else in the turn without a hedge
            plain = [p for p, ws in said if ws & words_ and not hedged(p) and not opinion(p)]
            if not plain:
                return sorted(words_)[0], sentence
    return None


# A tool's negative result ("✗ Not available", "not found"), and a success in another.
_NEGATIVE = re.compile(r"✗|✘|\bnot (?:available|found|reachable|installed|supported|present)\b"
                       r"|\bunavailable\b|\bno such\b|\bdoes not exist\b|\bfailed\b")
_POSITIVE = re.compile(r"\b200 ok\b|✓|✔|\bsucceeded\b|\bsuccess(?:ful(?:ly)?)?\b"
                       r"|\bis available\b|\bexists\b|\binstalled\b|\bpassed\b")
RECHECK_TURNS = 10  # the calls right after a result that check it again


def _call_output(tool_texts: Sequence[tuple[str, str, str]], turns: Sequence[Turn],
                 j: int) -> str:
    """What the call of turn j gave back, from what the tools gave (condensation sends an
    output's lines once: the same `HTTP/1.1 200 OK` after a second `curl` is not sent
    again, yet it is that call's answer). The n-th call with this line ↔ the n-th input
    that starts with its command; its output the one as far after its run of inputs as
    it is in that run (parallel calls answer in order). "" when not found."""
    line = without_count(turns[j].text)
    name, _, shown = line.partition(": ")
    shown = shown.removesuffix(" …").strip()
    if not shown or len(shown) < 8:
        return ""
    nth = sum(1 for t in turns[:j] if t.kind == "tool_call" and without_count(t.text) == line)
    seen = 0
    for k, (which, tool, text) in enumerate(tool_texts):
        if which != "input" or tool != name or not text.startswith(shown):
            continue
        if seen < nth:
            seen += 1
            continue
        first = k
        while first > 0 and tool_texts[first - 1][0] == "input":
            first -= 1
        last = k
        while last + 1 < len(tool_texts) and tool_texts[last + 1][0] == "input":
            last += 1
        outs = [t for w, _n, t in tool_texts[last + 1: last + 1 + (last - first + 1)]
                if w in ("output", "error")]
        return outs[k - first] if k - first < len(outs) else ""
    return ""


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
