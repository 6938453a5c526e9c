"""The engine's numbers, pinned bit for bit on nine real DL19 runs (``tests/golden``).

Layout and speed changes of the engine must not move a single bit of these scores. Two
exceptions allow 4 units in the last place: a cutoff deeper than every ranking of the run
(the ranks past the ranking are then summed in closed form instead of over a matrix padded
with zeros, which changes the order of floating-point additions), and a machine other than
the one that wrote the file (vectorised maths libraries may round the last bit differently).
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
    frame = ir_cwla.io.read_trec_run(dl19_dir / "runs" / f"input.{run}.gz")
    longest = int(frame.groupby("query_id").size().max())
    topics, scores = evaluator.score(frame, run)
    order = np.argsort(topics)
    assert list(topics[order]) == list(golden[f"{run}/topics"])
    got = np.stack([scores[m][order] for m in GOLDEN_MEASURES])
    expected = golden[f"{run}/scores"]
    same_machine = str(golden["machine"]) == f"{platform.machine()} numpy {np.__version__}"
    deeper = np.array([m.params.get("cutoff", 0) > longest for m in GOLDEN_MEASURES])
    exact = ~deeper if same_machine else np.zeros(len(GOLDEN_MEASURES), dtype=bool)
    bad = np.argwhere(got[exact] != expected[exact])
    names = [str(m) for m, e in zip(GOLDEN_MEASURES, exact) if e]
    assert not len(bad), [(names[i], j, got[exact][i, j], expected[exact][i, j]) for i, j in bad[:5]]
    np.testing.assert_array_max_ulp(got[~exact], expected[~exact], maxulp=4)
