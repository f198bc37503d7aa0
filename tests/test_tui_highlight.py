"""Evidence in context: fenced code by language, the quote found and marked, no markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewer.tui import highlight
from reviewer.tui.safe_text import clip, one_line, printable


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "home"))


def test_split_blocks_finds_fences_and_their_languages() -> None:
    text = 'User: look\n```python\ndef f():\n    pass\n```\nAssistant: and\n~~~\n{"a": 1}\n~~~\n'
    blocks = highlight.split_blocks(text)
    assert [b.kind for b in blocks] == [
        "prose",
        "fence",
        "code",
        "fence",
        "prose",
        "fence",
        "code",
        "fence",
        "prose",
    ]
    code = [b for b in blocks if b.kind == "code"]
    assert [b.language for b in code] == ["python", "json"]
    assert "".join(b.text for b in blocks) == text


def test_unclosed_fence_runs_to_the_end() -> None:
    blocks = highlight.split_blocks("a\n```bash\nls -la\n")
    assert [(b.kind, b.language) for b in blocks][-1] == ("code", "bash")


@given(st.text(alphabet=st.sampled_from(list("ab `~\njson{}")), max_size=200))
def test_split_blocks_never_loses_text(text: str) -> None:
    assert "".join(b.text for b in highlight.split_blocks(text)) == text


@pytest.mark.parametrize(
    ("code", "info", "language"),
    [
        ("x", "sh", "bash"),
        ("x", "py", "python"),
        ("x", "diff", "diff"),
        ('{"a": [1, 2]}', "", "json"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b", "", "diff"),
        ("$ uv run pytest\n1 passed", "", "console"),
        ("import os\nprint(os)", "", "python"),
        ("just words", "", "text"),
        ("x", "Rust", "rust"),
    ],
)
def test_language_is_always_named(code: str, info: str, language: str) -> None:
    assert highlight.language_of(code, info) == language


def test_diff_lines_are_coloured() -> None:
    content = highlight.render_diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n")
    plain = content.plain
    styles_at = {
        word: [s.style for s in content.spans if s.start <= plain.index(word) < s.end]
        for word in ("-old", "+new")
    }
    assert any("$text-error" in str(s) for s in styles_at["-old"])
    assert any("$text-success" in str(s) for s in styles_at["+new"])


def test_find_quote_is_tolerant_of_case_quotes_and_whitespace() -> None:
    text = "User: Remember   that we\nuse “uv”, never pip."
    start, end = highlight.find_quote(text, 'remember that we use "uv", never pip...')  # type: ignore[misc]
    assert text[start:end] == "Remember   that we\nuse “uv”, never pip"
    assert highlight.find_quote(text, "not there at all") is None
    assert highlight.find_quote(text, "  ") is None


def test_render_context_marks_the_quote_and_highlights_code() -> None:
    context = 'User: we use uv\n```json\n{"pool_size": 5}\n```\nAssistant: ok'
    content, found = highlight.render_context(context, "we use uv")
    assert found
    start = content.plain.index("we use uv")
    assert any(s.style == highlight.EVIDENCE_STYLE and s.start == start for s in content.spans)
    number = content.plain.index("5")
    assert any(
        s.start <= number < s.end and "$text-warning" in str(s.style) for s in content.spans
    )  # a JSON number, styled by pygments


def test_render_context_takes_hostile_text_literally() -> None:
    nasty = "User: [bold]x[/bold] [/foo] [link=x]y \x1b[31mred\x1b[0m \x07 " + "z" * 20_000
    content, found = highlight.render_context(nasty, "[/foo]")
    assert found
    assert "[/foo]" in content.plain and "[bold]" in content.plain
    assert "\x1b" not in content.plain and "\x07" not in content.plain
    assert len(content.plain) < highlight.MAX_CONTEXT + 100


def test_safe_text_helpers() -> None:
    assert printable("a\x1b[0m\tb\nc\r") == "a␛[0m    b\nc␍"
    assert one_line("a\nb\tc\x1b") == "a ⏎ b c␛"
    assert printable("\x9b") == "\\u{9b}"
    assert clip("abcdef", 3) == "abc … [3 more characters]"
    assert clip("abc", 3) == "abc"
