"""Suspicion: the claim is hedged, an opinion, attributed to someone, or a guess.

A hedge is a hint beside the evidence, never knowledge (issue 21).
"""

from __future__ import annotations

import re

from capture.ground import normalise
from capture.verify.cues import HEDGES, find, says
from capture.verify.words import (
    _SENTENCE,
    _STOP,
    _WORD,
    _expand,
    _stem,
    sentence_bounds,
    sentence_start,
)

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
    r"|would expect|expected to|or something|or whatever|sort of)\b"
    r"|~\s?\d|[約约大]\s?[\d$¥]"
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
    r"|in most cases"
    # a verdict of safety or health ("**Still secure:**", "is now safe", "stays healthy")
    r"|(?:still|is|are|remains?|stays?|fully|completely|now|keeps? \w+(?: \w+)?) (?:secure"
    r"|safe|healthy|optimal|bulletproof|reliable))\b")
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
    r"|considered|opinion|view|suggests?|suggested|recommends?|recommended"
    r"|proposed|proposes|judged|judges|argues?|argued"
    r"|according to|guess(?:ed|es)?|hypothes\w+|may|might|possibly|probably"
    r"|estimated|estimates?|suspects?|suspected)\b"
    # verbs a thing may take too ("the model expected `id`", "Coverage reported 90%"):
    # a view only with a person as their subject
    r"|\b(?:the user|the person|the developer|claude|the assistant|the agent|the model|i|we"
    r"|they|he|she|someone|the team|the reviewer)\s+(?:\w+\s+)?(?:says?|said|wants?|wanted"
    r"|claims?|claimed|reports?|reported|expects?|expected)\b")


def hedged(text: str) -> bool:
    """The text says it is a guess or an opinion ("might", "I think", "probably"), in
    English or another language's words (`cues.HEDGES`)."""
    low = normalise(text)
    return bool(_HEDGE.search(low)) or says(HEDGES, low)


# A fact that says who said or did it ("the user decided", "Claude found").
_FACT_SPEAKER = re.compile(
    r"\b(?:(?P<user>the user|the person|the developer|the human|user's)|(?P<assistant>"
    r"claude|the assistant|the agent|the model))\b"
    r"(?:'s)?\s+(?:\w+ly\s+)?(?:(?:also|then|later|first|finally|initially|originally"
    r"|ultimately|already|eventually|himself|herself|themselves|itself|itself|who|that)\s+)?"
    r"(?:said|says|set|sets|asked|asks|wants|wanted|decided|decides|"
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
# Any act of the speaker in the past tense ("the user worked out", "Claude spotted"): not
# after "'s" ("the user's shared config" is a thing, not an act).
_FACT_ACT = re.compile(
    r"\b(?:(?P<user>the user|the person|the developer|the human)|(?P<assistant>claude|the "
    r"assistant|the agent|the model))\s+(?:\w+ly\s+)?(?:[a-z]{2,}(?<!e)ed|worked out"
    r"|came up with|figured out|thought|knew|wrote|made|saw|spotted|caught|gave|took|ran"
    r"|found out)\b")


# "The user requires …", "the user expects …": any verb of the person's in the present,
# the person the sentence's subject (not "hooks read what the user types"), and not a
# noun the person owns ("the user settings are …").
_FACT_PRESENT = re.compile(
    r"(?:^|[.;:,]\s)\W*(?P<user>the user|the person|the developer|the human)\s+(?:\w+ly\s+)?"
    r"(?!(?:is|has|was|does|sessions|settings|files|prompts|messages|hooks|skills|agents"
    r"|commands|rules|preferences|instructions|inputs|requests|needs|permissions|configs"
    r"|directories|dirs|paths|credentials|keys|tools|plugins|scripts)\b)[a-z]{3,}(?<!ss)s\b"
    r"(?!\s+(?:are|were|is|was|have|has|can|could|will|would|should|must|may|might|get"
    r"|live|go|stay)\b)")


def fact_speaker(fact: str) -> str | None:
    """Who the fact says spoke, when it says so ("The user decided …")."""
    low = normalise(fact)
    m = _FACT_SPEAKER.search(low) or _SPEAKER_PHRASE.search(low) or _FACT_ACT.search(low) \
        or _FACT_PRESENT.search(low)
    if m is None:
        return None
    groups = m.groupdict()
    return "user" if groups.get("user") or groups.get("user2") or groups.get("user3") \
        else "assistant"


# "According to the user, …", "per Claude", "as the user put it", "user-requested"
_SPEAKER_PHRASE = re.compile(
    r"\b(?:according to|per|as|in the words of|at the request of)\s+(?:(?P<user>the user|the "
    r"person|the developer)|(?P<assistant>claude|the assistant|the agent|the model))\b"
    r"|\b(?:(?P<user2>user)|(?P<assistant2>assistant|claude))-(?:requested|suggested|proposed"
    r"|reported|specified|chosen|approved)\b"
    # "chosen by the user", "a workaround found by Claude"
    r"|\b(?:decided|chosen|requested|suggested|proposed|found|identified|diagnosed|reported"
    r"|specified|picked|confirmed|asked|noticed|stated|said|set|written|researched|discovered"
    r"|recommended|approved|rejected|insisted on|pointed out|explained|dictated|mandated"
    r"|required|supplied|provided|given)\s+by\s+(?:(?P<user3>the user|the person|the developer"
    r"|the human)|(?P<assistant3>claude|the assistant|the agent|the model))\b"
    # (not "by the user script", "by the model config": the speaker ends the phrase)
    r"(?=\s*(?:[.,;:!?)]|$|(?:and|to|in|on|at|for|as|when|after|before|because|during|with"
    r"|while|since|so|but|earlier|later|first|explicitly|directly|instead|itself|himself"
    r"|herself|themselves)\b))")


def opinion(text: str) -> bool:
    """The text judges ("cleaner", "overkill", "much better") rather than finds."""
    return bool(_OPINION.search(normalise(text)))


HEDGE_REACH = 40  # characters beside a quote a hedge left out of it may sit in
_GUESS_WORDS = re.compile(r"\b(?:i think|i believe|i suspect|i guess|probably|likely|maybe"
                          r"|perhaps|might|possibly|presumably|it seems|seems like|appears to"
                          r"|my guess is|i'm guessing|hopefully)\b")


def _hedge_around(text: str, quote: str, *, normalised: bool = False) -> str:
    """A hedge in the quote's own sentence, left out of the quote ("I think" before "the
    cache is the bottleneck", ", probably" after it): the hedge's words, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    if at < 0:
        return ""
    lo, hi = sentence_bounds(low, at, len(quote))
    # Only the words right beside the quote: a run-on prompt is no one sentence.
    before = low[max(lo, at - HEDGE_REACH): at]
    after = low[at + len(quote): min(hi, at + len(quote) + HEDGE_REACH)]
    m = _GUESS_WORDS.search(before) or _GUESS_WORDS.search(after)
    if m:
        return m.group()
    for side in (before, after):  # "…かもしれません", "vielleicht …"
        if spans := find(HEDGES, side):
            return side[spans[0][0]:spans[0][1]]
    return ""


# Words that turn an observation into a certainty ("no conflicts" → "cannot have
# conflicts", "works" → "fully functional").
# A fact that says a check was made; the quote words of a check (English or not), which
# a fact built on a bare claim ("has been fixed") lacks.
_VERIFIED = re.compile(r"\b(?:verified|confirmed|tested|validated|proven|proved|double-checked"
                       r"|(?:was|were|been) (?:checked|shown|seen|observed))\b")
_CHECK_SHOWN = re.compile(r"verif|confirm|test|pass|check|valid|prove|proof|shown|shows"
                          r"|success|succeed|works?\b|worked|\bok\b|✓|✔|✅|確認|検証|テスト|成功"
                          r"|通過|验证|测试|确认|통과|확인|테스트")


def unverified(fact: str, quote: str) -> str:
    """The fact says a check was made ("confirmed to show up again"); its quote words no
    check at all ("The status line configuration has been fixed."): the fact's word, or
    ""."""
    low = normalise(fact)
    m = _VERIFIED.search(low)
    if m is None or _CHECK_SHOWN.search(normalise(quote)) or _NOT_CHECKED.search(low):
        return ""
    return m.group()


# The fact says the check was NOT made ("never confirmed", "unverified", "not tested").
_NOT_CHECKED = re.compile(r"\b(?:not|never|n't|no|without|unverified|untested|unconfirmed"
                          r"|yet to be)\b(?:\W+\w+){0,3}?\W+(?:verified|confirmed|tested"
                          r"|validated|checked|proven|proved|shown|seen|observed)\b"
                          r"|\b(?:unverified|untested|unconfirmed)\b")


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


# An absence bounded by a look ("No vulnerabilities detected", "didn't find any leaks"):
# what a check saw, which a fact stating there are none ("has no vulnerabilities") turns
# into a guarantee.
# (A report's line, "No X detected": not "I couldn't find any X in the client", a search
# of the code that says what the code holds.)
_SEEN_NONE = re.compile(
    r"\bno\s+(?P<noun>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:were\s+|was\s+|are\s+|is\s+)?"
    r"(?:detected|found|seen|observed|reported|identified|spotted|flagged)\b"
    r"|\bnothing\s+(?P<noun2>[\w-]+)\s+(?:was\s+)?(?:detected|found|seen|observed|reported"
    r"|identified|spotted|flagged)\b")
_LOOKED = re.compile(r"\b(?:detect\w*|found|find\w*|seen|see|saw|observ\w*|report\w*"
                     r"|identif\w*|spott\w*|visible|shown|flag\w*|scan\w*|check\w*|test\w*"
                     r"|audit\w*|look\w*|search\w*|review\w*|analy\w*|so far|yet)\b")


def seen_none(fact: str, quote: str) -> str:
    """The quote says a look found none of something; the fact, naming the same thing,
    says there is none, with no word of a look: the quote's words, or ""."""
    f = _expand(normalise(fact))
    if _LOOKED.search(f) or not re.search(r"\b(?:no|not|none|nothing|never|without|zero)\b", f):
        return ""
    for m in _SEEN_NONE.finditer(_expand(normalise(quote))):
        noun = (m.group("noun") or m.group("noun2")).split()[-1]
        if len(noun) >= 4 and _stem(noun) in {_stem(w) for w in _WORD.findall(f)}:
            return m.group()
    return ""


_ALTERNATIVE_AFTER = re.compile(r"^\W{0,3}(?:,\s*)?or\b")


def guessed_alternative(text: str, quote: str, *, normalised: bool = False) -> str:
    """The quote is one of the alternatives a guessing sentence offers ("likely because
    A, or B"): it starts with "or" / "either", or an "or" follows it, and its sentence
    guesses. The guess's words, or ""."""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    if at < 0:
        return ""
    lo, hi = sentence_bounds(low, at, len(quote))
    before, after = low[lo:at], low[at + len(quote): hi]
    alternative = re.match(r"(?:or|either)\b", quote) or _ALTERNATIVE_AFTER.match(after) or (
        re.search(r"\beither\b", before) and re.search(r"\bor\b", quote + after))
    if not alternative:
        return ""
    m = _GUESS_WORDS.search(before) or _GUESS_WORDS.search(after)
    return m.group() if m else ""


# The quote says what is about to be done ("Let me add …", "I'll run …", "Here's how to
# test …"); the fact says it was done.
_INTENT = re.compile(
    r"(?:^|[.!?:;]\s+|\n)\W*(?P<intent>let me|let's|let us|i'll|i will|we'll|we will"
    r"|i'm going to|we're going to|i am going to|next,? (?:i|we)(?:'ll| will)|i need to"
    r"|we need to|now (?:i|we)(?:'ll| will| need to)|here's how|here is how|to test (?:it|this)"
    r"|you can (?:test|verify|check|try|run)|try (?:running|this))\b")
_DONE = re.compile(
    r"\b(?:was|were|has been|have been|got|is now|are now)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|un|t)\b"
    r"|\b(?:tested|verified|confirmed|validated|checked|ran|fixed|resolved)\b")


def intended(fact: str, quote: str, text: str, *, normalised: bool = False) -> str:
    """The quote's sentence says what is about to be done; the fact says it was done
    (tested, fixed, added): the words of intent, or ""."""
    f = normalise(fact)
    if not _DONE.search(f) or _INTENT.search(f) or re.search(r"\b(?:plan\w*|will|to be)\b", f):
        return ""
    low = text if normalised else normalise(text)
    at = low.find(quote)
    if at < 0:
        return ""
    lo = sentence_start(low, at)
    m = _INTENT.search(low[lo: at + len(quote)])
    return m.group("intent") if m else ""


# A fact that names one cause; a quote that lists several ("A, B or C", "A・B・C 等",
# "such as A and B"): the fact picked one of the possibilities.
_CAUSAL = re.compile(r"\b(?:because|caused by|due to|the cause|the reason|root cause"
                     r"|stems from|results from|resulted from)\b")
_LISTED = re.compile(r"・[^・]+・|(?:等|など|といった)が?(?:含まれ|あり|考えられ)"
                     r"|\b(?:such as|e\.g\.|for example|including|among them|etc\.?|and so on"
                     r"|or other)\b"
                     r"|,[^,.;]{2,60},? or\b")


def one_of_listed(fact: str, quote: str) -> str:
    """The fact states one cause where its quote lists several possible ones: the
    quote's listing words, or ""."""
    if not _CAUSAL.search(normalise(fact)):
        return ""
    m = _LISTED.search(normalise(quote))
    return m.group().strip(" ,") if m else ""
