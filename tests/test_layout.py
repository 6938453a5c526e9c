"""The package's layout: dependencies point one way (engine <- meta, leaderboard, datasets <- compare <- app)
and no module imports another that (directly or not) imports it back.

Imports are read from the source (every ``import``, at module level or inside a function;
only those under ``if TYPE_CHECKING:`` are left out, as they never run).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ir_cwla"

#: Each layer may import only from itself and the layers before it.
LAYERS = {"engine": 0, "meta": 1, "leaderboard": 1, "datasets": 1, "comparison": 2, "app": 3}
#: ir_cwla/__init__.py is the facade: it re-exports every layer and is not part of the graph.
FACADE = "ir_cwla"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, module: str, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:   # ``from pkg import submodule`` depends on the submodule only
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    # keep ir_cwla modules only, each import resolved to the module it names
    out = set()
    for name in found:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        # a module's own parent packages are always imported before it: not a dependency
        if name and name != module and not module.startswith(name + "."):
            out.add(name)
    return out


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {m: _imports(p, m, modules) - {FACADE} for m, p in paths.items() if m != FACADE}


def _layer(module: str) -> str:
    if module == "ir_cwla.__main__":      # ``python -m ir_cwla`` is the command line
        return "app"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else "engine"


GRAPH = _graph()


def test_the_graph_is_read():
    assert "ir_cwla.kernel" in GRAPH["ir_cwla.scoring"] and "ir_cwla.scoring" in GRAPH["ir_cwla.provider"]
    assert "ir_cwla.app.evaluate" in GRAPH["ir_cwla.app.cli"]
    assert "ir_cwla.meta.frame" in GRAPH["ir_cwla.meta.kendall"]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_dependencies_point_one_way(module):
    """engine <- {meta, leaderboard, datasets} <- compare <- app; the three rooms of layer 1 do not know
    each other; compare sits above meta and leaderboard."""
    layer = _layer(module)
    for dep in GRAPH[module]:
        dep_layer = _layer(dep)
        assert dep_layer == layer or LAYERS[dep_layer] < LAYERS[layer], \
            f"{module} ({layer}) imports {dep} ({dep_layer})"


def test_no_import_cycle():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(GRAPH.get(node, ())):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep):] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
