"""Kendall's tau-b kernels against scipy, and the confidence interval."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.meta import kendall


def test_tau_b_rows_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    x = np.round(rng.random((50, 12)), 1)              # many ties
    y = np.round(x + rng.normal(0, 0.2, x.shape), 1)
    ours = meta.tau_b_rows(x, y)
    ref = [stats.kendalltau(a, b, variant="b").statistic for a, b in zip(x, y)]
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)


def test_tau_b_matrix_matches_pairwise_scipy():
    rng = np.random.default_rng(1)
    scores = rng.random((20, 4))
    scores[:, 3] = np.round(scores[:, 0], 1)
    tau = meta.tau_b_matrix(scores)
    for i in range(4):
        for j in range(4):
            assert tau[i, j] == pytest.approx(stats.kendalltau(scores[:, i], scores[:, j]).statistic, abs=1e-12)
    np.testing.assert_array_equal(np.diag(tau), 1.0)


def test_near_ties_are_ties_and_all_tied_is_undefined():
    x = np.array([0.3, 0.1 + 0.2, 0.5, 0.7])           # 0.3 and 0.1+0.2 differ in the last bit
    y = np.array([0.3, 0.3, 0.5, 0.7])
    assert meta.tau_b_rows(x, y) == 1.0
    assert np.isnan(meta.tau_b_rows(np.ones(4), y))


def test_fieller_ci():
    low, high = meta.fieller_ci(np.array([0.6, 1.0, -0.2]), n=37)
    z, se = np.arctanh(0.6), np.sqrt(0.437 / 33)
    assert low[0] == pytest.approx(np.tanh(z - 1.959964 * se), abs=1e-6)
    assert high[0] == pytest.approx(np.tanh(z + 1.959964 * se), abs=1e-6)
    assert low[1] == high[1] == 1.0
    assert low[2] < -0.2 < high[2]
    narrow = kendall.fieller_ci(np.array([0.6]), n=37, level=0.5)
    assert narrow[0][0] > low[0] and narrow[1][0] < high[0]
    assert np.isnan(kendall.fieller_ci(np.array([0.5]), n=4)[0]).all()
