"""Add or take out one member of a JSON (or JSONC) object, leaving every other byte alone.

Other agents' config files are the person's: VS Code's `mcp.json` allows comments and
trailing commas, people indent with tabs or four spaces, and a pull request of a committed
`.cursor/mcp.json` should show one added block, not a reformatted file. So edits are made
on the text: a small parser records where each object member starts and ends, and the
edit splices text in or out at those offsets. `json.loads` of the result (comments
stripped) is what the caller checks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

MAX_DEPTH = 64


class JsoncError(ValueError):
    """The text is not a JSON object we can edit; the message says where."""


@dataclass
class Node:
    start: int
    end: int  # exclusive
    kind: str  # object | array | scalar
    members: list[Member] = field(default_factory=list)


@dataclass
class Member:
    key: str
    start: int  # the key's opening quote
    end: int  # just after the value
    value: Node


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, what: str) -> JsoncError:
        line = self.text.count("\n", 0, self.i) + 1
        return JsoncError(f"{what} at line {line}")

    def skip(self) -> None:
        """Whitespace and // or /* */ comments."""
        t, n = self.text, len(self.text)
        while self.i < n:
            c = t[self.i]
            if c in " \t\r\n\ufeff":
                self.i += 1
            elif t.startswith("//", self.i):
                j = t.find("\n", self.i)
                self.i = n if j < 0 else j + 1
            elif t.startswith("/*", self.i):
                j = t.find("*/", self.i + 2)
                if j < 0:
                    raise self.fail("unclosed comment")
                self.i = j + 2
            else:
                return

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail("nesting too deep")
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("unexpected end")
        c = self.text[self.i]
        if c == "{":
            return self.obj(depth)
        if c == "[":
            return self.arr(depth)
        if c == '"':
            start = self.i
            self.string()
            return Node(start, self.i, "scalar")
        m = re.compile(r"-?[0-9][0-9.eE+-]*|true|false|null").match(self.text, self.i)
        if not m:
            raise self.fail("unexpected character")
        self.i = m.end()
        return Node(m.start(), m.end(), "scalar")

    def string(self) -> str:
        m = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(self.text, self.i)
        if not m:
            raise self.fail("bad string")
        self.i = m.end()
        return str(json.loads(m.group()))

    def obj(self, depth: int) -> Node:
        node = Node(self.i, self.i, "object")
        self.i += 1
        while True:
            self.skip()
            if self.i >= len(self.text):
                raise self.fail("unclosed object")
            if self.text[self.i] == "}":
                self.i += 1
                node.end = self.i
                return node
            if self.text[self.i] != '"':
                raise self.fail("expected a key")
            kstart = self.i
            key = self.string()
            self.skip()
            if self.text[self.i : self.i + 1] != ":":
                raise self.fail("expected ':'")
            self.i += 1
            val = self.value(depth + 1)
            node.members.append(Member(key, kstart, val.end, val))
            self.skip()
            if self.text[self.i : self.i + 1] == ",":
                self.i += 1

    def arr(self, depth: int) -> Node:
        node = Node(self.i, self.i, "array")
        self.i += 1
        while True:
            self.skip()
            if self.i >= len(self.text):
                raise self.fail("unclosed array")
            if self.text[self.i] == "]":
                self.i += 1
                node.end = self.i
                return node
            self.value(depth + 1)
            self.skip()
            if self.text[self.i : self.i + 1] == ",":
                self.i += 1


def parse(text: str) -> Node:
    """The top-level object's node tree; JsoncError when it is not one object."""
    p = _Parser(text)
    root = p.value(0)
    p.skip()
    if root.kind != "object":
        raise JsoncError("the file is not a JSON object")
    if p.i != len(text):
        raise p.fail("text after the object")
    return root


def loads(text: str) -> object:
    """The data, comments and trailing commas allowed (VS Code's JSONC)."""
    parse(text)  # raises with a line number
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            m = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(text, i)
            assert m
            out.append(m.group())
            i = m.end()
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2
        else:
            out.append(c)
            i += 1
    cleaned = re.sub(r",(\s*[}\]])", r"\1", "".join(out))
    return json.loads(cleaned.lstrip("\ufeff"))


def find(root: Node, path: list[str]) -> Member | None:
    node: Node | None = root
    found: Member | None = None
    for key in path:
        if node is None or node.kind != "object":
            return None
        found = next((m for m in reversed(node.members) if m.key == key), None)
        node = found.value if found else None
    return found


def _indent_of(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    m = re.compile(r"[ \t]*").match(text, line_start)
    return m.group() if m else ""


def _unit(text: str, root: Node) -> str:
    """One level of indentation as the file writes it (two spaces when it cannot tell)."""
    for m in root.members:
        ind = _indent_of(text, m.start)
        if ind and text.rfind("\n", 0, m.start) > root.start:
            return ind
    return "  "


def _render(value: object, indent: str, unit: str) -> str:
    raw = json.dumps(value, indent=len(unit) if unit.strip() == "" and "\t" not in unit
                     else 1, ensure_ascii=False)
    if "\t" in unit:
        raw = re.sub(r"(?m)^( +)", lambda m: "\t" * len(m.group(1)), raw)
    return raw.replace("\n", "\n" + indent)


def insert(text: str, path: list[str], key: str, value: object) -> str:
    """`text` with `key: value` added to the object at `path` (created, with the missing
    keys above it, when absent). The key must not be there yet."""
    root = parse(text) if text.strip() else None
    if root is None:
        body: object = value
        for k in reversed([*path, key]):
            body = {k: body}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    unit = _unit(text, root)
    node, depth, missing = root, 0, list(path)
    while missing:
        m = find(node, [missing[0]])
        if m is None:
            break
        if m.value.kind != "object":
            raise JsoncError(f'"{missing[0]}" is not an object')
        node, depth = m.value, depth + 1
        missing.pop(0)
    if find(node, [key]) is not None and not missing:
        raise JsoncError(f'"{key}" is already there')
    new_value: object = value
    new_key = key
    if missing:
        for k in reversed([*missing[1:], key]):
            new_value = {k: new_value}
        new_key = missing[0]
    outer = _indent_of(text, node.start) if depth else ""
    if node.members:
        inner = _indent_of(text, node.members[0].start)
        if text.rfind("\n", 0, node.members[0].start) < node.start:
            inner = outer + unit  # `{"a": 1}` on one line: still add ours on its own line
    else:
        inner = outer + unit
    block = f"\n{inner}{json.dumps(new_key, ensure_ascii=False)}: " + _render(
        new_value, inner, unit)
    at = node.start + 1
    if node.members:
        return text[:at] + block + "," + text[at:]
    close = node.end - 1
    between = text[at:close]
    if between.strip() == "":
        return text[:at] + block + "\n" + outer + text[close:]
    return text[:at] + block + text[at:]  # only comments inside: keep them after ours


def remove(text: str, path: list[str], key: str) -> str:
    """`text` without the member `key` of the object at `path` (and its own line); the
    text unchanged when it is not there."""
    root = parse(text)
    parent = root if not path else (find(root, path) or None)
    node = parent if isinstance(parent, Node) else (parent.value if parent else None)
    if node is None or node.kind != "object":
        return text
    idx = next((i for i, m in enumerate(node.members) if m.key == key), None)
    if idx is None:
        return text
    m = node.members[idx]
    start = text.rfind("\n", 0, m.start)
    start = start if start > node.start else m.start
    end = m.end
    rest = re.compile(r"[ \t]*,").match(text, end)
    if rest:
        end = rest.end()
    elif idx > 0:  # the last member: take the comma after the one before it instead
        prev = node.members[idx - 1]
        comma = re.compile(r"[ \t]*,").match(text, prev.end)
        if comma:
            return text[: prev.end] + text[comma.end() : start] + text[end:]
    return text[:start] + text[end:]
