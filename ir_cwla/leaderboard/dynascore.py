"""Dynascore: one utility-theoretic score from accuracy, cost, latency and friends.

Ma et al. (2021), "Dynaboard: An Evaluation-As-A-Service Platform for Holistic
Next-Generation Benchmarking", NeurIPS, Sec. 3; used for IR leaderboards by Santhanam et
al. (2023), "Moving Beyond Downstream Task Accuracy for Information Retrieval
Benchmarking", Sec. 4. The computation follows Dynabench's ``calculate_dynascore``
(``backend/app/domain/services/base/score.py``) step by step:

1. sort the N systems by accuracy, ascending (worst to best);
2. orient every metric so that larger is better and shift it:
   ``x'_ij = d_j * x_ij + o_j`` with direction ``d_j`` (-1 for latency, cost, memory) and
   offset ``o_j`` (default 0);
3. the *average marginal rate of substitution* of metric j for accuracy is the mean, over
   consecutive pairs (i-1, i) with ``|acc_i - acc_{i-1}| > 1e-4 * max(acc)``, of

       AMRS_j = mean_i |x'_ij - x'_{i-1,j}| / (acc_i - acc_{i-1})

   (AMRS of accuracy itself is 1);
4. convert every metric into accuracy units, ``x'_ij / |AMRS_j|``, and sum with the
   normalised weights ``w_j / sum_k w_k``:

       Dynascore_i = sum_j (w_j / sum_k w_k) * x'_ij / |AMRS_j|

AMRS does not depend on directions or offsets (they cancel in the differences), and an
offset adds ``w_j o_j / |AMRS_j|`` to every system alike, so offsets never change the
ranking. Two choices where Dynabench is silent or ill-defined:

* ties in accuracy are sorted stably (input order), so the result is deterministic;
* a metric whose AMRS is 0 (the same value for every system) would be divided by zero in
  Dynabench. Here it is dropped with a warning and the remaining weights renormalised
  (``on_constant="drop"``, default) or refused (``on_constant="raise"``); a metric that
  varies only between systems of equal accuracy cannot be converted and is always refused.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal, Optional

import numpy as np
import pandas as pd

#: Default weights of Santhanam et al. (2023): half to accuracy, the rest split evenly.
DEFAULT_WEIGHTS: dict[str, float] = {"accuracy": 0.5, "cost": 0.25, "latency": 0.25}
#: Metrics where smaller is better; any other metric defaults to direction +1.
DEFAULT_DIRECTIONS: dict[str, int] = {"latency": -1, "cost": -1, "memory": -1}
#: Columns whose names start with one of these are smaller-is-better by default
#: (``latency_p50_ms``, ``usd_per_1M_q_from_qps``, ``cost``, ``memory_gib``).
SMALLER_IS_BETTER_PREFIXES = ("latency", "usd", "cost", "memory")


def default_direction(column: str) -> int:
    """+1 if larger is better; -1 for latency, cost, usd and memory columns (the one rule)."""
    if column in DEFAULT_DIRECTIONS:
        return DEFAULT_DIRECTIONS[column]
    return -1 if str(column).startswith(SMALLER_IS_BETTER_PREFIXES) else 1
#: Dynabench's ``delta_cutoff_proportion``.
DELTA_CUTOFF = 1e-4


class ConstantMetricWarning(UserWarning):
    """A weighted metric has the same value for every system and was left out of the Dynascore."""


# --------------------------------------------------------------------------- kernels

def amrs_kernel(perf: np.ndarray, values: np.ndarray, cutoff: float = DELTA_CUTOFF) -> np.ndarray:
    """Average marginal rate of substitution of each column of ``values`` for ``perf``.

    ``perf`` has shape (n,), ``values`` shape (n, k). Systems are sorted by ``perf``
    ascending (stable); pairs of neighbours whose accuracy differs by more than
    ``cutoff * |max(perf)|`` contribute ``|delta value| / delta perf``; the result is
    the mean over those pairs, shape (k,). Raises ``ValueError`` when no pair qualifies.
    (Dynabench uses ``cutoff * max(perf)``; the two agree for non-negative accuracy.)
    """
    perf = np.asarray(perf, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(len(perf), -1)
    order = np.argsort(perf, kind="stable")
    d_perf = np.diff(perf[order])
    d_values = np.abs(np.diff(values[order], axis=0))
    keep = np.abs(d_perf) > cutoff * abs(perf.max())
    if not keep.any():
        raise ValueError("accuracy is the same for all systems (no two neighbours differ by more than "
                         f"{cutoff:g} x max accuracy), so no metric can be converted into accuracy units")
    return (d_values[keep] / d_perf[keep, None]).mean(axis=0)


def converted_kernel(values: np.ndarray, directions: np.ndarray, offsets: np.ndarray,
                     amrs: np.ndarray) -> np.ndarray:
    """Metrics in accuracy units: ``(d_j * x_ij + o_j) / |AMRS_j|``, shape (n, k)."""
    values = np.asarray(values, dtype=np.float64)
    return (values * np.asarray(directions, dtype=np.float64) + np.asarray(offsets, dtype=np.float64)) \
        / np.abs(np.asarray(amrs, dtype=np.float64))


def dynascore_kernel(values: np.ndarray, weights: np.ndarray, directions: np.ndarray,
                     offsets: np.ndarray, perf_col: int = 0, cutoff: float = DELTA_CUTOFF
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Dynascores of n systems over k metrics (plain arrays, no checks beyond the maths).

    ``values`` (n, k) holds raw metrics with accuracy in column ``perf_col``; ``weights``,
    ``directions`` and ``offsets`` have shape (k,). Returns ``(scores (n,), amrs (k,))``.
    Every AMRS must be non-zero (the adapter :func:`dynascore` handles constant metrics).
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    amrs = amrs_kernel(values[:, perf_col], values, cutoff)
    converted = converted_kernel(values, directions, offsets, amrs)
    return converted @ (weights / weights.sum()), amrs


def weight_simplex(k: int, step: float = 0.02) -> np.ndarray:
    """All weight vectors on a grid over the (k-1)-simplex: shape (g, k), rows sum to 1."""
    if k < 1:
        raise ValueError("need at least one metric")
    m = int(round(1.0 / step))
    if m < 1 or not np.isclose(m * step, 1.0):
        raise ValueError(f"step must divide 1 evenly, got {step}")
    if k == 1:
        return np.ones((1, 1))
    grids = np.meshgrid(*([np.arange(m + 1)] * (k - 1)), indexing="ij")
    head = np.stack([g.ravel() for g in grids], axis=1)
    head = head[head.sum(axis=1) <= m]
    return np.column_stack([head, m - head.sum(axis=1)]) / m


# --------------------------------------------------------------------------- adapters

def _resolve(df: pd.DataFrame, weights: Optional[Mapping[str, float]], directions: Optional[Mapping[str, int]],
             offsets: Optional[Mapping[str, float]], perf: str) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                        np.ndarray, np.ndarray]:
    """Validates the inputs and returns (metrics, values, weights, directions, offsets), perf first."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame of systems x metrics, got {type(df).__name__}")
    if len(df) < 2:
        raise ValueError(f"a Dynascore compares systems: need at least 2, got {len(df)}")
    weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
    if perf not in df.columns:
        raise ValueError(f"accuracy column {perf!r} not in the table (columns: {list(df.columns)})")
    missing = [m for m in weights if m not in df.columns]
    if missing:
        raise ValueError(f"weighted metric(s) {missing} not in the table (columns: {list(df.columns)})")
    for m, w in weights.items():
        if not np.isfinite(w) or w < 0:
            raise ValueError(f"weights must be finite and non-negative, got {m}={w}")
    if sum(weights.values()) <= 0:
        raise ValueError("at least one weight must be positive")
    directions = dict(directions or {})
    for m, d in directions.items():
        if m not in df.columns:
            raise ValueError(f"direction given for {m!r}, which is not in the table")
        if d not in (1, -1):
            raise ValueError(f"direction of {m!r} must be +1 or -1, got {d}")
    offsets = dict(offsets or {})
    for m, o in offsets.items():
        if m not in df.columns:
            raise ValueError(f"offset given for {m!r}, which is not in the table")
        if not np.isfinite(o):
            raise ValueError(f"offset of {m!r} must be finite, got {o}")

    metrics = [perf] + [m for m in weights if m != perf]
    try:
        values = df[metrics].to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as ex:
        raise ValueError(f"metrics {metrics} must be numeric") from ex
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{metrics[j]} of system {df.index[i]!r} is {values[i, j]}; "
                         "every weighted metric needs a finite value for every system")
    w = np.array([weights.get(m, 0.0) for m in metrics], dtype=np.float64)
    d = np.array([directions.get(m, default_direction(m)) for m in metrics], dtype=np.float64)
    o = np.array([offsets.get(m, 0.0) for m in metrics], dtype=np.float64)
    return metrics, values, w, d, o


def _drop_constant(metrics: list[str], values: np.ndarray, w: np.ndarray, amrs: np.ndarray,
                   on_constant: str) -> np.ndarray:
    """Zero the weight of metrics with AMRS 0 (constant ones) or raise; returns new weights."""
    w = w.copy()
    for j in np.flatnonzero(amrs == 0):
        if np.ptp(values[:, j]) > 0:
            raise ValueError(f"{metrics[j]!r} differs only between systems of equal accuracy, so its rate "
                             "of substitution for accuracy is 0 and it cannot be put in accuracy units")
        if on_constant == "raise":
            raise ValueError(f"{metrics[j]!r} has the same value for every system; it cannot be put in "
                             "accuracy units (drop it from the weights, or pass on_constant='drop')")
        if w[j] > 0:
            warnings.warn(f"{metrics[j]!r} has the same value for every system and was dropped from the "
                          "Dynascore (the remaining weights are renormalised)", ConstantMetricWarning,
                          stacklevel=3)
        w[j] = 0.0
    if w.sum() <= 0:
        raise ValueError("every weighted metric is constant across systems; nothing to rank by")
    return w


def amrs(df: pd.DataFrame, metrics: Optional[Sequence[str]] = None, perf: str = "accuracy",
         cutoff: float = DELTA_CUTOFF) -> pd.Series:
    """AMRS of each metric for the accuracy column ``perf`` (a Series indexed by metric).

    ``metrics`` defaults to every numeric column. See the module docstring for the formula.
    """
    if metrics is None:
        metrics = [c for c in df.select_dtypes("number").columns]
    names, values, _, _, _ = _resolve(df, {m: 1.0 for m in metrics}, None, None, perf)
    return pd.Series(amrs_kernel(values[:, 0], values, cutoff), index=names, name="amrs")


def dynascore(df: pd.DataFrame, weights: Optional[Mapping[str, float]] = None,
              directions: Optional[Mapping[str, int]] = None, offsets: Optional[Mapping[str, float]] = None,
              perf: str = "accuracy", cutoff: float = DELTA_CUTOFF,
              on_constant: Literal["drop", "raise"] = "drop") -> pd.DataFrame:
    """Ranks the systems (rows) of ``df`` by Dynascore (Ma et al. 2021; formula in the module doc).

    Args:
        df: one row per system (the index names them), one numeric column per metric.
        weights: metric -> non-negative weight, normalised to sum 1. Default
            ``{'accuracy': 0.5, 'cost': 0.25, 'latency': 0.25}``. Every weighted metric
            must be a column; unweighted columns are carried along untouched.
        directions: metric -> +1 (larger is better) or -1. Defaults: -1 for ``latency``,
            ``cost`` and ``memory``, +1 otherwise.
        offsets: metric -> constant added after the direction (Dynabench's ``offset``);
            changes the scores, never the ranking.
        perf: the accuracy column; AMRS is taken with respect to it.
        cutoff: pairs of neighbours closer than ``cutoff * max accuracy`` are skipped.
        on_constant: what to do with a weighted metric that is the same for every system.

    Returns:
        ``df`` with a ``dynascore`` column and a ``rank`` column (1 = best), sorted by
        Dynascore descending. ``result.attrs`` holds ``amrs`` and the normalised
        ``weights`` actually used.
    """
    if on_constant not in ("drop", "raise"):
        raise ValueError(f"on_constant must be 'drop' or 'raise', got {on_constant!r}")
    metrics, values, w, d, o = _resolve(df, weights, directions, offsets, perf)
    rates = amrs_kernel(values[:, 0], values, cutoff)
    w = _drop_constant(metrics, values, w, rates, on_constant)
    used = w > 0
    scores = converted_kernel(values[:, used], d[used], o[used], rates[used]) @ (w[used] / w.sum())
    out = df.copy()
    out["dynascore"] = scores
    out = out.sort_values("dynascore", ascending=False, kind="stable")
    out["rank"] = np.arange(1, len(out) + 1)
    out.attrs["amrs"] = dict(zip(metrics, rates.tolist()))
    out.attrs["weights"] = {m: float(x) for m, x in zip(metrics, w / w.sum()) if x > 0}
    return out


def winner_map(df: pd.DataFrame, metrics: Sequence[str] = ("accuracy", "latency", "cost"),
               directions: Optional[Mapping[str, int]] = None, perf: str = "accuracy",
               step: float = 0.02, cutoff: float = DELTA_CUTOFF) -> pd.DataFrame:
    """The Dynascore winner for every weighting on a grid over the weight simplex.

    The weights of ``metrics`` run over all multiples of ``step`` that sum to 1 (Santhanam
    et al. 2023, Fig. 2(a)). AMRS does not depend on the weights, so the metrics are
    converted once and all weightings are scored by one matrix product.

    Returns one row per weighting: a column per metric holding its weight, ``winner``
    (the index label of the best system; ties go to the earlier row of ``df``) and
    ``dynascore`` (the winner's score).
    """
    metrics = list(metrics)
    if perf not in metrics:
        raise ValueError(f"the accuracy column {perf!r} must be one of the mapped metrics {metrics}")
    names, values, _, d, o = _resolve(df, {m: 1.0 for m in metrics}, directions, None, perf)
    constant = [m for m, spread in zip(names, np.ptp(values, axis=0)) if spread == 0]
    if constant:
        raise ValueError(f"{constant} have the same value for every system; leave them out of the winner map")
    rates = amrs_kernel(values[:, 0], values, cutoff)
    _drop_constant(names, values, np.ones(len(names)), rates, "raise")
    converted = converted_kernel(values, d, o, rates)
    grid = weight_simplex(len(names), step)
    scores = grid @ converted.T                                   # (g, n)
    best = scores.argmax(axis=1)
    out = pd.DataFrame(grid, columns=names)[metrics]
    out["winner"] = np.asarray(df.index)[best]
    out["dynascore"] = scores[np.arange(len(grid)), best]
    return out
