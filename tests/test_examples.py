"""Every example.

A ``--help`` that prints its usage and does nothing else; outputs of their own, never inside
another report's directory; a word on where they wrote, ``--quiet`` or not (issue 19).
"""
from __future__ import annotations

import re

import pytest

from tests.offline import ROOT, run_offline
from tests.synthetic import make_collection

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_there_are_examples():
    assert {p.name for p in EXAMPLES} >= {"leaderboard.py", "meta_evaluation.py", "pyterrier_experiment.py",
                                          "residuals.py", "robustness.py"}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_no_example_writes_inside_another_report_by_default(example):
    """`make demo` rewrites report/.

    An example's default output (and its docstring's command) is a directory of
    its own.
    """
    source = example.read_text(encoding="utf-8")
    assert not re.search(r"""default=["']report/""", source)
    assert "--out report/" not in source


@pytest.mark.slow   # one Python process per example
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_has_a_help_that_does_nothing_else(example, tmp_path):
    before = sorted(p.name for p in ROOT.iterdir())
    proc = run_offline([str(example), "--help"], tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("usage: ") and "--help" in proc.stdout
    assert "\n\n" in proc.stdout and proc.stderr == ""          # argparse's help, and nothing after it
    assert sorted(p.name for p in ROOT.iterdir()) == before       # nothing written where it ran
    assert {p.name for p in tmp_path.iterdir()} <= {"offline-site", "irds"}


@pytest.mark.slow   # the robustness criteria on a small synthetic collection
def test_robustness_example_says_where_it_wrote_when_quiet(tmp_path):
    files = make_collection(n_topics=6, max_depth=30).write(tmp_path / "data")
    out = tmp_path / "robustness-out"
    proc = run_offline(["examples/robustness.py", "--qrels", str(files.qrels), "--runs", str(files.qrels.parent / "runs"),
                        "--out", str(out), "--trials", "2", "--splits", "5", "--quiet"], tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == f"wrote {out}/"
    assert (out / "README.md").exists() and (out / ".ir-cwla-report").exists()
