"""Evidence in its context, highlighted: code, JSON, diffs and shell through pygments.

`textual.highlight.highlight` styles tokens with theme variables, so the colours follow
the light and dark themes; its default theme leaves diff lines plain, hence `DiffTheme`.
A language is always given (letting pygments guess costs up to 22 ms a block): from the
fence's info string, else from a cheap look at the code. Everything returned is
`Content` built from plain text, never markup, and control characters are made visible.
Imported lazily (pygments is not needed for the first paint).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pygments.token import Token
from textual.content import Content
from textual.highlight import HighlightTheme, highlight

from reviewer.tui.safe_text import clip, printable

MAX_CONTEXT = 6_000  # characters of context laid out in the detail pane
MAX_DIFF = 8_000
EVIDENCE_STYLE = "bold underline on $warning-muted"

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)
_ALIASES = {
    "sh": "bash", "shell": "bash", "zsh": "bash", "bash": "bash", "console": "console",
    "shell-session": "console", "terminal": "console", "py": "python", "python3": "python",
    "js": "javascript", "ts": "typescript", "yml": "yaml", "patch": "diff", "udiff": "diff",
    "jsonl": "json", "jsonc": "json", "txt": "text", "plaintext": "text", "text": "text",
    "rs": "rust", "rb": "ruby", "md": "markdown", "toml": "toml", "sql": "sql",
}


class DiffTheme(HighlightTheme):
    """The default theme, plus coloured +/- lines and hunk headers."""

    STYLES = {  # noqa: RUF012 (mirrors the parent's class attribute)
        **HighlightTheme.STYLES,
        Token.Generic.Inserted: "$text-success on $success-muted",
        Token.Generic.Deleted: "$text-error on $error-muted",
        Token.Generic.Subheading: "$text-accent",
        Token.Generic.Heading: "bold $text-primary",
        Token.Generic.Prompt: "bold $text-accent",
        Token.Generic.Output: "$text 80%",
        Token.Generic.Traceback: "$text-error",
    }


def language_of(code: str, info: str = "") -> str:
    """The pygments lexer name for a block: the fence's word, else a cheap guess."""
    word = info.strip().lower()
    if word:
        return _ALIASES.get(word, word)
    head = code.lstrip()[:2000]
    lines = head.splitlines()
    if head[:1] in "{[" and head.rstrip()[-1:] in "}]":
        return "json"
    if any(line.startswith("@@ ") for line in lines) or (
        any(line.startswith("--- ") for line in lines)
        and any(line.startswith("+++ ") for line in lines)
    ):
        return "diff"
    if lines and all(line.startswith(("$ ", "# ", "> ")) or not line for line in lines[:1]):
        return "console"
    if re.search(r"^\s*(def |class |import |from \S+ import )", head, re.MULTILINE):
        return "python"
    if lines and lines[0].startswith("Traceback (most recent call last)"):
        return "pytb"
    return "text"


@dataclass(frozen=True)
class Block:
    kind: str  # "prose" | "fence" (the ``` line itself) | "code"
    text: str
    language: str = "text"


def split_blocks(text: str) -> list[Block]:
    """Prose and fenced code blocks, in order, whose texts concatenate back to `text`."""
    blocks: list[Block] = []
    pos = 0
    while True:
        start = _FENCE.search(text, pos)
        if start is None:
            break
        fence, info = start.group(1), start.group(2)
        if start.start() > pos:
            blocks.append(Block("prose", text[pos:start.start()]))
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        body_start = min(len(text), start.end() + 1)
        blocks.append(Block("fence", text[start.start():body_start]))
        end = close.search(text, body_start)
        body_end = end.start() if end else len(text)
        body = text[body_start:body_end]
        if body:
            blocks.append(Block("code", body, language_of(body, info)))
        if end is None:
            pos = len(text)
            break
        blocks.append(Block("fence", text[end.start():end.end()]))
        pos = end.end()
    if pos < len(text):
        blocks.append(Block("prose", text[pos:]))
    return blocks


_LABEL = re.compile(r"^(User|Assistant):", re.MULTILINE)
_TOOL = re.compile(r"^  · [^\n]*$", re.MULTILINE)
_ERROR = re.compile(r"^  ! [^\n]*$", re.MULTILINE)
_MARKER = re.compile(r"\[(?:REDACTED:[\w-]+|… [^\]\n]{0,80} …)\]")


def _prose(text: str) -> Content:
    """Condensed-transcript prose: speaker labels, tool lines and errors styled."""
    content = Content(text)
    spans = []
    for m in _LABEL.finditer(text):
        style = "bold $text-accent" if m.group(1) == "User" else "bold $text-primary"
        spans.append((style, m.start(), m.end()))
    spans.extend(("$text-muted", m.start(), m.end()) for m in _TOOL.finditer(text))
    spans.extend(("$text-error", m.start(), m.end()) for m in _ERROR.finditer(text))
    spans.extend(("italic $text-warning", m.start(), m.end()) for m in _MARKER.finditer(text))
    for style, start, end in spans:
        content = content.stylize(style, start, end)
    return content


def _code(text: str, language: str) -> Content:
    body = text.rstrip("\n")
    content = highlight(body, language=language, theme=DiffTheme)
    if content.plain != body:  # the lexer normalised something: keep offsets exact
        content = Content(body)
    return content + text[len(body):]


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\u2028", "\n").replace("\u2029", "\n")


def render_blocks(text: str) -> Content:
    """Any transcript text, fenced code highlighted by language."""
    parts: list[Content] = []
    for block in split_blocks(text):
        if block.kind == "code":
            parts.append(_code(block.text, block.language))
        elif block.kind == "fence":
            parts.append(Content.styled(block.text, "$text-muted"))
        else:
            parts.append(_prose(block.text))
    return Content("").join(parts) if parts else Content("")


_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _squash(text: str) -> tuple[str, list[int]]:
    """Lowercased, quotes straightened, whitespace runs as one space; with an index map."""
    out: list[str] = []
    where: list[int] = []
    space = False
    for i, ch in enumerate(text.translate(_QUOTES)):
        if ch.isspace():
            if space:
                continue
            out.append(" ")
            where.append(i)
            space = True
            continue
        space = False
        lower = ch.lower()
        out.append(lower if len(lower) == 1 else ch)
        where.append(i)
    return "".join(out), where


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Where `quote` sits in `text`, tolerant of case, quotes and whitespace."""
    needle, _ = _squash(quote.strip().strip("\"'").rstrip(".…").strip())
    if len(needle) < 3:
        return None
    hay, where = _squash(text)
    at = hay.find(needle)
    if at < 0:
        return None
    return where[at], where[at + len(needle) - 1] + 1


def render_context(context: str, evidence: str) -> tuple[Content, bool]:
    """The transcript excerpt with the evidence quote highlighted; (content, quote found)."""
    text = printable(clip(_normalise_newlines(context), MAX_CONTEXT)).rstrip()
    content = render_blocks(text)
    span = find_quote(content.plain, evidence) if evidence else None
    if span is not None:
        content = content.stylize(EVIDENCE_STYLE, *span)
    return content, span is not None


def render_diff(diff: str) -> Content:
    text = printable(clip(_normalise_newlines(diff), MAX_DIFF)).rstrip("\n")
    if not text:
        return Content("")
    return _code(text, "diff")
