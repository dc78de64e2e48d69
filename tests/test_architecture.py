"""The layers of ARCHITECTURE.md hold: imports only look down, no cycles, small modules.

The import graph is read from the source (``ast``), with the imports made inside
functions counted like the others: ``from package import name`` is an import of the
submodule ``package.name`` when there is one, else of ``package``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rules_core", "vision", "hardware", "models", "webapp")
# What each package (or part of the web app) may import of the project, besides itself.
_BELOW: Final = frozenset({"rules_core", "vision", "hardware", "models"})
ALLOWED: dict[str, frozenset[str]] = {
    "rules_core": frozenset(),
    "webapp": frozenset(),  # the package itself: only its docstring
    "vision": frozenset({"rules_core"}),
    "hardware": frozenset({"rules_core", "vision"}),
    "models": frozenset({"rules_core", "vision"}),
    "webapp.services": _BELOW,
    "webapp.records": _BELOW | {"webapp.services"},
    "webapp.views": _BELOW | {"webapp.services", "webapp.records"},
    "webapp.app": _BELOW | {"webapp.services", "webapp.records", "webapp.views"},
    "webapp.serving": _BELOW | {"webapp.services", "webapp.records", "webapp.views"},
    "webapp.cli": _BELOW | {"webapp.services", "webapp.records", "webapp.views", "webapp.app", "webapp.serving"},
}
MAX_LINES = 600
MAX_MODULES_PER_FOLDER = 15


def _modules() -> dict[str, Path]:
    """Every module of the project, by dotted name (extension modules by their stub)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py*")):
            if path.suffix not in (".py", ".pyi"):
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.setdefault(".".join(parts), path)
    return found


MODULES = _modules()


def _imported(module: str, path: Path) -> Iterator[str]:
    """The dotted names ``module`` imports (absolute), anywhere in its source."""
    is_package = path.name.startswith("__init__")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if is_package else module.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in MODULES else base


def _owner(name: str) -> str | None:
    """The project module that ``name`` (a module or a name inside one) belongs to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = {_owner(name) for name in _imported(module, path)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def _layer(module: str) -> str:
    """The key of ``ALLOWED`` a module falls under (the longest that prefixes it)."""
    keys = [k for k in ALLOWED if module == k or module.startswith(k + ".")]
    return max(keys, key=len) if keys else module.split(".")[0]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in graph:
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            step = next(stack[-1], None)
            if step is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(step) == 1:
                return path[path.index(step) :] + [step]
            elif not state.get(step):
                state[step] = 1
                path.append(step)
                stack.append(iter(sorted(graph.get(step, ()))))
    return None


def test_no_import_cycle() -> None:
    assert _cycle(_graph()) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]


def test_from_package_import_submodule_is_an_import_of_the_submodule() -> None:
    assert "rules_core.wordgraph" in _graph()["rules_core.lexicon"]
    assert "rules_core._movegen" in _graph()["rules_core.movegen"]


def test_imports_only_look_down() -> None:
    against = []
    for module, targets in _graph().items():
        layer = _layer(module)
        for target in targets:
            other = _layer(target)
            if other != layer and other not in ALLOWED[layer]:
                against.append(f"{module} -> {target}")
    assert against == []


SYNTHETIC: Final = "vision.board.synthetic"  # rendered boards: training data, test frames, the demo


def test_the_reading_path_never_imports_the_synthetic_boards() -> None:
    """Renderers make training data and demos (issue 69): no module of rules_core, hardware or vision
    outside ``vision.board.synthetic`` imports it, nor any of the web app but its demo table and CLI
    (the models' training scripts may)."""
    allowed = (SYNTHETIC, "models.", "webapp.services.demo.", "webapp.cli")
    against = [
        f"{module} -> {target}"
        for module, targets in _graph().items()
        if not module.startswith(allowed)
        for target in targets
        if target == SYNTHETIC or target.startswith(SYNTHETIC + ".")
    ]
    assert against == [] and any(m.startswith(SYNTHETIC + ".") for m in MODULES)


SLIP_SYNTHETIC: Final = "vision.slips.synthetic"  # handwriting, UNIPEN writers, drawn slips: training data, the demo


def test_the_slip_reading_path_never_imports_the_synthetic_slips() -> None:
    """Handwriting, UNIPEN writers and drawn slips make training data and demos (issue 68): no module of
    rules_core, hardware or vision outside ``vision.slips.synthetic`` imports them, and of the web app only the
    demo's scanner does (the models' training scripts may)."""
    importers = {
        module
        for module, targets in _graph().items()
        if not module.startswith(SLIP_SYNTHETIC)
        and any(t == SLIP_SYNTHETIC or t.startswith(SLIP_SYNTHETIC + ".") for t in targets)
    }
    against = sorted(m for m in importers if not m.startswith(("models.", "webapp.services.demo.")))
    assert against == [] and {m for m in importers if m.startswith("webapp.")} <= {"webapp.services.demo.slips"}
    assert {"drawn", "handwriting", "unipen"} <= {m.rpartition(".")[2] for m in MODULES if m.startswith(SLIP_SYNTHETIC)}


TEST_MODULES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py"))


@pytest.mark.parametrize("module", sorted(m for m, p in MODULES.items() if p.suffix == ".py"))
def test_no_module_over_600_lines(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module}: {lines} lines"


@pytest.mark.parametrize("path", TEST_MODULES)
def test_no_test_module_over_600_lines(path: str) -> None:
    lines = (ROOT / path).read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path}: {lines} lines"


def test_no_folder_of_the_web_app_is_crowded() -> None:
    for folder in [ROOT / "webapp", *(p for p in (ROOT / "webapp").iterdir() if (p / "__init__.py").exists())]:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        assert count <= MAX_MODULES_PER_FOLDER, f"{folder.relative_to(ROOT)}: {count} modules"
