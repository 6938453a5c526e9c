"""Figures of the meta-evaluation: tau heat-maps (Figure 2), ASL curves (Figure 4), tau box plots.

Each function takes a result object and returns a matplotlib Figure with one panel per
family of measures (e.g. per browsing model); matplotlib is imported only when plotting.
"""
from __future__ import annotations

import math
from collections.abc import Hashable
from typing import TYPE_CHECKING, Optional

import numpy as np

from ir_cwla.meta import naming

if TYPE_CHECKING:  # pragma: no cover
    from ir_cwla.meta.consistency import Consistency
    from ir_cwla.meta.discriminative_power import DiscriminativePower
    from ir_cwla.meta.similarity import Similarity


def _panels(n: int, cols: int, size: tuple[float, float], layout: str = "tight"):
    import matplotlib.pyplot as plt

    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False,
                             layout=layout)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:n]


def _legend_name(measure: str, labels: dict[str, str], within: bool) -> str:
    """Aggregation name (with * if canonical) inside a browsing-model panel, else the label."""
    agg = naming.aggregation(measure) if within else None
    name = f"A_{agg}" if agg else labels.get(measure, measure)
    return name + (" *" if naming.is_canonical(measure) else "")


def plot_similarity(sim: Similarity, groups: Optional[list[Hashable]] = None, cols: int = 3,
                    digits: int = 2, cmap: str = "viridis", title: Optional[str] = None):
    """Lower-triangular heat-maps of Kendall's tau with ``tau (low, high)`` in each cell."""
    names = list(groups) if groups is not None else list(sim.groups)
    within = len(names) > 1
    fig, axes = _panels(len(names), cols, (5.8, 5.2), layout="constrained")
    values = sim.tau.to_numpy()
    vmin = min(0.5, math.floor(np.nanmin(values) * 10) / 10)
    image = None
    for ax, group in zip(axes, names):
        members = sim.groups[group]
        tau = sim.tau.loc[members, members].to_numpy()
        mask = np.triu(np.ones_like(tau, dtype=bool), k=1)
        image = ax.imshow(np.ma.masked_array(tau, mask), vmin=vmin, vmax=1.0, cmap=cmap)
        ticks = [_legend_name(m, sim.labels, within) for m in members]
        ax.set_xticks(range(len(members)), ticks, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(members)), ticks, fontsize=8)
        for i, a in enumerate(members):
            for j, b in enumerate(members[:i]):
                text = (f"{tau[i, j]:.{digits}f}\n({sim.ci_low.at[a, b]:.{digits}f},"
                        f"{sim.ci_high.at[a, b]:.{digits}f})")
                ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                        color="white" if tau[i, j] < (vmin + 1) / 2 else "black")
        ax.set_title(f"C: {group}" if within else "Kendall's tau", fontsize=10)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.6, label="Kendall's tau-b")
    fig.suptitle(title or f"System ranking similarity ({sim.n_systems} systems, "
                          f"{int(sim.level * 100)}% CIs in brackets)")
    return fig


def plot_asl(disc: DiscriminativePower, groups: Optional[list[Hashable]] = None, cols: int = 3,
             title: Optional[str] = None, ymax: Optional[float] = None):
    """ASL curves: sorted p-values of every measure against the rank of the system pair."""
    names = list(groups) if groups is not None else list(disc.groups)
    within = len(names) > 1
    curves = disc.asl()
    fig, axes = _panels(len(names), cols, (4.4, 3.4))
    top = ymax if ymax is not None else max(0.2, 2.5 * disc.alpha)
    for ax, group in zip(axes, names):
        for m in disc.groups[group]:
            style = "-" if not naming.is_canonical(m) else "--"
            ax.plot(curves.index, curves[m], style, lw=1.4, label=_legend_name(m, disc.labels, within))
        ax.axhline(disc.alpha, color="grey", lw=0.8, ls=":")
        ax.set_ylim(0, top)
        ax.set_xlim(0, len(curves))
        ax.set_title(f"C: {group}" if within else "ASL curves", fontsize=10)
        ax.set_xlabel("system pair (sorted by p-value)", fontsize=8)
        ax.set_ylabel("ASL (p-value)", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
    fig.suptitle(title or f"ASL curves ({disc.test}, {disc.trials} trials, alpha = {disc.alpha:g})")
    return fig


def plot_consistency(cons: Consistency, groups: Optional[list[Hashable]] = None, cols: int = 3,
                     title: Optional[str] = None):
    """Box plots of the consistency taus per measure, sorted by mean tau within each family."""
    names = list(groups) if groups is not None else list(cons.groups)
    within = len(names) > 1
    fig, axes = _panels(len(names), cols, (4.4, 3.4))
    mean = cons.mean_tau
    for ax, group in zip(axes, names):
        members = sorted(cons.groups[group], key=lambda m: -mean[m])
        ax.boxplot([cons.taus[m].to_numpy() for m in members], showfliers=False)
        ax.plot(range(1, len(members) + 1), [mean[m] for m in members], "o", color="C3", ms=4)
        ax.set_xticks(range(1, len(members) + 1),
                      [_legend_name(m, cons.labels, within) for m in members], rotation=45, ha="right", fontsize=8)
        ax.set_title(f"C: {group}" if within else "consistency", fontsize=10)
        ax.set_ylabel("tau between halves", fontsize=8)
    fig.suptitle(title or f"System ranking consistency ({cons.trials} splits; dots: mean tau)")
    return fig
