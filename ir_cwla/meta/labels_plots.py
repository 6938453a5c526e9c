"""The figure of label agreement: per alternative, its confusion heat map and its per-topic statistic.

One row per alternative qrels: on the left the confusion matrix against the reference
(colour: the share of each reference grade's pairs given each grade, text: the counts), on
the right the chosen statistic of every topic with its bootstrap interval, beside the
overall value and interval (line and band). Topics are in sorted order (the same in every
row, so alternatives of the same topics line up); a topic on which the statistic is undefined
is marked ``n/a``. matplotlib is imported only when plotting; nothing depends on row order.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ir_cwla._text import plain
from ir_cwla.errors import ParameterError
from ir_cwla.io import SUMMARY_QID as OVERALL

if TYPE_CHECKING:  # pragma: no cover
    pass

#: Axis names of the statistics of :data:`ir_cwla.meta.labels.STATISTICS`.
NAMES = {"exact": "exact agreement", "kappa": "Cohen's kappa", "kappa_linear": "kappa (linear weights)",
         "kappa_quadratic": "kappa (quadratic weights)", "alpha_ordinal": "Krippendorff's alpha (ordinal)",
         "alpha_interval": "Krippendorff's alpha (interval)", "alpha_nominal": "Krippendorff's alpha (nominal)"}


def plot_label_agreement(result: Any, statistic: str = "kappa", alternatives: Optional[list[str]] = None,
                         cmap: str = "Blues", title: Optional[str] = None):
    """Confusion heat map and per-topic ``statistic`` (with intervals) of each alternative.

    ``statistic``: one of :data:`ir_cwla.meta.labels.STATISTICS`; ``alternatives``: which to
    show, in order (default: all). Returns the Figure.
    """
    import matplotlib.pyplot as plt

    if statistic not in NAMES:
        raise ParameterError(f"statistic must be one of {tuple(NAMES)}, got {statistic!r}")
    names = list(alternatives) if alternatives is not None else list(result.alternatives)
    for n in names:
        result._alternative(n)
    stats = result.statistics[result.statistics["statistic"] == statistic].set_index(["alternative", "query_id"])
    width = max(6.0, 0.32 * max(len(result.topics[n]) for n in names) + 2.5)
    fig, axes = plt.subplots(len(names), 2, figsize=(3.4 + width, 3.0 * len(names) + 0.5), squeeze=False,
                             layout="constrained", gridspec_kw={"width_ratios": [3.0, width]})
    finite = stats.loc[names, ["value", "ci_low", "ci_high"]].to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    low = min(0.0, float(np.floor(finite.min() * 10) / 10)) if finite.size else 0.0
    for row, name in enumerate(names):
        heat, forest = axes[row]
        counts = result.confusion(alternative=name).to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            share = counts / counts.sum(axis=1, keepdims=True)
        heat.imshow(np.nan_to_num(share), vmin=0.0, vmax=1.0, cmap=cmap)
        grades = [str(g) for g in result.categories[name]]
        heat.set_xticks(range(len(grades)), grades)
        heat.set_yticks(range(len(grades)), grades)
        heat.set_xlabel(f"grade by {plain(name)}", fontsize=9)
        heat.set_ylabel(f"grade by {plain(result.reference)}", fontsize=9)
        for i in range(counts.shape[0]):
            for j in range(counts.shape[1]):
                heat.text(j, i, str(int(counts[i, j])), ha="center", va="center", fontsize=8,
                          color="white" if share[i, j] > 0.55 else "black", parse_math=False)
        overall = stats.loc[(name, OVERALL)]
        exact = float(result.statistics.set_index(["alternative", "query_id", "statistic"])
                      .at[(name, OVERALL, "exact"), "value"])
        heat.set_title(f"{plain(name)}\n{int(counts.sum())} shared pairs, {exact:.0%} same grade",
                       fontsize=9, parse_math=False)

        topics = result.topics[name]
        x = np.arange(len(topics))
        rows = stats.loc[[(name, t) for t in topics]]
        value, ci_low, ci_high = (rows[c].to_numpy(dtype=float) for c in ("value", "ci_low", "ci_high"))
        forest.axhspan(float(overall["ci_low"]), float(overall["ci_high"]), color="#1f77b4", alpha=0.12, lw=0)
        forest.axhline(float(overall["value"]), color="#1f77b4", lw=1.2,
                       label=f"all topics: {float(overall['value']):.2f} "
                             f"[{float(overall['ci_low']):.2f}, {float(overall['ci_high']):.2f}]")
        forest.axhline(0.0, color="grey", lw=0.6, ls=":")
        ok = np.isfinite(value)
        forest.errorbar(x[ok], value[ok], yerr=[value[ok] - ci_low[ok], ci_high[ok] - value[ok]], fmt="o",
                        ms=4, color="black", ecolor="#555555", elinewidth=1, capsize=2)
        for xi in x[~ok]:
            forest.text(xi, 0.0, "n/a", ha="center", va="bottom", fontsize=7, color="grey", parse_math=False)
        shared = result.confusions[name].sum(axis=(1, 2))
        forest.set_xticks(x, [f"{t}\n({n})" for t, n in zip(topics, shared)], rotation=90, fontsize=7)
        forest.set_xlim(-0.6, len(topics) - 0.4)
        forest.set_ylim(low, 1.05)
        forest.set_ylabel(NAMES[statistic], fontsize=9)
        forest.legend(loc="lower right", fontsize=8, frameon=False)
        forest.grid(axis="y", lw=0.3, alpha=0.5)
    axes[-1][1].set_xlabel("topic (shared pairs)", fontsize=9)
    head = plain(title) if title else f"Label agreement with {plain(result.reference)}"
    fig.suptitle(f"{head}\nleft: pairs per grade (colour: share of the row); right: {NAMES[statistic]} per topic "
                 f"with {result.level:.0%} bootstrap intervals ({result.trials} trials, seed {result.seed}),\n"
                 "pairs resampled; line and band: all topics, topics resampled",
                 fontsize=9, parse_math=False)
    return fig
