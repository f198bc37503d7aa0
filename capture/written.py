"""What a session wrote (issue 21): a Write/Edit body or a shell here-document kept in
proportion to its value. A small document, rule or config file says a decision in its
own words ("Never commit .env" written into CLAUDE.md): it is kept whole (its middle cut
when long, the end kept). Code is kept by its path (the call line) and the definitions
the new text touches: the model learns what changed, not the listing.

Stdlib only (the reader's path).
"""

from __future__ import annotations

import re
from typing import Any

from reviewer.shell_words import heredocs, unwrapped

WRITERS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})  # the tools that write a file

WRITTEN_BYTES = 1600  # a document or config body kept whole up to this, else its middle cut
DEFS_BYTES = 500  # the definitions a code change touches, at most
DEFS_SCAN = 20_000  # of a code body, only this much is searched for them
NOTES_BYTES = 300  # the comments of a code change (what it is for, in words), at most
# A whole-line comment of three words or more (not a licence, a shebang or commented code).
_COMMENT = re.compile(r"(?://+|#+(?!!)|--|/?\*+)\s*([A-Za-z][^;{}=()<>]{8,160}?)\s*(?:\*/)?$")
_DOC_EXT = (
    ".md", ".mdx", ".markdown", ".txt", ".rst", ".adoc", ".toml", ".yaml", ".yml", ".json",
    ".jsonc", ".ini", ".cfg", ".conf", ".example", ".sample", ".template", ".properties",
    ".mdc", ".gitignore", ".dockerignore", ".editorconfig", ".nvmrc", ".tool-versions",
    # A machine's or a deployment's settings (issue 21: a written systemd unit or a
    # Terraform file was neither a document nor code, and its body went unsent): units,
    # XML and plist settings, infrastructure and schema declarations, rules files.
    ".service", ".timer", ".socket", ".mount", ".path", ".target", ".network", ".netdev",
    ".xml", ".plist", ".tf", ".hcl", ".prisma", ".graphql", ".gql", ".proto", ".htaccess",
    ".rules", ".repo", ".desktop", ".sources",
)
# Files that hold secrets by their nature: never kept, whatever redaction would catch.
_SECRET_NAME = re.compile(
    r"(?i)^(?:\.env(?!\.(?:example|sample|template)$)(?:\..*)?|\.npmrc|\.pypirc|\.netrc"
    r"|\.pgpass|\.htpasswd|id_[a-z0-9]+|.*\.(?:pem|key|p12|pfx|keystore|jks)"
    r"|.*(?:secret|credential|password|token)s?(?:\..*)?)$"
)
_DOC_NAMES = ("makefile", "dockerfile", "justfile", "procfile", "gemfile", "brewfile",
              "codeowners", "license", "readme", "caddyfile", "vagrantfile", "jenkinsfile",
              "containerfile", "crontab")
_DEF = re.compile(
    r"(?:export\s+(?:default\s+)?)?(?:pub(?:\(\w+\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function|fn|func|interface|type|struct|enum|trait|impl|module|defmodule"
    r"|defp?|const|let|var|macro_rules!)\s+[\w$.:<>]+[^\n]{0,80}",
)
_DEF_START = frozenset("edcfilmtsvpa")  # first letters of the words above
# Where the line of a here-document's `<<` sends it: `> f`, `>> f`, `| tee -a f`; not
# `2>` (another stream than the one the body is fed to).
_REDIRECT = re.compile(r"(?:(?<![\d&])>>?|\btee(?:\s+-a)?)\s*['\"]?(?P<t>[^\s<>|;&'\"]+)")
_LOCAL = re.compile(r"(?:const|let|var)\s")


_CODE_EXT = (
    ".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs", ".rb", ".java",
    ".kt", ".kts", ".scala", ".swift", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".php",
    ".ex", ".exs", ".erl", ".hs", ".ml", ".lua", ".sh", ".bash", ".zsh", ".fish", ".ps1",
    ".sql", ".r", ".jl", ".dart", ".vue", ".svelte", ".clj", ".el", ".vim", ".nix", ".zig",
)


def file_name(path: str) -> str:
    """The last part of a path, `/` or Windows' `\\` between its parts (a session on
    Windows names `C:\\Users\\me\\app\\.env`: the whole path is not a name)."""
    return path[max(path.rfind("/"), path.rfind("\\")) + 1:]


def holds_secrets(path: str) -> bool:
    """A file that holds secrets by its name (`.env`, a key, `credentials.json`). Code
    named for what it handles (`redact_secrets.py`, `refresh_token.ts`) is code: what a
    line of it assigns is judged line by line (`assigns_secret`), as in any code (issue
    21: a session's whole new `redact_gitleaks_secrets.py` was dropped for its name); a
    module that is only the word (`secrets.py`, `credentials.js`) or a script (`set_
    tokens.sh`: `export` lines) still holds them."""
    name = file_name(path)
    if not _SECRET_NAME.match(name):
        return False
    low = name.casefold()
    stem, dot, ext = low.rpartition(".")
    return not (dot and low.endswith(_CODE_EXT) and ("." + ext) not in _SCRIPT_EXT
                and not _STORE_NAME.match(name) and not _ONLY_THE_WORD.fullmatch(stem))


# The names _SECRET_NAME knows whatever their extension (`.env.js` is not code).
_STORE_NAME = re.compile(
    r"(?i)^(?:\.env(?:\..*)?|\.npmrc|\.pypirc|\.netrc|\.pgpass|\.htpasswd|id_[a-z0-9]+)$")
_ONLY_THE_WORD = re.compile(r"(?:[\w-]+\.)?(?:secret|credential|password|token)s?")
_SCRIPT_EXT = frozenset({".sh", ".bash", ".zsh", ".fish", ".ps1", ".exs"})


def is_code(path: str) -> bool:
    """A source file by its extension (never one that holds secrets by its nature)."""
    name = file_name(path).casefold()
    return not holds_secrets(path) and name.endswith(_CODE_EXT)


def is_doc(path: str) -> bool:
    """A document, rule or config file (kept whole), not code."""
    name = file_name(path).casefold()
    if holds_secrets(path):
        return False
    return name.endswith(_DOC_EXT) or name in _DOC_NAMES or bool(_CONFIG_CODE.match(name))


# A project's settings written as code: `hardhat.config.js`, `vite.config.ts`,
# `.eslintrc.cjs`, `build.gradle.kts`. Read, they say the environment in values (a
# compiler version, a chain id, a port: issue 21, a Hardhat config's Solidity 0.8.25 and
# networks were lost as "code"); kept as a config file is, not by its definitions.
_CONFIG_CODE = re.compile(
    r"^(?:[\w.-]+\.config|\.[\w-]+rc|build\.gradle|settings\.gradle)"
    r"\.(?:js|cjs|mjs|ts|cts|mts|kts|json5?)$|^[\w.-]+\.gradle$")


def cut_middle(text: str, limit: int, head_share: float = 1 / 3) -> str:
    """At most about `limit` characters: the opening (`head_share` of them, a third by
    default) and the end (the rest: a document's conclusion, a list's last items) kept,
    the middle marked as cut. A file read is cut the other way round (its opening says
    what it is); `head_share=1` keeps the opening alone."""
    text = text.strip()
    if len(text) <= limit:
        return text
    if head_share >= 1:
        cut = text[:limit]
        cut = cut[: cut.rfind("\n")] if "\n" in cut[len(cut) // 2:] else _whole_words(cut)
        return f"{cut.rstrip()} […]"
    head = text[: int(limit * head_share)]
    tail = text[len(text) - (limit - len(head)):]
    head = head[: head.rfind("\n")] if "\n" in head[len(head) // 2:] else _whole_words(head)
    nl = tail.find("\n")
    tail = tail[nl + 1:] if 0 <= nl < len(tail) // 2 else _whole_words(tail, from_end=True)
    return f"{head.rstrip()}\n[… {len(text) - len(head) - len(tail):,} characters cut …]\n" \
           f"{tail.lstrip()}"


def _whole_words(piece: str, from_end: bool = False) -> str:
    """``piece`` without the word the cut went through: a token cut in two is a piece no
    secret rule recognises (half a key sent as is), so the cut moves to a space."""
    if from_end:
        sp = next((i for i, c in enumerate(piece) if c.isspace()), -1)
        return piece[sp + 1 :] if 0 <= sp < len(piece) // 2 else piece
    sp = max((i for i in range(len(piece) - 1, len(piece) // 2 - 1, -1)
              if piece[i].isspace()), default=-1)
    return piece[:sp] if sp >= 0 else piece


_STYLE_EXT = (".css", ".scss", ".sass", ".less", ".styl")
SMALL_BYTES = 320  # a written piece this short is kept whole, code or not (a one-line fix)
WAS_BYTES = 160  # … and what a small edit replaced, when that is this short (a rename)
# A setting a script declares at its top level: `readonly POOL="tank"`, `export MODE=fast`,
# `MAX_RETRIES = 3` (upper-case names: constants, not variables).
_CONSTANT = re.compile(
    r"^(?:(?:readonly|export|declare\s+-\w+|const|final|static\s+final)\s+)?"
    r"[A-Z][A-Z0-9_]{2,}(?:\s*:\s*[\w\[\], ]+)?\s*:?=\s*\S[^\n]{0,100}")


def describe(path: str, body: str) -> str:
    """A written file's body as worth sending: a doc whole, code by its opening comment,
    the constants it sets and the definitions it touches; a small piece whole."""
    if not body.strip() or holds_secrets(path) or \
            path.casefold().endswith(_STYLE_EXT):
        return ""  # a stylesheet's rules are looks: its call line says it was changed
    if is_doc(path):
        return cut_middle(body, WRITTEN_BYTES)
    if len(body.strip()) <= SMALL_BYTES and not assigns_secret(body):
        return body.strip()  # a one-line fix: the line is the fact (`audioCtx.resume()`)
    header = code_header(body)
    defs: list[str] = []
    notes: list[str] = []
    size = noted = 0
    for raw in body[:DEFS_SCAN].split("\n"):
        stripped = raw.lstrip()
        if "=" in stripped and stripped[:1].isalpha() and (k := _CONSTANT.match(stripped)) \
                and not assigns_secret(raw):
            # A setting, what it is set to: at the top level, or inside a body (an edit's
            # `const CONC = 20;` in a loop: its indentation is the file's, not a scope's).
            line = " ".join(k.group().split())
            if line not in defs and size + len(line) <= DEFS_BYTES:
                defs.append(line)
                size += len(line) + 2
            continue
        c = _COMMENT.match(stripped)
        if c is not None:  # a comment says why, in words: "Auto-start the next session"
            note = " ".join(stripped.split())  # as written, its comment mark kept
            if len(c.group(1).split()) >= 3 and note not in notes and \
                    noted + len(note) <= NOTES_BYTES:
                notes.append(note)
                noted += len(note) + 2
            continue
        m = _DEF.match(stripped) if stripped[:1] in _DEF_START else None
        if m is None or (stripped is not raw and _LOCAL.match(stripped)):
            continue  # a variable inside a body is not something the file defines
        line = " ".join(m.group().split())
        if line in defs:
            continue
        if size + len(line) > DEFS_BYTES:
            break
        defs.append(line)
        size += len(line) + 2
    notes = [n for n in notes if n not in header]
    parts = ([header] if header else []) + (
        ["defines: " + "; ".join(defs)] if defs else []) + (
        ["notes: " + "; ".join(notes)] if notes else [])
    return "\n".join(parts)


DOCUMENTED_BYTES = 900  # of a code file read: its doc comments with the lines they document
_WHOLE_COMMENT = re.compile(r"^[ \t]*(?://+|#+(?!!)|--|/\*+|\*+/?|\*/)[ \t]?", re.M)
# A run of whole-line comments and the line right under it; a Python definition and the
# first line of its docstring.
_DOC_BLOCK = re.compile(
    r"^(?P<c>(?:[ \t]*(?://+|#+(?!!)|--|/\*+|\*+/?)[^\n]*\n)+)(?P<code>[ \t]*\S[^\n]*)", re.M)
_PY_DOC = re.compile(r"^(?P<code>[ \t]*(?:async\s+)?(?:def|class)\s[^\n]*)\n[ \t]*"
                     r"(?P<c>[rbuRBU]?(?:\"\"\"|\'\'\')[^\n]*)", re.M)
_FIRST_CODE = re.compile(r"^[ \t]*(?!//|#|--|/\*|\*|[\"\']use strict)\S", re.M)
# A statement inside a body, not something declared: its comment narrates the code.
_STATEMENT = re.compile(r"(?:if|for|while|return|switch|case|else|elif|try|catch|except"
                        r"|await|expect|assert|throw|raise|yield|do|with|defer|go)\b|[})\]]")
_NOTICE = re.compile(r"(?i)copyright|licen[cs]e|spdx")
# A line that assigns what reads like a credential: never kept from a file, whatever
# redaction would recognise (a read is the project's code, not the person's words).
SECRET_LINE = re.compile(r"(?i)(?:key|token|secret|passw|credential|auth|private|cookie"
                         r"|session_id|signature)\w*['\"]?\s*[:=]")
# What such a line may assign and still say no secret (issue 21: `"CLAUDE_CODE_MAX_OUTPUT_
# TOKENS": "64000"` and `max_tokens: 4096` were dropped from a settings file as if they
# were credentials): a small number, a flag, nothing, or where the secret comes from (an
# environment variable), never the secret itself.
# Matched against the value stripped, with no two neighbouring quantifiers over the same
# characters: `token = ` and 190 tabs before an `x` took 50 ms a line to backtrack.
_HARMLESS = re.compile(
    r"""^[\s'"`]*(?:(?:\d{1,7}(?:\.\d+)?(?:[kKmM]?[bB]?|ms|s|m|h|d)?|true|false|null|none"""
    r"""|nil|undefined|(?:process\.env|os\.environ|os\.getenv|import\.meta\.env|env\b|ENV\b)"""
    r"""[\w.\[\]()'"]*|\$\{?[A-Za-z_]\w*\}?)[\s'"`]*)?(?:[,;]\s*)?(?:(?://|#).*)?$""", re.I)
HARMLESS_CHARS = 200  # a longer value is not a number, a flag or a variable's name


def assigns_secret(text: str) -> bool:
    """Some line of `text` assigns what reads like a credential (SECRET_LINE), not a
    number, a flag or an environment variable's name (_HARMLESS)."""
    for m in SECRET_LINE.finditer(text):
        end = text.find("\n", m.end())
        value = text[m.end(): len(text) if end < 0 else end]
        if len(value) > HARMLESS_CHARS:
            return True
        value = value.strip()
        if _SECRET_WORD.search(m.group()):  # a password of digits or words is still one
            if not _HARMLESS.match(value) or _DIGITS.search(value):
                return True
        elif not _HARMLESS.match(value) and not _PROSE.match(value):
            return True
    return False


# A sentence assigned to a key's or a token's name describes it (`"MAX_OUTPUT_TOKENS":
# "Maximum tokens for Claude responses."` in a settings file's docs): no credential.
_PROSE = re.compile(r"""^\s*["'`]?[A-Z][a-z]+(?: [\w'(),./-]+){3,}["'`]?\s*[,;]?\s*$""")


_SECRET_WORD = re.compile(r"(?i)passw|secret|credential|private")
_DIGITS = re.compile(r"\d")
DOCUMENTED_SCAN = 16_000  # of a file read, only this much is searched (a bench row's cost)


def documented(text: str, limit: int = DOCUMENTED_BYTES, *, python: bool = False) -> str:
    """Of code that was read: each comment block with the declaration it documents (a
    definition, a field, a setting: "// Defaults to 10MB if not set." above
    `MaxLineSize int`), and (`python`) a definition with its docstring's first line, in
    file order, up to `limit` characters. The code's own words about itself, not the
    listing: an undocumented line is never kept, nor a statement inside a body, nor the
    comment the file opens with (its header), a licence notice or a line that assigns a
    credential."""
    text = text[:DOCUMENTED_SCAN]
    first = _FIRST_CODE.search(text)
    if first is None:
        return ""
    found = sorted([(m.start(), m, False) for m in _DOC_BLOCK.finditer(text, first.start())]
                   + ([(m.start(), m, True) for m in _PY_DOC.finditer(text)]
                      if python else []),
                   key=lambda x: x[0])
    entries: list[str] = []
    size = 0
    for _, m, py in found:
        raw = m.group("code")
        code = raw.strip()
        indent = len(raw[: len(raw) - len(raw.lstrip())].expandtabs(4))
        if indent > 4 or _STATEMENT.match(code) or assigns_secret(code):
            continue
        comment = m.group("c").strip()
        said = _WHOLE_COMMENT.sub("", comment).strip(" \t\"'")
        if len(said.split()) < 3 or _NOTICE.search(said):
            continue
        lines = [ln.strip() for ln in comment.split("\n")]
        entry = (f"{code[:160]}\n{lines[0][:200]}" if py
                 else "\n".join(ln[:200] for ln in lines[-4:]) + "\n" + code[:160])
        if size + len(entry) > limit:
            break
        entries.append(entry)
        size += len(entry) + 1
    return "\n".join(entries)


def _s(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def written_detail(name: str, inp: Any) -> str:
    """The detail of a Write/Edit/MultiEdit/NotebookEdit call; "" for any other."""
    if not isinstance(inp, dict):
        return ""
    path = _s(inp, "file_path") or _s(inp, "notebook_path") or _s(inp, "path")
    if name == "Write":
        return describe(path, _s(inp, "content"))
    if name == "Edit":
        return with_was(describe(path, _s(inp, "new_string")), _s(inp, "old_string"),
                        _s(inp, "new_string"))
    if name == "MultiEdit":
        edits = inp.get("edits")
        body = "\n".join(_s(e, "new_string") for e in edits if isinstance(e, dict)) \
            if isinstance(edits, list) else ""
        return describe(path, body)
    if name == "NotebookEdit":
        return describe(path + ".py", _s(inp, "new_source"))
    return ""


def with_was(kept: str, old: str, new: str) -> str:
    """A small edit's new text with what it replaced above it (`was: name: NPU-ML` over
    `name: NPU`): a rename or a changed value is a fact only with both sides."""
    old = old.strip()
    if not kept or not old or len(new.strip()) > SMALL_BYTES or len(old) > WAS_BYTES \
            or kept != new.strip() or assigns_secret(old):
        return kept
    return f"was: {old}\nnow: {kept}"


def heredoc_files(command: str, most: int = 4) -> str:
    """Files a shell command writes from here-documents (`cat > CLAUDE.md <<'EOF'`), here
    or through a wrapper (`ssh host "cat > /root/check.sh << 'EOF' …"`), each as `path:`
    then its body as `describe` keeps it."""
    command = unwrapped(command)
    out: list[str] = []
    for doc in heredocs(command, most=most):
        target = _target(doc.opener_line(command), doc.op - command.rfind("\n", 0, doc.op) - 1)
        kept = describe(target, doc.body(command)) if target else ""
        if kept and target != "/dev/null":
            out.append(f"{target}:\n{kept}")
    return "\n".join(out)


def _target(line: str, op: int) -> str:
    """The file the redirection nearest to a `<<` at `op` in `line` writes ("" if none)."""
    found = [(abs(m.start() - op), m.group("t")) for m in _REDIRECT.finditer(line)]
    return min(found)[1] if found else ""


HEADER_CHARS = 400  # a code file's opening comment, at most
# The comment a code file opens with (after a shebang, blank lines, `"use strict"`): a
# docstring, a `/** … */` block, or a run of `//`, `#`, `--`, `;` lines.
_HEADER = re.compile(
    r'\A(?:#![^\n]*\n|\s*\n|\s*["\']use strict["\'];?\n)*\s*'
    r'(?P<c>/\*.*?\*/|"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'|(?:[ \t]*(?://|#|--|;)[^\n]*\n?)+)',
    re.S)
# A block comment's decoration (`/**`, ` * `, `*/`, a docstring's quotes): not words.
_BLOCK_MARKS = re.compile(r'^[ \t]*(?:/\*\*?|\*/|\*(?!\*)|"""|\'\'\')[ \t]?', re.M)


def code_header(text: str) -> str:
    """The opening comment of a code file, at most HEADER_CHARS; "" when the file opens
    with code or a licence notice. A line comment keeps its mark (`# ABOUTME: …`, the
    file's words as written: a convention is often in the mark itself); a block
    comment's decoration goes."""
    m = _HEADER.match(text[:HEADER_CHARS * 8])
    if m is None:
        return ""
    body = re.sub(r'(?:\*/|"""|\'\'\')\s*\Z', "", m.group("c").rstrip())
    lines = [ln.strip() for ln in _BLOCK_MARKS.sub("", body).split("\n")]
    said = "\n".join(ln for ln in lines if ln and not set(ln) <= set("*/#=-_;! "))
    if len(said) < 20 or re.search(r"(?i)copyright|licen[cs]e|spdx", said[:200]):
        return ""
    return cut_middle(said, HEADER_CHARS, head_share=1.0)
