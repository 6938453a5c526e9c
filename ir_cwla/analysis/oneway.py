"""Tukey's HSD test after a one-way ANOVA (topics ignored): the test ranx calls ``tukey``.

For ``m`` systems each scored on the same ``n`` topics, the one-way test treats every system's
scores as an independent sample (the topics are *not* blocks: a hard topic lowers every
system's score, and that variation stays in the error term). With the system means ``x.j`` and
the within-system mean square

    MS_W = sum_j sum_i (x_ij - x.j)^2 / (m (n - 1)),

the pair ``(a, b)`` has the studentised range statistic ``q_ab = |x.a - x.b| / sqrt(MS_W / n)``
and ``p_ab = P(Q(m, m (n - 1)) >= q_ab)`` (Tukey 1953; Kramer 1956 for unequal sizes, not needed
here). The p-values are ``scipy.stats.tukey_hsd``'s, which ``ranx.compare(...,
stat_test='tukey')`` reports; ir_cwla's other Tukey HSD tests are two-way (topics as blocks):
:mod:`ir_cwla.analysis.anova` (after a two-way ANOVA without replication) and
:mod:`ir_cwla.analysis.tukey` (randomised). On paired IR data the one-way test is usually far
less powerful, as the topic variance inflates ``MS_W``: it is offered for users who compare with
ranx's numbers, under its own name.

The scores are centred by the smallest of the matrix first
(:func:`ir_cwla.analysis.frame.centred` with ``blocks=False``): adding a constant to every
score changes nothing.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ir_cwla.analysis.frame import centred
from ir_cwla.analysis.tukey import pair_indices


def tukey_hsd_one_way(matrix: np.ndarray, pairs: Optional[tuple[np.ndarray, np.ndarray]] = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(q, p)`` of the one-way Tukey HSD test of the pairs ``(a, b)`` of columns (default every ``a < b``).

    ``matrix`` is topics x systems; the p-values are ``scipy.stats.tukey_hsd(*columns).pvalue``.
    A matrix whose systems each score the same on every topic (``MS_W = 0``) gives ``q = inf,
    p = 0`` for pairs whose means differ and ``q = 0, p = 1`` for those whose means are equal.
    """
    from scipy import stats  # here: scipy.stats costs a second to import

    x = centred(matrix, blocks=False)
    n, m = x.shape
    a, b = pairs if pairs is not None else pair_indices(m)
    a, b = np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)
    means = x.mean(axis=0)
    delta = np.abs(means[a] - means[b])
    ms_w = float(((x - means) ** 2).sum() / (m * (n - 1)))
    scale = max(1.0, float(np.max(np.abs(x)))) if x.size else 1.0
    if ms_w <= (1e-12 * scale) ** 2:
        equal = delta <= 1e-12 * scale
        return np.where(equal, 0.0, np.inf), np.where(equal, 1.0, 0.0)
    q = delta / np.sqrt(ms_w / n)
    p = stats.tukey_hsd(*[x[:, j] for j in range(m)]).pvalue[a, b]
    return q, np.clip(p, 0.0, 1.0)
