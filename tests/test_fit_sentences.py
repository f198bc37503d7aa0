"""Where `capture.fit` cuts an assistant text into sentences: at a stop before a space,
never at the dot inside a file name or a version (issue 21: "I need to fix the mypy
issue by adding __init__.py files" was sent as "py files and then retry the commit")."""

from __future__ import annotations

from records import t

from capture.condense import render
from capture.fit import fit


def test_narration_is_not_cut_inside_a_file_name() -> None:
    said = "I need to fix the mypy issue by adding __init__.py files and then retry the commit:"
    filler = " ".join(f"Edited module_{i} to use the new loader." for i in range(40))
    turns = [t("prompt", "Make CI pass."), t("prose", said), t("tool_call", "Bash: touch x"),
             t("prose", filler)]
    out = render(fit(turns, len(render(turns).encode()) - 40))
    assert "adding __init__.py files" in out
    assert "Assistant: py files" not in out


def test_a_finding_with_a_dotted_name_stays_whole_when_its_announcement_goes() -> None:
    said = "Found it: config.yaml sets port 8080 on v1.2 only. Let me fix config.yaml now."
    filler = " ".join(f"Edited module_{i} to use the new loader." for i in range(40))
    turns = [t("prompt", "Why 8080?"), t("prose", said), t("tool_call", "Bash: vi x"),
             t("prose", filler)]
    out = render(fit(turns, len(render(turns).encode()) - 20))
    assert "Found it: config.yaml sets port 8080 on v1.2 only." in out
    assert "Let me fix config.yaml now." not in out
