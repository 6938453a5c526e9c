"""Randomised Tukey HSD, paired randomisation test and t-test against independent slow code."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.analysis import pairwise, streams, tukey


def slow_permutations(seed, chunk_index, n_rows, k):
    """The documented stream recipe, re-implemented: one permutation of range(k) per row."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, chunk_index)))
    if k <= 8:
        table = list(itertools.permutations(range(k)))
        return [table[i] for i in rng.integers(0, math.factorial(k), size=n_rows)]
    return [list(row) for row in rng.permuted(np.tile(np.arange(k), (n_rows, 1)), axis=1)]


def slow_tukey(x, trials, seed, chunk=200):
    """Carterette's Algorithm, trial by trial, in plain Python over the same permutations."""
    n_t, n_s = len(x), len(x[0])
    ranges = []
    for c, start in enumerate(range(0, trials, chunk)):
        size = min(chunk, trials - start)
        perms = slow_permutations(seed, c, size * n_t, n_s)
        for b in range(size):
            rows = perms[b * n_t:(b + 1) * n_t]
            means = [sum(x[t][rows[t][j]] for t in range(n_t)) / n_t for j in range(n_s)]
            ranges.append(max(means) - min(means))
    means = [sum(x[t][j] for t in range(n_t)) / n_t for j in range(n_s)]
    tol = 1e-12 * max(1.0, max(abs(v) for row in x for v in row))
    p = [[0.0] * n_s for _ in range(n_s)]
    for a in range(n_s):
        for b in range(n_s):
            p[a][b] = (sum(r >= abs(means[a] - means[b]) - tol for r in ranges) + 1) / (trials + 1)
    return np.array(p)


@pytest.mark.parametrize("n_systems", [2, 3, 5, 9])
def test_tukey_equals_slow_reference_exactly(n_systems):
    rng = np.random.default_rng(11)
    x = rng.random((7, n_systems)) + np.linspace(0, 0.4, n_systems)
    x[:, 0] = np.round(x[:, 0], 1)                   # some exact ties between topics
    trials = 450                                     # three chunks, the last one partial
    fast = meta.randomised_tukey_hsd(x, trials=trials, seed=5)
    slow = slow_tukey(x.tolist(), trials, 5)
    np.testing.assert_array_equal(fast, slow)
    assert (fast > 0).all() and (fast <= 1).all()


def test_tukey_with_two_systems_is_the_paired_randomisation_test():
    rng = np.random.default_rng(3)
    x = rng.random((12, 2))
    x[:, 1] += 0.15
    p_tukey = meta.randomised_tukey_hsd(x, trials=1000, seed=8)
    p_rand = meta.paired_randomisation_test(x, trials=1000, seed=8)
    np.testing.assert_array_equal(p_tukey, p_rand)
    assert 0 < p_tukey[0, 1] < 1
    # and both agree with the exact test over all 2^12 sign vectors within Monte Carlo error
    d = x[:, 0] - x[:, 1]
    signs = np.array(list(itertools.product([1, -1], repeat=len(d))))
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    assert abs(p_rand[0, 1] - exact) < 4 * math.sqrt(exact * (1 - exact) / 1000)


def test_one_clearly_better_system_is_significant_against_all():
    rng = np.random.default_rng(0)
    x = rng.normal(0.4, 0.1, size=(40, 6))
    x[:, 2] += 0.3
    p = meta.randomised_tukey_hsd(x, trials=2000, seed=1)
    others = [j for j in range(6) if j != 2]
    assert (p[2, others] < 0.01).all()
    assert (p[np.ix_(others, others)] > 0.05).all()    # the rest are the same system
    np.testing.assert_array_equal(p, p.T)
    assert (np.diag(p) == 1).all()


def test_identical_systems_have_p_one_and_seed_reproducibility():
    rng = np.random.default_rng(2)
    x = rng.random((10, 4))
    x[:, 3] = x[:, 1]
    p = meta.randomised_tukey_hsd(x, trials=300, seed=4)
    assert p[1, 3] == 1.0
    np.testing.assert_array_equal(p, meta.randomised_tukey_hsd(x, trials=300, seed=4))
    other = meta.randomised_tukey_hsd(x, trials=300, seed=np.random.SeedSequence(4))
    np.testing.assert_array_equal(p, other)
    assert not np.array_equal(tukey.chunk_ranges(x, 4, 0, 200), tukey.chunk_ranges(x, 5, 0, 200))


def test_tukey_is_more_conservative_than_per_pair_tests():
    rng = np.random.default_rng(9)
    x = rng.normal(0.5, 0.15, size=(30, 8)) + np.linspace(0, 0.12, 8)
    p_tukey = meta.randomised_tukey_hsd(x, trials=1000, seed=0)
    p_rand = meta.paired_randomisation_test(x, trials=1000, seed=0)
    a, b = np.triu_indices(8, 1)
    assert (p_tukey[a, b] >= p_rand[a, b]).all()
    assert (p_tukey[a, b] > p_rand[a, b]).mean() > 0.5


def test_paired_t_test_matches_scipy():
    rng = np.random.default_rng(1)
    x = rng.random((15, 5))
    x[:, 4] = x[:, 3] + 0.25                             # constant non-zero difference
    x[:, 2] = x[:, 0]                                    # identical
    p = meta.paired_t_test(x)
    for a, b in itertools.combinations(range(4), 2):
        if (a, b) == (0, 2):
            continue
        assert p[a, b] == pytest.approx(stats.ttest_rel(x[:, a], x[:, b]).pvalue, rel=1e-9)
    assert p[0, 2] == 1.0 and p[3, 4] == 0.0


def test_permutation_streams_are_uniform_and_stateless():
    assert streams.derive(7, 3).spawn_key == np.random.SeedSequence(7).spawn(4)[3].spawn_key
    rng = np.random.default_rng(0)
    perms = streams.permutations(rng, (12000,), 3)
    counts = np.unique(perms @ np.array([9, 3, 1]), return_counts=True)[1]
    assert len(counts) == 6 and stats.chisquare(counts).pvalue > 0.001
    big = streams.permutations(rng, (50,), 12)
    assert (np.sort(big, axis=1) == np.arange(12)).all()
    assert streams.chunk_sizes(450) == [200, 200, 50]


@pytest.mark.parametrize("bad, message", [
    (np.ones((5, 1)), "at least 2 systems"),
    (np.ones((1, 3)), "at least 2 topics"),
    (np.array([[0.1, np.nan], [0.2, 0.3]]), "NaN"),
    (np.ones(4), "2-d"),
])
def test_tukey_rejects_bad_matrices(bad, message):
    with pytest.raises(ValueError, match=message):
        meta.randomised_tukey_hsd(bad, trials=10, seed=0)


@pytest.mark.parametrize("trials", [0, -3, 2.5])
def test_tests_reject_bad_trials(trials):
    x = np.random.default_rng(0).random((5, 3))
    with pytest.raises(ValueError, match="trials"):
        meta.randomised_tukey_hsd(x, trials=trials, seed=0)
    with pytest.raises(ValueError, match="trials"):
        meta.paired_randomisation_test(x, trials=trials, seed=0)


def test_bad_seed_is_an_error():
    with pytest.raises(ValueError, match="seed"):
        meta.randomised_tukey_hsd(np.ones((3, 3)), trials=10, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        meta.randomised_tukey_hsd(np.ones((3, 3)), trials=10, seed=None)


def test_pair_helpers():
    a, b = pairwise.pair_indices(4)
    assert list(zip(a, b)) == list(itertools.combinations(range(4), 2))
    square = pairwise.to_square(np.arange(6, dtype=float), 4)
    assert square[1, 3] == square[3, 1] == 4 and square[2, 2] == 1
