"""Figures of an efficiency-aware leaderboard (matplotlib, imported lazily).

* :func:`plot_frontier` -- accuracy against latency (or cost), one point per system, with
  the Pareto frontier drawn as a staircase;
* :func:`plot_weight_map` -- which system wins the Dynascore for each weighting of
  accuracy, latency and cost (Santhanam et al. 2023, Fig. 2(a)): latency weight on the
  x-axis, accuracy weight on the y-axis, cost weight = 1 - the two.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from .strategies import pareto_mask


def _axes(ax: Any, figsize: tuple[float, float]):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=figsize)[1]


def plot_frontier(table: pd.DataFrame, x: str = "latency", y: str = "accuracy", ax: Any = None,
                  logx: bool = True, xlabel: Optional[str] = None, ylabel: Optional[str] = None,
                  title: Optional[str] = None) -> Any:
    """Scatter of ``y`` against ``x`` (one labelled point per system) with the Pareto frontier.

    Returns the matplotlib Axes.
    """
    ax = _axes(ax, (6, 4.5))
    xs = table[x].to_numpy(dtype=float)
    ys = table[y].to_numpy(dtype=float)
    on = pareto_mask(xs, ys)
    ax.scatter(xs[~on], ys[~on], color="0.6", zorder=3, label="dominated")
    ax.scatter(xs[on], ys[on], color="C3", zorder=4, label="Pareto frontier")
    order = np.argsort(xs[on], kind="stable")
    ax.step(xs[on][order], ys[on][order], where="post", color="C3", lw=1.2, zorder=2)
    if logx and np.all(xs > 0):
        ax.set_xscale("log")
    ax.margins(x=0.15, y=0.08)
    _annotate(ax, [str(n) for n in table.index], xs, ys)
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    return ax


def _annotate(ax: Any, names: list[str], xs: np.ndarray, ys: np.ndarray, fontsize: int = 8) -> None:
    """Labels points, moving a label down a line while it would overlap one already placed."""
    ax.autoscale_view()
    pixels = ax.transData.transform(np.column_stack([xs, ys]))
    line = fontsize * 1.4
    placed: list[tuple[float, float, float]] = []          # x, y, width of placed labels (points)
    for i in np.lexsort((pixels[:, 0], -pixels[:, 1])):    # top to bottom, left to right
        x, y = pixels[i]
        width = 0.6 * fontsize * len(names[i])
        dy = 4.0
        while any(abs((y + dy) - py) < line and x < px + pw and px < x + width for px, py, pw in placed):
            dy -= line
        placed.append((x, y + dy, width))
        ax.annotate(names[i], (xs[i], ys[i]), textcoords="offset points", xytext=(5, dy), fontsize=fontsize)


def plot_weight_map(winners: pd.DataFrame, x: str = "latency", y: str = "accuracy", ax: Any = None,
                    title: Optional[str] = None) -> Any:
    """The Dynascore winner over the weight simplex, from :func:`~.dynascore.winner_map`.

    ``winners`` has a weight column per metric (three metrics: ``x``, ``y`` and the one
    implied as ``1 - x - y``) and a ``winner`` column. Returns the matplotlib Axes.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    ax = _axes(ax, (5.5, 5))
    wx = winners[x].to_numpy(dtype=float)
    wy = winners[y].to_numpy(dtype=float)
    steps = np.unique(np.round(wx, 9))
    step = float(np.min(np.diff(steps))) if len(steps) > 1 else 1.0
    m = int(round(1 / step))
    names = list(dict.fromkeys(winners["winner"]))     # order of first appearance
    code = {name: k for k, name in enumerate(names)}
    grid = np.full((m + 1, m + 1), np.nan)
    grid[np.rint(wy / step).astype(int), np.rint(wx / step).astype(int)] = [code[w] for w in winners["winner"]]
    colours = [f"C{k % 10}" for k in range(len(names))]
    edges = np.linspace(-step / 2, 1 + step / 2, m + 2)
    ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), cmap=ListedColormap(colours),
                  vmin=-0.5, vmax=len(names) - 0.5, shading="flat")
    ax.plot([0, 1], [1, 0], color="k", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(f"weight of {x}")
    ax.set_ylabel(f"weight of {y}")
    others = [c for c in winners.columns if c not in (x, y, "winner", "dynascore")]
    if others:
        ax.text(0.62, 0.62, f"weight of {others[0]} = 1 - {x} - {y}", fontsize=8, rotation=-45,
                ha="center", va="center")
    ax.legend(handles=[Patch(color=c, label=str(n)) for n, c in zip(names, colours)],
              title="Dynascore winner", loc="upper right", fontsize=8)
    if title:
        ax.set_title(title)
    return ax
