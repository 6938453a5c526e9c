"""tau_AP and RBO against independent computations.

Loops over the definitions, brute force over tie-breaks, published values, scipy's weightedtau
where they coincide, the RBO paper's formulas.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ir_cwla import meta
from ir_cwla.meta import agreement


# -- tau_AP ------------------------------------------------------------------------------------
def tau_ap_loop(reference, other) -> float:
    """Yilmaz et al.'s definition, literally.

    Walk down `other` (no ties), C(i) = items above rank i that `reference` also
    puts above the item at rank i.
    """
    n = len(other)
    order = sorted(range(n), key=lambda i: -other[i])
    total = 0.0
    for i in range(1, n):                       # rank i + 1
        item = order[i]
        c = sum(1 for j in order[:i] if reference[j] > reference[item])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def tau_ap_brute(reference, other) -> float:
    """The tie rule by brute force.

    Every ordering of `other`'s tied groups; pairs `reference` ties left out;
    ratio of the summed numerators and denominators.
    """
    n = len(other)
    groups: dict[float, list[int]] = {}
    for i, v in enumerate(other):
        groups.setdefault(v, []).append(i)
    num = den = 0.0
    for combo in itertools.product(*[itertools.permutations(groups[k]) for k in sorted(groups, reverse=True)]):
        order = [i for g in combo for i in g]
        for pos in range(1, n):
            for j in order[:pos]:
                s = np.sign(reference[j] - reference[order[pos]])
                num += s / pos
                den += abs(s) / pos
    return num / den if den else float("nan")


def test_tau_ap_without_ties_is_the_definition():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 15))
        x, y = rng.random(n), rng.random(n)
        assert meta.tau_ap(x, y) == pytest.approx(tau_ap_loop(x, y), abs=1e-12)


def test_tau_ap_with_ties_is_the_expectation_over_tie_breaks():
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(400):
        n = int(rng.integers(2, 8))
        x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
        ours, brute = meta.tau_ap(x, y), tau_ap_brute(x, y)
        if np.isnan(brute):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(brute, abs=1e-12), (x, y)
            checked += 1
    assert checked > 300


def test_tau_ap_published_values():
    """The example of Urbano & Marrero's R package ircor (?tauAP).

    tauAP(x, y) = 0.3928571, and tauAP_a(x, round(y, 1)) = 0.39903 (ties in the estimate:
    their 'a' variant, ours when the reference has no ties).
    """
    x = np.array([0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54])
    y = np.array([0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84])
    assert meta.tau_ap(x, y) == pytest.approx(0.3928571, abs=5e-8)
    assert meta.tau_ap(x, np.round(y, 1)) == pytest.approx(0.39903, abs=5e-6)


def test_tau_ap_equals_scipy_weightedtau_where_they_coincide():
    """tau_AP equals scipy's weightedtau where the two coincide.

    scipy's weightedtau weighs a pair by w(r) + w(s) (ranks by its first argument);
    tau_AP weighs it by 1 / (rank of the lower item - 1). For 3 items w = (1/2, 1/2, 0) gives
    exactly tau_AP's weights (1, 1/2, 1/2), for every pair of rankings.
    """
    weights = [0.5, 0.5, 0.0]
    for p in itertools.permutations(range(3)):
        for q in itertools.permutations(range(3)):
            x, y = np.array(p, float), np.array(q, float)
            expected = stats.weightedtau(y, x, rank=None, weigher=lambda r: weights[r], additive=True).statistic
            assert meta.tau_ap(x, y) == pytest.approx(expected, abs=1e-12)
    # beyond 3 items no additive weigher reproduces tau_AP: they differ
    x, y = np.arange(6.0), np.array([0, 1, 2, 3, 5, 4.0])
    assert meta.tau_ap(x, y) != pytest.approx(stats.weightedtau(y, x, rank=None).statistic, abs=1e-3)


def test_tau_ap_is_top_weighted_and_bounded():
    x = np.arange(10.0)[::-1]                           # item 0 best
    swap_top, swap_bottom = x.copy(), x.copy()
    swap_top[[0, 1]] = swap_top[[1, 0]]
    swap_bottom[[8, 9]] = swap_bottom[[9, 8]]
    assert meta.tau_ap(x, swap_top) < meta.tau_ap(x, swap_bottom) < 1.0
    assert meta.tau_b_rows(x, swap_top) == meta.tau_b_rows(x, swap_bottom)
    assert meta.tau_ap(x, x) == 1.0 and meta.tau_ap(x, -x) == -1.0
    tied = np.array([3, 3, 2, 2, 1.0])
    assert meta.tau_ap(tied, tied) == 1.0                   # identical rankings with ties agree fully
    assert meta.tau_ap(tied, -tied) == pytest.approx(-1.0)
    assert np.isnan(meta.tau_ap(np.ones(4), np.arange(4.0)))   # the truth orders nothing
    assert meta.tau_ap(np.arange(4.0), np.ones(4)) == 0.0   # the estimate orders nothing
    assert meta.tau_ap(np.array([0.3, 0.5, 0.7]), np.array([0.1 + 0.2, 0.5, 0.7])) == 1.0   # rounding is a tie


def test_tau_ap_rows_and_symmetric_form():
    rng = np.random.default_rng(2)
    x, y = np.round(rng.random((40, 9)), 1), np.round(rng.random((40, 9)), 1)
    rows = agreement.tau_ap_rows(x, y)
    assert rows == pytest.approx([meta.tau_ap(a, b) for a, b in zip(x, y)], abs=1e-12, nan_ok=True)
    sym = agreement.tau_ap_symmetric_rows(x, y)
    assert sym == pytest.approx(0.5 * (rows + agreement.tau_ap_rows(y, x)), nan_ok=True)
    assert sym == pytest.approx(agreement.tau_ap_symmetric_rows(y, x), nan_ok=True)


def test_tau_ap_inputs():
    a = pd.Series({"s1": 0.3, "s2": 0.2, "s3": 0.1})
    b = pd.Series({"s3": 0.3, "s1": 0.2, "s2": 0.1})         # aligned by system, not position
    assert meta.tau_ap(a, b) == pytest.approx(tau_ap_loop([0.3, 0.2, 0.1], [0.2, 0.1, 0.3]))
    assert meta.tau_ap(dict(a), dict(b)) == meta.tau_ap(a, b)
    with pytest.raises(ValueError, match="same systems"):
        meta.tau_ap(a, b.rename({"s3": "s4"}))
    with pytest.raises(ValueError, match="equal length"):
        meta.tau_ap([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="finite"):
        meta.tau_ap([1, 2, np.nan], [1, 2, 3])


# -- RBO ---------------------------------------------------------------------------------------
def test_rbo_published_value():
    """RBO_ext of a published example is 0.828.

    RBO_ext of 1 2 3 4 5 vs 2 3 4 1 5 at p = 0.9 is 0.828 (rankmeasures' README, checked by
    hand with Eq. 30: 0.9^5 + (0.1/0.9)(0.5*0.9^2 + 2/3*0.9^3 + 0.9^4 + 0.9^5)).
    """
    assert meta.rbo([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], p=0.9) == pytest.approx(0.828, abs=5e-4)
    by_hand = 0.9 ** 5 + (0.1 / 0.9) * (0.5 * 0.9 ** 2 + 2 / 3 * 0.9 ** 3 + 0.9 ** 4 + 0.9 ** 5)
    assert meta.rbo(list("abcde"), list("bcdae"), p=0.9) == pytest.approx(by_hand, abs=1e-15)


def test_rbo_unequal_lengths_is_eq_32():
    """S = a b c (s = 3), L = b a d c e (l = 5), p = 0.9.

    X_1..X_5 = 0, 2, 2, 3, 3 (X_4, X_5: all of S against L's prefix). Eq. 32: (1-p)/p [sum_d X_d/d p^d +
    sum_{d=s+1..l} X_s (d-s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l.
    """
    p = 0.9
    x = {1: 0, 2: 2, 3: 2, 4: 3, 5: 3}
    s, length = 3, 5
    first = sum(x[d] / d * p ** d for d in range(1, 6))
    second = sum(x[s] * (d - s) / (s * d) * p ** d for d in range(4, 6))
    expected = (1 - p) / p * (first + second) + ((x[5] - x[3]) / length + x[3] / s) * p ** 5
    assert meta.rbo(list("abc"), list("badce"), p) == pytest.approx(expected, abs=1e-15)
    assert meta.rbo(list("badce"), list("abc"), p) == pytest.approx(expected, abs=1e-15)   # symmetric


def test_rbo_ties_are_section_4_3():
    """S = a (b c) d, T = a b c d.

    Tied b and c both enter S's prefix at depth 2, so |S_:2| = 3 and A_2 = 2 X_2
    / (|S_:2| + |T_:2|) = 2*2/(3+2); A_1 = A_3 = A_4 = 1.
    """
    p = 0.9
    a = [1.0, 4 / 5, 1.0, 1.0]
    expected = (1 - p) / p * sum(a[d - 1] * p ** d for d in range(1, 5)) + a[3] * p ** 4
    assert meta.rbo(["a", {"b", "c"}, "d"], list("abcd"), p) == pytest.approx(expected, abs=1e-15)
    assert expected == pytest.approx(0.982, abs=1e-12)
    # the same ranking as scores (mapping and array forms)
    scores_s = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}
    scores_t = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    assert meta.rbo(scores_s, scores_t, p) == pytest.approx(expected, abs=1e-15)
    assert meta.rbo(pd.Series(scores_s), pd.Series(scores_t), p) == pytest.approx(expected, abs=1e-15)
    assert meta.rbo(np.array([3, 2, 2, 1.0]), np.array([4, 3, 2, 1.0]), p) == pytest.approx(expected, abs=1e-15)


def test_rbo_of_full_rankings_is_the_infinite_sum():
    """Two rankings of the same n items.

    RBO_ext is Eq. 7, (1 - p) sum_d p^(d-1) A_d, with the agreement past depth n
    held at A_n (= 1), summed far enough for 1e-12.
    """
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        p = float(rng.uniform(0.5, 0.98))
        x, y = np.round(rng.random(n), 1), np.round(rng.random(n), 1)
        ranks = [{i: 1 + int((v > v[i]).sum()) for i in range(n)} for v in (x, y)]
        depth = np.arange(1, 3000)
        a = np.empty(len(depth))
        for k, d in enumerate(depth):
            sx = {i for i, r in ranks[0].items() if r <= d}
            sy = {i for i, r in ranks[1].items() if r <= d}
            a[k] = 2 * len(sx & sy) / (len(sx) + len(sy))
        infinite = (1 - p) * float(np.sum(p ** (depth - 1) * a))
        assert meta.rbo(x, y, p) == pytest.approx(infinite, abs=1e-12)
        assert agreement.rbo_rows(x[None], y[None], p)[0] == pytest.approx(infinite, abs=1e-12)


def test_rbo_bounds_and_inputs():
    assert meta.rbo(list("abc"), list("abc")) == pytest.approx(1.0)
    assert meta.rbo(list("abc"), list("xyz")) == 0.0
    assert meta.rbo(["a", {"b", "c"}], ["a", {"c", "b"}]) == pytest.approx(1.0)
    assert 0 < meta.rbo(list("abcd"), list("dcba"), 0.5) < meta.rbo(list("abcd"), list("abdc"), 0.5)
    with pytest.raises(ValueError, match="persistence"):
        meta.rbo(list("ab"), list("ab"), p=1.0)
    with pytest.raises(ValueError, match="empty"):
        meta.rbo([], list("ab"))
    with pytest.raises(ValueError, match="twice"):
        meta.rbo(list("aba"), list("ab"))
    with pytest.raises(TypeError, match="float"):
        meta.rbo([0.3, 0.2], [0.2, 0.3])
    with pytest.raises(TypeError, match="sequence"):
        meta.rbo("abc", list("abc"))


def test_dispatch_and_matrix():
    rng = np.random.default_rng(4)
    scores = np.round(rng.random((12, 4)), 1)
    tau = agreement.matrix("tau", scores)
    assert np.array_equal(tau, meta.tau_b_matrix(scores))
    for kind in ("tau_ap", "rbo"):
        m = agreement.matrix(kind, scores, 0.8)
        assert np.allclose(m, m.T) and np.allclose(np.diag(m), 1.0)
        expected = (0.5 * (meta.tau_ap(scores[:, 0], scores[:, 2]) + meta.tau_ap(scores[:, 2], scores[:, 0]))
                    if kind == "tau_ap" else meta.rbo(scores[:, 0], scores[:, 2], 0.8))
        assert m[0, 2] == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="agreement"):
        agreement.check_agreement("spearman", 0.9)
