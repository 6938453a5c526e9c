"""Figures of a :class:`~ir_cwla.comparison.result.Comparison` (matplotlib, imported here only)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ir_cwla.analysis import naming, tukey

WIN, LOSS, TIE = "#2c7fb8", "#d7301f", "#9e9e9e"


def plot_differences(comparison: Any, system_a: str, system_b: str, measure: str, ax: Any = None):
    """Sorted per-topic differences ``system_b - system_a`` (see ``Comparison.plot_differences``)."""
    import matplotlib.pyplot as plt

    d = comparison.differences(system_a, system_b, measure)
    key = comparison._measure(measure)
    tol = tukey.tolerance(comparison.cube.matrix(key))
    topics = np.asarray(d.index, dtype=object)
    values = d.to_numpy()
    order = np.lexsort((topics, -values))                 # largest first, ties by topic id
    values, topics = values[order], topics[order]
    colours = np.where(values > tol, WIN, np.where(values < -tol, LOSS, TIE))
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, min(14.0, 0.16 * len(values) + 2.0)), 3.6))
    else:
        fig = ax.figure
    x = np.arange(len(values))
    ax.bar(x, values, color=list(colours), width=0.85, linewidth=0)
    ax.axhline(0.0, color="#444444", linewidth=0.8)
    mean = float(values.mean())
    ax.axhline(mean, color="#222222", linewidth=1.0, linestyle="--", label=f"mean {mean:+.4f}")
    if len(values) <= 60:
        ax.set_xticks(x)
        ax.set_xticklabels(topics, rotation=90, fontsize=6)
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.7, len(values) - 0.3)
    ax.set_xlabel(f"topics, sorted by difference ({len(values)})")
    ax.set_ylabel(f"{naming.label(key)}: {system_b} − {system_a}")
    wins, losses = int((values > tol).sum()), int((values < -tol).sum())
    title = f"{system_b} vs {system_a}, {naming.label(key)}: {wins} wins, {len(values) - wins - losses} ties, " \
            f"{losses} losses"
    row = comparison.pair_row(system_a, system_b, key)
    if row is not None:
        title += f"; p = {row['p_value']:.3g}, adjusted {row['p_adjusted']:.3g}"
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
