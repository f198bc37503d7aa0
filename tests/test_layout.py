"""The tree stays readable: no import cycles between files, every module in a layer.

import-linter's layers contract (pyproject.toml) keeps packages in order; it cannot see a
cycle between two files of one package, nor a new top-level module that no layer names.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("capture", "reviewer")
MAX_REVIEWER_LEAVES = 8  # modules directly in reviewer/, beside its sub-packages


def _graph() -> grimp.ImportGraph:
    sys.path.insert(0, str(ROOT))
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)


def _cycle(graph: grimp.ImportGraph) -> list[str] | None:
    """One import cycle between modules, or None (iterative DFS, colours)."""
    modules = sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES)
    state: dict[str, int] = {}
    for root in modules:
        if state.get(root):
            continue
        stack = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        path = [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            for child in children:
                if child.split(".")[0] not in PACKAGES:
                    continue
                if _is_parent(child, node):
                    continue  # importing a name from one's own package's __init__
                if state.get(child) == 1:
                    return [*path[path.index(child):], child]
                if not state.get(child):
                    state[child] = 1
                    path.append(child)
                    imported = graph.find_modules_directly_imported_by(child)
                    stack.append((child, iter(sorted(imported))))
                    break
            else:
                state[node] = 2
                path.pop()
                stack.pop()
    return None


def _is_parent(pkg: str, module: str) -> bool:
    return module.startswith(pkg + ".")


def test_no_import_cycle_between_files() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_sees_a_cycle() -> None:
    class Fake:
        modules = {"capture.a", "capture.b", "capture.c"}  # noqa: RUF012
        edges = {  # noqa: RUF012
            "capture.a": {"capture.b"},
            "capture.b": {"capture.c"},
            "capture.c": {"capture.a"},
        }

        def find_modules_directly_imported_by(self, m: str) -> set[str]:
            return self.edges.get(m, set())

    found = _cycle(Fake())  # type: ignore[arg-type]
    assert found == ["capture.a", "capture.b", "capture.c", "capture.a"]


def _layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [
        c["layers"] for c in contracts if c["type"] == "layers" and "containers" not in c
    ]
    return [name.strip() for layer in layers for name in layer.split("|")]


def test_every_part_of_reviewer_has_a_layer() -> None:
    """A new module or sub-package directly in reviewer/ must be placed in the layers."""
    named = set(_layers())
    here = ROOT / "reviewer"
    parts = {
        f"reviewer.{p.stem}"
        for p in here.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    missing = sorted(parts - named)
    assert not missing, "not in the layers contract: " + ", ".join(missing)
    leaves = [p for p in here.glob("*.py") if p.stem != "__init__"]
    assert len(leaves) <= MAX_REVIEWER_LEAVES, sorted(p.name for p in leaves)


def test_capture_names_no_extractor_outside_its_package() -> None:
    """The pipeline (and the rest of capture) reaches extractors only through `choose`."""
    graph = _graph()
    outside = sorted(
        m for m in graph.modules if m.startswith("capture.") and ".extractors" not in m
    )
    for module in outside:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("capture.extractors."):
                assert imported == "capture.extractors.base", f"{module} imports {imported}"
