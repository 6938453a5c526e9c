"""Figures of the robustness analyses: agreement curves against the judgments kept, pooling bias bars.

One panel per family of measures (e.g. per browsing model), measures named by their
aggregation inside a browsing-model panel (``*``: canonical, drawn dashed and thicker);
matplotlib is imported only when plotting.
"""
from __future__ import annotations

import math
from collections.abc import Hashable
from typing import TYPE_CHECKING, Optional

from ir_cwla.meta import naming
from ir_cwla.table1 import TABLE1_AGGREGATIONS

if TYPE_CHECKING:  # pragma: no cover
    from ir_cwla.meta.incompleteness import Incompleteness
    from ir_cwla.meta.pooling import PoolingBias

NAMES = {"tau": "Kendall's tau", "tau_ap": "tau_AP", "rbo": "RBO", "abs_change": "mean |change of score|",
         "rel_change": "mean |change| / mean score",
         "rel_drop": "mean drop / mean score", "mean_drop": "mean drop of score", "max_drop": "largest drop of score",
         "mean_rank_drop": "mean drop of rank", "max_rank_drop": "largest drop of rank",
         "mean_abs_rank_change": "mean |change of rank|"}


def _panels(n: int, cols: int, size: tuple[float, float]):
    import matplotlib.pyplot as plt

    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False,
                             layout="constrained")
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:n]


def _colour(measure: str, position: int) -> str:
    """The colour of a measure: by its aggregation (Table 1's order: ERG C0, ETG C1, ..., ERR C6),
    so that an aggregation looks the same in every panel; else by its position in the panel."""
    agg = naming.aggregation(measure)
    return f"C{TABLE1_AGGREGATIONS.index(agg)}" if agg in TABLE1_AGGREGATIONS else f"C{(7 + position) % 10}"


def _name(measure: str, labels: dict[str, str], within: bool) -> str:
    agg = naming.aggregation(measure) if within else None
    return (agg if agg else labels.get(measure, measure)) + (" *" if naming.is_canonical(measure) else "")


def plot_incompleteness(result: Incompleteness, statistic: str = "tau", kind: str = "fraction",
                        groups: Optional[list[Hashable]] = None, cols: int = 3, title: Optional[str] = None):
    """``statistic`` (mean over trials) against the fraction of judgments kept, or the pool depth."""
    if kind not in ("fraction", "depth"):
        raise ValueError(f"kind must be 'fraction' or 'depth', got {kind!r}")
    table = result.table() if kind == "fraction" else result.depth_table()
    if statistic not in table.columns:
        raise ValueError(f"statistic must be one of tau, tau_ap, rbo, abs_change, rel_change, got {statistic!r}")
    if table.empty:
        raise ValueError("no pool depths were analysed (depths=())")
    names = list(groups) if groups is not None else list(result.groups)
    within = len(names) > 1
    fig, axes = _panels(len(names), cols, (4.4, 3.4))
    values = table[statistic]
    change = statistic in ("abs_change", "rel_change")
    low = min(0.0, float(values.min())) if change else min(0.5, math.floor(values.min() * 10) / 10)
    high = float(values.max()) * 1.05 if change else 1.0
    for ax, group in zip(axes, names):
        for k, m in enumerate(result.groups[group]):
            part = table[table["measure"] == m]
            canonical = naming.is_canonical(m)
            ax.plot(part[kind], part[statistic], "--" if canonical else "-", marker="o", ms=3,
                    lw=2.0 if canonical else 1.2, color=_colour(m, k), label=_name(m, result.labels, within))
        ax.set_ylim(low, high if high > low else low + 1)
        if kind == "depth":
            ax.set_xscale("log")
            ax.set_xticks(sorted(set(table["depth"])), [str(d) for d in sorted(set(table["depth"]))])
        ax.set_title(f"C: {group}" if within else NAMES.get(statistic, statistic), fontsize=10)
        ax.set_xlabel("share of judgments kept" if kind == "fraction" else "pool depth", fontsize=8)
        ax.set_ylabel(NAMES.get(statistic, statistic) + " vs full qrels", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, frameon=False)
    what = (f"{result.n_trials} random subsets per fraction, stratified by relevance" if kind == "fraction"
            else "qrels of a depth-d pool of these runs")
    fig.suptitle(title or f"Robustness to incomplete judgments ({what})", fontsize=11)
    return fig


def plot_pooling(result: PoolingBias, statistic: str = "mean_abs_rank_change", groups: Optional[list[Hashable]] = None,
                 cols: int = 3, title: Optional[str] = None):
    """``statistic`` of the pooling-bias table per measure, one bar per pool depth."""
    import numpy as np

    table = result.table()
    if statistic not in table.columns or statistic in ("depth", "measure", "group", "label"):
        raise ValueError(f"statistic must be a column of PoolingBias.table(), got {statistic!r}")
    names = list(groups) if groups is not None else list(result.groups)
    within = len(names) > 1
    depths = sorted(set(table["depth"]))
    fig, axes = _panels(len(names), cols, (4.4, 3.4))
    width = 0.8 / len(depths)
    for ax, group in zip(axes, names):
        members = result.groups[group]
        x = np.arange(len(members))
        for k, d in enumerate(depths):
            part = table[table["depth"] == d].set_index("measure")
            colours = [_colour(m, i) for i, m in enumerate(members)] if len(depths) == 1 else f"C{k % 10}"
            ax.bar(x + (k - (len(depths) - 1) / 2) * width, [part.at[m, statistic] for m in members], width,
                   label=f"depth {d}", color=colours)
        ax.set_xticks(x, [_name(m, result.labels, within) for m in members], rotation=45, ha="right", fontsize=8)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(f"C: {group}" if within else NAMES.get(statistic, statistic), fontsize=10)
        ax.set_ylabel(NAMES.get(statistic, statistic), fontsize=8)
        if len(depths) > 1:
            ax.legend(fontsize=7, frameon=False)
    fig.suptitle(title or f"Pooling bias, leave one run out ({', '.join(f'depth {d}' for d in depths)})",
                 fontsize=11)
    return fig
