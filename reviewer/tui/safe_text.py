"""Make transcript and model text safe to put on a terminal, and show what is hidden.

Facts and evidence are quoted from sessions: they can hold ANSI escapes, carriage
returns, NULs or C1 controls that would move the cursor or recolour the screen if they
reached the terminal, and invisible characters (tag characters, zero-width and bidi
controls, variation selectors; `reviewer.sanitize.visible`) that would hide text from the
person while the model still read it. C0 controls become their visible Unicode pictures
(ESC -> "␛"); every other invisible character becomes a visible escape such as
`\\u{200b}`, so the person sees exactly what is there (and what injection strips before
it is sent). Markup is never parsed (callers wrap text in `Content`/`Text`).
"""

from __future__ import annotations

from reviewer.sanitize import visible

_CONTROL = {code: 0x2400 + code for code in range(32)}  # ␀..␟, the "control pictures"
_CONTROL[0x7F] = 0x2421  # ␡
_MULTILINE = dict(_CONTROL)
del _MULTILINE[ord("\n")]
_MULTILINE[ord("\t")] = "    "
_ONE_LINE = dict(_CONTROL)
_ONE_LINE[ord("\n")] = " ⏎ "
_ONE_LINE[ord("\t")] = " "
_ONE_LINE[ord("\r")] = " "


def printable(text: str) -> str:
    """Keep newlines; show every other control or invisible character visibly."""
    return visible.escape(text.translate(_MULTILINE))


def one_line(text: str) -> str:
    """For list rows: newlines as "⏎", no control characters, invisible ones escaped."""
    return visible.escape(text.translate(_ONE_LINE))


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, saying how much was cut (long lines stay cheap)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit:,} more characters]"
