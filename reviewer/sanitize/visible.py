"""Characters a terminal does not show: what the person cannot see must not reach Claude.

A fact is approved by a person reading it on a terminal, then injected into a model that
reads every code point. Anything between the two that the terminal draws as nothing (or
not at all) is a hidden channel: Unicode tag characters spell ASCII invisibly, zero-width
and bidi characters hide or reorder words, controls move the cursor. So:

- **Stripped** (`strip`), at every way into the store and every way out: the text sent to
  the model, a fact's text, evidence, context, files, category and reject reason (capture,
  edit, import), and the SessionStart injection (even from a row stored before this
  existed). Stored and injected text never holds one of these.
- **Shown as an escape** (`escape`, `\\u{200b}`) in the review screen, so a row that
  arrives with one (an old store, a row written by hand) shows the person exactly what is
  there, and what stripping would remove before it is sent.

The set (`RANGES`): C0 controls except `\\n` and `\\t` (so `\\r`, ESC, NUL, DEL go), C1
controls U+0080-U+009F, every format character (Unicode category Cf: soft hyphen, zero
width space/joiner/non-joiner, word joiner and invisible operators, bidi embeddings,
overrides, isolates and marks, BOM, Arabic/Syriac marks, interlinear annotation...),
Unicode's Default_Ignorable_Code_Point set (combining grapheme joiner, Hangul fillers
U+115F/U+1160/U+3164/U+FFA0, Khmer inherent vowels, Mongolian free variation selectors and
vowel separator, variation selectors U+FE00-FE0F and U+E0100-E01EF, tag characters
U+E0000-E007F, the rest of plane 14, musical formatting), line/paragraph separators
U+2028/U+2029, braille pattern blank U+2800 (blank padding), every private-use
character (Co: U+E000-F8FF, planes 15-16; a font may draw an icon there, the person
usually sees blank or a box, and a whole ASCII sentence fits), lone surrogates (a JSON
`\\ud800` cannot be encoded for the terminal anyway) and the noncharacters U+FFFE/U+FFFF.

Trade-offs, chosen for the gate: a Nerd Font icon (private use) is shown as `\\u{e0b0}`;
an emoji ZWJ sequence falls apart into its emoji (👩‍💻 → 👩💻),
an emoji's presentation selector goes (❤️ → ❤), and a Persian or Indic
word loses its ZWNJ. Each stays readable; none can carry hidden text. Ordinary spaces
(NBSP, ideographic space) are visible as space and are kept.

Stdlib only and one compiled regex: it runs on the SessionStart hook's path.
"""

from __future__ import annotations

import re

# (first, last) code points, inclusive. A literal table, so importing costs nothing;
# tests/test_visible.py checks it against `unicodedata` of the running Python.
RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008), (0x000B, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD),
    (0x034F, 0x034F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x2028, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xD800, 0xDFFF), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0xFFFE, 0xFFFF),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
    # Drawn blank or as an empty box, yet read by the model: braille pattern blank (used as
    # padding), and every private-use character (Co: BMP U+E000-F8FF, planes 15 and 16,
    # where an ASCII sentence can be encoded whole).
    (0x2800, 0x2800), (0xE000, 0xF8FF), (0xF0000, 0x10FFFF),
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(
        f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges
    ) + "]"


INVISIBLE = re.compile(_char_class(RANGES))


def strip(text: str) -> str:
    """`text` without any character a terminal does not show visibly."""
    return INVISIBLE.sub("", text)


def has_invisible(text: str) -> bool:
    return INVISIBLE.search(text) is not None


def _escape(match: re.Match[str]) -> str:
    return f"\\u{{{ord(match.group()):x}}}"


def escape(text: str) -> str:
    """Every invisible character as a visible `\\u{hex}` (newlines and tabs are kept)."""
    return INVISIBLE.sub(_escape, text)


_PICTURES = {code: 0x2400 + code for code in range(32)}  # ␀..␟: ESC shows as ␛
_PICTURES[0x7F] = 0x2421  # ␡
_PICTURES[ord("\n")] = " ⏎ "
_PICTURES[ord("\t")] = " "


def shown(text: str) -> str:
    """One line for a terminal (`log`, `list`): controls as their pictures (ESC -> ␛), every
    other invisible character as `\\u{hex}`: no escape sequence reaches the terminal."""
    return escape(text.translate(_PICTURES))


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # a surrogate pair, as JSON spells an astral character
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_text(dumped: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with every invisible
    character escaped as `\\uXXXX`: the same value, no raw C1 control or bidi override
    in the output. Safe because JSON's own syntax is plain ASCII: these can only sit
    inside strings."""
    return INVISIBLE.sub(_json_escape, dumped)
