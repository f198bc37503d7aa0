"""Make transcript and model text safe to put on a terminal.

Facts and evidence are quoted from sessions: they can hold ANSI escapes, carriage
returns, NULs or C1 controls that would move the cursor or recolour the screen if they
reached the terminal. Control characters become their visible Unicode pictures (ESC ->
"␛"); markup is never parsed (callers wrap text in `Content`/`Text`, not markup strings).
"""

from __future__ import annotations

_CONTROL = {code: 0x2400 + code for code in range(32)}  # ␀..␟, the "control pictures"
_CONTROL[0x7F] = 0x2421  # ␡
_CONTROL.update({code: 0xFFFD for code in range(0x80, 0xA0)})  # C1 controls: �
_MULTILINE = dict(_CONTROL)
del _MULTILINE[ord("\n")]
_MULTILINE[ord("\t")] = "    "
_ONE_LINE = dict(_CONTROL)
_ONE_LINE[ord("\n")] = " ⏎ "
_ONE_LINE[ord("\t")] = " "
_ONE_LINE[ord("\r")] = " "


def printable(text: str) -> str:
    """Keep newlines; show every other control character as a visible symbol."""
    return text.translate(_MULTILINE)


def one_line(text: str) -> str:
    """For list rows: newlines as "⏎", no control characters."""
    return text.translate(_ONE_LINE)


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, saying how much was cut (long lines stay cheap)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit:,} more characters]"
