"""Figures of the user criteria: correlations with their intervals, and agreement against a model's parameter.

Styles are those of every meta-evaluation figure (:mod:`ir_cwla.meta.plots`): one colour and
marker per aggregation, measures in the paper's order, plain-text names; matplotlib is imported
only when plotting.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ir_cwla._text import plain
from ir_cwla.meta import correlation
from ir_cwla.meta.plots import _Key, _panels, _title, aggregation_style

#: How the statistics are named in figures.
STATISTIC_NAMES = {"pearson": "Pearson's r", "spearman": "Spearman's rho", "kendall": "Kendall's tau-b"}


def plot_user_agreement(result: Any, statistic: Optional[str] = None, cols: int = 3, title: Optional[str] = None):
    """Each measure's correlation with the ratings (dot) and its interval (bar), one panel per family.

    ``statistic``: one of :data:`ir_cwla.meta.correlation.STATISTICS`, or None for all three side by
    side in each panel (Pearson, Spearman, Kendall, offset vertically).
    """
    statistics = list(correlation.STATISTICS) if statistic is None else [statistic]
    key = _Key(result.groups, result.labels)
    families = list(result.groups)
    longest = max(len(m) for m in result.groups.values())
    fig, axes = _panels(len(families), cols, (4.2, 0.5 + 0.42 * longest * (1 + 0.35 * (len(statistics) - 1))),
                        sharex=True)
    offsets = np.linspace(-0.27, 0.27, len(statistics)) if len(statistics) > 1 else np.zeros(1)
    fills: dict[str, Any] = {"pearson": "full", "spearman": "left", "kendall": "none"}
    for ax, family in zip(axes, families):
        members = result.groups[family]
        for row, m in enumerate(members):
            for k, s in enumerate(statistics):
                y = row + offsets[k]
                est, low, high = (result.estimates.at[m, c] for c in (s, f"{s}_low", f"{s}_high"))
                ax.plot([low, high], [y, y], color=key.colour(m), linewidth=1.4)
                ax.plot([est], [y], marker=key.marker(m), color=key.colour(m), fillstyle=fills[s],
                        markersize=key.marker_size(m, 6), linestyle="none")
        ax.set_yticks(range(len(members)), [key.name(m, family) for m in members])
        ax.invert_yaxis()
        ax.axvline(0, color="0.6", linewidth=0.8)
        ax.set_title(key.title(family, len(families), "all measures"))
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel("correlation with the users' ratings")
    if len(statistics) > 1:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker="o", color="0.2", fillstyle=fills[s], linestyle="none") for s in statistics]
        fig.legend(handles, [STATISTIC_NAMES[s] for s in statistics], loc="outside lower center",
                   ncol=len(statistics), frameon=False)
    shown = ", ".join(STATISTIC_NAMES[s] for s in statistics)
    fig.suptitle(_title(title, "Agreement with the users", f"{shown}; {result.describe()}", fig))
    return fig


def plot_parameter_fit(result: Any, cols: int = 3, title: Optional[str] = None):
    """Agreement against each browsing model's parameter, one line per aggregation with its bootstrap band.

    One panel per browsing model; the value fitted on all users is marked on each line (a dot)
    and its cross-validated interval is shaded under the panel's best aggregation.
    """
    models = list(result.curves)
    fig, axes = _panels(len(models), cols, (4.4, 3.4))
    for ax, model in zip(axes, models):
        frame = result.curves[model]
        for aggregation, line in frame.groupby("aggregation", sort=False):
            colour, marker = aggregation_style(aggregation)
            x = line["value"].to_numpy()
            ax.fill_between(x, line["low"].to_numpy(), line["high"].to_numpy(), color=colour, alpha=0.12, linewidth=0)
            ax.plot(x, line["agreement"].to_numpy(), color=colour, marker=marker, markersize=3.5, linewidth=1.3,
                    label=plain(aggregation))
            fit = result.fits[(result.fits["model"] == model) & (result.fits["aggregation"] == aggregation)]
            if len(fit):
                row = fit.iloc[0]
                ax.plot([row["fitted"]], [row["agreement"]], marker="o", color=colour, markersize=7,
                        markeredgecolor="black", linestyle="none")
        best = result.fits[result.fits["model"] == model].sort_values("agreement", ascending=False)
        if len(best):
            row = best.iloc[0]
            ax.axvspan(row["cv_low"], row["cv_high"], color="0.85", alpha=0.6, zorder=0)
        ax.set_title(f"C: {plain(model)}")
        ax.set_xlabel(result.parameters[model])
        ax.set_ylabel(STATISTIC_NAMES[result.statistic])
        ax.grid(alpha=0.3)
        if result.log_scale.get(model):
            ax.set_xscale("log")
    legend: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    fig.legend(list(legend.values()), list(legend), loc="outside lower center", ncol=min(len(legend), 7),
               frameon=False)
    fig.suptitle(_title(title, "The user model fitted to the users",
                        f"{STATISTIC_NAMES[result.statistic]} with the ratings against the parameter; bands: "
                        f"{result.level:.0%} bootstrap; dots: fitted on all users; grey: the best aggregation's "
                        f"{result.folds}-fold cross-validated interval", fig))
    return fig
