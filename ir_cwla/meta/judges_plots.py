"""Figures of the LLM-judge analyses: judges ranked, disjoint agreement, judge bias, corrected scores.

Each function takes the result object and returns a matplotlib Figure; matplotlib is imported only
when plotting, and nothing depends on the row order of the inputs.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ir_cwla._text import plain
from ir_cwla.errors import ParameterError

STATISTIC_NAMES = {"exact": "exact agreement", "kappa": "Cohen's kappa", "kappa_linear": "kappa, linear weights",
                   "kappa_quadratic": "kappa, quadratic weights", "alpha_ordinal": "Krippendorff's alpha (ordinal)",
                   "alpha_interval": "Krippendorff's alpha (interval)", "alpha_nominal": "Krippendorff's alpha (nominal)",
                   "tau": "Kendall's tau-b", "tau_ap": "tau_AP"}


def _forest(ax: Any, y: np.ndarray, value: np.ndarray, low: np.ndarray, high: np.ndarray, colour: Any,
            marker: str = "o", size: float = 4.0) -> None:
    ok = np.isfinite(value)
    ax.errorbar(value[ok], y[ok], xerr=[np.maximum(value[ok] - low[ok], 0), np.maximum(high[ok] - value[ok], 0)],
                fmt=marker, ms=size, color=colour, ecolor=colour, elinewidth=1.0, capsize=1.5)


def plot_judge_ranking(ranking: Any, statistics: Optional[list[str]] = None, cmap: str = "Blues",
                       title: Optional[str] = None):
    """One row per judge, best first: its confusion of grades (label agreement) and its statistics with intervals.

    ``statistics``: for a label agreement, the statistics shown side by side (default: kappa,
    quadratic kappa, ordinal alpha; the first is the ranking's own, with the rank interval in the
    row label); bold labels: judges tied with the best.
    """
    import matplotlib.pyplot as plt

    from ir_cwla.meta.labels import LabelAgreement

    table = ranking.ranking
    names = list(table["alternative"])
    n = len(names)
    source = ranking.source
    labels_case = isinstance(source, LabelAgreement)
    if labels_case:
        chosen = statistics or list(dict.fromkeys([ranking.statistic, "kappa", "kappa_quadratic", "alpha_ordinal"]))[:3]
        unknown = [s for s in chosen if s not in STATISTIC_NAMES or s in ("tau", "tau_ap")]
        if unknown:
            raise ParameterError(f"statistics must be label statistics, got {unknown}")
        overall = source.table(chosen).set_index("alternative")
    else:
        chosen = [ranking.statistic]
    columns = len(chosen) + (1 if labels_case else 0)
    widths = ([1.8] if labels_case else []) + [3.0] * len(chosen)
    fig, axes = plt.subplots(1, columns, figsize=(sum(widths) + 2.6, 0.30 * n + 1.6), sharey=True,
                             layout="constrained", gridspec_kw={"width_ratios": widths}, squeeze=False)
    axes = axes[0]
    y = np.arange(n)[::-1].astype(float)
    if labels_case:
        heat = axes[0]
        grades = sorted({g for a in names for g in source.categories[a]})
        k = len(grades)
        for row, name in zip(y, names):
            matrix = source.confusion(alternative=name)
            counts = matrix.reindex(index=grades, columns=grades, fill_value=0).to_numpy(dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                share = counts / counts.sum(axis=1, keepdims=True)
            heat.imshow(share.reshape(1, -1), extent=(0, k * k, row - 0.42, row + 0.42), aspect="auto", vmin=0,
                        vmax=1, cmap=cmap)
        for b in range(1, k):
            heat.axvline(b * k, color="black", lw=1.0)
        heat.set_xticks([k * i + k / 2 for i in range(k)], [str(g) for g in grades], fontsize=7)
        heat.set_xlim(0, k * k)
        heat.set_xlabel(f"{plain(source.reference)}'s grade", fontsize=8)
        heat.set_title(f"the judge's grades (left to right\n{grades[0]}..{grades[-1]}) per {plain(source.reference)} "
                       "grade,\nshare of the block", fontsize=7.5)
    for ax, stat in zip(axes[1:] if labels_case else axes, chosen):
        if labels_case:
            value = overall.loc[names, stat].to_numpy(float)
            low, high = overall.loc[names, f"{stat}_low"].to_numpy(float), overall.loc[names, f"{stat}_high"].to_numpy(float)
        else:
            value = table[stat].to_numpy(float)
            low, high = table[f"{stat}_low"].to_numpy(float), table[f"{stat}_high"].to_numpy(float)
        tied = table["tied_best"].to_numpy(bool)
        _forest(ax, y[tied], value[tied], low[tied], high[tied], "#1f4e9c")
        _forest(ax, y[~tied], value[~tied], low[~tied], high[~tied], "#888888")
        ax.set_xlabel(STATISTIC_NAMES.get(stat, stat) + (" (ranked by)" if stat == ranking.statistic else ""), fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7)
    first = axes[0]
    row_labels = []
    for _, r in table.iterrows():
        interval = "" if not np.isfinite(r["rank_low"]) else f" [{int(r['rank_low'])}-{int(r['rank_high'])}]"
        row_labels.append(f"{int(r['rank'])}{interval} {plain(str(r['alternative']))}")
    first.set_yticks(y, row_labels, fontsize=7)
    for tick, tied in zip(first.get_yticklabels(), table["tied_best"]):
        tick.set_fontweight("bold" if tied else "normal")
    first.set_ylim(-0.7, n - 0.3)
    what = f"{ranking.measure}: " if ranking.measure else ""
    head = plain(title) if title else f"{n} judges against {plain(ranking.reference)}"
    fig.suptitle(f"{head}, {what}ranked by {STATISTIC_NAMES.get(ranking.statistic, ranking.statistic)}\n"
                 f"{ranking.level:.0%} percentile intervals, joint bootstrap over topics ({ranking.trials} resamples, "
                 f"seed {ranking.seed}); label: rank [rank interval]; bold/blue: tied with the best "
                 "(simultaneous test)", fontsize=8.5, parse_math=False)
    return fig


def plot_disjoint(result: Any, statistic: str = "tau", alternative: Optional[str] = None,
                  title: Optional[str] = None):
    """Each measure's agreement (dot, bootstrap interval) beside the null's interval (grey band).

    One row per measure (families in order), one panel per alternative; ``statistic``: ``'tau'``
    or ``'tau_ap'``.
    """
    import matplotlib.pyplot as plt

    if statistic not in ("tau", "tau_ap"):
        raise ParameterError(f"statistic must be 'tau' or 'tau_ap', got {statistic!r}")
    chosen = result._chosen(alternative)
    table = result.table(chosen)
    measures = [result.labels.get(m, m) for m in result.measures]
    n = len(measures)
    fig, axes = plt.subplots(1, len(chosen), figsize=(max(8.0, 4.6 * len(chosen) + 1.4), 0.23 * n + 2.0), sharey=True,
                             layout="constrained", squeeze=False)
    y = np.arange(n)[::-1].astype(float)
    low_all = np.nanmin(table[[f"{statistic}_low", f"null_{statistic}_low"]].to_numpy(float))
    for ax, alt in zip(axes[0], chosen):
        part = table[table["alternative"] == alt].set_index("measure").loc[measures]
        for yi, (lo, hi) in zip(y, part[[f"null_{statistic}_low", f"null_{statistic}_high"]].to_numpy(float)):
            ax.fill_betweenx([yi - 0.35, yi + 0.35], lo, hi, color="#bbbbbb", alpha=0.6, lw=0)
        ax.plot(part[f"null_{statistic}"], y, "|", color="#555555", ms=7)
        p = part[f"p_{statistic}"].to_numpy(float)
        below = p < result.alpha
        value = part[statistic].to_numpy(float)
        low, high = part[f"{statistic}_low"].to_numpy(float), part[f"{statistic}_high"].to_numpy(float)
        _forest(ax, y[~below], value[~below], low[~below], high[~below], "#1f4e9c")
        _forest(ax, y[below], value[below], low[below], high[below], "#c0392b", marker="D", size=4.5)
        family = {m: g for g, members in result.groups.items() for m in members}
        for i in range(1, n):           # a line where the family changes along the measure order
            if family[result.measures[i]] != family[result.measures[i - 1]]:
                ax.axhline(n - i - 0.5, color="grey", lw=0.5, alpha=0.5)
        ax.set_xlim(max(-1.0, np.floor(low_all * 10) / 10), 1.0)
        ax.set_title(f"{plain(result.reference)} ({int(part['topics_a'].iloc[0])} topics) vs {plain(alt)} "
                     f"({int(part['topics_b'].iloc[0])} topics)", fontsize=9, parse_math=False)
        ax.set_xlabel(STATISTIC_NAMES[statistic] + " between the systems' rankings", fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0][0].set_yticks(y, [plain(m) for m in measures], fontsize=7)
    axes[0][0].set_ylim(-0.7, n - 0.3)
    sets = ", ".join(sorted(set(result.null_sets.values())))
    head = plain(title) if title else "Do topic-disjoint collections rank the systems alike?"
    fig.suptitle(f"{head}\ndots: observed with {result.level:.0%} bootstrap interval ({result.bootstrap} resamples);\n"
                 f"grey: the null from {plain(result.reference if result.null == 'a' else 'the other collection')} "
                 f"alone ({sets} topic sets, {result.null_trials} trials, median and {result.level:.0%} interval);\n"
                 f"red diamonds: below the null (p < {result.alpha:g}); seed {result.seed}", fontsize=8.5,
                 parse_math=False)
    return fig


def plot_judge_bias(result: Any, measure: Optional[str] = None, title: Optional[str] = None):
    """Ranks under both assessors (one measure) and every measure's effect with its interval.

    Left: each run's rank under the reference and under the judge for ``measure`` (default: the
    first), the family's runs marked; right: every measure's effect (the family's mean rank change
    minus the other runs') with its two-way bootstrap interval.
    """
    import matplotlib.pyplot as plt

    chosen = measure if measure is not None else result.labels.get(result.measures[0], result.measures[0])
    runs = result.runs_table(chosen)
    table = result.table()
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, max(5.0, 0.24 * len(table) + 1.8)), layout="constrained",
                                      gridspec_kw={"width_ratios": [1.0, 1.1]})
    fam = runs["family"].to_numpy(bool)
    x, yv = runs["rank_reference"].to_numpy(float), runs["rank_judged"].to_numpy(float)
    n_runs = int(table["runs"].iloc[0])
    left.plot([1, n_runs], [1, n_runs], color="grey", lw=0.8, ls=":")
    left.scatter(x[~fam], yv[~fam], s=22, color="#888888", label="other runs", zorder=2)
    left.scatter(x[fam], yv[fam], s=30, color="#c0392b", marker="D", label="the judge's family", zorder=3)
    left.set_xlabel(f"rank under {plain(result.reference)}", fontsize=9)
    left.set_ylabel(f"rank under {plain(result.judged)}", fontsize=9)
    left.invert_xaxis()
    left.invert_yaxis()
    left.set_title(f"{plain(chosen)}: above the diagonal: moves up under the judge", fontsize=9, parse_math=False)
    left.legend(fontsize=8, loc="lower right")
    left.grid(True, alpha=0.25)
    y = np.arange(len(table))[::-1].astype(float)
    value = table["effect_rank"].to_numpy(float)
    low, high = table["effect_rank_low"].to_numpy(float), table["effect_rank_high"].to_numpy(float)
    significant = table["p_rank_holm"].to_numpy(float) < result.alpha
    _forest(right, y[~significant], value[~significant], low[~significant], high[~significant], "#1f4e9c")
    _forest(right, y[significant], value[significant], low[significant], high[significant], "#c0392b", marker="D")
    right.axvline(0.0, color="grey", lw=0.8)
    right.set_yticks(y, [plain(m) for m in table["measure"]], fontsize=7)
    right.set_ylim(-0.7, len(table) - 0.3)
    right.set_xlabel("mean rank change of the family minus the others' (positions; > 0: the family gains)",
                     fontsize=8)
    right.set_title(f"{len(result.family)} family runs of {n_runs}; {result.level:.0%} two-way bootstrap intervals",
                    fontsize=9)
    right.grid(True, axis="x", alpha=0.3)
    head = plain(title) if title else f"Does {plain(result.judged)} favour its own model family?"
    fig.suptitle(f"{head}\npermutation test over the group labels ({'exact' if result.exact else str(result.trials) + ' random'} "
                 f"assignments, alternative {result.alternative}); red: Holm-adjusted p < {result.alpha:g}; "
                 f"seed {result.seed}", fontsize=9, parse_math=False)
    return fig


def plot_corrected_validation(result: Any, measures: Optional[list[str]] = None, title: Optional[str] = None):
    """Coverage (left) and mean width (right) of the PPI and classical intervals against the share hidden."""
    import matplotlib.pyplot as plt

    table = result.table()
    chosen = measures or list(dict.fromkeys(table["measure"]))[:6]
    fig, (cover, width) = plt.subplots(1, 2, figsize=(11.5, 4.2), layout="constrained")
    colours = plt.get_cmap("tab10")
    for i, m in enumerate(chosen):
        part = table[table["measure"] == m].sort_values("share_hidden")
        share = part["share_hidden"].to_numpy(float)
        for ax, (a, b) in ((cover, ("coverage_ppi", "coverage_classical")), (width, ("width_ppi", "width_classical"))):
            ax.plot(share, part[a], "-o", color=colours(i), ms=4, label=f"{plain(m)} PPI" if ax is cover else None)
            ax.plot(share, part[b], "--s", color=colours(i), ms=3.5, alpha=0.7,
                    label=f"{plain(m)} classical" if ax is cover else None)
    cover.axhline(1 - result.alpha, color="black", lw=0.8, ls=":")
    cover.set_ylabel("coverage of the full human score", fontsize=9)
    width.set_ylabel("mean interval width", fontsize=9)
    for ax in (cover, width):
        ax.set_xlabel("share of the topics' human labels hidden", fontsize=9)
        ax.grid(True, alpha=0.3)
    cover.legend(fontsize=7, ncol=2)
    head = plain(title) if title else "Corrected scores (PPI) against the human labels alone"
    fig.suptitle(f"{head}: {result.repetitions} random hidings per share, seed {result.seed}; solid: PPI, dashed: "
                 f"classical (labelled topics only); dotted: nominal {1 - result.alpha:.0%}", fontsize=9,
                 parse_math=False)
    return fig
