"""What starting up loads.

``import ir_cwla`` (the measures alone), ``ir-cwla --version`` and ``ir-cwla eval --help``
(issue 23, item 1). Each case runs in a fresh interpreter and lists ``sys.modules``; how long
they take is measured in ``benchmarks/bench_scale_out.py``, not here.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Every ir_cwla module ``import ir_cwla`` loads: the measures, their registries and names, the
#: ir-measures provider (its scoring imported when it first scores), the hooks of named sources.
ENGINE_AT_IMPORT = {
    "ir_cwla", "ir_cwla._version", "ir_cwla._facade", "ir_cwla._text", "ir_cwla.errors", "ir_cwla.plugins",
    # the reading room's facade and what needs no pandas (cost files are read as streams: stdlib only)
    "ir_cwla.io", "ir_cwla.io._columns", "ir_cwla.io._cost_files", "ir_cwla.io._hashing", "ir_cwla.io._ordering", "ir_cwla.io._sources",
    "ir_cwla.io._rules", "ir_cwla.io._textstream",
    "ir_cwla.measures", "ir_cwla.measures._aggregation", "ir_cwla.measures._browsing", "ir_cwla.measures._costs",
    "ir_cwla.measures._cwl_models", "ir_cwla.measures._gains", "ir_cwla.measures._measure", "ir_cwla.measures._names",
    "ir_cwla.measures._params", "ir_cwla.measures._registry", "ir_cwla.measures._table1", "ir_cwla.measures._tails",
    "ir_cwla.provider", "ir_cwla.provider._backends", "ir_cwla.provider._provider",
    "ir_cwla.measures._trec_measures", "ir_cwla.provider._trec_provider",     # trec_eval's measures
}
#: Third-party packages none of these start-ups may load (each costs 0.1-0.5 s).
HEAVY = {"pandas", "pyarrow", "scipy", "matplotlib", "ir_datasets", "pyterrier", "pyterrier_pisa", "tqdm",
         "statsmodels", "sklearn", "distributed", "dask"}
ROOMS = ("ir_cwla.meta", "ir_cwla.leaderboard", "ir_cwla.datasets", "ir_cwla.comparison", "ir_cwla.app")

LIST_MODULES = "import json, sys; print(json.dumps(sorted(sys.modules)))"


def loaded(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (then listing them)."""
    out = subprocess.run([sys.executable, "-c", f"{code}\n{LIST_MODULES}"], capture_output=True, text=True,
                         check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_import_loads_the_measures_and_nothing_heavy():
    modules = loaded("import ir_cwla")
    assert {m for m in modules if m.split(".")[0] == "ir_cwla"} == ENGINE_AT_IMPORT
    assert not top_level(modules) & HEAVY, sorted(top_level(modules) & HEAVY)
    assert {"numpy", "ir_measures"} <= top_level(modules)


def test_what_import_loads_still_makes_and_parses_every_measure():
    """Light is not hollow: the registries, the grammar and the ir-measures registration are there."""
    code = ("import ir_cwla, ir_measures\n"
            "assert len(ir_cwla.table1()) == 39\n"
            "m = ir_measures.parse_measure('RBP_max@10')\n"
            "assert ir_cwla.is_cwla(m) and ir_cwla.PROVIDER in ir_measures.DefaultPipeline.providers\n"
            "assert 'INST' in ir_cwla.BROWSING_MODELS and 'PE' in ir_cwla.AGGREGATIONS")
    modules = loaded(code)
    assert not top_level(modules) & HEAVY


def test_the_data_modules_load_on_first_use():
    modules = loaded("import ir_cwla\nir_cwla.io.read_trec_run\nir_cwla.Scorer")
    assert {"ir_cwla.io._frames", "ir_cwla.scoring._scoring", "pandas"} <= modules
    assert not {m for m in modules if m.startswith(ROOMS)}


@pytest.mark.parametrize("argv", [["--version"], ["eval", "--help"], ["eval", "-h"]])
def test_the_command_line_starts_without_pandas_or_the_rooms(argv):
    """``ir-cwla eval --help`` lists the registered models and aggregations from the engine's registries.

    Nothing else of the package is needed to print it.
    """
    code = ("import contextlib, io, sys\nfrom ir_cwla.app import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    try:\n"
            f"        cli.main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "assert 'ir-cwla' in out.getvalue(), out.getvalue()")
    modules = loaded(code)
    assert not top_level(modules) & HEAVY, sorted(top_level(modules) & HEAVY)
    # the module of the command that runs (eval; none for --version) and nothing else: no other command's
    rooms = {m for m in modules if m.startswith(ROOMS)} - {"ir_cwla.app", "ir_cwla.app.cli", "ir_cwla.app.evaluate",
                                                           "ir_cwla.app.commands", "ir_cwla.app.commands.options",
                                                           "ir_cwla.app.commands.eval", "ir_cwla.app.trec_eval_cli"}
    assert not rooms, sorted(rooms)
    assert ("ir_cwla.app.commands.eval" in modules) == (argv[0] == "eval")


def test_help_still_lists_every_command_and_what_is_registered():
    from ir_cwla.app import cli

    parser = cli.build_parser()          # ir-cwla --help: every sub-command in full
    text = parser.format_help()
    for command in ("eval", "measures", "meta", "leaderboard", "cwl", "demo", "compare"):
        assert command in text
    eval_help = cli.build_parser("eval")._subparsers._group_actions[0].choices["eval"].format_help()
    assert "browsing models (C): P, DCG, RBP(p=0.8)" in " ".join(eval_help.split())
    # another command than meta gets meta's name only; meta itself gets every criterion's options
    assert "--trials" not in cli.build_parser("eval")._subparsers._group_actions[0].choices["meta"].format_help()
    assert "--trials" in cli.build_parser("meta")._subparsers._group_actions[0].choices["meta"].format_help()


@pytest.mark.parametrize("before", ["", "gc.disable()\n"])
def test_import_leaves_the_garbage_collector_as_it_found_it(before):
    """``import ir_cwla`` pauses the collector while it imports, then leaves it on (or off) as it was."""
    code = (f"import gc\n{before}was = gc.isenabled()\n"
            "import builtins\nreal = builtins.__import__\nseen = []\n"
            "def spy(name, *a, **k):\n    seen.append((name, gc.isenabled()))\n    return real(name, *a, **k)\n"
            "builtins.__import__ = spy\nimport ir_cwla\nbuiltins.__import__ = real\n"
            "inner = [on for name, on in seen if name == 'ir_measures' or name.startswith('ir_cwla.')]\n"
            "print(was, gc.isenabled(), len(inner) > 5 and not any(inner))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == out[1]                 # as it was
    assert out[2] == "True"                 # and off while ir_cwla imported its modules and ir-measures


def test_the_command_freezes_what_its_imports_made_and_main_does_not(monkeypatch, capsys):
    """The console script (``run``) takes the start-up objects out of the collector's passes; ``main`` leaves it alone."""
    import gc

    from ir_cwla.app import cli

    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(sys, "argv", ["ir-cwla", "--version"])
    with pytest.raises(SystemExit) as done:         # (argparse's --version exits)
        cli.run()
    assert done.value.code == 0 and frozen == [True]
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert frozen == [True] and capsys.readouterr().out.startswith("ir-cwla ")
    script = (Path(__file__).resolve().parents[1] / "setup.cfg").read_text()
    assert "ir-cwla = ir_cwla.app.cli:run" in script
