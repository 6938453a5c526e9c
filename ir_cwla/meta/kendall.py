"""Kendall's tau-b between system rankings, vectorised over many rankings: pure numpy.

For two score vectors ``x, y`` over the same ``n`` systems and the ``n (n - 1) / 2`` pairs
``i < j``, with ``s_ij(x) = sign(x_i - x_j)`` (0 for a tie):

    tau_b = sum_ij s_ij(x) s_ij(y) / sqrt(sum_ij |s_ij(x)| * sum_ij |s_ij(y)|)

(Kendall 1945; the same value as ``scipy.stats.kendalltau(x, y, variant='b')``). Ranking
systems by their mean scores and correlating the rankings gives the same tau as correlating
the means, since tau only looks at the order of each pair. Two means closer than
:data:`TIE_TOLERANCE` (relative) are a tie, so that measures equal up to floating-point
rounding (e.g. ``P_ERG`` and ``P_avg``) give the same ranking. tau-b is undefined (NaN
here) when one of the rankings ties all systems; callers decide what that means.

Confidence interval: Fisher's z-transform with the variance of Fieller, Hartley and
Pearson (1957), ``z = atanh(tau)``, ``se = sqrt(0.437 / (n - 4))``,
``CI = tanh(z -+ z_{1-alpha/2} se)``; for ``|tau| = 1`` the interval is the point.
"""
from __future__ import annotations

import numpy as np

from ir_cwla.analysis.frame import TIE_TOLERANCE
from ir_cwla.errors import DataError


class PairSigns:
    """Work arrays for the pair signs of ``rows`` score vectors of ``n`` items, reused across calls.

    Allocating once and writing with ``out=`` keeps the kernels fast where large temporary
    arrays are costly (e.g. Dask workers, which return freed memory to the OS at once).
    """

    def __init__(self, rows: int, n: int):
        self.a, self.b = np.triu_indices(n, k=1)
        shape = (rows, len(self.a))
        self.xa, self.xb, self.diff = (np.empty(shape) for _ in range(3))
        self.above, self.below = np.empty(shape, dtype=bool), np.empty(shape, dtype=bool)
        self.sx, self.sy = np.empty(shape, dtype=np.int8), np.empty(shape, dtype=np.int8)

    def signs(self, x: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``sign(x_i - x_j)`` (0 within the tie tolerance) for the pairs ``i < j`` of each row."""
        np.take(x, self.a, axis=1, out=self.xa, mode="clip")
        np.take(x, self.b, axis=1, out=self.xb, mode="clip")
        np.subtract(self.xa, self.xb, out=self.diff)
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(x).max(axis=1, keepdims=True))
        np.greater(self.diff, tol, out=self.above)
        np.less(self.diff, -tol, out=self.below)
        return np.subtract(self.above.view(np.int8), self.below.view(np.int8), out=out)

    def tau_b(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """tau-b between the rows of ``x`` and ``y`` (``(rows, n)`` each); NaN where undefined."""
        sx, sy = self.signs(x, self.sx), self.signs(y, self.sy)
        num = np.einsum("ij,ij->i", sx, sy, dtype=np.int64)
        den = np.sqrt(np.count_nonzero(sx, axis=1).astype(np.float64) * np.count_nonzero(sy, axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def pair_signs(x: np.ndarray) -> np.ndarray:
    """``sign(x_i - x_j)`` for all pairs ``i < j`` of the last axis: int8 array ``(..., P)``."""
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1, x.shape[-1])
    work = PairSigns(flat.shape[0], x.shape[-1])
    return work.signs(flat, np.empty((flat.shape[0], len(work.a)), dtype=np.int8)).reshape(*x.shape[:-1], -1)


def tau_b_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """tau-b between ``x[..., :]`` and ``y[..., :]`` for every leading index (NaN if undefined)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        raise DataError(f"x and y must have the same shape, got {x.shape} and {y.shape}")
    flat_x, flat_y = x.reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1])
    return PairSigns(flat_x.shape[0], x.shape[-1]).tau_b(flat_x, flat_y).reshape(x.shape[:-1])


def tau_b_matrix(scores: np.ndarray) -> np.ndarray:
    """tau-b between every two columns of ``scores`` (systems x measures): ``(M, M)``."""
    signs = pair_signs(np.asarray(scores, dtype=np.float64).T).astype(np.int64)   # (M, P)
    num = signs @ signs.T
    untied = np.abs(signs).sum(axis=1).astype(np.float64)
    den = np.sqrt(untied[:, None] * untied[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def fieller_ci(tau: np.ndarray, n: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Confidence interval for Kendall's tau of ``n`` items (Fieller, Hartley and Pearson 1957).

    NaN where ``n < 5`` (the variance formula needs ``n > 4``).
    """
    tau = np.asarray(tau, dtype=np.float64)
    if n < 5:
        return np.full_like(tau, np.nan), np.full_like(tau, np.nan)
    from scipy import stats  # here: scipy.stats costs 50 MB and a second to import

    half = stats.norm.ppf(0.5 + level / 2.0) * np.sqrt(0.437 / (n - 4))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(np.clip(tau, -1.0, 1.0))
        low, high = np.tanh(z - half), np.tanh(z + half)
    exact = np.abs(tau) >= 1.0
    return np.where(exact, tau, low), np.where(exact, tau, high)
