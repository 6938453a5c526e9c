"""What the two robustness analyses share: comparing system rankings with the full-qrels one.

:mod:`ir_cwla.meta.incompleteness` and :mod:`ir_cwla.meta.pooling` score the systems under
reduced qrels and compare the resulting system ranking (by mean score) with the ranking on
the full qrels, taken as the truth: Kendall's tau-b, tau_AP with the full ranking as the
reference, RBO_ext (:mod:`ir_cwla.meta.agreement`), and the mean absolute change of the
systems' mean scores.
"""
from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import shown
from ir_cwla.analysis import naming, streams, tukey
from ir_cwla.analysis.frame import TIE_TOLERANCE
from ir_cwla.errors import DataError, ParameterError, UndefinedStatisticWarning
from ir_cwla.meta import agreement, kendall

#: The statistics every comparison reports, in table order.
STATISTICS = ("tau", "tau_ap", "rbo", "abs_change", "rel_change")


def compare(full: np.ndarray, reduced: np.ndarray, persistence: float) -> dict[str, np.ndarray]:
    """Agreement of the rankings by ``reduced`` (``(..., M, S)``) with those by ``full`` (``(M, S)``).

    Returns ``{statistic: (..., M)}``; ``abs_change`` is the mean over systems of ``|reduced -
    full|``, ``rel_change`` the same divided by the mean ``|full|`` of the measure (comparable
    across measures of different scales, e.g. ERG and ETG). A reduced ranking that ties every system has an
    undefined tau-b; it counts as tau = 0 (no agreement), as in the consistency analysis, and
    is counted in ``'degenerate'``.
    """
    full = np.asarray(full, dtype=np.float64)
    reduced = np.asarray(reduced, dtype=np.float64)
    shape = reduced.shape[:-1]
    flat = reduced.reshape(-1, full.shape[-1])
    truth = np.broadcast_to(full, reduced.shape).reshape(-1, full.shape[-1])
    tau = kendall.tau_b_rows(truth, flat)
    degenerate = np.isnan(tau)
    change = np.abs(flat - truth).mean(axis=1)
    scale = np.broadcast_to(np.abs(full).mean(axis=-1), shape).ravel()
    return {"tau": np.where(degenerate, 0.0, tau).reshape(shape),
            "tau_ap": agreement.tau_ap_rows(truth, flat).reshape(shape),
            "rbo": agreement.rbo_rows(truth, flat, persistence).reshape(shape),
            "abs_change": change.reshape(shape),
            "rel_change": (change / scale).reshape(shape),
            "degenerate": degenerate.reshape(shape)}


def check_constant(full: np.ndarray, measures: Sequence[str]) -> None:
    """A measure that gives every system the same mean on the full qrels has no ranking to compare with.

    An error naming it.
    """
    tau = kendall.tau_b_rows(full, full)
    constant = [m for m, t in zip(measures, tau) if np.isnan(t)]
    if constant:
        raise DataError(f"measures {constant} give every system the same mean score on the full qrels: their "
                         "system ranking is a single tie and cannot be compared; drop them")


def warn_degenerate(count: int, total: int, what: str) -> None:
    """Warns once when ``count`` of ``total`` rankings tie every system (tau-b counted as 0)."""
    if count:
        warnings.warn(f"{count} of {total} {what} tie every system (tau-b undefined): counted as tau = 0",
                      UndefinedStatisticWarning, stacklevel=3)


def check_depths(depths: Union[int, Sequence[int]], what: str = "depths") -> tuple[int, ...]:
    """Pool depths as sorted distinct ints >= 1 (an empty sequence is allowed)."""
    if isinstance(depths, (int, np.integer)):
        depths = (int(depths),)
    out = []
    for d in depths:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ParameterError(f"{what} must be ints >= 1, got {shown(d)}")
        out.append(int(d))
    return tuple(sorted(set(out)))


def check_relevant(relevant: Any) -> float:
    """The grade from which a judgment counts as relevant: a number > 0."""
    if isinstance(relevant, bool) or not isinstance(relevant, (int, float, np.floating)) or not relevant > 0:
        raise ParameterError(f"relevant must be a grade > 0, got {shown(relevant)}")
    return float(relevant)


def rank_positions(values: np.ndarray) -> np.ndarray:
    """The rank position of every system, clearly higher scores ranked first.

    1 + the number of systems with a clearly higher score (ties share the best position),
    for every row of ``values`` (``(..., S)``).
    """
    values = np.asarray(values, dtype=np.float64)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(values).max(axis=-1, keepdims=True))
    return 1 + (values[..., None, :] > values[..., :, None] + tol[..., None]).sum(axis=-1)


def rank_if_replaced(values: np.ndarray, replaced: np.ndarray) -> np.ndarray:
    """Each system's rank if its values were replaced.

    For every system ``s``: its :func:`rank_positions` among ``values`` (``(M, S)``) when its
    own score is replaced by ``replaced[:, s]`` and the others' are kept, as ``(M, S)``.

    Equals ``rank_positions(alone)[m, s, s]`` with ``alone[m, s]`` the row ``values[m]`` with
    entry ``s`` replaced (the same tie tolerance, from that row), in O(M S^2), not O(M S^3).
    """
    values, replaced = np.asarray(values, dtype=np.float64), np.asarray(replaced, dtype=np.float64)
    own = np.eye(values.shape[-1], dtype=bool)[None]
    alone = np.where(own, replaced[:, None, :], values[:, None, :])                       # (M, S_replaced, S)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(alone).max(axis=-1))                     # (M, S)
    return 1 + (alone > (replaced + tol)[..., None]).sum(axis=-1)


def family_ranking(table: pd.DataFrame, column: str, groups: dict[Hashable, list[str]],
                   labels: dict[str, str], higher_is_better: bool, rows: Optional[pd.DataFrame] = None,
                   test_trials: int = 2000, alpha: float = 0.05, seed: streams.Seed = 0) -> pd.DataFrame:
    """Measures of each family sorted by ``column`` of ``table`` (indexed by measure), best first.

    With ``rows`` (paired observations x measures whose column means are ``column``, e.g. the
    trials of an experiment, each with the same random subsets for every measure), a
    randomised Tukey HSD test over each family's columns (Carterette 2012, as for the
    consistency taus) adds ``outperforms``: how many measures of the family it is
    significantly better than (p < ``alpha``), and ``better_than``: their labels. ``measure``
    is the measure's label, as in every table of :mod:`ir_cwla.meta`.
    """
    out = []
    for group, members in groups.items():
        ordered = sorted(members, key=lambda m: (-table.at[m, column] if higher_is_better else table.at[m, column]))
        beats: dict[str, list[str]] = {m: [] for m in members}
        if rows is not None and len(members) > 1:
            matrix = rows[members].to_numpy(dtype=np.float64)
            p = tukey.randomised_tukey_hsd(matrix, test_trials, seed)
            mean = matrix.mean(axis=0)
            sign = 1.0 if higher_is_better else -1.0
            for i, a in enumerate(members):
                beats[a] = [b for j, b in enumerate(members) if sign * (mean[i] - mean[j]) > 0 and p[i, j] < alpha]
        for rank, m in enumerate(ordered, 1):
            row = {"group": group, "rank": rank, "measure": labels.get(m, m), column: table.at[m, column]}
            if rows is not None:
                row["outperforms"] = len(beats[m])
                row["better_than"] = ", ".join(labels.get(b, b) for b in beats[m])
            out.append(row)
    return pd.DataFrame(out)


def family_layout(ranking: pd.DataFrame, column: str, digits: int = 3) -> pd.DataFrame:
    """A :func:`family_ranking` frame laid out like the paper's Table 3.

    One column per family, best first, cells ``aggregation (k) value`` (``*``: canonical;
    the label if not C/W/L/A; ``(k)``: significantly better than k measures of its family,
    when tested).
    """
    columns: dict[str, list[str]] = {}
    for group, part in ranking.groupby("group", sort=False):
        cells = []
        marks = part["outperforms"] if "outperforms" in part else [None] * len(part)
        for label, value, k in zip(part["measure"], part[column], marks):
            name = (naming.aggregation(label) or label) + ("*" if naming.is_canonical(label) else "")
            cells.append(f"{name}{'' if k is None else f' ({k})'} {value:.{digits}f}")
        columns[str(group)] = cells
    depth = max((len(v) for v in columns.values()), default=0)
    return pd.DataFrame({k: v + [""] * (depth - len(v)) for k, v in columns.items()},
                        index=pd.RangeIndex(1, depth + 1, name="rank"))
