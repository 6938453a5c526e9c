"""A browsing model with a parameter of its own is a measure like any other.

A browsing model with a parameter of its own, registered in a script or by a plugin, is a
measure like any other: parse_measure, the short-name round trip, calc_aggregate, pt.Experiment,
meta.evaluate and the command line (issue 18, items 1, 2 and 6).

The model ``Half`` is RBP under another name, with its persistence called ``q`` (default 0.5),
so its scores have an independent reference: RBP with p = q.
"""
from __future__ import annotations

import io
import math
import os
import subprocess
import sys
import textwrap
from contextlib import redirect_stdout
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import nDCG

import ir_cwla
from ir_cwla import CWLA, Param
from ir_cwla.errors import MeasureError, MeasureSyntaxError, RegistrationError
from ir_cwla.measures import _registry as registry

ROOT = Path(__file__).resolve().parents[1]


def half(inp, params):
    """Half: C(i) = q, RBP's continuation with a persistence of its own."""
    return np.full(inp.gains.shape, float(params["q"]))


def _register():
    return ir_cwla.register_browsing_model(
        "Half", half, params={"q": Param(0.5, bounds=(0.0, 1.0), closed="neither", doc="persistence of Half")},
        gain_dependent=False, replace=True)


def _unregister(name="Half", table=None):
    registry.remove(ir_cwla.BROWSING_MODELS if table is None else table, name)


@pytest.fixture
def registered():
    _register()
    yield
    _unregister()


def test_the_declaration_defines_default_validation_spelling_and_short_name(registered):
    m = CWLA(C="Half", q=0.3) @ 10
    assert m["q"] == 0.3 and CWLA(C="Half")["q"] == 0.5
    assert CWLA(C="Half", q=0.5) == CWLA(C="Half") and str(CWLA(C="Half")) == "CWLA(C='Half',A='ERG')"
    assert CWLA(C="INST", T=3) == CWLA(C="INST", T=3.0)          # one spelling (Half's q admits no int)
    assert ir_cwla.short_name(m) == "Half(q=0.3)_ERG@10"
    assert ir_cwla.parse_measure("Half(q=0.3)_ERG@10") == m
    assert ir_cwla.parse_measure(str(m)) == m
    assert ir_measures.parse_measure("Half_ERG(q=0.3)@10") == m    # the alias ir-measures knows
    assert "q" in CWLA.SUPPORTED_PARAMS and "persistence of Half" in CWLA.SUPPORTED_PARAMS["q"].desc
    assert any("q" in s.params for s in ir_cwla.PROVIDER.SUPPORTED_MEASURES)
    with pytest.raises(MeasureError, match=r"C='Half': q must lie in \(0, 1\) \(got q=1.5\)"):
        CWLA(C="Half", q=1.5)
    with pytest.raises(MeasureError, match=r"q=0.3 has no effect with C='RBP' and A='ERG' \(their parameters: p\)"):
        CWLA(C="RBP", q=0.3)
    from ir_cwla.analysis import naming  # (imported by the other tests; not by ``import ir_cwla``)

    assert naming.browsing_model(str(m)) == "Half(q=0.3)@10"


def test_a_name_parsed_before_the_registration_is_known_after_it():
    from ir_cwla.analysis import naming

    name = "Half(q=0.3)_ERG@10"
    assert naming.parse(name) is None                      # cached as no measure
    with pytest.raises(MeasureSyntaxError):
        ir_cwla.parse_measure("Half(q=0.3)_ERG@10")
    assert "q" not in CWLA.SUPPORTED_PARAMS
    _register()
    try:
        assert naming.parse(name) == CWLA(C="Half", q=0.3) @ 10
        assert naming.label(name) == "Half(q=0.3)_ERG@10"
    finally:
        _unregister()
    assert "q" not in CWLA.SUPPORTED_PARAMS and "Half_ERG" not in ir_measures.measures.registry


def _collection(synthetic_collection):
    c = synthetic_collection
    return c.qrels, {name: c.runs[name] for name in list(c.runs)[:3]}


def test_calc_aggregate_pt_experiment_and_meta_evaluate(registered, synthetic_collection):
    import pyterrier as pt

    qrels, runs = _collection(synthetic_collection)
    ours = [CWLA(C="Half", q=0.3) @ 10, CWLA(C="Half", A="max", tail="pad"), CWLA(C="Half", A="avg")]
    reference = [CWLA(C="RBP", p=0.3) @ 10, CWLA(C="RBP", A="max", p=0.5, tail="pad"), CWLA(C="RBP", A="avg", p=0.5)]
    for run in runs.values():
        got = ir_measures.calc_aggregate(ours + [nDCG @ 10], qrels, run)
        want = ir_measures.calc_aggregate(reference, qrels, run)
        for m, r in zip(ours, reference):
            assert got[m] == pytest.approx(want[r], abs=1e-12), m
    per_query = ir_cwla.meta.evaluate(runs, qrels, ours, missing_topics="ignore")   # (a run misses 3 topics)
    ref = ir_cwla.meta.evaluate(runs, qrels, reference, missing_topics="ignore")
    np.testing.assert_allclose(per_query["value"].to_numpy(), ref["value"].to_numpy(), atol=1e-12)
    assert set(per_query["measure"]) == {str(m) for m in ours}

    systems = [pt.Transformer.from_df(r.rename(columns={"query_id": "qid", "doc_id": "docno"}), uniform=True)
               for r in runs.values()]
    topics = pd.DataFrame({"qid": sorted(qrels["query_id"].unique()), "query": "q"})
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    res = pt.Experiment(systems, topics, pt_qrels, eval_metrics=ours, names=list(runs))
    for name, run in runs.items():
        want = ir_measures.calc_aggregate(reference, qrels, run)
        row = res.set_index("name").loc[name]
        for m, r in zip(ours, reference):
            assert row[str(m)] == pytest.approx(want[r], abs=1e-12)


def test_the_command_line_in_the_script_that_registered_it(registered, synthetic_files, capsys):
    from ir_cwla.app import cli

    run = next(iter(synthetic_files.runs.values()))
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["eval", str(synthetic_files.qrels), str(run), "-m", "Half(q=0.3)_ERG@10",
                         "RBP(p=0.3)_ERG@10"]) == 0
    lines = [line.split("\t") for line in out.getvalue().splitlines()[1:]]
    assert [line[0].strip() for line in lines] == ["Half(q=0.3)_ERG@10", "RBP(p=0.3)_ERG@10"]
    assert lines[0][2] == lines[1][2]


@pytest.mark.parametrize("kwargs, message", [
    ({"params": {"cutoff": Param(3)}}, r"'cutoff' is a parameter of every C/W/L/A measure"),
    ({"params": {"tail": Param(1.0)}}, r"'tail' is a parameter of every C/W/L/A measure"),
    ({"params": {"q": Param(2.0, bounds=(0.0, 1.0))}}, r"parameter 'q': its default q must lie in \[0, 1\]"),
    ({"params": {"q": Param("high")}}, r"the default must be a number"),
    ({"params": {"q": Param(0.5, closed="open")}}, r"closed='open' is not one of both, neither, left, right"),
    ({"params": {"q": 0.5}}, r"must be declared as ir_cwla.Param"),
    ({"params": ("zz",)}, r"parameter 'zz' is declared by no registered model or aggregation"),
])
def test_bad_declarations_are_refused(kwargs, message):
    with pytest.raises(RegistrationError, match=message):
        ir_cwla.register_browsing_model("Bad", half, **kwargs)
    assert "Bad" not in ir_cwla.BROWSING_MODELS


def test_names_must_be_identifiers_and_unique():
    with pytest.raises(RegistrationError, match="must be an identifier"):
        ir_cwla.register_browsing_model("my-model", half)
    with pytest.raises(RegistrationError, match="browsing model 'RBP' is already registered"):
        ir_cwla.register_browsing_model("RBP", half)


def test_an_alias_that_collides_with_an_ir_measures_measure_is_refused():
    """An aggregation named IA would give P_IA, AP_IA and ERR_IA, ir-measures' intent-aware measures."""
    before = dict(ir_measures.measures.registry)
    with pytest.raises(RegistrationError, match=r"AP_IA, ERR_IA, P_IA .*ir-measures' measure"):
        ir_cwla.register_aggregation("IA", lambda inp, params: inp.gains)
    assert "IA" not in ir_cwla.AGGREGATIONS
    assert ir_measures.measures.registry == before
    assert ir_measures.parse_measure("P_IA@10").NAME == "P_IA"


def test_only_aliases_the_grammar_accepts_are_registered():
    table = ir_measures.measures.registry
    ours = {k for k, v in table.items() if ir_cwla.is_cwla(v) and k != "CWLA"}
    assert "RBP_max" in ours and "P_ERG" in ours and "AP_ERR" in ours
    assert not {"RBP_ERR", "P_ERR", "DCG_ERR", "INSQ_ERR", "NPV_ERR", "TBG_ERR"} & ours
    for name in ours:
        m = table[name]
        (m @ 10 if ir_cwla.BROWSING_MODELS[m["C"]].requires_cutoff else m).validate_params()
    assert len(ours) == len(ir_cwla.measures._names.alias_names())


# -- plugins ---------------------------------------------------------------------------------------

PLUGIN = '''
import numpy as np
import ir_cwla


def half(inp, params):
    """Half: C(i) = q."""
    return np.full(inp.gains.shape, float(params["q"]))


def register():
    ir_cwla.register_browsing_model("Half", half, gain_dependent=False,
                                    params={"q": ir_cwla.Param(0.5, bounds=(0.0, 1.0), closed="neither")})
'''


def _distribution(site: Path, name: str, module: str, code: str, entry: str) -> None:
    (site / f"{module}.py").write_text(textwrap.dedent(code))
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[ir_cwla.plugins]\n{entry}\n")


def _run(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "ir_cwla", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.slow
def test_a_plugin_brings_a_model_with_its_parameter_to_the_command(tmp_path, synthetic_files):
    site = tmp_path / "site"
    site.mkdir()
    _distribution(site, "ir-cwla-halfplugin", "halfplugin", PLUGIN, "half = halfplugin:register")
    _distribution(site, "ir-cwla-brokenplugin", "brokenplugin", "def register():\n    raise RuntimeError('boom')\n",
                  "broken = brokenplugin:register")
    version = _run(site, "--version")
    assert version.returncode == 0, version.stderr
    assert "plugins: half (ir-cwla-halfplugin 0.1)" in version.stdout
    assert version.stderr.count("plugin 'broken'") == 1 and "RuntimeError: boom" in version.stderr
    run = next(iter(synthetic_files.runs.values()))
    done = _run(site, "eval", str(synthetic_files.qrels), str(run), "-m", "Half(q=0.3)_ERG@10", "RBP(p=0.3)_ERG@10")
    assert done.returncode == 0, done.stderr
    values = [line.split("\t")[2] for line in done.stdout.splitlines()[1:]]
    assert len(values) == 2 and values[0] == values[1] and math.isfinite(float(values[0]))
    helped = _run(site, "eval", "--help")
    assert helped.returncode == 0 and "Half(q=0.5)" in helped.stdout
