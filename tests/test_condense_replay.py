"""Prompts that are not news (issue 21, noise): the file an IDE had open, injected
beside the person's words, and a resumed session's file replaying the person's earlier
words and answers after the conversation."""

from __future__ import annotations

from pathlib import Path

from records import assistant, user, write_jsonl

from capture.transcript import read_turns

OPENED = ("<ide_opened_file>The user opened the file /home/u/proj/docs/plan.md in the IDE. "
          "This may or may not be related to the current task.</ide_opened_file>")
ASK = "read plan.md and roadmap.md. We are going to plan the work for creating the plugin."


def prompts(path: Path) -> list[str]:
    turns, _, _ = read_turns(path)
    return [t.text for t in turns if t.kind == "prompt"]


def test_the_file_an_ide_had_open_is_not_the_persons_words(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user([{"type": "text", "text": OPENED}]),
        user([{"type": "text", "text": OPENED + "\nfix the typo in it"}]),
    ])
    assert prompts(path) == ["fix the typo in it"]


def test_a_replayed_conversation_sends_the_persons_words_once(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user(ASK), assistant([{"type": "text", "text": "Plan written."}], "m1"),
        user("continue"), assistant([{"type": "text", "text": "Done."}], "m2"),
        # The file goes on with the same words again (a resumed session replays them).
        user(ASK), user("continue"),
        assistant([{"type": "text", "text": "Published."}], "m3"),
    ])
    # A short prompt said again is a person saying it again; a long one is a replay.
    assert prompts(path) == [ASK, "continue", "continue"]
