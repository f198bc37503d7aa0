"""`.mem-review/README.md`: the shared facts as a page to read on the git host."""

from __future__ import annotations

from pathlib import Path

import pytest
from sharing_helpers import approve, git, publish, share, team

from reviewer.sharing import format as fmt
from reviewer.sharing import index

FILES = {"src/api.py": "def handler():\n    return 1\n", "src/db.py": "WAL = True\n",
         "README.md": "# proj\n"}


@pytest.fixture
def clones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "alice-home"))
    monkeypatch.setenv("MEM_REVIEW_NO_SPAWN", "1")
    return team(tmp_path, FILES)


def page(root: Path) -> str:
    return (root / index.PATH).read_text()


def test_share_writes_a_page_grouped_by_category_and_file_and_does_not_churn(
    clones: tuple[Path, Path, Path],
) -> None:
    _, alice, _ = clones
    approve(alice, "The handler returns one", ("src/api.py",))
    approve(alice, "The database runs in WAL mode", ("src/db.py",), category="convention")
    approve(alice, "Releases are cut on Mondays", category="todo")
    out = share(alice)
    assert "wrote   .mem-review/README.md" in out and "3 written" in out
    text = page(alice)
    order = [text.index(f"### {t}") for t in ("Decisions", "Conventions", "Open TODOs")]
    assert order == sorted(order)
    assert "### `src/api.py`" in text and "### `src/db.py`" in text
    assert "### Facts that cite no file" in text
    assert "approved by Alice Example on " in text and "alice@example.com" not in text
    assert text.count("[file](facts/") == 3 + 3  # once by category, once by file
    before = text
    again = share(alice)
    assert "README.md" not in again and page(alice) == before


def test_a_fact_whose_file_changed_is_marked_stale_at_the_next_share(
    clones: tuple[Path, Path, Path],
) -> None:
    _, alice, _ = clones
    approve(alice, "The handler returns one", ("src/api.py",))
    share(alice)
    assert "stale" not in page(alice).split("## By category")[1]
    (alice / "src/api.py").write_text("def handler():\n    return 2\n")
    out = share(alice)
    assert "wrote   .mem-review/README.md" in out and "0 written" in out
    assert "⚠ **stale**: The handler returns one" in page(alice)
    assert "1 fact, 1 stale" in page(alice)


def test_teammates_facts_are_on_the_page_and_their_edit_refreshes_it(
    clones: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reviewer.sharing import team as team_view

    _, alice, bob = clones
    approve(alice, "The handler returns one", ("src/api.py",))
    share(alice)
    publish(alice)
    monkeypatch.setenv("MEM_REVIEW_HOME", str(tmp_path / "bob-home"))
    git(bob, "pull", "-q")
    approve(bob, "Bob's own fact about the database", ("src/db.py",))
    share(bob)
    text = page(bob)
    assert "The handler returns one" in text and "Bob's own fact" in text
    assert "approved by Alice Example" in text and "approved by Bob Example" in text
    (tf,) = [t for t in team_view.load(None, str(bob)) if "handler" in t.fact.text]
    team_view.rewrite(str(bob), tf, "The handler returns 1 (an int)", "decision",
                      "Bob Example <bob@example.com>")
    assert "The handler returns 1 \\(an int\\)" in page(bob)
    team_view.retire(str(bob), tf)
    assert "handler" not in page(bob)


def test_the_page_goes_when_the_last_fact_does(clones: tuple[Path, Path, Path]) -> None:
    from reviewer.store.facts import Store

    _, alice, _ = clones
    fid = approve(alice, "The handler returns one", ("src/api.py",))
    share(alice)
    assert (alice / index.PATH).is_file()
    store = Store()
    try:
        store.reject([fid], "wrong", actor="tui")
    finally:
        store.close()
    out = share(alice)
    assert "removed .mem-review/README.md" in out
    assert not (alice / index.PATH).exists()


def test_text_on_the_page_is_redacted_visible_and_inert() -> None:
    key = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    fact = fmt.SharedFact(
        id="11111111-2222-3333-4444-555555555555",
        text=f"Use token {key} <img src=x onerror=alert(1)> [click](http://evil) "
             "hid\u200bden \U000e0041\U000e0042 # not a heading | pipe",
        category="gotcha", files=("src/[x].py",), approved_by="Eve <eve@example.com>",
        approved_at="2026-11-02T10:00:00+00:00",
    )
    text = index.render([fact], set())
    assert key not in text and "[REDACTED" in text.replace("\\[", "[").replace("\\]", "]")
    assert "<img" not in text.replace("\\<img", "") and "](http" not in text
    assert "`src/[x].py`" in text
    assert "\u200b" not in text and "\U000e0041" not in text and "hidden" in text
    assert "\\# not a heading" in text and "\\| pipe" in text
    assert "approved by Eve on 2026-11-02" in text


def test_render_is_deterministic_whatever_the_order() -> None:
    facts = [
        fmt.SharedFact(id=f"00000000-0000-0000-0000-00000000000{n}", text=f"fact {n}",
                       category=cat, files=files, approved_by="A <a@x>",
                       approved_at=f"2026-11-0{n}T00:00:00+00:00")
        for n, cat, files in ((1, "decision", ("b.py", "a.py")), (2, "todo", ()),
                              (3, "decision", ("a.py",)))
    ]
    assert index.render(facts, set()) == index.render(list(reversed(facts)), set())
