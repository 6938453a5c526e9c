"""The package's layout.

Dependencies point one way (engine <- analysis <- meta, leaderboard, datasets <- compare <-
app) and no module imports another that (directly or not) imports it back.

Imports are read from the source (every ``import``, at module level or inside a function;
only those under ``if TYPE_CHECKING:`` are left out, as they never run).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ir_cwla"

#: Each layer may import only from itself and the layers before it.
LAYERS = {"engine": 0, "analysis": 1, "meta": 2, "leaderboard": 2, "datasets": 2, "comparison": 3, "app": 4}
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


def _imports(path: Path, module: str, modules: set[str], typing: bool = False) -> set[str]:
    """The ir_cwla modules that ``module`` imports.

    The ir_cwla modules ``module`` imports (at module level or in a function; with ``typing``,
    also those under ``if TYPE_CHECKING:``).
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not typing:
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


def _graph(typing: bool = False) -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {m: _imports(p, m, modules, typing) - {FACADE} for m, p in paths.items() if m != FACADE}


def _layer(module: str) -> str:
    if module == "ir_cwla.__main__":      # ``python -m ir_cwla`` is the command line
        return "app"
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else "engine"


GRAPH = _graph()
#: The same with the imports made only for type checkers: no cycle of any kind either.
TYPED_GRAPH = _graph(typing=True)


def test_the_graph_is_read():
    assert "ir_cwla.kernel" in GRAPH["ir_cwla.scoring"] and "ir_cwla.scoring" in GRAPH["ir_cwla.provider"]
    assert "ir_cwla.app.evaluate" in GRAPH["ir_cwla.app.cli"]
    assert "ir_cwla.analysis.frame" in GRAPH["ir_cwla.meta.kendall"]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_dependencies_point_one_way(module):
    """Dependencies point one way: engine <- analysis <- {meta, leaderboard, datasets} <- compare <- app.

    analysis (the per-query cube, random streams, executors, Monte-Carlo helpers and the statistical
    tests) is the room below meta-evaluation and comparison; the three rooms of layer 2 do not know
    each other; compare sits above meta and leaderboard.
    """
    layer = _layer(module)
    for dep in GRAPH[module]:
        dep_layer = _layer(dep)
        assert dep_layer == layer or LAYERS[dep_layer] < LAYERS[layer], \
            f"{module} ({layer}) imports {dep} ({dep_layer})"


@pytest.mark.parametrize("graph", [GRAPH, TYPED_GRAPH], ids=["imports", "with-type-checking-imports"])
def test_no_import_cycle(graph):
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycle = stack[stack.index(dep):] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_the_engine_loads_no_room_above_it():
    """``import ir_cwla.kernel`` (and so ``import ir_cwla``) loads the engine only.

    No datasets, meta, leaderboard, comparison or app module (``irds:`` ids and the Cranfield check
    load on first use).
    """
    import subprocess
    import sys

    code = "import sys, ir_cwla.kernel; print(' '.join(sorted(m for m in sys.modules if m.startswith('ir_cwla'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    rooms = {m.split(".")[1] for m in loaded if m.count(".") >= 1}
    assert "ir_cwla.kernel" in loaded
    assert not rooms & {"analysis", "datasets", "meta", "leaderboard", "comparison", "app"}, loaded


@pytest.mark.parametrize("module", ["ir_cwla.provider", "ir_cwla.meta.evaluation", "ir_cwla.meta.rescoring"])
def test_every_path_scores_through_the_scoring_api(module):
    """Every path scores C/W/L/A measures through the scoring API.

    The provider, meta.evaluate and the robustness re-scoring score C/W/L/A measures through
    ir_cwla.scoring, never the kernel's internals.
    """
    assert "ir_cwla.scoring" in GRAPH[module] and "ir_cwla.kernel" not in GRAPH[module]


def test_cwl_evals_command_keeps_its_arithmetic_to_itself():
    """``ir-cwla cwl`` keeps cwl_eval's arithmetic to itself.

    ir-cwla cwl repeats cwl_eval's floating-point operations (app/cwl_kernel.py) so that its table
    is cwl-eval's byte for byte; it reaches into no engine internals, and the engine checks it
    (tests/test_cwl_command.py: EU, EC, ED equal the CWLA measures scored by ir_cwla.scoring).
    """
    for module in ("ir_cwla.app.cwl", "ir_cwla.app.cwl_kernel"):
        assert "ir_cwla.kernel" not in GRAPH[module] and "ir_cwla.browsing" not in GRAPH[module], GRAPH[module]


#: What comparison/ may import from meta/: meta-evaluation proper (Sakai's topic set size design,
#: a criterion of meta, is re-exported by comparison as a design aid). Everything else the two
#: share (the cube, labels, streams, executors, Monte-Carlo helpers, test kernels) is ir_cwla.analysis.
COMPARISON_USES_OF_META = {"ir_cwla.meta.topic_set_size"}


def test_comparison_takes_only_meta_evaluation_from_meta():
    used = {dep for module, deps in GRAPH.items() if module.startswith("ir_cwla.comparison.")
            or module == "ir_cwla.comparison" for dep in deps if dep.startswith("ir_cwla.meta")}
    assert used <= COMPARISON_USES_OF_META, sorted(used - COMPARISON_USES_OF_META)


@pytest.mark.parametrize("old,new", [(f"ir_cwla.meta.{m}", f"ir_cwla.analysis.{m}") for m in
                                     ("executors", "streams", "montecarlo", "frame", "naming", "tukey",
                                      "pairwise", "anova")] + [("ir_cwla.comparison.paired", "ir_cwla.analysis.paired")])
def test_the_old_paths_of_the_moved_modules_name_the_same_module(old, new):
    import importlib

    assert importlib.import_module(old) is importlib.import_module(new)
