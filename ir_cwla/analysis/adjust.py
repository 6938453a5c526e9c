"""Adjusting p-values for multiple comparisons from the p-values alone: a numpy kernel.

``none``, ``bonferroni``, ``holm`` (Holm 1979), ``bh`` (Benjamini & Hochberg 1995) and ``by``
(Benjamini & Yekutieli 2001), with the formulas of :mod:`ir_cwla.comparison.multiplicity`, which
adds Westfall & Young's MaxT (a permutation procedure) and re-exports :func:`adjust`. It lives in
the room below ``meta`` and ``comparison`` so that the criteria (e.g.
:func:`ir_cwla.meta.user_agreement`'s comparisons of measures) and ``ir_cwla.compare`` share one
implementation.
"""
from __future__ import annotations

import numpy as np

from ir_cwla.errors import ParameterError

#: Corrections computed from the p-values alone.
P_VALUE_CORRECTIONS = ("none", "bonferroni", "holm", "bh", "by")


def adjust(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of one family ``p`` (any shape) by ``method`` (none, bonferroni, holm, bh, by)."""
    p = np.asarray(p, dtype=np.float64)
    flat = p.ravel()
    h = flat.size
    if method == "none" or h == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * h)
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, h + 1, dtype=np.float64)
    if method == "holm":
        adjusted = np.minimum(1.0, np.maximum.accumulate((h - rank + 1) * ranked))
    elif method in ("bh", "by"):
        factor = float(np.sum(1.0 / rank)) if method == "by" else 1.0
        adjusted = np.minimum(1.0, np.minimum.accumulate((factor * h * ranked / rank)[::-1])[::-1])
    else:
        raise ParameterError(f"unknown correction {method!r}: adjust() takes {', '.join(P_VALUE_CORRECTIONS)}")
    out = np.empty(h)
    out[order] = adjusted
    return out.reshape(p.shape)
