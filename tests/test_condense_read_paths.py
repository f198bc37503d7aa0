"""A file read's detail names the file as its call line did (issue 21): the call is a
look and is not sent, so a detail headed by the bare name left two `context.md` of two
systems indistinguishable and where the file lives unsaid."""

from __future__ import annotations

from pathlib import Path

from records import call, result, user, write_jsonl

from capture.transcript import read_turns

DOC = "# {0}\n\nThe {0} system reads from ClickHouse and serves the trending API.\n"


def test_a_read_is_named_by_its_path_under_the_session_directory(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Where does trending come from?"),
        call("Read", {"file_path": "/home/u/proj/systems/analytics/context.md"}, "t1"),
        result(DOC.format("analytics"), "t1"),
        call("Read", {"file_path": "/home/u/proj/systems/web-terminal/context.md"}, "t2"),
        result(DOC.format("web-terminal"), "t2"),
        call("Read", {"file_path": "/srv/other/notes.md"}, "t3"),
        result(DOC.format("other"), "t3"),
    ])
    turns, _, _ = read_turns(path)
    heads = [t.text.partition("\n")[0] for t in turns if t.kind == "detail"]
    assert heads == ["systems/analytics/context.md reads:",
                     "systems/web-terminal/context.md reads:", "/srv/other/notes.md reads:"]
