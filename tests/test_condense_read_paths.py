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


RS = """use std::time::Duration;

pub struct TrendingFetchTask {
    interval: Duration,
}

impl TrendingFetchTask {
    pub fn new(interval: Duration) -> Self {
        Self { interval }
    }

    pub async fn run(&self) {
        loop {
            let rows = fetch_trending().await;
            publish(rows).await;
            tokio::time::sleep(self.interval).await;
        }
    }
}
"""


def test_a_code_read_that_says_nothing_of_itself_names_its_file_and_definitions(
        tmp_path: Path) -> None:
    """No header comment, no doc comment: which file was read went with its call line
    (a look). Its path and what it defines stay, shed first with doc comments."""
    src = "/home/u/other/web-terminal/bin/web-server/src/tasks/trending_fetch.rs"
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Where is trending fetched?"),
        call("Read", {"file_path": src}, "t1"), result(RS, "t1"),
    ])
    turns, _, _ = read_turns(path)
    details = [t.text for t in turns if t.kind == "detail"]
    assert len(details) == 1 and details[0].startswith(src + " documents:\ndefines: ")
    assert "pub struct TrendingFetchTask {" in details[0]
    assert "fetch_trending().await" not in details[0]  # the listing is not kept


def test_a_code_read_is_named_once_and_briefly(tmp_path: Path) -> None:
    """Its first definitions name it; read again, it is not named again (the 3.2 MB
    bench session read 17 such files, some twice: whole lists cost a cent a thousand)."""
    body = "\n".join(f"pub fn handler_number_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n"
                     for i in range(40))
    src = "/home/u/proj/src/handlers.rs"
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("Look at the handlers."),
        call("Read", {"file_path": src}, "t1"), result(body, "t1"),
        call("Read", {"file_path": src}, "t2"), result(body, "t2"),
    ])
    turns, _, _ = read_turns(path)
    details = [t.text for t in turns if t.kind == "detail"]
    assert len(details) == 1
    head, _, defs = details[0].partition("\n")
    assert head == "src/handlers.rs documents:"
    assert defs.startswith("defines: pub fn handler_number_0(") and defs.endswith("; …")
    assert len(defs) <= 170
