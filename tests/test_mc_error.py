"""The Monte-Carlo error of compare's randomised numbers, and adding trials until no decision can flip.

The reported standard deviations are checked against the spread of the same numbers over
repeated seeds; a run continued with ``max_trials`` / ``max_resamples`` gives exactly the numbers
of a single run of the final count (the streams' chunks are drawn element after element, so a
chunk's first trials do not depend on how many are drawn).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_cwla
from ir_cwla.analysis import montecarlo, pvalues, streams


def frame(x: np.ndarray, measure: str = "AP") -> pd.DataFrame:
    n_t, n_s = x.shape
    rows = [(f"s{j}", f"q{t:02d}", measure, float(x[t, j])) for t in range(n_t) for j in range(n_s)]
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


@pytest.fixture(scope="module")
def close() -> pd.DataFrame:
    """Four systems whose differences sit near the usual thresholds (p-values of 0.01-0.3)."""
    rng = np.random.default_rng(12)
    x = rng.uniform(0.2, 0.6, (25, 1)) + np.array([0.0, 0.015, 0.03, 0.045]) + rng.normal(0, 0.05, (25, 4))
    return frame(x)


def test_the_chunks_of_a_stream_are_drawn_element_after_element():
    """The first n trials of a chunk are the same whatever the batch (what continuing a run relies on)."""
    for k in (2, 3, 8, 9, 30):
        for n_t in (1, 7, 43):
            full = streams.permutations(np.random.default_rng(5), (200, n_t), k)
            part = streams.permutations(np.random.default_rng(5), (77, n_t), k)
            assert (full[:77] == part).all()
    full = np.random.default_rng(3).integers(0, 43, size=(200, 43))
    assert (full[:37] == np.random.default_rng(3).integers(0, 43, size=(37, 43))).all()


def test_a_plan_continued_from_start_covers_the_trials_of_a_single_plan():
    single = [(c, k, n) for task in montecarlo.plan(0, 0, 1000, 200, 1, 1) for c, k, n in task.chunks]
    first = [(c, k, n) for task in montecarlo.plan(0, 0, 350, 200, 1, 1) for c, k, n in task.chunks]
    rest = [(c, k, n) for task in montecarlo.plan(0, 0, 650, 200, 1, 1, start=350) for c, k, n in task.chunks]
    assert first + rest == [(0, 0, 200), (1, 0, 150), (1, 150, 50), (2, 0, 200), (3, 0, 200), (4, 0, 200)]
    assert sum(n for *_, n in single) == sum(n for *_, n in first + rest) == 1000


@pytest.mark.parametrize("test,correction", [("randomisation", "holm"), ("bootstrap", "bonferroni"),
                                             ("randomised-tukey-hsd", "none"), ("t", "maxt-stepdown")])
def test_more_trials_give_the_numbers_of_a_single_run(close, test, correction):
    """trials=150 (not a whole chunk) doubled while a decision could flip == one run of the final count."""
    grown = ir_cwla.compare(close, test=test, correction=correction, trials=150, max_trials=2400, resamples=150,
                            max_resamples=1200, seed=3)
    assert grown.trials > 150 and grown.requested_trials == 150                # something could flip at 150
    once = ir_cwla.compare(close, test=test, correction=correction, trials=grown.trials, resamples=grown.resamples,
                           seed=3)
    pd.testing.assert_frame_equal(grown.table(), once.table(), check_exact=True)
    assert grown.trials in (300, 600, 1200, 2400) and grown.resamples in (150, 300, 600, 1200)


def test_trials_grow_only_while_a_decision_could_flip(close):
    grown = ir_cwla.compare(close, test="randomisation", correction="none", trials=200, max_trials=100_000,
                            resamples=100, seed=1)
    table = grown.table()
    if grown.trials < 100_000:
        assert not table["significance_could_flip"].any()
    half = ir_cwla.compare(close, test="randomisation", correction="none", trials=grown.trials // 2, resamples=100,
                           seed=1)
    assert half.table()["significance_could_flip"].any()                       # it stopped at the first stable count
    exact = ir_cwla.compare(close, test="t", trials=200, max_trials=10_000, resamples=100)
    assert exact.trials == 200                                                 # nothing randomised to add to
    with pytest.raises(ValueError, match="max_trials .* must be at least trials"):
        ir_cwla.compare(close, trials=500, max_trials=100)


def test_the_reported_sd_of_p_values_is_their_spread_over_seeds(close):
    """The Monte-Carlo sd of each p-value against the sd of 60 seeds' p-values (within sampling error)."""
    runs = [ir_cwla.compare(close, test="randomisation", correction="none", trials=400, resamples=50, seed=s).table()
            for s in range(60)]
    p = np.stack([r["p_value"].to_numpy() for r in runs])
    reported = np.stack([r["p_value_mc_sd"].to_numpy() for r in runs]).mean(axis=0)
    observed = p.std(axis=0, ddof=1)
    # (a p-value near 1, or one no trial reaches, has almost no spread: its sd, estimated at p, is an upper bound)
    keep = (p.mean(axis=0) > 0.02) & (p.mean(axis=0) < 0.9)
    ratio = observed[keep] / reported[keep]
    assert keep.sum() >= 3 and (observed <= 1.45 * reported).all() and ((ratio > 0.65) & (ratio < 1.45)).all(), ratio  # sd of an sd from 60 seeds: ~9 %


def test_the_reported_sd_of_interval_bounds_is_their_spread_over_seeds(close):
    runs = [ir_cwla.compare(close, baseline="s0", resamples=400, seed=s).table() for s in range(60)]
    for bound in ("boot_low", "boot_high"):
        values = np.stack([r[bound].to_numpy() for r in runs])
        reported = np.stack([r[f"{bound}_mc_sd"].to_numpy() for r in runs]).mean(axis=0)
        ratio = values.std(axis=0, ddof=1) / reported
        assert ((ratio > 0.6) & (ratio < 1.6)).all(), (bound, ratio)


def test_flags_say_where_the_decision_is_within_the_error():
    low, high = np.array([-0.001, 0.01, -0.2]), np.array([0.3, 0.2, -0.0005])
    sd = np.array([0.001, 0.001, 0.001])
    np.testing.assert_array_equal(pvalues.interval_could_flip(low, high, sd, sd), [True, False, True])
    np.testing.assert_array_equal(pvalues.could_flip(np.array([0.01, 0.06]), np.array([0.07, 0.08]), 0.05),
                                  [True, False])
