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


def test_a_numbered_item_is_one_sentence_with_its_number() -> None:
    """A list's `2. ` opens its item: never a sentence alone, nor a value found (issue 21:
    a long report cut to its findings read "2. […] 3. […] 4. […]")."""
    from capture.fit import _salient

    items = [f"{n}. **{name}** (`contracts/core/{name}.sol`) {what}, and many more words "
             "about how it is deployed and upgraded over time." for n, (name, what) in
             enumerate([("AssetToken", "mints every tokenised asset"),
                        ("Bailout", "holds collateral in escrow until the DAO votes"),
                        ("Treasury", "is a multi-sig with 2 approvals")], 1)]
    text = "# Contracts\n\nSome words to open.\n\n" + "\n".join(items) + \
        "\n4. plain words\n5. more plain words"
    kept = _salient(text, 260)
    assert "3. **Treasury** (`contracts/core/Treasury.sol`) is a multi-sig" in kept
    for bare in ("1. […]", "2. […]", "4. plain", "5. more"):
        assert bare not in kept
