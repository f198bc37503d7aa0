"""One reader of here-documents for the guard and the condenser (reviewer/shell_words.py).

A `<<` that a shell does not take for a here-document (quoted, in a comment, a shift in
arithmetic, a here-string) must not hide the lines after it: before this module the
guard took each of them for one and let the command on the next line through."""

from __future__ import annotations

import pytest

from capture.written import heredoc_files
from reviewer.claude_code.guard import bash_reason
from reviewer.shell_words import command_lines, heredocs, without_heredocs

APPROVE = "mem-review import --keep-status facts.json"


@pytest.mark.parametrize("opener", [
    'echo "<<EOF"',  # double quotes
    "echo '<<EOF'",  # single quotes
    "echo $'it\\'s <<EOF'",  # ANSI-C quotes with an escaped quote
    "echo hi # <<EOF",  # a comment
    "echo $((1<<EOF))",  # arithmetic shift
    "(( x = 1 << EOF ))",
    "cat <<<EOF",  # a here-string
    "echo \\<<EOF",  # an escaped <
])
def test_a_lookalike_here_document_does_not_hide_the_next_command(opener: str) -> None:
    command = f"{opener}\n{APPROVE}\nEOF"
    assert heredocs(command) == []
    assert bash_reason(command) is not None


def test_a_real_here_document_body_is_data_and_what_follows_is_a_command() -> None:
    command = f"cat <<EOF\n{APPROVE}\nEOF\necho done"
    assert [d.body(command) for d in heredocs(command)] == [APPROVE + "\n"]
    assert bash_reason(command) is None  # the approving words are only text fed to cat
    assert bash_reason(f"cat <<EOF\nsome text\nEOF\n{APPROVE}") is not None


def test_the_body_ends_only_where_the_shell_ends_it() -> None:
    # `EOF ` (a trailing blank) or an indented EOF without <<- does not end it in bash:
    # ending it there would put the scanner out of step for the rest of the command.
    command = 'cat <<EOF\n  EOF\nEOF \n"\nEOF\necho "<<X"\n' + APPROVE + "\nX"
    docs = heredocs(command)
    assert [d.body(command) for d in docs] == ['  EOF\nEOF \n"\n']
    assert bash_reason(command) is not None


def test_the_shell_s_quoting_of_the_delimiter_and_tab_stripping() -> None:
    command = 'cat > a.md <<-"E"O\\F\n\tbody\n\tEOF\nnext'
    (doc,) = heredocs(command)
    assert (doc.word, doc.body(command), doc.closed) == ("EOF", "\tbody\n", True)
    assert without_heredocs(command) == ('cat > a.md <<-"E"O\\F\nnext', ["\tbody\n"])


def test_a_commit_message_inside_a_quoted_command_substitution() -> None:
    for close in ("EOF\n)", "EOF)"):
        command = f'git commit -m "$(cat <<\'EOF\'\nFix the parser\n\nWhy.\n{close}" && ls'
        (doc,) = heredocs(command)
        assert doc.body(command) == "Fix the parser\n\nWhy.\n" and doc.closed
        # after the body the scanner is back outside the quotes
        tail = without_heredocs(command + '\necho "<<Y"\n' + APPROVE + "\nY")[0]
        assert APPROVE in tail


def test_two_here_documents_on_one_line_and_an_unclosed_one() -> None:
    command = "paste <<A <<B\n1\nA\n2\nB\nrest"
    assert [(d.word, d.body(command)) for d in heredocs(command)] == [("A", "1\n"), ("B", "2\n")]
    assert without_heredocs(command)[0] == "paste <<A <<B\nrest"
    (doc,) = heredocs("cat <<EOF\nnever closed")
    assert not doc.closed and doc.body("cat <<EOF\nnever closed") == "never closed"


def test_files_written_from_here_documents_name_the_nearest_redirection() -> None:
    assert heredoc_files("cat > CLAUDE.md <<'EOF'\n# Rules\nRun make test.\nEOF\n") == \
        "CLAUDE.md:\n# Rules\nRun make test."
    assert heredoc_files("cat <<EOF 2>/dev/null | tee -a notes.txt\nA note\nEOF") == \
        "notes.txt:\nA note"
    assert heredoc_files("cat <<EOF | python\nprint(1)\nEOF") == ""
    assert heredoc_files('echo "<<EOF" > x.txt\nnot a body\nEOF') == ""


def test_the_scan_stays_linear_on_hostile_input() -> None:
    # many operators, many quotes: one pass (a quadratic scan would not finish in time)
    assert len(heredocs("<<EOF\n" * 50_000)) == 1
    assert heredocs('"' * 199_999 + "<<EOF\nx\nEOF") == []
    assert len(heredocs("cat <<A\n" + "x\n" * 100_000 + "A\n")) == 1


def test_command_lines_are_the_lines_a_shell_starts_a_command_on() -> None:
    script = ('cd app\npython3 -c "\nimport os\nprint(1)\n"\ncat > a.txt <<EOF\nrm -rf /\nEOF\n'
              "mv a.txt b.txt  # <<X\necho $(ls\n -la)\ngit push")
    assert command_lines(script) == ["cd app", 'python3 -c "', "cat > a.txt <<EOF",
                                     "mv a.txt b.txt  # <<X", "echo $(ls", "git push"]
    assert command_lines("one line") == ["one line"]
