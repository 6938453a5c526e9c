"""A criterion is one declaration (ir_cwla.meta.criteria).

The command line, the HTML report, the demo's loop and meta.sweep all take it
from meta.CRITERIA (issue 18, item 4).
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla import meta
from ir_cwla.errors import ParameterError, RegistrationError
from ir_cwla.measures import _registry as registry
from ir_cwla.meta import criteria

ROOT = Path(__file__).resolve().parents[1]


def frame(n_systems=5, n_topics=12, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(f"s{s}", f"q{t}", m, float(rng.random() + 0.05 * s)) for s in range(n_systems)
            for t in range(n_topics) for m in ("P@10", "nDCG@10")]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def spread(per_query: pd.DataFrame) -> pd.DataFrame:
    """The criterion of the tests: the spread (max - min) of each measure's system means."""
    means = per_query.groupby(["measure", "name"])["value"].mean()
    return means.groupby("measure").agg(lambda s: s.max() - s.min()).rename("spread").reset_index()


SPREAD = criteria.Criterion(
    "spread", "spread of the system means", "How far apart are the systems' mean scores?",
    compute=lambda inputs, scale: spread(inputs.per_query).assign(spread=lambda d: d["spread"] * scale),
    summary=lambda result, inputs, **options: result,
    section=lambda result, summary: [criteria.Text("The spread of the means."),
                                     criteria.Table(summary, "spread per measure", "spread.csv")],
    options=(criteria.Option("scale", 1.0, "a factor on the spread"),))


@pytest.fixture
def registered():
    criteria.register_criterion(SPREAD, replace=True)
    yield
    del criteria.CRITERIA["spread"]
    registry.generation += 1


def test_the_built_in_criteria_in_report_order():
    assert list(meta.CRITERIA)[:6] == ["similarity", "consistency", "discriminative_power", "topic_set_size",
                                       "incompleteness", "pooling_bias"]
    assert [c.needs for c in meta.CRITERIA.values()][:6] == [(), (), (), (), ("runs", "qrels"), ("runs", "qrels")]
    options = criteria.command_line_options()
    assert {"trials", "test_trials", "fractions", "fraction_trials", "pool_depths", "bias_depths", "min_diff",
            "beta"} <= set(options)
    assert criteria.resolve(None, {"per_query"}) == ["similarity", "consistency", "discriminative_power",
                                                     "topic_set_size"]


def test_a_criterion_registered_in_a_script_reaches_every_loop(registered, tmp_path, capsys):
    from ir_cwla.app import cli

    per_query = frame()
    done = criteria.run(["spread"], criteria.Inputs(per_query), {"scale": 2.0})
    expected = spread(per_query)
    np.testing.assert_allclose(done.summaries["spread"]["spread"], 2 * expected["spread"])
    assert "spread" in done.seconds
    # the command line: --criteria choices, its option, the report section
    path = tmp_path / "pq.csv"
    per_query.to_csv(path, index=False)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["meta", str(path), "--criteria", "spread", "--scale", "3", "--out", str(tmp_path / "r")]) == 0
    assert "spread of the system means:" in out.getvalue()
    page = (tmp_path / "r" / "index.html").read_text()
    assert "Meta-evaluation 1: spread of the system means" in page and "How far apart" in page
    written = pd.read_csv(tmp_path / "r" / "spread.csv")
    np.testing.assert_allclose(written["spread"], 3 * expected["spread"])
    with redirect_stdout(io.StringIO()) as helped, pytest.raises(SystemExit):
        cli.main(["meta", "--help"])
    assert "--scale" in helped.getvalue() and "spread" in helped.getvalue()
    # meta.sweep
    runs = {f"s{s}": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"],
                                   "score": [1.0 + s, 2.0, 0.5 * s]}) for s in range(3)}
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "a"], "relevance": [1, 2]})
    swept = meta.sweep(runs, qrels, ["P@1", "nDCG@2"], {"spread": {"scale": 1.0}}, progress=False)
    assert "spread" in swept.table().columns and set(swept.spread) == {"collection"}


def test_options_and_needs_are_checked_before_any_work(registered):
    with pytest.raises(ParameterError, match="unknown criterion 'nope'"):
        criteria.resolve(["nope"], {"per_query"})
    with pytest.raises(ParameterError, match="criterion 'incompleteness' needs runs and qrels"):
        criteria.resolve(["incompleteness"], {"per_query"})
    with pytest.raises(ParameterError, match="--test-trials must be >= 1"):
        criteria.run(["consistency"], criteria.Inputs(frame()), {"test_trials": 0})
    clash = criteria.Criterion("clash", "t", "q", compute=lambda inputs, trials: None,
                               summary=lambda *a, **k: pd.DataFrame(), section=lambda r, s: [],
                               options=(criteria.Option("trials", 7, "another default for --trials"),))
    with pytest.raises(RegistrationError, match="option --trials .* is also 'consistency'"):
        criteria.register_criterion(clash)
    assert "clash" not in meta.CRITERIA


def test_topic_set_size_criterion_equals_its_function():
    per_query = frame()
    done = criteria.run(["topic_set_size"], criteria.Inputs(per_query), {"min_diff": 0.2, "beta": 0.3})
    direct = meta.topic_set_sizes(per_query, 0.2, beta=0.3)
    got = done.summaries["topic_set_size"].set_index("measure")
    for _, row in direct.iterrows():
        assert got.at[row["measure"], "n_t_test"] == row["n_t_test"]


PLUGIN = '''
import pandas as pd
from ir_cwla.meta import criteria


def register():
    criteria.register_criterion(criteria.Criterion(
        "count", "topics per system", "How many topics does each system have?",
        compute=lambda inputs: inputs.per_query.groupby("name")["qid"].nunique().rename("topics").reset_index(),
        summary=lambda result, inputs: result, section=lambda result, summary: [], per_measure=False))
'''


@pytest.mark.slow
def test_a_plugin_brings_a_criterion_to_the_command(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "countplugin.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "ir_cwla_countplugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ir-cwla-countplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ir_cwla.plugins]\ncount = countplugin:register\n")
    path = tmp_path / "pq.csv"
    frame().to_csv(path, index=False)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "ir_cwla", "meta", str(path), "--criteria", "count", "--out",
                           str(tmp_path / "r")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "topics per system:" in done.stdout and "s4" in done.stdout
    assert ir_cwla.plugins.GROUP == "ir_cwla.plugins"
