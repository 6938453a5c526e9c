"""Figures of an efficiency-aware leaderboard (matplotlib, imported lazily).

* :func:`plot_frontier` -- accuracy against latency (or cost), one point per system, with
  the Pareto frontier drawn as a staircase;
* :func:`plot_weight_map` -- which system wins the Dynascore for each weighting of
  accuracy, latency and cost (Santhanam et al. 2023, Fig. 2(a)): latency weight on the
  x-axis, accuracy weight on the y-axis, cost weight = 1 - the two.

System names are shown as text, never read as mathtext (:mod:`ir_cwla.text`). Labels in the
frontier plot are placed greedily where they overlap neither another label nor a point nor
the frame (:func:`place_labels`: a constant number of candidate positions per label, each
checked against all points at once, so the cost grows linearly with the number of systems);
past :data:`MAX_LABELS` systems only the Pareto frontier is labelled, and a system whose
label fits nowhere is left unlabelled, with a note saying how many are (the report's table
lists every system).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from ir_cwla._text import PLAIN_TEXT, plain
from ir_cwla.errors import ParameterError

from .strategies import pareto_mask

#: At most this many systems are labelled in a frontier plot.
MAX_LABELS = 30
#: A log x-axis (``logx='auto'``) when the largest x is at least this many times the smallest.
LOG_SPAN = 10.0
#: Where a label may go around its point: (dx, dy) in points, and the text alignment.
_CANDIDATES = [(dx * r, dy * r, ha, va) for r in (1.0, 2.6) for dx, dy, ha, va in (
    (6, 0, "left", "center"), (-6, 0, "right", "center"), (0, 6, "center", "bottom"),
    (0, -6, "center", "top"), (5, 5, "left", "bottom"), (5, -5, "left", "top"),
    (-5, 5, "right", "bottom"), (-5, -5, "right", "top"))]
#: Offsets (|dx| + |dy|, points) of the inner ring of candidates; beyond it a label gets a leader line.
_NEAR_RING = 10.0
#: A label with a leader line may be nearer another point than its own, but not this near (points).
_CLEAR = 8.0
_MARKER_SIZE = 36.0          # scatter area in points^2 (radius 3 points) for up to 100 systems


def _marker_size(n: int) -> float:
    """Smaller markers for many systems, so that a crowd still shows its shape."""
    return _MARKER_SIZE if n <= 100 else max(3.0, _MARKER_SIZE * (100 / n) ** 0.5)


def _axes(ax: Any, figsize: tuple[float, float]):
    """``ax``, or the axes of a new figure whose layout never moves them.

    Labels are placed in pixels, and a legend outside the axes is kept by saving with
    ``bbox_inches='tight'``.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=figsize)[1]


def _plain_number(value: float, _pos: Any = None) -> str:
    return f"{value:g}"


def _x_scale(ax: Any, xs: np.ndarray, logx: Union[bool, str]) -> None:
    """A log x axis when asked (``True``) or when the data span :data:`LOG_SPAN` (``'auto'``).

    Its ticks are at 1, 2 and 5 times powers of ten, labelled as plain numbers (``0.5``, not
    ``5x10^-1``).
    """
    from matplotlib import ticker

    if logx not in (True, False, "auto"):
        raise ParameterError(f"logx must be True, False or 'auto', got {logx!r}")
    positive = len(xs) > 0 and bool(np.all(xs > 0))
    if logx == "auto":
        logx = positive and xs.max() >= LOG_SPAN * xs.min()
    if logx and positive:
        ax.set_xscale("log")
        decades = np.log10(xs.max()) - np.log10(xs.min())       # (a ratio overflows for 1e-300 .. 1e300)
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades < 2.5 else (1.0,)))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(_plain_number))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def _finite_xlim(ax: Any, xs: np.ndarray, margin: float) -> None:
    """The x limits with their ``margin`` (a share of the span, in log space on a log axis), kept finite.

    Matplotlib's own margins overflow for values far apart (latencies 1e-300 and 1e300 on a
    log axis: ten to the 372nd; 1e308 on a linear one), and "Axis limits cannot be NaN or Inf".
    """
    xs = xs[np.isfinite(xs)]
    if not len(xs):
        return
    lo, hi = float(xs.min()), float(xs.max())
    tiny, huge = np.finfo(float).tiny, np.finfo(float).max
    ax.set_autoscalex_on(False)             # (else matplotlib's pending margins are applied first, and overflow)
    if ax.get_xscale() == "log":
        a, b = np.log10(lo), np.log10(hi)
        pad = margin * (b - a) if b > a else 0.5
        with np.errstate(over="ignore", under="ignore"):
            low, high = float(np.power(10.0, a - pad)), float(np.power(10.0, b + pad))
        ax.set_xlim(low if low > 0 else min(lo, tiny), high if np.isfinite(high) else huge)
        return
    span = (hi - lo) if np.isfinite(hi - lo) else huge
    pad = margin * span if span > 0 else max(abs(lo) * margin, 0.5)
    ax.set_xlim(max(lo - pad, -huge), min(hi + pad, huge))


def plot_frontier(table: pd.DataFrame, x: str = "latency", y: str = "accuracy", ax: Any = None,
                  logx: Union[bool, str] = "auto", xlabel: Optional[str] = None, ylabel: Optional[str] = None,
                  title: Optional[str] = None, max_labels: int = MAX_LABELS) -> Any:
    """Scatter of ``y`` against ``x`` (one point per system) with the Pareto frontier.

    Parameters
    ----------
    logx : bool or 'auto'
        ``'auto'`` (default) uses a log axis only when the x values span a factor of
        :data:`LOG_SPAN` or more; ``True`` / ``False`` force it.
    max_labels : int
        Label every system up to this many; beyond it, only the frontier.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on.
    """
    with np.errstate(over="ignore"):        # matplotlib's log transforms near the floats' ends (1e300)
        return _plot_frontier(table, x, y, ax, logx, xlabel, ylabel, title, max_labels)


def _plot_frontier(table: pd.DataFrame, x: str, y: str, ax: Any, logx: Union[bool, str], xlabel: Optional[str],
                   ylabel: Optional[str], title: Optional[str], max_labels: int) -> Any:
    ax = _axes(ax, (6.4, 4.6))
    xs = table[x].to_numpy(dtype=float)
    ys = table[y].to_numpy(dtype=float)
    on = pareto_mask(xs, ys)
    size = _marker_size(len(xs))
    ax.scatter(xs[~on], ys[~on], s=size, color="0.55", zorder=3, label="dominated")
    ax.scatter(xs[on], ys[on], s=size, color="C3", zorder=4, label="Pareto frontier")
    order = np.argsort(xs[on], kind="stable")
    stairs = np.column_stack([np.repeat(xs[on][order], 2)[1:], np.repeat(ys[on][order], 2)[:-1]])
    ax.plot(stairs[:, 0], stairs[:, 1], color="C3", lw=1.2, zorder=2)
    _x_scale(ax, xs, logx)
    ax.margins(x=0.12, y=0.1)
    _finite_xlim(ax, xs, 0.12)
    ax.set_xlabel(plain(xlabel or x))
    ax.set_ylabel(plain(ylabel or y))
    if title:
        ax.set_title(plain(title))
    ax.grid(True, which="major", alpha=0.3)
    names = [str(n) for n in table.index]
    if len(names) <= max_labels:
        wanted = np.lexsort((-ys, ~on))                        # frontier first, then by accuracy
    else:
        wanted = np.flatnonzero(on)[np.argsort(xs[on], kind="stable")][:max_labels]
    placed = place_labels(ax, names, xs, ys, wanted.tolist(), size=size, path=stairs)
    missing = len(names) - placed
    legend = ax.legend(loc="best" if len(names) <= 1000 else "lower right", fontsize=8, title_fontsize=8,
                       title=f"{missing} of {len(names)} systems unlabelled" if missing else None)
    legend.set_zorder(6)
    return ax


def _box(px: float, py: float, dx: float, dy: float, ha: str, va: str, w: float, h: float
         ) -> tuple[float, float, float, float]:
    left = px + dx - {"left": 0.0, "center": w / 2, "right": w}[ha]
    bottom = py + dy - {"bottom": 0.0, "center": h / 2, "top": h}[va]
    return left, bottom, left + w, bottom + h


def _crosses(path: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> bool:
    """True if a segment of the axis-parallel polyline ``path`` (pixels) enters the box."""
    a, b = path[:-1], path[1:]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return bool(np.any((lo[:, 0] < x1) & (hi[:, 0] > x0) & (lo[:, 1] < y1) & (hi[:, 1] > y0)))


def place_labels(ax: Any, names: Sequence[str], xs: np.ndarray, ys: np.ndarray, which: Sequence[int],
                 fontsize: float = 8.0, size: float = _MARKER_SIZE, path: Optional[np.ndarray] = None) -> int:
    """Labels the points ``which`` (in that order of priority) with ``names``; returns how many.

    Each label takes the first of a fixed list of positions around its point where its box
    stays inside the axes, overlaps no label placed before, no point (markers of area
    ``size``) and no segment of the axis-parallel polyline ``path`` (data coordinates), and
    would not be read as another point's: no nearer another point than its own, or, for the
    outer ring of positions (whose labels get a leader line to their point), not within
    :data:`_CLEAR` points of another point; failing
    that, the first where it only crosses the polyline (on a white ground); a label that fits
    nowhere is left out. Cost: O(len(which) x (len(which) + len(xs) + len(path))).
    """
    fig = ax.figure
    ax.autoscale_view()
    renderer = fig.canvas.get_renderer()
    to_pixels = fig.dpi / 72.0
    points = ax.transData.transform(np.column_stack([xs, ys]))
    line = ax.transData.transform(path) if path is not None and len(path) > 1 else None
    frame = ax.get_window_extent(renderer)
    radius = np.sqrt(size / np.pi) * to_pixels + 1.0
    pad = 1.5 * to_pixels
    boxes = np.empty((0, 4))
    placed = 0
    for i in which:
        text = ax.text(0, 0, str(names[i]), fontsize=fontsize, **PLAIN_TEXT)
        extent = text.get_window_extent(renderer)
        text.remove()
        w, h = extent.width + 2 * pad, extent.height + 2 * pad
        px, py = points[i]
        spot = None
        for avoid_line in (True, False):               # crossing the frontier line is the lesser evil
            for dx, dy, ha, va in _CANDIDATES:
                x0, y0, x1, y1 = _box(px, py, dx * to_pixels, dy * to_pixels, ha, va, w, h)
                if x0 < frame.x0 or y0 < frame.y0 or x1 > frame.x1 or y1 > frame.y1:
                    continue
                if len(boxes) and np.any((boxes[:, 0] < x1) & (x0 < boxes[:, 2]) & (boxes[:, 1] < y1)
                                         & (y0 < boxes[:, 3])):
                    continue
                near = ((points[:, 0] > x0 - radius) & (points[:, 0] < x1 + radius)
                        & (points[:, 1] > y0 - radius) & (points[:, 1] < y1 + radius))
                if near.any() or (avoid_line and line is not None and _crosses(line, x0, y0, x1, y1)):
                    continue
                gap = np.hypot(np.maximum(np.maximum(x0 - points[:, 0], points[:, 0] - x1), 0.0),
                               np.maximum(np.maximum(y0 - points[:, 1], points[:, 1] - y1), 0.0))
                other = np.delete(gap, i).min(initial=np.inf)
                outer = abs(dx) + abs(dy) > _NEAR_RING
                if other < gap[i] and (not outer or other < _CLEAR * to_pixels):
                    continue                           # it would be read as that other point's label
                spot = (dx, dy, ha, va, (x0, y0, x1, y1))
                break
            if spot is not None:
                break
        if spot is None:
            continue
        dx, dy, ha, va, box = spot
        # a label of the outer ring is tied to its point by a thin leader line: it may sit as
        # close to a neighbouring point as to its own
        leader = {"arrowstyle": "-", "color": "0.45", "lw": 0.6, "shrinkA": 0, "shrinkB": 2.5} \
            if abs(dx) + abs(dy) > _NEAR_RING else None
        ax.annotate(str(names[i]), (xs[i], ys[i]), textcoords="offset points", xytext=(dx, dy), ha=ha, va=va,
                    fontsize=fontsize, zorder=5, bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none",
                                                       "alpha": 0.8}, arrowprops=leader, **PLAIN_TEXT)
        boxes = np.vstack([boxes, box])
        placed += 1
    return placed


def plot_weight_map(winners: pd.DataFrame, x: str = "latency", y: str = "accuracy", ax: Any = None,
                    title: Optional[str] = None) -> Any:
    """The Dynascore winner over the weight simplex, from :func:`~.dynascore.winner_map`.

    ``winners`` has a weight column per metric (three metrics: ``x``, ``y`` and the one
    implied as ``1 - x - y``) and a ``winner`` column; weightings where systems tie (the
    ``tie`` column) are drawn hatched grey, labelled "tie". Returns the matplotlib Axes.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    ax = _axes(ax, (5.6, 5.0))
    wx = winners[x].to_numpy(dtype=float)
    wy = winners[y].to_numpy(dtype=float)
    steps = np.unique(np.round(wx, 9))
    step = float(np.min(np.diff(steps))) if len(steps) > 1 else 1.0
    m = int(round(1 / step))
    tie = winners["tie"].to_numpy(dtype=bool) if "tie" in winners.columns else np.zeros(len(winners), bool)
    names = list(dict.fromkeys(winners["winner"][~tie]))       # order of first appearance
    code = {name: k for k, name in enumerate(names)}
    grid = np.full((m + 1, m + 1), np.nan)
    rows, cols = np.rint(wy / step).astype(int), np.rint(wx / step).astype(int)
    grid[rows, cols] = [len(names) if t else code[w] for w, t in zip(winners["winner"], tie)]
    palette = "tab10" if len(names) <= 10 else "tab20"
    import matplotlib

    colours = [matplotlib.colormaps[palette](k % (10 if palette == "tab10" else 20)) for k in range(len(names))]
    edges = np.linspace(-step / 2, 1 + step / 2, m + 2)
    ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), cmap=ListedColormap(colours + ["0.85"]),
                  vmin=-0.5, vmax=len(names) + 0.5, shading="flat")
    handles = [Patch(color=c, label=plain(n)) for n, c in zip(names, colours)]
    if tie.any():
        ax.scatter(wx[tie], wy[tie], marker="x", s=12, color="0.25", lw=0.8, zorder=3)
        handles.append(Patch(facecolor="0.85", edgecolor="0.25", label="tie (x)"))
    ax.plot([0, 1], [1, 0], color="k", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(f"weight of {plain(x)}")
    ax.set_ylabel(f"weight of {plain(y)}")
    others = [c for c in winners.columns if c not in (x, y, "winner", "dynascore", "tie")]
    if others:
        ax.text(0.62, 0.62, f"weight of {others[0]} = 1 - {x} - {y}", fontsize=8, rotation=-45,
                ha="center", va="center", **PLAIN_TEXT)
    ax.legend(handles=handles, title="Dynascore winner", loc="upper left", bbox_to_anchor=(1.03, 1.0), fontsize=8,
              title_fontsize=8, frameon=False)
    if title:
        ax.set_title(plain(title))
    return ax
