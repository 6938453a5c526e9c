"""Correlations of measures with users' ratings under resampling weights, and Williams' test: numpy kernels.

A bootstrap replicate is a vector of weights over the units (how often each unit was drawn;
a cluster bootstrap gives every unit of a drawn cluster its cluster's count). Every statistic
here is that of the *expanded* sample, in which unit ``i`` appears ``w_i`` times, so a replicate
needs no copy of the data, and weights of 1 give the statistic of the data itself (the tests
check both against scipy on ``numpy.repeat`` of the data):

- Pearson's r: ``cov_w(x, y) / sqrt(var_w(x) var_w(y))``, moments weighted by ``w`` (the data
  centred at their means first, so that no moment loses digits to cancellation);
- Spearman's rho and Kendall's tau-b from one weighted contingency table per measure and
  replicate (:func:`tables`: the weight of each (rating level, distinct value of the measure)
  cell, a matrix product of the replicate's cluster counts with each cluster's cell counts),
  :func:`rank_statistics`: rho is Pearson's r of the cells' mid-ranks (a value's mid-rank is
  the weight strictly below it plus half of (its weight + 1)); tau-b is
  ``S / sqrt((n0 - n1)(n0 - n2))``, ``S`` concordant minus discordant pairs, ``n0 = N(N-1)/2``,
  ``n1`` and ``n2`` the pairs tied in x and in y (copies of one unit are tied in both). A
  replicate costs ``O(U G k)`` for ``U`` clusters, ``G`` distinct values and ``k`` rating levels
  (a Likert scale has few), never ``O(n^2)``.

A statistic that is undefined on a replicate (x or y constant there) is NaN.

:func:`williams_t` is Williams' (1959) test of two dependent correlations that share a
variable (the ratings), as Steiger (1980, "Tests for comparing elements of a correlation
matrix", Psychological Bulletin 87(2), eq. 3) gives it.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

#: The correlation statistics, in the order of the tables.
STATISTICS = ("pearson", "spearman", "kendall")
#: A weighted variance below this share of the data's own counts as zero (a constant replicate).
CONSTANT = 1e-12


def pearson(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Pearson's r of each column of ``X`` (n, M) with ``y`` (n,) under each row of weights ``W`` (B, n): (B, M)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    sw = W.sum(axis=1)[:, None]
    mx = W @ Xc / sw
    my = (W @ yc)[:, None] / sw
    cov = W @ (Xc * yc[:, None]) / sw - mx * my
    vx = W @ (Xc * Xc) / sw - mx * mx
    vy = (W @ (yc * yc))[:, None] / sw - my * my
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(vx * vy)
    # a measure constant over a replicate's units has a weighted variance of rounding errors only
    flat = vx <= CONSTANT * np.maximum((Xc * Xc).mean(axis=0), np.finfo(float).tiny)
    return np.where(flat | _constant_y(W, y)[:, None], np.nan, np.clip(r, -1.0, 1.0))


def _constant_y(W: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(B,): True where the ratings are constant over the units a replicate draws."""
    _, codes = np.unique(y, return_inverse=True)
    totals = W @ (codes[:, None] == np.arange(codes.max() + 1 if len(codes) else 0)[None, :])
    return (totals > 0).sum(axis=1) <= 1


class Levels(NamedTuple):
    """The ratings as level codes 0..k-1 (ascending) and the number of levels."""

    codes: np.ndarray
    k: int


def levels_of(y: np.ndarray) -> Levels:
    """The distinct values of ``y`` numbered in ascending order."""
    values, codes = np.unique(np.asarray(y), return_inverse=True)
    return Levels(codes.astype(np.int64), len(values))


def cells(x: np.ndarray, levels: Levels, clusters: np.ndarray, n_clusters: int) -> np.ndarray:
    """(U, k, G): how many units of each cluster fall in each (rating level, tie group of x) cell.

    Tie groups in ascending order of x. A replicate's table is its clusters' counts times these
    (:func:`tables`): both rank statistics are functions of it (a contingency table of the
    measure's distinct values against the rating levels).
    """
    values, group = np.unique(x, return_inverse=True)
    out = np.zeros((n_clusters, levels.k, len(values)))
    np.add.at(out, (clusters, levels.codes, group), 1.0)
    return out


def tables(counts: np.ndarray, cell_counts: np.ndarray) -> np.ndarray:
    """(B, k, G): each replicate's table, ``counts`` (B, U) of its clusters times their ``cell_counts`` (U, k, G)."""
    u, k, g = cell_counts.shape
    return (counts @ cell_counts.reshape(u, k * g)).reshape(len(counts), k, g)


def rank_statistics(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Spearman's rho and Kendall's tau-b (each (B,)) of the expanded samples of :func:`tables`.

    With ``D[a, g]`` the weight of level ``a`` and x-group ``g``: mid-ranks ``R_g`` of the groups
    and ``Q_a`` of the levels from their totals; rho is the weighted Pearson r of ``(R_g, Q_a)``
    over the cells; ``S = sum_{a, g} D[a, g] sum_{a'} sign(a - a') P[a', g]``, ``P[a', g]`` the
    weight of level ``a'`` in the groups before ``g`` (each pair of groups counted once, from its
    later group).
    """
    D = np.asarray(table, dtype=np.float64)
    by_group = D.sum(axis=1)                         # (B, G)
    by_level = D.sum(axis=2)                         # (B, k)
    n = by_level.sum(axis=1)
    mean = (n + 1) / 2                               # the mean rank, of either variable
    rg = np.cumsum(by_group, axis=1) - by_group / 2 + 0.5 - mean[:, None]
    ra = np.cumsum(by_level, axis=1) - by_level / 2 + 0.5 - mean[:, None]
    cross = (np.matmul(ra[:, None, :], D)[:, 0, :] * rg).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = cross / np.sqrt((by_group * rg * rg).sum(axis=1) * (by_level * ra * ra).sum(axis=1))
    # pair counts are integers below 2^24 for integer weights summing to < 2896: float32 holds them
    # exactly, at half the memory traffic of the cumulative sum
    exact = bool(np.all(n < 2896)) and bool(np.all(D == np.floor(D)))
    Dk: np.ndarray = D.astype(np.float32) if exact else D
    before = np.cumsum(Dk, axis=2) - Dk              # P: the weight of each level in the earlier groups
    k = D.shape[1]
    sign = np.sign(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(Dk.dtype)       # sign(a - a')
    s = np.einsum("bag,bag->b", Dk, np.matmul(sign, before)).astype(np.float64)
    n0 = n * (n - 1) / 2
    n1 = (by_group * (by_group - 1) / 2).sum(axis=1)
    n2 = (by_level * (by_level - 1) / 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt((n0 - n1) * (n0 - n2))
    undefined = ((by_group > 0).sum(axis=1) <= 1) | ((by_level > 0).sum(axis=1) <= 1)
    return np.where(undefined, np.nan, np.clip(rho, -1, 1)), np.where(undefined, np.nan, np.clip(tau, -1, 1))


def one_blas_thread() -> Any:
    """A context in which BLAS uses one thread (``threadpoolctl``).

    The kernels' matrix products are small (replicates x clusters x cells): BLAS threads only
    contend there (on a loaded two-core machine the criterion took 51 s with them, 11 s
    without), and a product's rounding then does not depend on how many threads summed it.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="blas")


def clustered(counts: np.ndarray, clusters: np.ndarray, X: np.ndarray, y: np.ndarray,
              statistics: Sequence[str] = STATISTICS) -> dict[str, np.ndarray]:
    """``{statistic: (B, M)}`` for replicates given as cluster counts (B, U) and each unit's cluster (n,).

    A unit's weight is its cluster's count; Spearman's and Kendall's come from one table per
    measure (:func:`cells`, :func:`tables`).
    """
    with one_blas_thread():
        return _clustered(np.asarray(counts, dtype=np.float64), np.asarray(clusters, dtype=np.int64),
                          np.asarray(X, dtype=np.float64), y, statistics)


def _clustered(counts: np.ndarray, clusters: np.ndarray, X: np.ndarray, y: np.ndarray,
               statistics: Sequence[str]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    if "pearson" in statistics:
        out["pearson"] = pearson(X, y, counts[:, clusters])
    if "spearman" in statistics or "kendall" in statistics:
        levels = levels_of(y)
        both = [rank_statistics(tables(counts, cells(X[:, m], levels, clusters, counts.shape[1])))
                for m in range(X.shape[1])]
        for which, name in enumerate(("spearman", "kendall")):
            if name in statistics:
                out[name] = np.stack([b[which] for b in both], axis=1) if both else np.zeros((len(counts), 0))
    return {s: out[s] for s in statistics}


def correlations(X: np.ndarray, y: np.ndarray, W: np.ndarray, statistics: Sequence[str] = STATISTICS
                 ) -> dict[str, np.ndarray]:
    """``{statistic: (B, M)}`` of :data:`STATISTICS` (or those asked) under each row of unit weights ``W`` (B, n)."""
    W = np.asarray(W, dtype=np.float64)
    return clustered(W, np.arange(W.shape[1]), X, y, statistics)


def _kernel(name: str):
    def kernel(X: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
        return correlations(X, y, W, (name,))[name]
    kernel.__name__ = name
    kernel.__doc__ = f"{name.capitalize()}'s correlation of each column of ``X`` (n, M) with ``y`` under each row of weights ``W``: (B, M)."
    return kernel


spearman = _kernel("spearman")
kendall = _kernel("kendall")
KERNELS = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def williams_t(r_a: np.ndarray, r_b: np.ndarray, r_ab: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Williams' t of ``r_a - r_b`` (two correlations with one shared variable) and its two-sided p.

    ``r_a = r(y, a)``, ``r_b = r(y, b)``, ``r_ab = r(a, b)`` over ``n`` units (Steiger 1980, eq. 3)::

        t = (r_a - r_b) sqrt( (n - 1)(1 + r_ab) / (2 (n - 1)/(n - 3) |R| + rbar^2 (1 - r_ab)^3) )

    with ``|R| = 1 - r_a^2 - r_b^2 - r_ab^2 + 2 r_a r_b r_ab`` (the determinant of the 3 x 3
    correlation matrix) and ``rbar = (r_a + r_b) / 2``, referred to Student's t with ``n - 3``
    degrees of freedom. It assumes independent units with (near-)normal variables; for rank
    correlations it is an approximation, and it ignores clusters (users).
    """
    from scipy import stats

    r_a, r_b, r_ab = (np.asarray(v, dtype=np.float64) for v in (r_a, r_b, r_ab))
    det = 1.0 - r_a ** 2 - r_b ** 2 - r_ab ** 2 + 2.0 * r_a * r_b * r_ab
    rbar = (r_a + r_b) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (r_a - r_b) * np.sqrt((n - 1) * (1 + r_ab) / (2 * (n - 1) / (n - 3) * det + rbar ** 2 * (1 - r_ab) ** 3))
    return t, 2.0 * stats.t.sf(np.abs(t), n - 3)
