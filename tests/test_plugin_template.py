"""The template plugin of docs/plugins.md, installed and run from the command line (issue 30).

``examples/plugin_template`` is installed the way setuptools installs a package for development
(its ``setup.cfg`` read by setuptools, the metadata with its ``ir_cwla.plugins`` entry point
written by ``egg_info``) into a temporary directory, never into the environment that runs the
tests; ``ir-cwla`` then runs in a subprocess with that directory on its path. Its numbers are
checked against a loop written here from the model's formula, and against RBP where the
model is RBP (s = 0).
"""
from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "plugin_template"

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d 2\n2 0 e 1\n2 0 f 0\n"
RUN = ("1 Q0 b 1 4.0 r\n1 Q0 c 2 3.0 r\n1 Q0 a 3 2.0 r\n1 Q0 x 4 1.0 r\n"
       "2 Q0 f 1 2.0 r\n2 Q0 e 2 1.0 r\n")
#: The gains of each topic's ranking (lin: grade / the largest grade of the qrels, 2).
GAINS = {"1": [0.5, 0.0, 1.0, 0.0], "2": [0.0, 0.5]}


def sated_erg(gains, q, s, cutoff):
    """SATED's ERG@cutoff under tail='stop', from C(i) = q (1 - s r_i), by a plain loop."""
    r = list(gains) + [0.0] * (cutoff - len(gains))
    reach, total, depth, cg = 1.0, 0.0, 0.0, 0.0
    parts = []
    for i in range(cutoff):
        c = 0.0 if i == cutoff - 1 else q * (1 - s * r[i])
        cg += r[i]
        depth += reach
        parts.append(reach * (1 - c) * cg)          # L(i) CG(i)
        reach *= c
    for part in parts:
        total += part
    return total / depth


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The template installed into a temporary directory: the environment for ``ir-cwla``."""
    tmp = tmp_path_factory.mktemp("plugin")
    src, site = tmp / "src", tmp / "site"
    shutil.copytree(TEMPLATE, src)
    site.mkdir()
    done = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "egg_info",
                           "--egg-base", str(site)], cwd=src, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (info,) = site.glob("*.egg-info")
    assert "[ir_cwla.plugins]\nsated = cwla_sated:register" in (info / "entry_points.txt").read_text()
    (tmp / "qrels.txt").write_text(QRELS)
    (tmp / "run.txt").write_text(RUN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(src), str(ROOT)])}
    return tmp, env


def ir_cwla(installed, *args):
    tmp, env = installed
    done = subprocess.run([sys.executable, "-m", "ir_cwla", *args], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_installed_plugin_is_loaded(installed):
    assert "plugins: sated (ir-cwla-sated 0.1.0)" in ir_cwla(installed, "--version")
    assert "SATED" in ir_cwla(installed, "eval", "--help")


def test_eval_scores_the_plugins_model(installed):
    out = ir_cwla(installed, "eval", "qrels.txt", "run.txt", "-m", "SATED_ERG@10", "SATED(s=0)_ERG@10",
                  "RBP_ERG@10", "--per-query", "--no-summary", "--format", "csv")
    got = {(row["qid"], row["short"]): float(row["value"]) for row in csv.DictReader(io.StringIO(out))}
    for topic, gains in GAINS.items():
        assert got[(topic, "SATED_ERG@10")] == pytest.approx(sated_erg(gains, 0.8, 0.5, 10), abs=1e-4)
        assert got[(topic, "SATED(s=0)_ERG@10")] == pytest.approx(got[(topic, "RBP_ERG@10")], abs=1e-12)
    assert got[("1", "SATED_ERG@10")] != pytest.approx(got[("1", "RBP_ERG@10")], abs=1e-3)


def test_measures_reads_the_plugins_model_too(installed):
    out = ir_cwla(installed, "measures", "qrels.txt", "run.txt", "SATED_ERG@10", "--by_query")
    values = {line.split("\t")[0]: float(line.split("\t")[2]) for line in out.strip().splitlines()}
    assert set(values) == {"1", "2", "all"}
    for topic, gains in GAINS.items():
        assert values[topic] == pytest.approx(sated_erg(gains, 0.8, 0.5, 10), abs=1e-4)


def test_a_parameter_out_of_range_is_refused_with_the_plugins_declaration(installed):
    tmp, env = installed
    done = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", "qrels.txt", "run.txt", "-m", "SATED(s=2)_ERG@10"],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "C='SATED': s must lie in [0, 1] (got s=2.0)" in done.stderr, done.stderr


def test_without_the_plugin_the_error_says_how_plugins_are_found(installed):
    tmp, _ = installed
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "ir_cwla", "eval", "qrels.txt", "run.txt", "-m", "SATED_ERG@10"],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "unknown measure 'SATED_ERG@10'" in done.stderr
    assert "entry point of the group ir_cwla.plugins (docs/plugins.md" in done.stderr
    assert (ROOT / "docs" / "plugins.md").is_file()
    assert "plugins.md" in (ROOT / "mkdocs.yml").read_text()
