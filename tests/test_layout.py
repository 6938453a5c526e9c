"""The package's layout.

Dependencies point one way (engine <- analysis <- meta, leaderboard, datasets <- compare <-
app) and no module imports another that (directly or not) imports it back. Within the engine
the rooms are ordered too (base <- io <- measures <- scoring <- provider), and what is public
is what is documented: each room is a package whose facade (its ``__init__``) exports, in
``__all__``, what docs/api/ documents; the modules behind it are private (``_name.py``).

Imports are read from the source (every ``import``, at module level or inside a function;
only those under ``if TYPE_CHECKING:`` are left out, as they never run).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ir_cwla"

#: Each layer may import only from itself and the layers before it.
LAYERS = {"engine": 0, "analysis": 1, "meta": 2, "leaderboard": 2, "datasets": 2, "comparison": 3, "app": 4}
#: ir_cwla/__init__.py is the facade: it re-exports every layer and is not part of the graph.
FACADE = "ir_cwla"
#: The rooms of the engine, in order: each may import only from itself and the rooms before it.
#: ``base`` is every engine module outside a room (errors, plugins, the private _text, ...).
ENGINE_ROOMS = {"base": 0, "io": 1, "measures": 2, "scoring": 3, "provider": 4}
#: The public modules of the engine (every other engine module's name starts with ``_``), each
#: documented by docs/api/.
PUBLIC_ENGINE = {"ir_cwla.errors", "ir_cwla.plugins", "ir_cwla.io", "ir_cwla.measures", "ir_cwla.scoring",
                 "ir_cwla.provider"}
DOCS_API = PACKAGE.parent / "docs" / "api"


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
    return parts[1] if len(parts) >= 2 and parts[1] in LAYERS else "engine"


def _room(module: str) -> str:
    """The engine room of an engine module (``base`` outside the four rooms)."""
    parts = module.split(".")
    return parts[1] if len(parts) >= 2 and parts[1] in ENGINE_ROOMS else "base"


def _private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split("."))


GRAPH = _graph()
#: The same with the imports made only for type checkers: no cycle of any kind either.
TYPED_GRAPH = _graph(typing=True)


ENGINE = sorted(m for m in GRAPH if _layer(m) == "engine" and m != "ir_cwla.__main__")


def test_the_graph_is_read():
    assert "ir_cwla.scoring._kernel" in GRAPH["ir_cwla.scoring._scoring"]
    assert "ir_cwla.scoring._scoring" in GRAPH["ir_cwla.provider._provider"]
    assert "ir_cwla.app.evaluate" in GRAPH["ir_cwla.app.commands.eval"]
    assert "ir_cwla.analysis.frame" in GRAPH["ir_cwla.meta.kendall"]
    assert {_room(m) for m in ENGINE} == set(ENGINE_ROOMS)
    assert _room("ir_cwla.io._frames") == "io" and _room("ir_cwla._text") == "base" and _room("ir_cwla.errors") == "base"


@pytest.mark.parametrize("module", ENGINE)
def test_the_engine_rooms_point_one_way(module):
    """Within the engine, a room imports only from itself and the rooms before it.

    base <- io (reading) <- measures (what a measure is) <- scoring <- provider (ir-measures):
    no arrow runs back up, with or without the imports made only for type checkers.
    """
    room = _room(module)
    for dep in GRAPH[module] | TYPED_GRAPH[module]:
        if _layer(dep) != "engine":
            continue            # (an engine module importing a layer above: test_dependencies_point_one_way)
        assert ENGINE_ROOMS[_room(dep)] <= ENGINE_ROOMS[room], \
            f"{module} ({room}) imports {dep} ({_room(dep)}), a room after it"


def test_no_circle_between_the_engine_rooms():
    """The rooms' own graph (an edge where a module of one imports a module of another) has no cycle."""
    edges = {(_room(m), _room(d)) for m in ENGINE for d in GRAPH[m] | TYPED_GRAPH[m]
             if _layer(d) == "engine" and _room(d) != _room(m)}
    order = sorted(ENGINE_ROOMS, key=ENGINE_ROOMS.get)
    assert all(order.index(a) > order.index(b) for a, b in edges), sorted(edges)
    assert ("provider", "io") in edges and ("measures", "io") in edges and ("scoring", "measures") in edges


def test_the_public_engine_modules_are_the_documented_ones():
    """What is public is what is documented.

    Every engine module but the facades, errors and plugins is private (``_name.py``, behind its
    room's facade); each public one is a ``:::`` directive of docs/api/ (mkdocstrings renders it,
    its ``__all__``), and no directive names a private module, nor a public one by a second path.
    """
    public = {m for m in ENGINE if not _private(m)} - {FACADE}
    assert public == PUBLIC_ENGINE
    directives = re.findall(r"^::: ([\w.]+)", "\n".join(p.read_text() for p in sorted(DOCS_API.glob("*.md"))),
                            re.MULTILINE)
    assert not [d for d in directives if _private(d)], directives
    engine_directives = [d for d in directives if _layer(d) == "engine"]
    assert set(engine_directives) == PUBLIC_ENGINE, engine_directives


@pytest.mark.parametrize("facade", sorted(PUBLIC_ENGINE))
def test_every_public_name_is_documented(facade):
    """Every name of a public module's ``__all__`` has a docstring where mkdocstrings reads it.

    (griffe, as mkdocstrings does: a constant's docstring is the string after its assignment, so
    each is on its docs/api page, not only in the source.)
    """
    griffe = pytest.importorskip("griffe")
    loader = griffe.GriffeLoader(search_paths=[str(PACKAGE.parent)])
    module = loader.load(facade)
    loader.resolve_aliases(external=False)
    names = [getattr(n, "name", n) for n in (module.exports or [])]
    assert names, f"{facade} has no __all__"
    undocumented = [n for n in names if not (module[n].docstring and module[n].docstring.value.strip())]
    assert not undocumented, undocumented


@pytest.mark.parametrize("facade", sorted(PUBLIC_ENGINE | {FACADE}))
def test_each_facade_exports_what_it_has(facade):
    """``__all__`` of each public module names what it has (the lazy names resolve), each once."""
    import importlib

    module = importlib.import_module(facade)
    names = module.__all__
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, missing
    lazy = getattr(module, "_LAZY", {})
    assert set(lazy) <= set(names) | {"scoring"}, sorted(set(lazy) - set(names))


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
    """``import ir_cwla.scoring._kernel`` (and so ``import ir_cwla``) loads the engine only.

    No datasets, meta, leaderboard, comparison or app module (``irds:`` ids and the Cranfield check
    load on first use).
    """
    import subprocess
    import sys

    code = "import sys, ir_cwla.scoring._kernel; print(' '.join(sorted(m for m in sys.modules if m.startswith('ir_cwla'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    rooms = {m.split(".")[1] for m in loaded if m.count(".") >= 1}
    assert "ir_cwla.scoring._kernel" in loaded
    assert not rooms & {"analysis", "datasets", "meta", "leaderboard", "comparison", "app"}, loaded


@pytest.mark.parametrize("module", ["ir_cwla.provider._provider", "ir_cwla.meta.evaluation", "ir_cwla.meta.rescoring"])
def test_every_path_scores_through_the_scoring_api(module):
    """Every path scores C/W/L/A measures through the scoring API.

    The provider, meta.evaluate and the robustness re-scoring score C/W/L/A measures through
    ir_cwla.scoring, never the kernel's internals.
    """
    assert {"ir_cwla.scoring", "ir_cwla.scoring._scoring"} & GRAPH[module] and "ir_cwla.scoring._kernel" not in GRAPH[module]


def test_cwl_evals_command_keeps_its_arithmetic_to_itself():
    """``ir-cwla cwl`` keeps cwl_eval's arithmetic to itself.

    ir-cwla cwl repeats cwl_eval's floating-point operations (app/cwl_kernel.py) so that its table
    is cwl-eval's byte for byte; it reaches into no engine internals, and the engine checks it
    (tests/test_cwl_command.py: EU, EC, ED equal the CWLA measures scored by ir_cwla.scoring).
    """
    for module in ("ir_cwla.app.cwl", "ir_cwla.app.cwl_kernel"):
        assert not {"ir_cwla.scoring._kernel", "ir_cwla.measures._browsing"} & GRAPH[module], GRAPH[module]


def test_no_file_is_left_at_an_old_module_path():
    """The modules of before the rooms moved with git mv: no file at their paths (git follows each move)."""
    from ir_cwla import _facade

    for old in _facade.MOVED:
        name = old.split(".", 1)[1].replace(".", "/")        # meta.naming -> meta/naming
        if old not in _facade.FACADES:
            assert not (PACKAGE / f"{name}.py").exists() and not (PACKAGE / name).exists(), old


def test_the_old_module_paths_still_work_with_a_warning():
    """``ir_cwla.gains.Qrels`` and the like: the same object, an IrCwlaDeprecationWarning naming the new path.

    In a fresh interpreter (importing an old path makes it an attribute of ``ir_cwla``):
    ``ir_cwla.table1()`` still works after ``import ir_cwla.table1``, and a name an old module
    re-exported (GainSpec in gains) is found where it is now.
    """
    import subprocess
    import sys

    code = """
import warnings
import ir_cwla
from ir_cwla.errors import IrCwlaDeprecationWarning
def moved(get):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = get()
    assert [w.category for w in seen] == [IrCwlaDeprecationWarning], seen
    return value, str(seen[0].message)
import ir_cwla.gains, ir_cwla.table1
value, message = moved(lambda: ir_cwla.gains.Qrels)
assert value is ir_cwla.scoring.Qrels and "ir_cwla.gains.Qrels is now ir_cwla.scoring.Qrels" in message
value, message = moved(lambda: ir_cwla.gains.GainSpec)
assert value is ir_cwla.GainSpec and "ir_cwla.measures.GainSpec" in message
value, message = moved(lambda: ir_cwla.io.check_grades_for_backends)
assert value is ir_cwla.provider.check_grades_for_backends and "ir_cwla.provider.check_grades_for_backends" in message
value, message = moved(lambda: ir_cwla.kernel.browse)
assert value is ir_cwla.scoring._kernel.browse and "(private" in message
value, message = moved(lambda: __import__("ir_cwla.names", fromlist=["parse_measure"]).parse_measure)
assert value is ir_cwla.parse_measure and "ir_cwla.measures.parse_measure" in message
assert len(ir_cwla.table1()) == 39 and len(moved(lambda: ir_cwla.table1.canonical)[0]()) == 6
# the analysis room's old paths (issue 29): meta.naming, from ir_cwla.meta import streams, comparison.paired
import ir_cwla.analysis.montecarlo, ir_cwla.analysis.naming
from ir_cwla import meta, comparison
value, message = moved(lambda: meta.naming.label)
assert value is ir_cwla.analysis.naming.label and "ir_cwla.meta.naming.label is now ir_cwla.analysis.naming.label" in message
from ir_cwla.meta import streams
value, message = moved(lambda: streams.CHUNK)
assert value == ir_cwla.analysis.streams.CHUNK
value, message = moved(lambda: __import__("ir_cwla.comparison.paired", fromlist=["x"]).t_test)
assert value is ir_cwla.analysis.paired.t_test and "ir_cwla.analysis.paired" in message
# a module setting assigned through an old path is set where it is now, with the warning
before = ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS
moved(lambda: setattr(meta.montecarlo, "WARN_AFTER_SECONDS", 5.0))
assert ir_cwla.analysis.montecarlo.WARN_AFTER_SECONDS == 5.0 != before
for missing in (lambda: ir_cwla.gains.nothing_of_that_name, lambda: ir_cwla.io.nothing,
                lambda: meta.nothing_of_that_name, lambda: comparison.nothing):
    try:
        missing()
    except AttributeError:
        pass
    else:
        raise AssertionError("no AttributeError")
print("ok")
"""
    out = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], capture_output=True,
                         text=True)
    assert out.stdout.strip() == "ok", out.stderr




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
def test_the_old_paths_of_the_moved_modules_give_their_names_with_a_warning(old, new):
    """Every old path of the analysis room (issue 29): each function of the new module, the same object, warned."""
    import importlib
    import inspect

    from ir_cwla.errors import IrCwlaDeprecationWarning

    module = importlib.import_module(new)
    names = [n for n, v in vars(module).items() if not n.startswith("_") and inspect.isfunction(v)
             and v.__module__ == new]
    assert names, new
    stand_in = importlib.import_module(old)
    assert stand_in is not module and not (PACKAGE / (old.split(".", 1)[1].replace(".", "/") + ".py")).exists()
    for name in names:
        with pytest.warns(IrCwlaDeprecationWarning, match=f"{old}.{name} is now {new}.{name}"):
            assert getattr(stand_in, name) is getattr(module, name)
