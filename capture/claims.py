"""What a quote says about a named setting, and what a fact makes of it (issue 21).

Stdlib only, pure functions the verifier (`capture/verify/`) calls. Each compares one
kind of token with the nearest token of the same kind in the quote or a later turn:

- a setting's value (`toggleMode: true`, `maxRecordings = 30`, `--update 5`): a fact
  that gives the same name another value contradicts its quote;
- a move ("from --one-line to --two-line", "A → B", "renamed A to B"): a fact that
  names the old side as current, and not the new one, states what was replaced;
- a labelled field ("**Build command:** leave blank"): a fact that gives the field a
  code value the quote does not;
- a question or an offer ("Want me to commit it?"): a fact that states it as done.
"""

from __future__ import annotations

import re

from capture.ground import normalise

_TRUE = {"true", "on", "yes", "enabled", "enable"}
_FALSE = {"false", "off", "no", "disabled", "disable", "none", "null"}
# A name a reader could look up, in the text as written (case kept): camelCase,
# snake_case, SCREAMING_CASE, a dotted or dashed name, a flag.
# Atomic groups (Python 3.11): a long dotted run is read once, not backtracked through.
_NAME = (r"(?>--?[A-Za-z][\w-]*|[a-z]+[A-Z]\w*|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"
         r"|[A-Za-z][A-Za-z0-9-]*+(?:\.[A-Za-z0-9-]++)++)")
_VALUE = r"(?P<value>-?\d+(?:\.\d+)*|(?i:true|false|on|off|yes|no|enabled|disabled|null|none))"
_SETTING = re.compile(
    r"(?<![\w-])[\"'`]?(?P<key>" + _NAME + r")[\"'`]?"
    r"(?:\s*(?:=|:|=>)\s*|\s+(?:is|was|to|at|of|set to|becomes|now)\s+|\s+)"
    r"[\"'`(]?" + _VALUE + r"(?![\w-]|\.\w)")
# A bare word as a key only with an explicit assignment: "maxrecordings = 30".
_ASSIGNED = re.compile(r"(?<![\w-])(?P<key>[A-Za-z][\w-]{3,})\s*(?:=|:)\s*[\"'`]?" + _VALUE
                       + r"(?![\w-]|\.\w)")


# A flag's value after "=" is any word: `--diff-filter=M`, `--output=json`.
_FLAG_VALUE = re.compile(r"(?<![\w-])(?P<key>--?[A-Za-z][\w-]*)=[\"']?(?P<value>[\w.:/+-]+)")


def _canon(value: str) -> str:
    low = value.casefold()
    if low in _TRUE:
        return "true"
    if low in _FALSE:
        return "false"
    return low


def settings(text: str) -> dict[str, str]:
    """The values a text gives to named settings, by name casefolded: `toggleMode: true`
    → {"togglemode": "true"}; the first value a name is given."""
    out: dict[str, str] = {}
    plain = text.replace("**", "")
    for rx in (_SETTING, _ASSIGNED, _FLAG_VALUE):
        for m in rx.finditer(plain):
            key = m.group("key").casefold().strip(".-")
            if len(key) >= 3 and not key.isdigit():
                out.setdefault(key, _canon(m.group("value")))
    return out


_THEN_VALUE = re.compile(r"\s*,?\s*(?:→|->|=>|to|then)\s*[\"'`]?(-?\d+(?:\.\d+)*|true|false|on|off"
                         r"|yes|no|enabled|disabled)\b", re.I)


def _all_settings(text: str) -> dict[str, set[str]]:
    """Every value a text gives each name, the new side of a move included
    (`maxRecordings: 10 → 30` gives 10 and 30)."""
    out: dict[str, set[str]] = {}
    plain = text.replace("**", "")
    for rx in (_SETTING, _ASSIGNED, _FLAG_VALUE):
        for m in rx.finditer(plain):
            key = m.group("key").casefold().strip(".-")
            if len(key) < 3 or key.isdigit():
                continue
            values = out.setdefault(key, set())
            values.add(_canon(m.group("value")))
            then = _THEN_VALUE.match(plain, m.end())
            if then:
                values.add(_canon(then.group(1)))
    return out


def setting_changed(fact: str, quote: str) -> str:
    """A name the fact and its quote both set, the fact to a value the quote never gives
    it: what differs, or ""."""
    q = _all_settings(quote)
    for key, value in settings(fact).items():
        if key in q and value not in q[key]:
            return f"{key}: the quote says {', '.join(sorted(q[key]))}, the fact {value}"
    return ""


_MOVE = re.compile(
    r"\bfrom\s+[\"'`]?(?P<old>[^\s\"'`,;]{2,80})[\"'`]?\s+(?:to|→|->|into)\s+"
    r"[\"'`]?(?P<new>[^\s\"'`,;]{2,80})"
    r"|(?P<old2>[^\s\"'`,;(]{2,80})[\"'`]?\s*(?:→|->)\s*[\"'`]?(?P<new2>[^\s\"'`,;)]{2,80})"
    r"|\b(?:renamed|replaced|swapped|switched)\s+[\"'`]?(?P<old3>[^\s\"'`,;]{2,80})[\"'`]?"
    r"\s+(?:to|with|for|by)\s+[\"'`]?(?P<new3>[^\s\"'`,;]{2,80})"
    # "updated HANDY_SOCKET_PATH=/v1/update to a new path": an assignment's old value
    r"|\b(?:updated|changed|moved)\s+[\"'`]?(?P<old4>[\w.-]+=[^\s\"'`,;]+)[\"'`]?\s+to\s+"
    r"(?:(?:a|an|the|some)\s+)?(?P<new4>[^\s\"'`,;.]{2,80})", re.I)
# A fact that tells of the move itself, or of the old state as old.
_TELLS_MOVE = re.compile(r"\b(?:from|renamed|replaced|previously|formerly|old|used to|was|were"
                         r"|no longer|instead|switched|swapped|migrated|changed|moved|obsolete"
                         r"|deprecated|legacy|removed|deleted|dropped|gone|superseded|before"
                         r"|→|->)\b|→")
_CODEISH = re.compile(r"[-_./=@]|\d|[a-z][A-Z]")


def moves(text: str) -> list[tuple[str, str]]:
    """Every move a text states, as (old, new): "from A to B", "A → B", "renamed A to B"."""
    out = []
    for m in _MOVE.finditer(text.replace("**", "")):
        old = m.group("old") or m.group("old2") or m.group("old3") or m.group("old4")
        new = m.group("new") or m.group("new2") or m.group("new3") or m.group("new4")
        out.append((old.strip(".:()"), new.strip(".:()")))
    return out


def moved_from(fact: str, quote: str) -> str:
    """The quote moves a name or value from A to B; the fact names A as current and not
    B: what it gets wrong, or "". Only names and values (a flag, a path, a number), not
    prose ("from start to finish")."""
    f = normalise(fact)
    if _TELLS_MOVE.search(f):
        return ""
    for m in _MOVE.finditer(quote.replace("**", "")):
        old = m.group("old") or m.group("old2") or m.group("old3") or m.group("old4")
        new = m.group("new") or m.group("new2") or m.group("new3") or m.group("new4")
        old, new = old.strip(".:()"), new.strip(".:()")
        if not _CODEISH.search(old) or old.casefold() == new.casefold():
            continue
        o, n = normalise(old), normalise(new)
        if re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", f) and not re.search(
                r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", f):
            return f"the quote moves {old} to {new}"
    return ""


_FIELD = re.compile(r"(?:^|\n|[*-]\s)\**(?P<label>[A-Za-z]+(?: [A-Za-z]+){1,4})\**\s*:\**\s*"
                    r"(?P<value>[^\n]{1,160})")
_TICK = re.compile(r"`([^`\n]{2,80})`")
_STOP = {"the", "a", "an", "of", "for", "to", "and", "or", "in", "on", "its", "is"}


_WAS_NOW = re.compile(r"(?:^|\s)was:\s(?P<old>.*?)\snow:\s(?P<new>.*)", re.S)


def edit_reverted(fact: str, quote: str) -> str:
    """A quote of an edit sent whole (`was: retries: 3 now: retries: 5`) whose fact gives
    a setting the value the edit replaced, as current: what differs, or "". A fact that
    tells of the change itself ("was 3", "from 3 to 5") is right."""
    m = _WAS_NOW.search(quote)
    if m is None or _TELLS_MOVE.search(fact.casefold()):
        return ""
    old, new = _all_settings(m.group("old")), _all_settings(m.group("new"))
    for key, value in settings(fact).items():
        if key in new and value not in new[key] and value in old.get(key, ()):
            return (f"the edit sets {key} to {', '.join(sorted(new[key]))}; the fact gives "
                    f"{value}, the value it replaced")
    return ""


def field_changed(fact: str, quote: str) -> str:
    """The quote gives a labelled field ("**Build command:** leave blank") a value; the
    fact names that field and gives it a code value (`npm run build`) the quote lacks:
    what differs, or ""."""
    f, q = normalise(fact), normalise(quote)
    spans = [normalise(s) for s in _TICK.findall(fact)]
    spans = [s for s in spans if s not in q]
    if not spans:
        return ""
    for m in _FIELD.finditer(quote):
        label = [w for w in re.findall(r"[a-z]+", m.group("label").casefold())
                 if w not in _STOP]
        at = [f.find(w) for w in label]
        # The fact's code value sits beside the field's name ("uses `npm run build` as its
        # build command"), not anywhere in a longer fact.
        near = [x for x in spans if label and min(at) >= 0 and abs(f.find(x) - min(at)) <= 30]
        if label and all(re.search(r"\b" + re.escape(w), f) for w in label) and near:
            value = m.group("value").strip(" *")
            if normalise(value)[:40] in f:
                continue  # the fact quotes the field's value: it changes nothing
            return f"the quote gives {m.group('label').strip()} as “{value[:80]}”, not `{near[0]}`"
    return ""


_OFFER = re.compile(
    r"\b(?:want me to|shall i|should i|would you like(?: me)? to|do you want(?: me)? to"
    r"|i can (?:also )?(?:do|add|make|commit|copy|run|set)|if you(?:'d)? (?:like|want))\b")
_QUESTION_END = re.compile(r"\?\s*$")
# A sentence inside the quote that offers or invites ("Want to test the VPN monitor?
# Here's how:"): what follows it is instructions, not something done.
_OFFER_SENTENCE = re.compile(
    r"(?:^|[.!:]\s+)(?P<ask>(?:(?:do|would) you )?(?:want|like|need)(?: me)? to|ready to"
    r"|shall (?:i|we)|should (?:i|we)|care to|interested in)\b"
    r"(?![^.!?\n]{0,30}\bwhy\?)[^.!?\n]{0,120}\?")


def asks(quote: str) -> str:
    """The quote asks or offers rather than reports ("Want me to commit it?",
    "Should I add X?"): the words that say so, or ""."""
    q = normalise(quote)
    m = _OFFER.search(q)
    if m:
        return m.group()
    if _QUESTION_END.search(q):
        return "?"
    if m := _OFFER_SENTENCE.search(q):
        return m.group("ask")
    return ""


_EXPECTED = re.compile(r"\bexpected:?\s+(?:an?\s+)?(?P<want>[\w-]+),?\s+(?:but\s+)?"
                       r"(?:received|got|found|was given|saw)\s+(?:an?\s+)?(?P<got>[\w-]+)")


def expected_otherwise(fact: str, quote: str) -> str:
    """The quote is an error that expected one thing and received another ("Expected
    array, but received object"); the fact states the received one as the way it is,
    and never names the expected one: the error's words, or ""."""
    f = normalise(fact)
    for m in _EXPECTED.finditer(normalise(quote)):
        want, got = m.group("want"), m.group("got")
        if want == got:
            continue
        if re.search(r"\b" + re.escape(got), f) and not re.search(r"\b" + re.escape(want), f):
            return m.group()
    return ""


_DEFAULT = re.compile(r"\b(?:by default|defaults?|with no (?:value|argument)|without (?:a |an )?"
                      r"(?:value|argument)|when omitted|if omitted|no value|bare)\b")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")
_FLAGLIKE = re.compile(r"(?<![\w-])--?[a-z][\w-]*|`[^`\n]{2,40}`")


def default_otherwise(fact: str, quote: str, text: str) -> str:
    """The fact gives a name's default (`--update` "with no value" refreshes every 10
    seconds) from a quote that gives an explicit value; a line of `text` (the quote's
    turn) that gives the same name's default as another number: that line, or ""."""
    f = normalise(fact)
    if not _DEFAULT.search(f) or _DEFAULT.search(normalise(quote)):
        return ""
    said = set(_NUMBER.findall(f))
    names = {normalise(n).strip("`") for n in _FLAGLIKE.findall(fact)}
    if not said or not names:
        return ""
    for line in text.split("\n"):
        low = normalise(line)
        if not _DEFAULT.search(low) or not any(n in low for n in names):
            continue
        given = set(_NUMBER.findall(low))
        if given and not given & said:
            return line.strip()
    return ""


_COMPARED = re.compile(r"\b(?P<cmp>below|under|less than|fewer than|lower than|above|over"
                       r"|more than|greater than|higher than|exceeds?|exceeding)\s+"
                       r"(?P<num>\d+(?:\.\d+)?)\s?(?P<unit>%|[a-z]{0,4})")
_NEAR_ANY = re.compile(r"\b(?:below|under|less|fewer|lower|above|over|more|greater|higher"
                       r"|exceed\w*|about|around|nearly|almost|roughly|approximately|up to"
                       r"|at least|at most|within|max(?:imum)?|min(?:imum)?)\b|[~<>≤≥]")


def comparison_flipped(fact: str, quote: str) -> str:
    """The fact puts a number beyond a strict bound ("below 100%") that the quote states
    as the value itself ("100% line coverage"), with no bound or approximation of its
    own near it: the fact says it is not that value. The fact's words, or ""."""
    q = normalise(quote)
    for m in _COMPARED.finditer(normalise(fact)):
        num, unit = m.group("num"), m.group("unit")
        # A quote with other values in the same unit tells of a change ("was 100%, now
        # 97%"): the bound may be right.
        others = {x for x in re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)\s?" + re.escape(unit)
                                        + r"(?![a-z])", q)} if unit else set()
        if others - {num}:
            continue
        for at in re.finditer(r"(?<![\d.])" + re.escape(num) + r"(?![\d.])\s?" + re.escape(unit),
                              q):
            if not _NEAR_ANY.search(q[max(0, at.start() - 25): at.start()]):
                return m.group().strip()
    return ""


_FLAG_WORD = re.compile(r"(?<![\w-])(--[a-z][\w-]*)[ \t]+[\"'`]?([a-z0-9][\w.:/+-]{0,30})", re.I)
# Words after a flag that are not its value ("use --verbose for details").
_NOT_VALUE = {"flag", "flags", "option", "options", "to", "for", "with", "and", "or", "when",
              "if", "the", "a", "an", "in", "on", "is", "was", "are", "so", "but", "then",
              "instead", "which", "that", "this", "it", "as", "at", "by", "from", "of", "not",
              "mode", "argument", "parameter", "switch", "only", "also", "too", "will", "can",
              "works", "does", "did", "should", "must", "after", "before", "because"}


def flag_word_changed(fact: str, quote: str) -> str:
    """The same long flag followed by another word value (`--format json` / `--format
    yaml`), the fact's value nowhere in the quote: what differs, or ""."""
    def values(text: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for flag, value in _FLAG_WORD.findall(text):
            if value.casefold() not in _NOT_VALUE and not value.startswith("-"):
                out.setdefault(flag.casefold(), value.casefold().rstrip(".:,"))
        return out
    q, nq = values(quote), normalise(quote)
    for flag, value in values(fact).items():
        if flag in q and q[flag] != value and value not in nq and \
                value[:1].isdigit() == q[flag][:1].isdigit():  # a value for a value
            return f"{flag} {value} where the quote has {flag} {q[flag]}"
    return ""


_NOT_COUNTED = {"the", "and", "for", "with", "from", "that", "this", "are", "was", "were",
                "than", "then", "into", "over", "under", "about", "after", "before",
                "of", "is", "at", "to", "in", "on", "or", "by", "but"}


# (a run of Japanese, Chinese or Korean characters is a word: "40 回" counts 回)
_TOKEN = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\w)|[a-z][a-z0-9_-]*"
                    r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_LINKS = {"on", "at", "to", "of", "is", "are", "was", "were", "be", "by", "in", "its", "the",
          "a", "an", "set", "uses", "use", "with", "has", "have", "every", "each", "about"}


def beside(text: str) -> dict[str, set[str]]:
    """Numbers by the word they count (`_beside`), for the verifier's later turns."""
    return _beside(text)


def _beside(text: str) -> dict[str, set[str]]:
    """Numbers by the word they count or qualify: the next word ("5 retries"), or the
    nearest word before, over linking words ("listens on 8080", "timeout of 30")."""
    out: dict[str, set[str]] = {}
    low = normalise(text)
    found = list(_TOKEN.finditer(low))
    toks = [m.group() for m in found]

    def joined(a: int, b: int) -> bool:  # only spaces between tokens a and b
        return not low[found[a].end(): found[b].start()].strip()

    def labelled(a: int) -> bool:  # a label and its number: "approvals: 2", "retries = 5"
        return low[found[a].end(): found[a + 1].start()].strip() in (":", "=")

    for i, tok in enumerate(toks):
        if not tok[0].isdigit():
            continue
        words = []
        if i + 1 < len(toks) and not toks[i + 1][0].isdigit() and joined(i, i + 1):
            words.append(toks[i + 1])
        for k in range(i - 1, max(-1, i - 4), -1):
            if toks[k][0].isdigit() or not (joined(k, k + 1) or (k == i - 1 and labelled(k))):
                break
            if toks[k] not in _LINKS:
                words.append(toks[k])
                break
        for word in words:
            if word not in _NOT_COUNTED and word not in _LINKS and (
                    len(word) >= 3 or not word.isascii()):
                out.setdefault(word.rstrip("s"), set()).add(tok)
    return out


def number_beside_changed(fact: str, quote: str) -> str:
    """The fact and its quote count the same thing with different numbers ("5 retries" /
    "3 retries", "timeout of 60" / "timeout of 30"), the fact's number nowhere in the
    quote: what differs, or ""."""
    q, nq = _beside(quote), normalise(quote)
    for word, said in _beside(fact).items():
        if word in q and not said & q[word]:
            n = sorted(said)[0]
            # The fact's number may stand in the quote, counting something else ("178
            # succeeded of 180 attempts" / "180 succeeded"): numbers swapped, not a
            # number of the quote's.
            elsewhere = {w for w, ns in q.items() if n in ns}
            if not re.search(r"(?<![\d.])" + re.escape(n) + r"(?![\d])", nq) or (
                    elsewhere and word not in elsewhere and len(said) == 1
                    and len(q[word]) == 1 and not _SHARED_COUNT.search(nq)):
                return f"{n} {word} where the quote has {', '.join(sorted(q[word]))}"
    return ""


# A quote that relates its numbers ("178 of 180", "180 total, 178 ok"): a count of one
# thing may also be the count of the other.
_SHARED_COUNT = re.compile(r"\d\s*(?:of|out of|/)\s*\d|\btotal\b|\ball\b|\beach\b|\bevery\b"
                           r"|\bper\b|\bboth\b|=")


# A setting that switches a thing on or off (`x.enabled='1'`, `disable_ipv6: true`,
# `--no-cache`), and the words a fact states a thing's state with.
_SWITCH_KEY = re.compile(r"(?:^|[._-])(?P<word>enabled?|disabled?|active|activated|on|off)$")
_ON_WORDS = re.compile(r"\b(?:enabled|turned on|switched on|activated|active|on)\b")
_OFF_WORDS = re.compile(r"\b(?:disabled|turned off|switched off|deactivated|inactive|off)\b")
_NEGATION = re.compile(r"\b(?:not|no longer|never|isn't|wasn't|aren't|weren't)\b")
_KEY_PART = re.compile(r"[a-z]{3,}")
# A whole dotted or snake key set to a switch's value: `a.b_c.enabled='1'`, `x_enabled: true`.
_SWITCH = re.compile(r"(?<![\w.@-])(?P<key>[A-Za-z][\w.@\[\]-]*)\s*(?:=|:)\s*[\"'`]?"
                     r"(?P<value>1|0|(?i:true|false|on|off|yes|no))(?![\w-])")


def state_flipped(fact: str, quote: str) -> str:
    """The quote switches a named thing on (`firewall.wan_drop_leaked_dns.enabled='1'`)
    and the fact says it was switched off, or the other way round, naming what the
    setting's name names ("WAN DNS leak protection"): the setting, or ""."""
    f = normalise(fact)
    on, off = bool(_ON_WORDS.search(f)), bool(_OFF_WORDS.search(f))
    if on == off:
        return ""
    says_on = on != bool(_NEGATION.search(f))
    f_stems = {w[:4] for w in re.findall(r"[a-z]{3,}", f)}
    for a in _SWITCH.finditer(quote):
        key, value = a.group("key").casefold(), _canon(a.group("value"))
        m = _SWITCH_KEY.search(key)
        if m is None:
            continue
        truthy = value in ("true", "1")
        sets_on = truthy if m.group("word") in ("enable", "enabled", "active", "activated",
                                                "on") else not truthy
        parts = {w[:4] for w in _KEY_PART.findall(key[: m.start()])} - {"conf", "sett", "opti"}
        if sets_on != says_on and len(parts & f_stems) >= 2:
            return f"the quote sets {key} to {value}"
    return ""
