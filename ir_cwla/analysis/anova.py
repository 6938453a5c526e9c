"""Two-way ANOVA without replication (systems x topics) and the classical Tukey HSD test after it.

For a topics x systems matrix ``X`` (``n`` topics, ``m`` systems) with grand mean ``x..``,
system means ``x.j`` and topic means ``xi.``, the residual sum of squares and variance are

    SS_E = sum_ij (x_ij - xi. - x.j + x..)^2,    V_E = SS_E / ((m - 1)(n - 1))

(Sakai 2018, *Laboratory Experiments in Information Retrieval*, Sec. 3.2). ``V_E`` is the
within-system variance estimate of Sakai's standardised effect size ``ES_E2`` (Sec. 5) and of
topic set size design (Sakai 2016, "Topic set size design", IRJ 19(3), Sec. 3).

Tukey's HSD test after it (Sakai 2018, Sec. 4.4) compares every pair of systems with the
studentised range statistic

    q_ab = |x.a - x.b| / sqrt(V_E / n),   p_ab = P(Q(m, (m - 1)(n - 1)) >= q_ab)

where ``Q(k, df)`` is the studentised range distribution (``scipy.stats.studentized_range``).
It controls the family-wise error rate over all ``m (m - 1) / 2`` pairs. Both tests are
two-way (topics are blocks: the topic means are taken out of the residuals); the one-way test
of ranx and ``scipy.stats.tukey_hsd`` is :mod:`ir_cwla.analysis.oneway`.

Everything here is computed from the scores centred per topic
(:func:`ir_cwla.analysis.frame.centred`), which leaves the residuals and the differences of
means unchanged in real arithmetic: adding a constant to every score changes no result.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ir_cwla.analysis.frame import centred
from ir_cwla.analysis.tukey import pair_indices
from ir_cwla.errors import DataError

#: Beyond this magnitude, scores are scaled by their largest before being summed or squared
#: (their squares would overflow); below it the plain formulas are used, bit for bit.
SCALED = 1e100


def _centred(matrix: np.ndarray) -> np.ndarray:
    """The scores centred per topic (the scores themselves where that overflows)."""
    x = np.asarray(matrix, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        out = centred(x)
    return out if np.isfinite(out).all() else x


def _scale(x: np.ndarray) -> float:
    top = float(np.max(np.abs(x))) if x.size else 0.0
    return top if top > SCALED else 1.0


def residuals(matrix: np.ndarray) -> np.ndarray:
    """``x_ij - xi. - x.j + x..`` of a topics x systems matrix."""
    x = _centred(matrix)
    s = _scale(x)
    if s != 1.0:
        return residuals(x / s) * s
    return x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()


def residual_variance(matrix: np.ndarray) -> tuple[float, int]:
    """``(V_E, df_E)`` of the two-way ANOVA without replication of a topics x systems matrix.

    Scores beyond :data:`SCALED` are scaled first; a variance beyond a float's range is a
    :class:`~ir_cwla.errors.DataError` (it would be ``inf``, with numpy's overflow warning).
    """
    x = _centred(matrix)
    n, m = x.shape
    df = (m - 1) * (n - 1)
    s = _scale(x)
    if s == 1.0:
        return float((residuals(x) ** 2).sum() / df), df
    with np.errstate(over="ignore"):
        v = float((residuals(x / s) ** 2).sum() / df) * s * s
    if not np.isfinite(v):
        raise DataError(f"the residual variance of these scores (up to {s:.3g} in magnitude) is beyond a float's "
                        "range; rescale the scores")
    return v, df


def tukey_hsd(matrix: np.ndarray, pairs: Optional[tuple[np.ndarray, np.ndarray]] = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Classical Tukey HSD after the two-way ANOVA: ``(q, p)`` of the pairs ``(a, b)`` (default ``a < b``, row-major).

    A matrix with ``V_E = 0`` (every system differs from every other by the same amount on
    every topic) gives ``q = inf, p = 0`` for pairs whose means differ and ``q = 0, p = 1``
    for those whose means are equal.
    """
    from scipy import stats  # here: scipy.stats costs a second to import

    x = _centred(matrix)
    n, m = x.shape
    v_e, df = residual_variance(x)
    means = x.mean(axis=0)
    a, b = pairs if pairs is not None else pair_indices(m)
    delta = np.abs(means[a] - means[b])
    scale = max(1.0, float(np.max(np.abs(x))))
    if v_e <= (1e-12 * scale) ** 2:
        equal = delta <= 1e-12 * scale
        return np.where(equal, 0.0, np.inf), np.where(equal, 1.0, 0.0)
    q = delta / np.sqrt(v_e / n)
    p = stats.studentized_range.sf(q, m, df)
    return q, np.clip(p, 0.0, 1.0)
