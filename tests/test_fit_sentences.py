"""Where `capture.fit` cuts an assistant text into sentences: at a stop before a space,
never at the dot inside a file name or a version (issue 21: "I need to fix the mypy
issue by adding __init__.py files" was sent as "py files and then retry the commit")."""

from __future__ import annotations

from records import fitted_after_filler


def test_narration_is_not_cut_inside_a_file_name() -> None:
    said = "I need to fix the mypy issue by adding __init__.py files and then retry the commit:"
    out = fitted_after_filler("Make CI pass.", said, "Bash: touch x", 40)
    assert "adding __init__.py files" in out
    assert "Assistant: py files" not in out


def test_a_finding_with_a_dotted_name_stays_whole_when_its_announcement_goes() -> None:
    said = "Found it: config.yaml sets port 8080 on v1.2 only. Let me fix config.yaml now."
    out = fitted_after_filler("Why 8080?", said, "Bash: vi x", 20)
    assert "Found it: config.yaml sets port 8080 on v1.2 only." in out
    assert "Let me fix config.yaml now." not in out
