"""Figures of the meta-evaluation: tau heat-maps (Figure 2), ASL curves (Figure 4), tau box plots.

Each function takes a result object and returns a matplotlib Figure with one panel per
family of measures (e.g. per browsing model); matplotlib is imported only when plotting.

What a reader compares across panels looks the same in every panel and every figure:

* panels come in the order of the result's families, which follow the measure order of
  measures (:func:`ir_cwla.analysis.naming.order_key`: P, DCG, RBP, INST, AP, ERR, then
  registered models), and measures within a panel in Table 1's order of aggregations;
* every aggregation has one colour and one marker (:data:`AGGREGATION_STYLES`, keyed by its
  name), used for its curve, box, mean marker and tick label, in every figure whatever else
  it holds; measures that are not C/W/L/A (``nDCG@10``) get styles no aggregation has
  (:data:`STANDARD_STYLES`); canonical measures (the paper's Table 1 asterisks) are marked
  ``*`` and drawn thicker;
* a family of one measure has nothing to compare within it: the similarity figure leaves it
  out and says so under its title (the other figures show it in a panel of its own);
* nothing depends on the row order of the per-query frame (the results are computed from a
  cube in the measure order), so a shuffled frame draws the very same pixels.

Measure names are shown as plain text (no mathtext, :func:`ir_cwla.text.plain`).
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ir_cwla._text import PLAIN_TEXT, plain
from ir_cwla.analysis import naming
from ir_cwla.errors import DataError
from ir_cwla.measures import AGGREGATIONS
from ir_cwla.measures._table1 import TABLE1_AGGREGATIONS
from ir_cwla.meta import agreement

if TYPE_CHECKING:  # pragma: no cover
    pass

#: Colour and marker of each aggregation of Table 1 (in Table 1's order), in every figure.
AGGREGATION_STYLES: dict[str, tuple[str, str]] = {
    "ERG": ("#1f77b4", "o"), "ETG": ("#ff7f0e", "s"), "avg": ("#2ca02c", "^"), "max": ("#d62728", "v"),
    "fin": ("#9467bd", "D"), "PE": ("#8c564b", "P"), "ERR": ("#e377c2", "X"),
}
#: Styles handed out, in registration order, to registered aggregations.
EXTRA_STYLES: tuple[tuple[str, str], ...] = (
    ("#17becf", "<"), ("#bcbd22", ">"), ("#7f7f7f", "h"), ("#393b79", "p"), ("#637939", "*"),
    ("#8c6d31", "d"), ("#843c39", "H"), ("#7b4173", "8"), ("#3182bd", "<"), ("#e6550d", ">"),
)
#: Styles handed out, in the measure order, to measures that are not C/W/L/A (``nDCG@10``):
#: dark colours and line markers that no aggregation has, so a standard measure never looks
#: like an aggregation.
STANDARD_STYLES: tuple[tuple[str, str], ...] = (
    ("#000000", "1"), ("#636363", "2"), ("#00441b", "3"), ("#67000d", "4"), ("#08306b", "+"),
    ("#3f007d", "x"), ("#969696", "1"), ("#525252", "2"),
)
#: Line styles of the browsing models in a panel that holds one aggregation under several
#: models (families in the figure's measure order): the colour and marker stay the aggregation's.
MODEL_LINESTYLES: tuple[Any, ...] = ("-", (0, (1, 1.2)), (0, (5, 1.5, 1, 1.5)), (0, (3, 1, 1, 1, 1, 1)),
                                     (0, (6, 1.5)), (0, (1, 3)))
assert tuple(AGGREGATION_STYLES) == TABLE1_AGGREGATIONS
_AGGREGATION_COLOURS = {c for c, _ in AGGREGATION_STYLES.values()} | {c for c, _ in EXTRA_STYLES}
_AGGREGATION_MARKERS = {m for _, m in AGGREGATION_STYLES.values()} | {m for _, m in EXTRA_STYLES}
assert not ({c for c, _ in STANDARD_STYLES} & _AGGREGATION_COLOURS)
assert not ({m for _, m in STANDARD_STYLES} & _AGGREGATION_MARKERS)


def aggregation_style(aggregation: str) -> tuple[str, str]:
    """The colour and marker of an aggregation.

    Table 1's (:data:`AGGREGATION_STYLES`), else one of :data:`EXTRA_STYLES` by
    registration order.
    """
    if aggregation in AGGREGATION_STYLES:
        return AGGREGATION_STYLES[aggregation]
    registered = [a for a in AGGREGATIONS if a not in AGGREGATION_STYLES]
    k = registered.index(aggregation) if aggregation in registered else len(registered)
    return EXTRA_STYLES[k % len(EXTRA_STYLES)]


def _panels(n: int, cols: int, size: tuple[float, float], sharex: bool = False, sharey: bool = False):
    import matplotlib.pyplot as plt

    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False,
                             layout="constrained", sharex=sharex, sharey=sharey)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:n]


class _Key:
    """How the measures of a figure are named and styled, the same in every panel and figure.

    * A C/W/L/A measure has its aggregation's colour and marker (:func:`aggregation_style`)
      wherever it appears, whatever else the figure holds;
    * a measure that is not C/W/L/A (``nDCG@10``) has one of :data:`STANDARD_STYLES`, handed
      out in the measure order of the figure's measures (never an aggregation's);
    * a panel whose measures are the aggregations of one browsing model (the paper's layout)
      names them by aggregation (``ERG``, ``max *``) under the title ``C: RBP@10``; any other
      panel names measures by their label;
    * where a panel holds one aggregation under several browsing models, their lines differ
      by the model's line style (:data:`MODEL_LINESTYLES`, :meth:`linestyle`).
    """

    def __init__(self, groups: dict[Hashable, list[str]], labels: dict[str, str]):
        self.labels = labels
        self.groups = groups
        measures = naming.measure_order(m for members in groups.values() for m in members)
        self._aggregation = {m: naming.aggregation(m) for m in measures}
        self._family = {m: naming.browsing_model(m) for m in measures if self._aggregation[m] is not None}
        self._styles: dict[str, tuple[str, str]] = {}
        standard = 0
        for m in measures:
            agg = self._aggregation[m]
            if agg is not None:
                self._styles[m] = aggregation_style(agg)
            else:
                self._styles[m] = STANDARD_STYLES[standard % len(STANDARD_STYLES)]
                standard += 1
        families = list(dict.fromkeys(self._family[m] for m in measures if m in self._family))
        self._family_rank = {f: k for k, f in enumerate(families)}
        self._panel_of: dict[str, list[Hashable]] = {}
        for group, members in groups.items():
            for m in members:
                self._panel_of.setdefault(m, []).append(group)

    def by_aggregation(self, group: Hashable) -> bool:
        """True if panel ``group`` holds the aggregations of one browsing model, each once."""
        members = self.groups[group]
        aggregations = [self._aggregation[m] for m in members]
        return (all(a is not None for a in aggregations) and len(set(aggregations)) == len(members)
                and len({self._family[m] for m in members}) == 1)

    def _repeats_aggregations(self, group: Hashable) -> bool:
        aggregations = [self._aggregation[m] for m in self.groups[group] if self._aggregation[m] is not None]
        return len(set(aggregations)) < len(aggregations)

    def name(self, measure: str, group: Optional[Hashable] = None) -> str:
        """``ERG`` / ``max *`` inside a browsing-model panel, else the measure's label (``*``: canonical)."""
        group = self._group(measure, group)
        agg = self._aggregation[measure]
        base = agg if agg is not None and self.by_aggregation(group) else self.labels.get(measure, measure)
        return plain(base) + (" *" if naming.is_canonical(measure) else "")

    def _group(self, measure: str, group: Optional[Hashable]) -> Hashable:
        return group if group is not None else self._panel_of[measure][0]

    def colour(self, measure: str) -> str:
        return self._styles[measure][0]

    def marker(self, measure: str) -> str:
        return self._styles[measure][1]

    def marker_size(self, measure: str, size: float) -> float:
        """``size`` for an aggregation's (filled) marker; larger for the line markers of standard measures."""
        return size if self._aggregation[measure] is not None else 1.5 * size

    def linestyle(self, measure: str, group: Optional[Hashable] = None, default: Any = "-") -> Any:
        """``default``, or the browsing model's line style in a panel that repeats an aggregation."""
        group = self._group(measure, group)
        if measure in self._family and self._repeats_aggregations(group):
            return MODEL_LINESTYLES[self._family_rank[self._family[measure]] % len(MODEL_LINESTYLES)]
        return default

    def title(self, group: Hashable, n_panels: int, default: str) -> str:
        if self.by_aggregation(group):
            return f"C: {plain(group)}"
        return plain(group) if n_panels > 1 else default


def _title(title: Optional[str], default: str, details: str, fig: Any = None) -> str:
    """The figure's title (``title``, else ``default``) over a line of what it shows.

    With ``fig``, the line is wrapped to the figure's width (about 12 characters an inch of the
    suptitle's font), so that no part of it falls outside the figure.
    """
    if fig is not None:
        import textwrap

        details = "\n".join(textwrap.wrap(details, max(40, int(fig.get_figwidth() * 12))))
    return f"{plain(title) if title else default}\n{details}"


def _short(value: float, digits: int) -> str:
    """``0.88`` -> ``.88``, ``-0.12`` -> ``-.12``: compact numbers for crowded cells."""
    text = f"{value:.{digits}f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def _colour_ticks(labels, colours: Sequence[str]) -> None:
    for text, colour in zip(labels, colours):
        text.set_color(colour)


def plot_similarity(sim: Any, groups: Optional[list[Hashable]] = None, cols: int = 2,
                    digits: int = 2, cmap: str = "viridis", title: Optional[str] = None):
    """Heat maps of Kendall's tau between measures, one panel per family.

    Lower-triangular heat-maps of Kendall's tau with the confidence interval under it, one
    panel per family of two or more measures (the families of one are named under the title).
    """
    asked = list(groups) if groups is not None else list(sim.groups)
    names = [g for g in asked if len(sim.groups[g]) >= 2]
    if not names:
        raise DataError("no family holds two measures, so there is no pair to compare (similarity groups: "
                        f"{', '.join(map(plain, asked))}); compare every measure with groups=None")
    key = _Key({g: sim.groups[g] for g in names}, sim.labels)
    statistic = agreement.NAMES[sim.agreement]
    fig, axes = _panels(len(names), cols, (5.0, 4.5))
    values = sim.tau.loc[[m for g in names for m in sim.groups[g]], [m for g in names for m in sim.groups[g]]]
    vmin = min(0.5, math.floor(np.nanmin(values.to_numpy()) * 10) / 10)
    image = None
    for ax, group in zip(axes, names):
        members = sim.groups[group]
        rows, cols_ = members[1:], members[:-1]             # the diagonal (tau = 1) is left out
        tau = sim.tau.loc[rows, cols_].to_numpy()
        mask = np.triu(np.ones_like(tau, dtype=bool), k=1)
        image = ax.imshow(np.ma.masked_array(tau, mask), vmin=vmin, vmax=1.0, cmap=cmap)
        ax.set_xticks(range(len(cols_)), [key.name(m, group) for m in cols_], rotation=45, ha="right", fontsize=9)
        ax.set_yticks(range(len(rows)), [key.name(m, group) for m in rows], fontsize=9)
        _colour_ticks(ax.get_xticklabels(), [key.colour(m) for m in cols_])
        _colour_ticks(ax.get_yticklabels(), [key.colour(m) for m in rows])
        for i, a in enumerate(rows):
            for j, b in enumerate(cols_[:i + 1]):
                dark = tau[i, j] < (vmin + 1) / 2
                colour = "white" if dark else "black"
                low, high = sim.ci_low.at[a, b], sim.ci_high.at[a, b]
                has_ci = bool(np.isfinite(low) and np.isfinite(high))
                ax.text(j, i - (0.13 if has_ci else 0), _short(tau[i, j], digits), ha="center", va="center",
                        fontsize=9.5, fontweight="bold", color=colour, **PLAIN_TEXT)
                if has_ci:
                    ax.text(j, i + 0.22, f"{_short(low, digits)}, {_short(high, digits)}", ha="center",
                            va="center", fontsize=7.5, color=colour, **PLAIN_TEXT)
        ax.set_title(key.title(group, len(asked), statistic), fontsize=11)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.5, label=statistic)
    details = f"{statistic} between the rankings of {sim.n_systems} systems" + (
        f"; {int(sim.level * 100)}% confidence interval under each value" if sim.agreement == "tau" else "")
    alone = [g for g in asked if g not in names]
    note = ("left out: " + ", ".join(plain(sim.labels.get(sim.groups[g][0], sim.groups[g][0])) for g in alone)
            + f" (famil{'ies' if len(alone) > 1 else 'y'} of one measure, nothing to compare within)") if alone else ""
    fig.suptitle(_title(title, "System ranking similarity", details + (f"\n{note}" if note else "")))
    return fig


def _asl_extent(curves, top: float) -> int:
    """How many pairs to show: just past the last pair any curve shows below ``top``."""
    below = int((curves.to_numpy() <= top).sum(axis=0).max()) if curves.size else 0
    return int(min(len(curves), max(5, math.ceil(below * 1.15) + 1)))


def _marks(y: np.ndarray, top: float, shown: int, k: int, n: int, per_curve: int = 4) -> list[int]:
    """Where curve ``k`` of ``n`` puts its markers.

    Where it crosses ``per_curve`` heights between 0 and ``top``, staggered between curves, so
    curves that coincide show every marker.
    """
    levels = top * (np.arange(per_curve) + (k + 0.5) / n) / per_curve
    found = np.searchsorted(y, levels)
    return sorted({int(i) for i in found if i < min(len(y), shown)})


def plot_asl(disc: Any, groups: Optional[list[Hashable]] = None, cols: int = 3,
             title: Optional[str] = None, ymax: Optional[float] = None):
    """ASL curves: sorted p-values of every measure against the rank of the system pair.

    The x axis ends just past the pair where the last curve leaves the plot (at ``ymax``),
    the same in every panel. Curves that coincide are all drawn, with their markers
    staggered, and the legend says which equal which (``ETG (= ERG)``).
    """
    names = list(groups) if groups is not None else list(disc.groups)
    key = _Key({g: disc.groups[g] for g in names}, disc.labels)
    curves = disc.curves()
    top = ymax if ymax is not None else max(0.2, 2.5 * disc.alpha)
    shown = _asl_extent(curves[[m for g in names for m in disc.groups[g]]], top)
    fig, axes = _panels(len(names), cols, (3.7, 3.0), sharex=True, sharey=True)
    for ax, group in zip(axes, names):
        members = disc.groups[group]
        drawn: list[str] = []
        for k, m in enumerate(members):
            y = curves[m].to_numpy()
            same = next((d for d in drawn if np.array_equal(curves[d].to_numpy(), y)), None)
            label = key.name(m, group) + (f" (= {key.name(same, group)})" if same is not None else "")
            if not (y[:shown] <= top).any():
                label += f" (p > {top:g})"
            standard = naming.aggregation(m) is None
            ax.plot(curves.index, y, color=key.colour(m), marker=key.marker(m), ms=key.marker_size(m, 4.5),
                    ls=key.linestyle(m, group), mew=1.4 if standard else 1.0,
                    markevery=_marks(y, top, shown, k, len(members)),
                    lw=2.2 if naming.is_canonical(m) else 1.3, label=label, zorder=3 if same is None else 4)
            drawn.append(m)
        ax.axhline(disc.alpha, color="grey", lw=0.8, ls=":")
        ax.set_ylim(0, top)
        ax.set_xlim(0, shown)
        ax.set_title(key.title(group, len(names), "ASL curves"), fontsize=10)
        ax.grid(True, alpha=0.25)
        ax.legend(fontsize=7, loc="best", frameon=True, framealpha=0.85, handlelength=1.6)
    for ax in axes:
        ax.tick_params(labelsize=8)
    fig.supxlabel("system pair (sorted by p-value)", fontsize=9)
    fig.supylabel("ASL (p-value)", fontsize=9)
    fig.suptitle(_title(title, "ASL curves", f"{disc.test}, {disc.trials} trials; dotted line: alpha = "
                        f"{disc.alpha:g}; {len(curves)} system pairs, the first {shown} shown"))
    return fig


def plot_consistency(cons: Any, groups: Optional[list[Hashable]] = None, cols: int = 3,
                     title: Optional[str] = None):
    """Box plots of the consistency taus per measure, measures in Table 1's order, with their means."""
    names = list(groups) if groups is not None else list(cons.groups)
    key = _Key({g: cons.groups[g] for g in names}, cons.labels)
    fig, axes = _panels(len(names), cols, (3.7, 3.2), sharey=True)
    mean = cons.mean_tau
    for ax, group in zip(axes, names):
        members = cons.groups[group]
        colours = [key.colour(m) for m in members]
        parts = ax.boxplot([cons.taus[m].to_numpy() for m in members], showfliers=False, patch_artist=True,
                           widths=0.6)
        for k, colour in enumerate(colours):
            parts["boxes"][k].set(facecolor=colour, alpha=0.35, edgecolor=colour)
            parts["medians"][k].set(color=colour, lw=1.6)
            for item in parts["whiskers"][2 * k:2 * k + 2] + parts["caps"][2 * k:2 * k + 2]:
                item.set(color=colour)
        for k, m in enumerate(members):
            standard = naming.aggregation(m) is None           # line markers: larger, to be seen on the box
            ax.plot(k + 1, mean[m], marker=key.marker(m), color=colour_dark(colours[k]), ms=key.marker_size(m, 6),
                    ls="none", mew=2.0 if standard else 1.0, zorder=4)
        ax.set_xticks(range(1, len(members) + 1), [key.name(m, group) for m in members], rotation=45, ha="right",
                      fontsize=8.5)
        _colour_ticks(ax.get_xticklabels(), colours)
        ax.set_title(key.title(group, len(names), "consistency"), fontsize=10)
        ax.grid(True, axis="y", alpha=0.25)
        ax.tick_params(axis="y", labelsize=8)
    fig.supylabel(f"{agreement.NAMES[cons.agreement]} between topic halves", fontsize=9)
    fig.suptitle(_title(title, "System ranking consistency", f"{cons.trials} random splits of the topics into "
                        "halves; boxes: quartiles and median, whiskers: 1.5 IQR, markers: mean"))
    return fig


def plot_topic_set_sizes(result: Any, groups: Optional[list[Hashable]] = None, cols: int = 3,
                         title: Optional[str] = None):
    """Bars of the topics a paired t-test needs per measure, one panel per family.

    Bars of the topics a paired t-test needs per measure (:class:`ir_cwla.meta.topic_set_size.TopicSetSize`),
    one panel per family, measures in Table 1's order.
    """
    names = list(groups) if groups is not None else list(result.groups)
    key = _Key({g: result.groups[g] for g in names}, result.labels)
    needed = result.sizes.set_index("measure")["n_t_test"]
    fig, axes = _panels(len(names), cols, (3.7, 3.0), sharey=True)
    for ax, group in zip(axes, names):
        members = result.groups[group]
        colours = [key.colour(m) for m in members]
        values = [float(needed[m]) for m in members]
        ax.bar(range(len(members)), values, color=colours, alpha=0.8)
        for k, v in enumerate(values):
            ax.text(k, v, f"{int(v)}", ha="center", va="bottom", fontsize=7.5)
        ax.set_xticks(range(len(members)), [key.name(m, group) for m in members], rotation=45, ha="right",
                      fontsize=8.5)
        _colour_ticks(ax.get_xticklabels(), colours)
        ax.set_title(key.title(group, len(names), "topic set size"), fontsize=10)
        ax.grid(True, axis="y", alpha=0.25)
        ax.tick_params(axis="y", labelsize=8)
        ax.margins(y=0.15)
    a = result.sizes.attrs
    fig.supylabel("topics needed (paired t-test)", fontsize=9)
    fig.suptitle(_title(title, "Topic set size", f"to detect a difference of {a['min_d']:g} with power "
                        f"{1 - a['beta']:g} at alpha {a['alpha']:g}; fewer is better"))
    return fig


def colour_dark(colour: str) -> tuple[float, float, float]:
    """``colour`` darkened by a third (mean markers on top of a light box of the same colour)."""
    from matplotlib.colors import to_rgb

    return tuple(0.67 * c for c in to_rgb(colour))  # type: ignore[return-value]
