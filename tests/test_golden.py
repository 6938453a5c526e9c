"""The engine's numbers, pinned bit for bit on nine real DL19 runs (``tests/golden``).

Layout and speed changes of the engine must not move a single bit of these scores. On a
machine other than the one that wrote the file, vectorised maths libraries may round the
last bit differently, so there the test allows 4 units in the last place.
"""
from __future__ import annotations

import platform

import numpy as np
import pytest

import ir_cwla
from tests.golden.make_golden import OUT
from tests.golden.measures import GOLDEN_MEASURES, GOLDEN_RUNS


@pytest.fixture(scope="module")
def golden():
    with np.load(OUT) as f:
        return {k: f[k] for k in f.files}


@pytest.fixture(scope="module")
def evaluator(dl19_qrels_path):
    return ir_cwla.CwlaEvaluator(GOLDEN_MEASURES, ir_cwla.io.read_trec_qrels(dl19_qrels_path))


def test_the_golden_measures_are_the_recorded_ones(golden):
    assert list(golden["measures"]) == [str(m) for m in GOLDEN_MEASURES]


@pytest.mark.parametrize("run", GOLDEN_RUNS)
def test_scores_are_bit_identical(run, golden, evaluator, dl19_dir):
    topics, scores = evaluator.score(ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz"), run)
    order = np.argsort(topics)
    assert list(topics[order]) == list(golden[f"{run}/topics"])
    got = np.stack([scores[m][order] for m in GOLDEN_MEASURES])
    expected = golden[f"{run}/scores"]
    same_machine = str(golden["machine"]) == f"{platform.machine()} numpy {np.__version__}"
    if same_machine:
        bad = np.argwhere(got != expected)
        assert not len(bad), [(str(GOLDEN_MEASURES[i]), j, got[i, j], expected[i, j]) for i, j in bad[:5]]
    else:
        np.testing.assert_array_max_ulp(got, expected, maxulp=4)
