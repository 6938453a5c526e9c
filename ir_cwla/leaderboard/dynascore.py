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

* systems of equal accuracy are paired in the order of their names (Dynabench: input
  order), so nothing depends on the row order of the input; a warning says so, because the
  pairing changes the AMRS;
* two Dynascores equal up to rounding (:data:`SCORE_TIE_TOLERANCE`) are a tie: both systems
  get the same rank, and a :class:`RankingWarning` says so. With two systems the Dynascore
  difference is ``dAcc * (w_acc +- w_2 +- ...)`` (+ where the more accurate system is also
  better on that metric): it depends on the weights and on who is better, never on by how
  much, and under the default weights 0.5/0.25/0.25 it is exactly 0 when the more accurate
  system is slower and dearer -- a warning says this too;
* a metric whose AMRS is 0 (the same value for every system) would be divided by zero in
  Dynabench. Here it is dropped with a warning and the remaining weights renormalised
  (``on_constant="drop"``, default) or refused (``on_constant="raise"``); a metric that
  varies only between systems of equal accuracy cannot be converted and is always refused.

Measurements are checked before anything is computed: every weighted metric must be finite
for every system, latency, cost, memory and throughput (:func:`is_non_negative`) must not
be negative, system names must be unique, and the weights finite and non-negative (they are
scaled by their largest before summing, so 1e308 does not overflow).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.errors import ArgumentTypeError, ConstantMetricWarning, DataError, ParameterError, RankingWarning

#: Default weights of Santhanam et al. (2023): half to accuracy, the rest split evenly.
DEFAULT_WEIGHTS: dict[str, float] = {"accuracy": 0.5, "cost": 0.25, "latency": 0.25}
#: Metrics where smaller is better; any other metric defaults to direction +1.
DEFAULT_DIRECTIONS: dict[str, int] = {"latency": -1, "cost": -1, "memory": -1}
#: Columns whose names start with one of these are smaller-is-better by default
#: (``latency_p50_ms``, ``usd_per_1M_q_from_qps``, ``cost``, ``memory_gib``).
SMALLER_IS_BETTER_PREFIXES = ("latency", "usd", "cost", "memory")


#: Columns whose names start with one of these measure resources and cannot be negative.
NON_NEGATIVE_PREFIXES = SMALLER_IS_BETTER_PREFIXES + ("qps", "throughput")
#: Two Dynascores closer than this, relative to the largest sum of absolute weighted terms of
#: the two systems, are a tie: rounding alone can separate scores equal in real arithmetic
#: (e.g. two systems under the default weights, where the difference is exactly 0).
SCORE_TIE_TOLERANCE = 1e-9
#: At most this many weightings in a winner map (``step=0.002`` gives 125,751 for 3 metrics).
MAX_WEIGHTINGS = 1_000_000


def default_direction(column: str) -> int:
    """+1 if larger is better; -1 for latency, cost, usd and memory columns (the one rule)."""
    if column in DEFAULT_DIRECTIONS:
        return DEFAULT_DIRECTIONS[column]
    return -1 if str(column).startswith(SMALLER_IS_BETTER_PREFIXES) else 1


def is_non_negative(column: str) -> bool:
    """True for columns that measure a resource (latency, cost, usd, memory, qps, throughput)."""
    return str(column).startswith(NON_NEGATIVE_PREFIXES)


def check_metric_values(df: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """The values of ``columns`` as floats, or an error naming the column and the system.

    Every value must be a finite number, and resources (:func:`is_non_negative`) >= 0.
    """
    columns = list(columns)
    try:
        values = df[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as ex:
        raise DataError(f"metrics {columns} must be numeric") from ex
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raw = df[columns[j]].iloc[i]
        raise DataError(f"{columns[j]} of system {shown(df.index[i])} is {shown(raw)}; "
                         "every metric needs a finite number for every system")
    for j, column in enumerate(columns):
        negative = np.flatnonzero(values[:, j] < 0)
        if is_non_negative(column) and len(negative):
            i = negative[0]
            raise DataError(f"{column} of system {shown(df.index[i])} is {values[i, j]:g}; "
                             "latency, cost, memory and throughput cannot be negative")
    return values


def normalised_weights(weights: np.ndarray) -> np.ndarray:
    """``w / sum(w)`` computed as ``(w / max w) / sum(w / max w)``: no overflow for huge weights."""
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.max()
    return w / w.sum()
#: Dynabench's ``delta_cutoff_proportion``.
DELTA_CUTOFF = 1e-4


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
        raise DataError("accuracy is the same for all systems (no two neighbours differ by more than "
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
    return converted @ normalised_weights(weights), amrs


def tie_ranks(scores: np.ndarray, scale: np.ndarray, tolerance: float = SCORE_TIE_TOLERANCE) -> np.ndarray:
    """Ranks (1 = best) of ``scores`` sorted descending, tied neighbours sharing a rank.

    Neighbours within ``tolerance * max(scale_a, scale_b)`` get the same rank (the "min" method
    of competition ranking).
    """
    scores = np.asarray(scores, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    ranks = np.arange(1, len(scores) + 1)
    for k in range(1, len(scores)):
        if scores[k - 1] - scores[k] <= tolerance * max(scale[k - 1], scale[k]):
            ranks[k] = ranks[k - 1]
    return ranks


def simplex_size(k: int, m: int) -> int:
    """Number of weightings of k metrics in multiples of 1/m: C(m + k - 1, k - 1)."""
    from math import comb

    return comb(m + k - 1, k - 1)


def weight_simplex(k: int, step: float = 0.02) -> np.ndarray:
    """All weight vectors on a grid over the (k-1)-simplex: shape (g, k), rows sum to 1.

    ``step`` must divide 1 evenly, and the grid must hold at most :data:`MAX_WEIGHTINGS` rows.
    """
    if k < 1:
        raise ParameterError("need at least one metric")
    if isinstance(step, bool) or not isinstance(step, (int, float, np.number)) or not np.isfinite(step) \
            or not 0 < step <= 1:
        raise ParameterError(f"step must be a number in (0, 1] that divides 1 evenly, e.g. 0.02; got {shown(step)}")
    m = int(round(1.0 / step))
    if m < 1 or not np.isclose(m * step, 1.0):
        raise ParameterError(f"step must divide 1 evenly, got {step}")
    size = simplex_size(k, m)
    if size > MAX_WEIGHTINGS:
        finest = next(1 / n for n in range(m, 0, -1) if simplex_size(k, n) <= MAX_WEIGHTINGS)
        raise ParameterError(f"step {step:g} gives {size:,} weightings of {k} metrics (at most {MAX_WEIGHTINGS:,}); "
                         f"use step >= {finest:.3g}")
    if k == 1:
        return np.ones((1, 1))
    grids = np.meshgrid(*([np.arange(m + 1)] * (k - 1)), indexing="ij")
    head = np.stack([g.ravel() for g in grids], axis=1)
    head = head[head.sum(axis=1) <= m]
    return np.column_stack([head, m - head.sum(axis=1)]) / m


# --------------------------------------------------------------------------- adapters

def _by_name(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its rows in the order of the system names.

    Ties are then never broken by the row order of the input.
    """
    order = np.argsort(np.asarray([str(n) for n in df.index], dtype=object), kind="stable")
    return df.iloc[order]


def _resolve(df: pd.DataFrame, weights: Optional[Mapping[str, float]], directions: Optional[Mapping[str, int]],
             offsets: Optional[Mapping[str, float]], perf: str) -> tuple[list[str], np.ndarray, np.ndarray,
                                                                        np.ndarray, np.ndarray]:
    """Validates the inputs and returns (metrics, values, weights, directions, offsets), perf first.

    The weights come back normalised to sum 1.
    """
    if not isinstance(df, pd.DataFrame):
        raise ArgumentTypeError(f"expected a pandas DataFrame of systems x metrics, got {type(df).__name__}")
    if len(df) < 2:
        raise DataError(f"a Dynascore compares systems: need at least 2, got {len(df)}")
    if df.index.has_duplicates:
        raise DataError(f"system names must be unique: {shown(list(dict.fromkeys(df.index[df.index.duplicated()])))} "
                         "appear more than once")
    weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
    if perf not in df.columns:
        raise DataError(f"accuracy column {perf!r} not in the table (columns: {list(df.columns)}); name the "
                        "accuracy column with perf=, and key weights and directions by the table's columns")
    missing = [m for m in weights if m not in df.columns]
    if missing:
        raise DataError(f"weighted metric(s) {missing} not in the table (columns: {list(df.columns)})")
    for m, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)) or not np.isfinite(weight) \
                or weight < 0:
            raise ParameterError(f"weights must be finite and non-negative numbers, got {m}={shown(weight)}")
    if sum(weights.values()) <= 0:
        raise ParameterError("at least one weight must be positive")
    directions = dict(directions or {})
    for m, d in directions.items():
        if m not in df.columns:
            raise ParameterError(f"direction given for {m!r}, which is not in the table (columns: {list(df.columns)})")
        if d not in (1, -1):
            raise ParameterError(f"direction of {m!r} must be +1 or -1, got {d}")
    offsets = dict(offsets or {})
    for m, o in offsets.items():
        if m not in df.columns:
            raise ParameterError(f"offset given for {m!r}, which is not in the table")
        if not np.isfinite(o):
            raise ParameterError(f"offset of {m!r} must be finite, got {o}")

    metrics = [perf] + [m for m in weights if m != perf]
    values = check_metric_values(df, metrics)
    w = normalised_weights(np.array([weights.get(m, 0.0) for m in metrics], dtype=np.float64))
    signs = np.array([directions.get(m, default_direction(m)) for m in metrics], dtype=np.float64)
    shifts = np.array([offsets.get(m, 0.0) for m in metrics], dtype=np.float64)
    return metrics, values, w, signs, shifts


def _drop_constant(metrics: list[str], values: np.ndarray, w: np.ndarray, amrs: np.ndarray,
                   on_constant: str, notes: list[tuple[type, str]]) -> np.ndarray:
    """Zero the weight of metrics with AMRS 0 (constant ones) or raise; returns new weights."""
    w = w.copy()
    for j in np.flatnonzero(amrs == 0):
        if np.ptp(values[:, j]) > 0:
            raise DataError(f"{metrics[j]!r} differs only between systems of equal accuracy, so its rate "
                             "of substitution for accuracy is 0 and it cannot be put in accuracy units")
        if on_constant == "raise":
            raise DataError(f"{metrics[j]!r} has the same value for every system; it cannot be put in "
                             "accuracy units (drop it from the weights, or pass on_constant='drop')")
        if w[j] > 0:
            notes.append((ConstantMetricWarning,
                          f"{metrics[j]!r} has the same value for every system and was dropped from the "
                          "Dynascore (the remaining weights are renormalised)"))
        w[j] = 0.0
    if w.sum() <= 0:
        raise DataError("every weighted metric is constant across systems; nothing to rank by")
    return normalised_weights(w)


def _accuracy_ties(names: Sequence, perf: np.ndarray, values: np.ndarray, cutoff: float) -> list[str]:
    """Groups of systems whose accuracies the AMRS cannot tell apart but whose other metrics differ."""
    order = np.argsort(perf, kind="stable")
    close = np.abs(np.diff(perf[order])) <= cutoff * abs(perf.max())
    groups, current = [], [order[0]]
    for k, same in enumerate(close, start=1):
        if same:
            current.append(order[k])
        else:
            groups.append(current)
            current = [order[k]]
    groups.append(current)
    return [", ".join(sorted(repr(names[i]) for i in g)) for g in groups
            if len(g) > 1 and np.ptp(values[g], axis=0).max() > 0]


def _few_items(items: Sequence[str], sep: str, n: int = 5) -> str:
    shown = sep.join(items[:n])
    return shown + (f"{sep}... ({len(items)} in all)" if len(items) > n else "")


def _warn(notes: list[tuple[type, str]]) -> None:
    for category, message in notes:
        warnings.warn(message, category, stacklevel=3)


def amrs(df: pd.DataFrame, metrics: Optional[Sequence[str]] = None, perf: str = "accuracy",
         cutoff: float = DELTA_CUTOFF) -> pd.Series:
    """AMRS of each metric for the accuracy column ``perf`` (a Series indexed by metric).

    ``metrics`` defaults to every numeric column. See the module docstring for the formula.
    """
    if metrics is None:
        metrics = [c for c in df.select_dtypes("number").columns]
    df = _by_name(df) if isinstance(df, pd.DataFrame) else df
    names, values, _, _, _ = _resolve(df, {m: 1.0 for m in metrics}, None, None, perf)
    return pd.Series(amrs_kernel(values[:, 0], values, cutoff), index=names, name="amrs")


def dynascore(df: pd.DataFrame, weights: Optional[Mapping[str, float]] = None,
              directions: Optional[Mapping[str, int]] = None, offsets: Optional[Mapping[str, float]] = None,
              perf: str = "accuracy", cutoff: float = DELTA_CUTOFF,
              on_constant: Literal["drop", "raise"] = "drop") -> pd.DataFrame:
    """Ranks the systems (rows) of ``df`` by Dynascore (Ma et al. 2021; formula in the module doc).

    Parameters
    ----------
    df : pandas.DataFrame
        One row per system (the index names them, uniquely), one numeric column per metric.
    weights : mapping, optional
        Metric -> non-negative weight, normalised to sum 1. Default
        ``{'accuracy': 0.5, 'cost': 0.25, 'latency': 0.25}``. Every weighted metric must be a
        column; unweighted columns are carried along untouched.
    directions : mapping, optional
        Metric -> +1 (larger is better) or -1. Defaults: -1 for ``latency``, ``cost`` and
        ``memory``, +1 otherwise.
    offsets : mapping, optional
        Metric -> constant added after the direction (Dynabench's ``offset``); changes the
        scores, never the ranking.
    perf : str
        The accuracy column; AMRS is taken with respect to it.
    cutoff : float
        Pairs of neighbours closer than ``cutoff * max accuracy`` are skipped.
    on_constant : {'drop', 'raise'}
        What to do with a weighted metric that is the same for every system.

    Returns
    -------
    pandas.DataFrame
        ``df`` with a ``dynascore`` column and a ``rank`` column (1 = best; tied systems share
        a rank and are listed by name), sorted by Dynascore descending. ``result.attrs`` holds
        ``amrs``, the normalised ``weights`` actually used, and ``notes``: the messages of the
        :class:`RankingWarning` s raised (ties, two systems, equal accuracy, constant metrics),
        for a report to show.
    """
    if on_constant not in ("drop", "raise"):
        raise ParameterError(f"on_constant must be 'drop' or 'raise', got {on_constant!r}")
    if isinstance(df, pd.DataFrame):
        df = _by_name(df)
    metrics, values, w, d, o = _resolve(df, weights, directions, offsets, perf)
    notes: list[tuple[type, str]] = []
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        rates = amrs_kernel(values[:, 0], values, cutoff)
        w = _drop_constant(metrics, values, w, rates, on_constant, notes)
        used = w > 0
        terms = converted_kernel(values[:, used], d[used], o[used], rates[used]) * w[used]
        scores = terms.sum(axis=1)
    if not (np.isfinite(rates).all() and np.isfinite(scores).all()):
        raise DataError(f"the Dynascore overflows for these values (rates of substitution "
                         f"{dict(zip(metrics, rates.tolist()))}); rescale the metrics")
    names = list(df.index)
    ties = _accuracy_ties(names, values[:, 0], values, cutoff)
    if ties:
        notes.append((RankingWarning, f"systems with the same accuracy (to within {cutoff:g} x the best) are "
                                      f"paired in name order by the rates of substitution: {_few_items(ties, '; ')}"))
    order = np.lexsort((np.arange(len(scores)), -scores))
    ranks = tie_ranks(scores[order], np.abs(terms).sum(axis=1)[order])
    order = order[np.lexsort((order, ranks))]        # within a tie, by name
    if len(names) == 2 and ranks[1] == 1:
        notes.append((RankingWarning, f"systems {names[order[0]]!r} and {names[order[1]]!r} tie: with two systems "
                                      "the Dynascore difference is dAcc x (w_accuracy +/- each other weight), 0 "
                                      "under these weights whatever the measurements; both get rank 1"))
    elif len(names) == 2:
        notes.append((RankingWarning, "with two systems the Dynascore ranking depends only on the weights and on "
                                      "which system is better on each metric, not on by how much"))
    else:
        shared = np.unique(ranks[np.r_[False, ranks[1:] == ranks[:-1]]])
        groups = [f"rank {r}: " + ", ".join(repr(names[i]) for i in order[ranks == r]) for r in shared]
        if groups:
            notes.append((RankingWarning, "systems with equal Dynascores (to within rounding) share a rank: "
                                          f"{_few_items(groups, '; ')}"))
    out = df.iloc[order].copy()
    out["dynascore"] = scores[order]
    out["rank"] = ranks
    out.attrs["amrs"] = dict(zip(metrics, rates.tolist()))
    out.attrs["weights"] = {m: float(x) for m, x in zip(metrics, w) if x > 0}
    out.attrs["notes"] = [message for _, message in notes]
    _warn(notes)
    return out


def winner_map(df: pd.DataFrame, metrics: Sequence[str] = ("accuracy", "latency", "cost"),
               directions: Optional[Mapping[str, int]] = None, perf: str = "accuracy",
               step: float = 0.02, cutoff: float = DELTA_CUTOFF) -> pd.DataFrame:
    """The Dynascore winner for every weighting on a grid over the weight simplex.

    The weights of ``metrics`` run over all multiples of ``step`` that sum to 1 (Santhanam
    et al. 2023, Fig. 2(a)). AMRS does not depend on the weights, so the metrics are
    converted once and the weightings are scored by matrix products, in blocks.

    Returns one row per weighting: a column per metric holding its weight, ``winner`` (the
    index label of the best system; of tied systems, the first by name), ``tie`` (True when
    another system's Dynascore equals the winner's up to :data:`SCORE_TIE_TOLERANCE`) and
    ``dynascore`` (the winner's score).
    """
    metrics = list(metrics)
    if perf not in metrics:
        raise ParameterError(f"the accuracy column {perf!r} must be one of the mapped metrics {metrics}")
    grid = weight_simplex(len(metrics), step)                  # a bad step fails before any work
    if isinstance(df, pd.DataFrame):
        df = _by_name(df)
    names, values, _, d, o = _resolve(df, {m: 1.0 for m in metrics}, directions, None, perf)
    constant = [m for m, spread in zip(names, np.ptp(values, axis=0)) if spread == 0]
    if constant:
        raise DataError(f"{constant} have the same value for every system; leave them out of the winner map")
    rates = amrs_kernel(values[:, 0], values, cutoff)
    _drop_constant(names, values, np.ones(len(names)), rates, "raise", [])
    converted = converted_kernel(values, d, o, rates)
    grid = grid[:, [metrics.index(m) for m in names]]          # columns in the order of ``names``
    best = np.empty(len(grid), dtype=np.int64)
    top = np.empty(len(grid))
    tie = np.empty(len(grid), dtype=bool)
    block = max(1, 4_000_000 // len(converted))
    for start in range(0, len(grid), block):
        weights = grid[start:start + block]
        scores = weights @ converted.T                         # (block, n)
        rows = np.arange(len(weights))
        high = scores.argmax(axis=1)
        scale = np.abs(weights) @ np.abs(converted).T          # (block, n): size of each score's terms
        level = SCORE_TIE_TOLERANCE * np.maximum(scale, scale[rows, high][:, None])
        tied = scores[rows, high][:, None] - scores <= level  # the best and those tied with it
        winner = tied.argmax(axis=1)                           # the first by name
        best[start:start + block] = winner
        top[start:start + block] = scores[rows, winner]
        tie[start:start + block] = tied.sum(axis=1) > 1
    out = pd.DataFrame(grid, columns=names)[metrics]
    out["winner"] = np.asarray(df.index)[best]
    out["tie"] = tie
    out["dynascore"] = top
    return out
