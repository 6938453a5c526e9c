"""The three ways Santhanam et al. (2023, Sec. 4) propose to rank an efficiency-aware leaderboard.

1. :func:`rank_within_budget` -- fix a latency or cost threshold (a "resource regime")
   and rank the eligible systems by accuracy;
2. :func:`rank_above_accuracy` -- fix an accuracy threshold (e.g. last year's state of the
   art) and rank the eligible systems by cost or latency;
3. :func:`rank_by_dynascore` -- weight all dimensions into one Dynascore, possibly after
   filtering on thresholds (AMRS is then computed over the eligible systems only).

Every function takes a DataFrame with one row per system and returns the eligible rows,
best first, with a ``rank`` column (1 = best; equal values share a rank and are listed by
name). No eligible system gives an empty frame (a Dynascore needs two: fewer is an error).
:func:`pareto_frontier` finds the systems no other system beats on both accuracy and
latency (or cost).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, DataError, ParameterError

from .dynascore import check_metric_values, default_direction, dynascore


def _check_columns(table: pd.DataFrame, columns: list[str]) -> None:
    """Every column present, and a finite number (non-negative for resources) for every system."""
    if not isinstance(table, pd.DataFrame):
        raise ArgumentTypeError(f"expected a DataFrame of systems, got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise DataError(f"column(s) {missing} not in the table (columns: {list(table.columns)})")
    check_metric_values(table, list(dict.fromkeys(columns)))


def _check_limits(limits: Mapping[str, float], kind: str) -> None:
    for column, value in limits.items():
        if value is None or not np.isfinite(value):
            raise ParameterError(f"{kind} threshold on {column!r} must be a finite number, got {shown(value)}")


def eligible(table: pd.DataFrame, minimum: Optional[Mapping[str, float]] = None,
             maximum: Optional[Mapping[str, float]] = None) -> pd.DataFrame:
    """Rows of ``table`` with ``column >= minimum[column]`` and ``column <= maximum[column]``."""
    minimum, maximum = dict(minimum or {}), dict(maximum or {})
    _check_limits(minimum, "minimum")
    _check_limits(maximum, "maximum")
    _check_columns(table, list(minimum) + list(maximum))
    keep = np.ones(len(table), dtype=bool)
    for column, low in minimum.items():
        keep &= table[column].to_numpy(dtype=float) >= low
    for column, high in maximum.items():
        keep &= table[column].to_numpy(dtype=float) <= high
    return table[keep]


def _ranked(table: pd.DataFrame, by: str, ascending: bool) -> pd.DataFrame:
    """``table`` sorted by ``by``; equal values share a rank (1 = best) and are listed by name."""
    names = pd.Series([str(n) for n in table.index], index=table.index)
    order = np.lexsort((names.to_numpy(), table[by].to_numpy(dtype=float) * (1 if ascending else -1)))
    out = table.iloc[order].copy()
    out["rank"] = out[by].rank(method="min", ascending=ascending).astype(int)
    return out


def rank_within_budget(table: pd.DataFrame, budget: Mapping[str, float], by: str = "accuracy"
                       ) -> pd.DataFrame:
    """Strategy 1: systems whose metrics stay within ``budget`` (column -> maximum), by accuracy.

    Example: ``rank_within_budget(df, {'latency': 50})`` ranks the systems answering in at
    most 50 ms by accuracy, descending.
    """
    if not budget:
        raise ParameterError("a budget needs at least one threshold, e.g. {'latency': 50}")
    _check_columns(table, [by])
    return _ranked(eligible(table, maximum=budget), by, ascending=False)


def rank_above_accuracy(table: pd.DataFrame, min_accuracy: float, by: str = "cost",
                        accuracy: str = "accuracy", ascending: Optional[bool] = None) -> pd.DataFrame:
    """Strategy 2: systems with ``accuracy >= min_accuracy``, cheapest (or fastest) first.

    ``ascending`` defaults to True for latency, cost and memory (smaller is better) and
    False for any other ``by`` column.
    """
    _check_columns(table, [by, accuracy])
    if ascending is None:
        ascending = default_direction(by) < 0
    return _ranked(eligible(table, minimum={accuracy: min_accuracy}), by, ascending=ascending)


def rank_by_dynascore(table: pd.DataFrame, weights: Optional[Mapping[str, float]] = None,
                      directions: Optional[Mapping[str, int]] = None,
                      offsets: Optional[Mapping[str, float]] = None, perf: str = "accuracy",
                      minimum: Optional[Mapping[str, float]] = None,
                      maximum: Optional[Mapping[str, float]] = None, **kwargs) -> pd.DataFrame:
    """Strategy 3: Dynascore ranking (:func:`~ir_cwla.leaderboard.dynascore.dynascore`).

    Only the systems within the ``minimum``/``maximum`` thresholds are kept and ranked.
    """
    kept = eligible(table, minimum=minimum, maximum=maximum)
    if len(kept) < 2:
        raise DataError(f"{len(kept)} system(s) pass the thresholds; a Dynascore needs at least 2")
    return dynascore(kept, weights=weights, directions=directions, offsets=offsets, perf=perf, **kwargs)


def pareto_mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Non-dominated points when smaller ``x`` (latency, cost) and larger ``y`` (accuracy) are better.

    Point i is dominated if some j has ``x_j <= x_i`` and ``y_j >= y_i`` with at least one
    strict inequality. Exact duplicates are all kept. O(n log n): sort by x, then y, and
    keep each point that beats the best accuracy seen so far.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    order = np.lexsort((-y, x))                 # by x ascending, then y descending
    mask = np.zeros(len(x), dtype=bool)
    best_y, best_x = -np.inf, np.nan
    for i in order:
        if y[i] > best_y:
            mask[i] = True
            best_y, best_x = y[i], x[i]
        elif y[i] == best_y and x[i] == best_x:
            mask[i] = True                      # an exact duplicate of a frontier point
    return mask


def pareto_frontier(table: pd.DataFrame, x: str = "latency", y: str = "accuracy") -> pd.DataFrame:
    """Systems on the Pareto frontier of ``y`` against ``x``, sorted by ``x``.

    Larger ``y`` is better, smaller ``x`` is better.
    """
    _check_columns(table, [x, y])
    mask = pareto_mask(table[x].to_numpy(dtype=float), table[y].to_numpy(dtype=float))
    return table[mask].sort_values(x, kind="stable")
