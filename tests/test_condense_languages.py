"""Words and sentences in a language written without spaces (issue 21: a session whose
person and assistant wrote Japanese around English code), numbers as findings, and a
long report cut to a fraction keeping its middle's findings."""

from __future__ import annotations

from records import fitted_after_filler

from capture.fit import _middle
from capture.results import answer_words, quoted_lines


def test_names_and_numbers_inside_japanese_are_words() -> None:
    words = answer_words("デモは計40回の監査記録、settle_vaultは178件成功（180回試行）。")
    assert {"40", "178", "180", "settle_vault"} <= words


def test_a_japanese_answer_draws_on_the_lines_it_names() -> None:
    body = "\n".join([f"slot {i}: skipped" for i in range(30)]
                     + ["settle_vault txs: 178 ok / 180 sent"] + ["done"])
    answer = "結果：settle_vaultは178件成功、180件送信しました。"
    assert quoted_lines(body, answer) == ["settle_vault txs: 178 ok / 180 sent"]


def test_japanese_narration_is_cut_at_its_full_stops() -> None:
    said = "原因が分かりました：config.yamlのportが8080です。確認してみます。"
    out = fitted_after_filler("なぜ8080？", said, "Bash: vi x", 20)
    assert "原因が分かりました：config.yamlのportが8080です。" in out


def test_a_long_report_cut_to_a_fraction_keeps_its_middles_findings() -> None:
    sections = "\n\n".join(
        f"### {i}. Section {i}\nWe looked at the general state of things here and it was fine."
        for i in range(30))
    report = ("# Report\nEverything was reviewed.\n\n" + sections[:400]
              + "\n\n**Verdict:** the daemon's RSS is 77.7 MB; `VmSize` counts mapped files.\n\n"
              + sections[400:] + "\n\nAll done, nothing else to do here. " * 3)
    cut = _middle(report, 600)
    assert len(cut.encode()) <= 600
    assert "RSS is 77.7 MB; `VmSize` counts mapped files." in cut
    assert cut.startswith("# Report") and cut.rstrip().endswith("nothing else to do here.")
