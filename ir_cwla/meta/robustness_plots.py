"""Figures of the robustness analyses.

Agreement curves against the judgments kept, pooling bias bars, agreement with
the reference ranking per alternative assessor.

One panel per family of measures (e.g. per browsing model), named and styled as every other
meta-evaluation figure (:class:`ir_cwla.meta.plots._Key`: one colour and marker per
aggregation, canonical measures marked ``*`` and drawn thicker, panels in the canonical
order); matplotlib is imported only when plotting.
"""
from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, Optional

import numpy as np

from ir_cwla._text import plain
from ir_cwla.analysis import naming
from ir_cwla.errors import DataError, ParameterError
from ir_cwla.meta import agreement
from ir_cwla.meta.plots import _colour_ticks, _Key, _panels, _title

#: Axis names of the statistics of the two analyses.
NAMES = {**agreement.NAMES, "abs_change": "mean |change of score|", "rel_change": "mean |change| / mean score",
         "rel_drop": "mean drop / mean score", "mean_drop": "mean drop of score", "max_drop": "largest drop of score",
         "mean_rank_drop": "mean drop of rank", "max_rank_drop": "largest drop of rank",
         "mean_abs_rank_change": "mean |change of rank|", "pearson": "Pearson r of per-topic scores",
         "spearman": "Spearman rho of per-topic scores", "max_rank_move": "largest |rank move|",
         "mean_abs_rank_move": "mean |rank move|"}
CHANGES = ("abs_change", "rel_change")


def plot_incompleteness(result: Any, statistic: str = "tau", kind: str = "fraction",
                        groups: Optional[list[Hashable]] = None, cols: int = 3, title: Optional[str] = None):
    """``statistic`` (mean over trials) against the fraction of judgments kept, or the pool depth."""
    if kind not in ("fraction", "depth"):
        raise ParameterError(f"kind must be 'fraction' or 'depth', got {kind!r}")
    table = result._fraction_rows() if kind == "fraction" else result._depth_rows()
    if statistic not in ("tau", "tau_ap", "rbo", *CHANGES):
        raise ParameterError(f"statistic must be one of tau, tau_ap, rbo, abs_change, rel_change, got {statistic!r}")
    if table.empty:
        raise DataError("no pool depths were analysed (depths=())")
    names = list(groups) if groups is not None else list(result.groups)
    key = _Key({g: result.groups[g] for g in names}, result.labels)
    fig, axes = _panels(len(names), cols, (3.9, 3.1), sharex=True, sharey=True)
    values = table[statistic]
    if statistic in CHANGES:
        low, high = min(0.0, float(values.min())), float(values.max()) * 1.05
    else:
        low, high = min(0.5, math.floor(values.min() * 10) / 10), 1.0
    for ax, group in zip(axes, names):
        for m in result.groups[group]:
            part = table[table["measure"] == m]
            canonical = naming.is_canonical(m)
            ax.plot(part[kind], part[statistic], ls=key.linestyle(m, group, "--" if canonical else "-"),
                    color=key.colour(m), marker=key.marker(m), ms=key.marker_size(m, 4), lw=2.2 if canonical else 1.3,
                    label=key.name(m, group))
        ax.set_ylim(low, high if high > low else low + 1)
        if kind == "depth":
            depths = sorted(set(table["depth"]))
            ax.set_xscale("log")
            ax.set_xticks(depths, [str(d) for d in depths])
            ax.minorticks_off()
        ax.set_title(key.title(group, len(names), NAMES[statistic]), fontsize=10)
        ax.grid(True, alpha=0.25)
        ax.tick_params(labelsize=8)
        ax.legend(fontsize=7, frameon=True, framealpha=0.85, handlelength=1.8, loc="lower right")
    fig.supxlabel("share of judgments kept" if kind == "fraction" else "pool depth d", fontsize=9)
    fig.supylabel(f"{NAMES[statistic]} vs the full qrels", fontsize=9)
    details = (f"{result.n_trials} random subsets per fraction, stratified by relevance; mean over the subsets"
               if kind == "fraction" else "qrels of the documents some run ranks within depth d")
    fig.suptitle(_title(title, "Robustness to incomplete judgments", details, fig))
    return fig


def plot_pooling(result: Any, statistic: str = "mean_abs_rank_change", groups: Optional[list[Hashable]] = None,
                 cols: int = 3, title: Optional[str] = None):
    """``statistic`` of the pooling-bias table per measure.

    One bar per measure (in its aggregation's colour), or one bar per pool depth
    when there are several.
    """
    table = result._rows()
    if statistic not in table.columns or statistic in ("depth", "measure", "group"):
        raise ParameterError(f"statistic must be a column of PoolingBias.table(), got {statistic!r}")
    names = list(groups) if groups is not None else list(result.groups)
    key = _Key({g: result.groups[g] for g in names}, result.labels)
    depths = sorted(set(table["depth"]))
    fig, axes = _panels(len(names), cols, (3.9, 3.1))
    width = 0.8 / len(depths)
    for ax, group in zip(axes, names):
        members = result.groups[group]
        x = np.arange(len(members))
        colours = [key.colour(m) for m in members]
        for k, d in enumerate(depths):
            part = table[table["depth"] == d].set_index("measure")
            ax.bar(x + (k - (len(depths) - 1) / 2) * width, [part.at[m, statistic] for m in members], width,
                   label=f"depth {d}", color=colours if len(depths) == 1 else f"C{k % 10}",
                   edgecolor=colours, linewidth=1.2)
        ax.set_xticks(x, [key.name(m, group) for m in members], rotation=45, ha="right", fontsize=8.5)
        _colour_ticks(ax.get_xticklabels(), colours)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(key.title(group, len(names), NAMES.get(statistic, statistic)), fontsize=10)
        ax.grid(True, axis="y", alpha=0.25)
        ax.tick_params(axis="y", labelsize=8)
        if len(depths) > 1:
            ax.legend(fontsize=7, frameon=False)
    fig.supylabel(NAMES.get(statistic, statistic), fontsize=9)
    fig.suptitle(_title(title, "Pooling bias, leave one run out",
                        f"each run without the judged documents no other run ranks within depth "
                        f"{', '.join(map(str, depths))}; the others keep their full scores", fig))
    return fig


def plot_assessors(result: Any, statistic: str = "tau", alternatives: Optional[list[str]] = None,
                   groups: Optional[list[Hashable]] = None, cols: int = 3, title: Optional[str] = None):
    """``statistic`` of every measure under every alternative, one panel per family.

    ``statistic`` of every measure (one colour and marker per aggregation) under every
    alternative (one slot each along x, in the order given), with the bootstrap interval for
    ``'tau'``; one panel per family.
    """
    chosen = result._chosen(alternatives)
    table = result._rows(chosen).set_index(["alternative", "measure"])
    numeric = [c for c in table.columns if c in NAMES or c in ("significant_alternative", "consistency_alternative")]
    if statistic not in numeric:
        raise ParameterError(f"statistic must be one of {numeric}, got {statistic!r}")
    names = list(groups) if groups is not None else list(result.groups)
    key = _Key({g: result.groups[g] for g in names}, result.labels)
    fig, axes = _panels(len(names), cols, (max(3.9, 0.55 * len(chosen) + 1.6), 3.2), sharey=True)
    values = table[statistic].to_numpy(dtype=np.float64)
    if statistic in ("tau", "tau_ap", "rbo", "pearson", "spearman"):
        lows = table["tau_low"].to_numpy() if statistic == "tau" else values
        low = min(0.5, math.floor(np.nanmin(np.r_[values, lows]) * 10) / 10)
        high = 1.0
    else:
        low, high = min(0.0, float(np.nanmin(values))), float(np.nanmax(values)) * 1.08 or 1.0
    x = np.arange(len(chosen))
    for ax, group in zip(axes, names):
        members = result.groups[group]
        width = 0.8 / max(1, len(members))
        for i, m in enumerate(members):
            offset = (i - (len(members) - 1) / 2) * width
            y = np.array([table.at[(a, m), statistic] for a in chosen], dtype=np.float64)
            canonical = naming.is_canonical(m)
            if statistic == "tau":
                err = np.array([[table.at[(a, m), "tau"] - table.at[(a, m), "tau_low"] for a in chosen],
                                [table.at[(a, m), "tau_high"] - table.at[(a, m), "tau"] for a in chosen]])
                ax.errorbar(x + offset, y, yerr=np.maximum(err, 0.0), fmt="none", ecolor=key.colour(m),
                            elinewidth=0.9, alpha=0.75)
            ax.plot(x + offset, y, linestyle="none", color=key.colour(m), marker=key.marker(m),
                    ms=5.5 if canonical else 4.5, mec="black" if canonical else key.colour(m), mew=0.8,
                    label=key.name(m, group))
        ax.set_xticks(x, chosen, rotation=30 if len(chosen) > 3 else 0, ha="right" if len(chosen) > 3 else "center",
                      fontsize=8)
        for boundary in x[:-1] + 0.5:
            ax.axvline(boundary, color="grey", lw=0.5, alpha=0.4)
        ax.set_xlim(-0.5, len(chosen) - 0.5)
        ax.set_ylim(low, high if high > low else low + 1)
        ax.set_title(key.title(group, len(names), NAMES.get(statistic, statistic)), fontsize=10)
        ax.grid(True, axis="y", alpha=0.25)
        ax.tick_params(axis="y", labelsize=8)
        if not key.by_aggregation(group):
            ax.legend(fontsize=7, frameon=True, framealpha=0.85, handlelength=1.2, loc="lower left",
                      ncol=2 if len(members) > 4 else 1)
    panels = [g for g in names if key.by_aggregation(g)]
    if panels:        # one legend of the aggregations for the panels of one browsing model, below them
        from matplotlib.lines import Line2D

        handles: dict[str, Any] = {}
        for m in naming.measure_order([m for g in panels for m in result.groups[g]]):
            handles.setdefault(str(naming.aggregation(m)), Line2D([], [], linestyle="none", color=key.colour(m),
                                                                  marker=key.marker(m), ms=5))
        handles["canonical (*)"] = Line2D([], [], linestyle="none", color="white", marker="o", mec="black", ms=5.5)
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=len(handles),
                   fontsize=8, frameon=False)
    fig.supylabel(f"{NAMES.get(statistic, statistic)} vs {plain(result.reference)}", fontsize=9)
    interval = f"; bars: {result.level:.0%} bootstrap normal interval over topics ({result.bootstrap} resamples)" \
        if statistic == "tau" else ""
    fig.suptitle(_title(title, "Robustness to a change of assessor",
                        f"each alternative against {plain(result.reference)}, judged='{result.judged}', on the topics "
                        f"both judge{interval}", fig))
    return fig
