"""What a long session keeps when the budget forces choices (issue 21): the session's
own writing and findings over what only announces or explores, judged by form, not by
English words (a Japanese session announces its calls as "〜を作成します：")."""

from __future__ import annotations

from capture.condense import render
from capture.fit import fit, only_announces
from capture.transcript import Turn


def turn(kind: str, text: str, tool: str | None = None, line: int = 1) -> Turn:
    role = "user" if kind == "prompt" else "assistant"
    return Turn(role, kind, text, line=line, offset=0, tool=tool)  # type: ignore[arg-type]


def size(turns: list[Turn]) -> int:
    return len(render(turns).encode())


def test_a_colon_ended_last_sentence_announces_in_any_language() -> None:
    assert only_announces("ESLint設定ファイルを作成します：")
    assert only_announces("Now the config file:")
    assert not only_announces("原因が分かりました：config.yamlのportが8080です。設定を直します：")
    # A decision said before the call is not an announcement, colon or not.
    assert not only_announces("Let me revert and use a different approach - we'll use "
                              "subpath imports in package.json:")


def test_japanese_narration_loses_its_announcement_and_keeps_its_finding() -> None:
    found = "既存のREADME.mdと競合しているようです。"
    said = found + "まずREADME.mdの内容を確認します："
    filler = " ".join(f"Edited module_{i} to use the new loader." for i in range(40))
    turns = [turn("prompt", "作って"), turn("prose", said),
             turn("tool_call", "Bash: mv a b", "Bash"), turn("prose", filler)]
    out = fit(turns, size(turns) - 20)
    prose = [t.text for t in out if t.kind == "prose"]
    assert prose[0] == found + " […]"
    assert prose[1] == filler


def test_narration_that_only_announces_goes_before_a_written_config_is_cut() -> None:
    """The call line says what an announcement says: a config the session wrote holds
    the values (issue 21: every body of a Japanese session was cut to its ends while
    "〜を作成します：" before each call was sent whole)."""
    body = "\n".join(f"  SETTING_{i}: value-{i}" for i in range(60))
    turns = [turn("prompt", "デプロイを設定して")]
    for i in range(30):
        turns += [turn("prose", "設定ファイルを作成します：", line=2 + 2 * i),
                  turn("tool_call", f"Write conf{i}.txt", "Write", line=3 + 2 * i)]
    turns += [turn("prose", "workflowを作成します：", line=90),
              turn("tool_call", "Write deploy.yml", "Write", line=91),
              turn("detail", body, "Write", line=91),
              turn("prose", "完了しました。deploy.ymlはmainへのpushでデプロイします。", line=92)]
    announced = sum(len(t.text.encode()) for t in turns
                    if t.kind == "prose" and t.text.endswith("："))
    out = fit(turns, size(turns) - announced // 2)
    assert [t.text for t in out if t.kind == "detail"] == [body]
    assert out[-1].text == turns[-1].text
    assert all(t in out for t in turns if t.kind == "tool_call")
