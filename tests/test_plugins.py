"""Plugins cannot break or bend a command (issue 33): ``ir_cwla.plugins`` and the registries' guard.

Each test fabricates distributions (a ``*.dist-info`` folder with ``METADATA`` and
``entry_points.txt``, and the plugin's module) in a temporary folder put on ``PYTHONPATH`` of a
subprocess: nothing is installed into the environment the tests run in.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Optional, Union

import pytest

import ir_cwla

ROOT = Path(__file__).resolve().parents[1]

QRELS = "".join(f"{q} 0 d{d} {g}\n" for q in (1, 2) for d, g in ((1, 2), (2, 0), (3, 1), (4, 1)))
RUN = "".join(f"{q} Q0 d{d} {r} {10 - r} sys\n" for q in (1, 2) for r, d in enumerate((2, 1, 4, 3), 1))


def _distribution(site: Path, name: str, module: Optional[str], code: str, entry_points: Union[str, bytes]) -> None:
    if module:
        (site / f"{module}.py").write_text(textwrap.dedent(code))
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    data = entry_points if isinstance(entry_points, bytes) else entry_points.encode()
    (info / "entry_points.txt").write_bytes(data)


def _run(site: Path, *args: str, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "IR_CWLA_NO_PLUGINS"}
    environ.update(PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]), **(env or {}))
    return subprocess.run([sys.executable, "-m", "ir_cwla", *args], cwd=site, env=environ, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    out.mkdir()
    (out / "qrels.txt").write_text(QRELS)
    (out / "run.txt").write_text(RUN)
    return out


def _eval(site: Path, *measures: str, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    return _run(site, "eval", "qrels.txt", "run.txt", "-m", *measures, env=env)


def _warnings(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(line.startswith("ir-cwla") and ": warning: " in line for line in lines), stderr
    return lines


GOOD = '''
import numpy as np
import ir_cwla


def register():
    ir_cwla.register_browsing_model("Half", lambda inp, params: np.full(inp.gains.shape, 0.5), gain_dependent=False)
'''


def test_a_malformed_entry_points_file_is_one_warning_naming_it_and_the_command_runs(site):
    _distribution(site, "ir-cwla-good", "goodplugin", GOOD, "[ir_cwla.plugins]\nhalf = goodplugin:register\n")
    _distribution(site, "ir-cwla-noequals", None, "", "[ir_cwla.plugins]\nhalf goodplugin:register\n")
    _distribution(site, "ir-cwla-twice", None, "", "[ir_cwla.plugins]\na = goodplugin:register\na = x:y\n")
    _distribution(site, "ir-cwla-latin", None, "", "[ir_cwla.plugins]\ncaf\xe9 = goodplugin:register\n".encode("latin-1"))
    # a line without '=' in another section is not ir_cwla's business
    _distribution(site, "other-tool", None, "", "[console_scripts]\nbroken line\n[ir_cwla.plugins]\n")
    version = _run(site, "--version")
    assert version.returncode == 0, version.stderr
    assert "plugins: half (ir-cwla-good 0.1)" in version.stdout
    lines = _warnings(version.stderr)
    assert len(lines) == 3, version.stderr
    for line, dist, why in zip(lines, ("ir-cwla-latin", "ir-cwla-noequals", "ir-cwla-twice"),
                               ("not UTF-8", "without '='", "declared twice")):
        assert line.startswith("ir-cwla: warning: the plugins of " + dist), line
        assert "entry_points.txt" in line and why in line and "skipped" in line, line
    done = _eval(site, "Half_ERG@3")
    assert done.returncode == 0 and done.stdout.count("Half_ERG@3") == 1, done.stderr
    assert len(_warnings(done.stderr)) == 3 and "ir-cwla eval: warning: the plugins of ir-cwla-latin" in done.stderr


@pytest.mark.parametrize("raised", ["SystemExit(3)", "BaseException('deep')", "GeneratorExit()"])
def test_a_plugin_raising_anything_at_load_is_one_warning_and_the_command_runs(site, raised):
    _distribution(site, "ir-cwla-raiser", "raiser", f"raise {raised}\n", "[ir_cwla.plugins]\nraiser = raiser:register\n")
    _distribution(site, "ir-cwla-good", "goodplugin", GOOD, "[ir_cwla.plugins]\nhalf = goodplugin:register\n")
    done = _eval(site, "Half_ERG@3", "RBP_ERG@3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Half_ERG@3") == 1 and done.stdout.count("RBP_ERG@3") == 1
    [line] = _warnings(done.stderr)
    name = raised.split("(")[0]
    assert line.startswith("ir-cwla eval: warning: plugin 'raiser' (raiser:register, from ir-cwla-raiser 0.1) "
                           f"could not be loaded and is skipped: {name}"), line


def test_a_keyboard_interrupt_while_plugins_load_ends_the_command_as_ctrl_c_does(site):
    _distribution(site, "ir-cwla-ctrlc", "ctrlc", "def register():\n    raise KeyboardInterrupt\n",
                  "[ir_cwla.plugins]\nctrlc = ctrlc:register\n")
    done = _eval(site, "RBP_ERG@3")
    assert done.returncode == 130 and done.stdout == ""
    assert done.stderr == "ir-cwla: interrupted (loading plugin 'ctrlc' (ctrlc:register, from ir-cwla-ctrlc 0.1))\n"
    # a program importing ir_cwla is interrupted as it would be anywhere else
    program = subprocess.run([sys.executable, "-c", "import ir_cwla"], cwd=site, capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)])), timeout=600)
    assert program.returncode != 0 and "KeyboardInterrupt" in program.stderr


BENDER = '''
import numpy as np
import ir_cwla
from ir_cwla.analysis import significance


def register():
    ir_cwla.register_browsing_model("RBP", lambda inp, params: np.full(inp.gains.shape, 0.99), params=["p"],
                                    replace=True)
    ir_cwla.register_aggregation("ERG", lambda inp, params: inp.cg, replace=True)
    ir_cwla.BROWSING_MODELS["INST"] = ir_cwla.BROWSING_MODELS["RBP"]      # behind the registry's back
    t = significance.TESTS["t"]
    significance.register_test(type(t)(**{**t.__dict__, "fn": lambda *a, **k: None}), replace=True)
    ir_cwla.register_browsing_model("Mine", lambda inp, params: np.full(inp.gains.shape, 0.5), gain_dependent=False)
    ir_cwla.register_browsing_model("Mine", lambda inp, params: np.full(inp.gains.shape, 0.25), gain_dependent=False,
                                    replace=True)                           # its own: replaced
'''


def test_a_plugin_cannot_change_a_built_in_measure(site):
    measures = ("RBP_ERG@3", "INST_ERG@3", "Mine_ERG@3")
    _distribution(site, "ir-cwla-bender", "bender", BENDER, "[ir_cwla.plugins]\nbender = bender:register\n")
    done = _eval(site, *measures)
    assert done.returncode == 0, done.stderr
    lines = [line for line in _warnings(done.stderr) if " s to load " not in line]  # (it imports scipy: maybe slow)
    assert len(lines) == 4, done.stderr
    where = "plugin 'bender' (bender:register, from ir-cwla-bender 0.1)"
    for kind, name in (("browsing model", "RBP"), ("aggregation", "ERG"), ("statistical test", "t")):
        assert any(f"{where} may not replace the built-in {kind} {name!r}: refused" in line for line in lines), lines
    assert any(f"{where} changed the built-in browsing model 'INST': refused" in line for line in lines), lines
    without = _eval(site, "RBP_ERG@3", "INST_ERG@3", "RBP(p=0.25)_ERG@3", env={"IR_CWLA_NO_PLUGINS": "1"})
    assert without.returncode == 0 and without.stderr == ""
    got, want = (dict((line.split()[0], line.split()[2]) for line in p.stdout.splitlines()[1:]) for p in (done, without))
    assert got["RBP_ERG@3"] == want["RBP_ERG@3"] and got["INST_ERG@3"] == want["INST_ERG@3"]     # the built-ins'
    assert got["Mine_ERG@3"] == want["RBP(p=0.25)_ERG@3"]     # its own model replaced: C = 0.25, RBP(p=0.25)'s


def test_what_a_plugin_warns_is_one_line_naming_it(site):
    code = "import warnings\nwarnings.warn('mind the gap')\n\ndef register():\n    warnings.warn('again', FutureWarning)\n"
    _distribution(site, "ir-cwla-chatty", "chatty", code, "[ir_cwla.plugins]\nchatty = chatty:register\n")
    done = _eval(site, "RBP_ERG@3")
    assert done.returncode == 0, done.stderr
    where = "plugin 'chatty' (chatty:register, from ir-cwla-chatty 0.1)"
    assert done.stderr.splitlines() == [f"ir-cwla eval: warning: {where} warns: mind the gap (UserWarning)",
                                        f"ir-cwla eval: warning: {where} warns: again (FutureWarning)"]


def test_a_slow_plugin_is_named_with_its_time_and_plugins_can_be_left_out(site):
    code = "import time\n\ndef register():\n    time.sleep(1.3)\n"
    _distribution(site, "ir-cwla-slow", "slow", code, "[ir_cwla.plugins]\nslow = slow:register\n")
    done = _run(site, "--version")
    assert done.returncode == 0 and "plugins: slow (ir-cwla-slow 0.1)" in done.stdout
    [line] = _warnings(done.stderr)
    assert line.startswith("ir-cwla: warning: plugin 'slow' (slow:register, from ir-cwla-slow 0.1) took ")
    assert " s to load" in line and "IR_CWLA_NO_PLUGINS=1" in line and "--no-plugins" in line
    seconds = float(line.split(" took ")[1].split(" s ")[0])
    assert seconds >= 1.3
    for without in (_run(site, "--no-plugins", "--version"), _run(site, "--version", env={"IR_CWLA_NO_PLUGINS": "1"}),
                    _run(site, "--no-plugins", "eval", "qrels.txt", "run.txt", "-m", "RBP_ERG@3")):
        assert without.returncode == 0 and without.stderr == "" and "plugins" not in without.stdout
    # --no-plugins after the command is not the global option
    late = _run(site, "eval", "--no-plugins", "qrels.txt", "run.txt")
    assert late.returncode == 2 and "--no-plugins" in late.stderr


def test_a_program_gets_the_plugin_warnings_as_warnings(site):
    _distribution(site, "ir-cwla-raiser", "raiser", "def register():\n    raise RuntimeError('boom')\n",
                  "[ir_cwla.plugins]\nraiser = raiser:register\n")
    code = ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
            "    import ir_cwla\nprint([(x.category.__name__, str(x.message)) for x in w])\n"
            "print(ir_cwla.plugins.LOADED)")
    program = subprocess.run([sys.executable, "-c", code], cwd=site, capture_output=True, text=True, timeout=600,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)])))
    assert program.returncode == 0, program.stderr
    assert program.stdout.splitlines() == [
        "[('PluginWarning', \"plugin 'raiser' (raiser:register, from ir-cwla-raiser 0.1) could not be loaded and is "
        "skipped: RuntimeError: boom\")]", "[]"]


def test_no_plugins_too_late_in_a_program_says_so(monkeypatch, capsys):
    from ir_cwla import plugins
    from ir_cwla.app import cli

    monkeypatch.setattr(plugins, "LOADED", [plugins.Plugin("x", "x:r", "dist-x", "1")])
    with pytest.raises(SystemExit):
        cli.main(["--no-plugins", "--version"])
    err = capsys.readouterr().err
    assert err.startswith("ir-cwla: warning: --no-plugins comes too late for this process, which loaded the "
                          "plugins x (dist-x 1)"), err
    assert ir_cwla.plugins.NO_PLUGINS_OPTION == "--no-plugins"
