"""The wiring layer's shape: no import cycle among the ``app/`` modules (nor the tools'), the
core never imports the app, the package the Lambda layer ships never imports the tools, and
``bootstrap()`` returns one typed runtime with every part.

The import graph is read from the source (every ``import``, at module level, inside a
function or under ``TYPE_CHECKING``), so a cycle hidden behind a lazy import is caught too.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

from family_memory.app.bootstrap import bootstrap
from family_memory.app.formation import FormationServices
from family_memory.app.lifecycle import BriefServices, Lifecycle
from family_memory.app.runtime import Runtime
from family_memory.app.settings import load_settings
from family_memory.card.service import Card
from family_memory.retrieval.service import Retrieval

PACKAGE = Path(__file__).resolve().parents[2] / "shared" / "family_memory"
TOOLS = PACKAGE.parent / "family_memory_tools"
#: The core: what the layers below the app are; none of it may import ``family_memory.app``.
CORE = ("domain", "ports", "formation", "lifecycle", "brief", "retrieval", "card", "writes", "adapters", "forgotten")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The ``family_memory`` modules ``path`` imports (``from pkg import name`` counts ``pkg.name``
    when that is a module, else ``pkg``)."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("family_memory"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            if not base.startswith("family_memory"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    return found


MODULES = {module_name(p): p for p in [*PACKAGE.rglob("*.py"), *TOOLS.rglob("*.py")]}


def app_graph() -> dict[str, set[str]]:
    """The import graph among the wiring layer's modules and the tools' (which build on it)."""
    app = {name for name in MODULES if name.startswith(("family_memory.app", "family_memory_tools"))}
    return {name: {m for m in imports_of(MODULES[name]) if m in app and m != name} for name in sorted(app)}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in graph:
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_among_the_app_modules() -> None:
    graph = app_graph()
    assert graph.get("family_memory.app.bootstrap")
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_no_part_of_the_wiring_imports_the_composition_root() -> None:
    parts = ["formation", "formation_events", "foundation", "lifecycle", "runtime", "settings", "observability"]
    for part in parts:
        assert "family_memory.app.bootstrap" not in imports_of(MODULES[f"family_memory.app.{part}"]), part


def test_the_core_never_imports_the_app() -> None:
    for name, path in MODULES.items():
        if name.count(".") and name.split(".")[1] in CORE:
            assert not [m for m in imports_of(path) if m.startswith("family_memory.app")], name


def test_the_package_the_layer_ships_never_imports_the_tools() -> None:
    for name, path in MODULES.items():
        if name.startswith("family_memory.") or name == "family_memory":
            assert not [m for m in imports_of(path) if m.startswith("family_memory_tools")], name


def test_bootstrap_returns_one_typed_runtime_with_every_part(tmp_path: Path) -> None:
    runtime = bootstrap(load_settings({}, home=tmp_path, embedder="hashed"))
    assert isinstance(runtime, Runtime)
    assert {f.name for f in fields(Runtime)} >= {"formation", "lifecycle", "retrieval", "card", "brief"}
    assert not [f.name for f in fields(Runtime) if f.name == "extras"]
    assert isinstance(runtime.formation, FormationServices)
    assert isinstance(runtime.lifecycle, Lifecycle)
    assert isinstance(runtime.brief, BriefServices)
    assert isinstance(runtime.card, Card) and runtime.card.writer is runtime.writer
    assert isinstance(runtime.retrieval, Retrieval)
    assert runtime.brief.patcher in runtime.writer.listeners
